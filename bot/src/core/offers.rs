//! Offers and endings: resign, draw, takeback, abort.

use super::*;

impl Core {
    pub(super) fn finish(&self, msg: &Incoming, loaded: &Loaded, outcome: Outcome, reason: &str) -> Answer {
        let end = GameEnd { outcome, reason: reason.to_string(), at: msg.at, message_id: msg.message_id.clone() };
        let Some(record) = applied(self.store.finish_game(&loaded.record.key, loaded.record.version, &end))? else {
            return Ok(Vec::new());
        };
        let winner = match outcome {
            Outcome::WhiteWins => Some(Color::White),
            Outcome::BlackWins => Some(Color::Black),
            _ => None,
        };
        Ok(vec![Reply::text(format!("Game {}: {}", record.key.id.as_str(), result_words(&record, winner, reason)))])
    }

    pub(super) fn player_colour(&self, msg: &Incoming, loaded: &Loaded) -> Result<Colour, Refusal> {
        loaded.record.colour_of(&msg.sender.id).ok_or_else(|| Refusal("Only the players can do that.".into()))
    }

    pub(super) fn resign(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        let colour = self.player_colour(msg, &loaded)?;
        if loaded.clash.is_some() && !clash::between_rounds(&loaded) {
            // CA13: resigning a round loses it, and the whole army.
            return self.resign_round(msg, &loaded, colour);
        }
        // Between the rounds of a Clash match, resigning gives up the match.
        let outcome = match colour {
            Colour::White => Outcome::BlackWins,
            Colour::Black => Outcome::WhiteWins,
        };
        self.finish(msg, &loaded, outcome, "resignation")
    }

    pub(super) fn draw(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        if self.is_bot(&msg.platform, &other_player(&loaded.record, &msg.sender.id)) {
            return refuse("I play on: I do not agree to draws. You may /resign, or ask for a /takeback.");
        }
        clash::check_draw(&loaded)?;
        match loaded.record.offer(OfferKind::Draw) {
            Some(o) if o.by != msg.sender.id && loaded.clash.is_some() => self.agree_round_draw(msg, &loaded),
            Some(o) if o.by != msg.sender.id => self.finish(msg, &loaded, Outcome::Draw, "agreement"),
            Some(_) => refuse("You have offered a draw already; your opponent may /draw to accept."),
            None => {
                let offer = Offer { kind: OfferKind::Draw, by: msg.sender.id.clone(), at: msg.at };
                if applied(self.store.make_offer(
                    &loaded.record.key,
                    loaded.record.version,
                    &offer,
                    msg.message_id.as_deref(),
                ))?
                .is_none()
                {
                    return Ok(Vec::new());
                }
                let opponent = other_player(&loaded.record, &msg.sender.id);
                Ok(vec![Reply {
                    text: format!(
                        "{} offers a draw. {}: /draw to accept.",
                        mention(&msg.sender.id),
                        mention(&opponent)
                    ),
                    picture: None,
                    buttons: vec![Button { label: "Accept draw".into(), command: "/draw".into() }],
                }])
            }
        }
    }

    pub(super) fn takeback(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        clash::check_round(&loaded)?;
        let r = &loaded.record;
        let against_bot = self.is_bot(&msg.platform, &other_player(r, &msg.sender.id));
        let accepted = match r.offer(OfferKind::Takeback { plies: 0 }) {
            Some(Offer { kind: OfferKind::Takeback { plies }, by, .. }) if *by != msg.sender.id => {
                Some(*plies as usize)
            }
            _ if against_bot => {
                // The bot always agrees: back to before the player's last move.
                let Some(last_own) = r.moves.iter().rposition(|m| m.by == msg.sender.id) else {
                    return refuse("You have not moved yet: there is nothing to take back.");
                };
                Some(r.moves.len() - last_own)
            }
            _ => None,
        };
        if let Some(plies) = accepted {
            let plies = plies.min(r.moves.len());
            let mut replay = self.load(GameRecord { moves: r.moves[..r.moves.len() - plies].to_vec(), ..r.clone() })?;
            let fen = replay.game.position().fen();
            let taken = self.store.take_back(&r.key, r.version, plies, &fen, msg.at, msg.message_id.as_deref());
            let Some(stored) = applied(taken)? else { return Ok(Vec::new()) };
            replay.record = stored;
            let next = replay.game.position().turn();
            let picture = self.picture(&replay, next, |_| {});
            let text = format!(
                "{} taken back. {}, your move.",
                count(plies, "move"),
                mention(replay.record.player(colour_of(next)))
            );
            return Ok(vec![Reply { text, picture, buttons: self.game_buttons(&replay) }]);
        }
        if r.offer(OfferKind::Takeback { plies: 0 }).is_some() {
            return refuse("You have asked for a takeback already; your opponent may /takeback to accept.");
        }
        // Back to the sender's last move: one ply if they moved last, two if
        // the opponent has answered.
        let Some(last_own) = r.moves.iter().rposition(|m| m.by == msg.sender.id) else {
            return refuse("You have not moved yet: there is nothing to take back.");
        };
        let plies = (r.moves.len() - last_own) as u32;
        let offer = Offer { kind: OfferKind::Takeback { plies }, by: msg.sender.id.clone(), at: msg.at };
        if applied(self.store.make_offer(&r.key, r.version, &offer, msg.message_id.as_deref()))?.is_none() {
            return Ok(Vec::new());
        }
        let opponent = other_player(r, &msg.sender.id);
        Ok(vec![Reply {
            text: format!(
                "{} asks to take back {}. {}: /takeback to accept.",
                mention(&msg.sender.id),
                count(plies as usize, "move"),
                mention(&opponent)
            ),
            picture: None,
            buttons: vec![Button { label: "Accept takeback".into(), command: "/takeback".into() }],
        }])
    }

    pub(super) fn abort(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        if loaded.clash.as_ref().is_some_and(|m| !m.history.is_empty()) {
            return refuse("A round has been played: the match can no longer be aborted. You may /resign.");
        }
        if loaded.record.moves.len() >= 2 {
            return refuse("Both sides have moved: the game can no longer be aborted. /resign or offer a /draw.");
        }
        self.finish(msg, &loaded, Outcome::Aborted, "aborted")
    }
}
