//! Offers and endings: resign, draw, takeback, abort, and declining offers.

use super::*;
use crate::command::OfferChoice;

/// How long a `/resign` waits for its confirmation, in milliseconds.
pub(super) const RESIGN_WINDOW: u64 = 120_000;

/// The `/resign` a player would ask now: in this position, at `at`.
fn ask_now(loaded: &Loaded, by: &str, at: Timestamp) -> ResignAsk {
    ResignAsk {
        by: by.to_string(),
        at,
        plies: loaded.record.moves.len(),
        rounds: loaded.clash.as_ref().map_or(0, |m| m.history.len()),
    }
}

/// Whether `ask` still waits for its confirmation at `now`: asked in the
/// same position (no move, takeback or round since) within [`RESIGN_WINDOW`].
fn still_open(ask: &ResignAsk, now: &ResignAsk) -> bool {
    ask.plies == now.plies && ask.rounds == now.rounds && now.at.0.saturating_sub(ask.at.0) <= RESIGN_WINDOW
}

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
        let words = match outcome {
            // Who called it off: the opponent learns it here.
            Outcome::Aborted => format!("aborted by {}, without a result.", mention(&msg.sender.id)),
            _ => result_words(&record, winner, reason),
        };
        let mut replies = vec![Reply::text(format!("Game {}: {words}", record.key.id.as_str()))];
        replies.extend(self.game_over(&record));
        Ok(replies)
    }

    pub(super) fn player_colour(&self, msg: &Incoming, loaded: &Loaded) -> Result<Colour, Refusal> {
        loaded.record.colour_of(&msg.sender.id).ok_or_else(|| Refusal("Only the players can do that.".into()))
    }

    /// `/resign`: asks for a confirmation, unless the sender asked to resign
    /// this very position within [`RESIGN_WINDOW`] already (a second
    /// `/resign` confirms, like `/resign yes`).
    pub(super) fn resign(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        let now = ask_now(&loaded, &msg.sender.id, msg.at);
        let record = &loaded.record;
        // A retried delivery of the `/resign` that asked is asked again, not
        // taken for its confirmation.
        let retried = clash::seen(record, msg);
        let asked = record.resign_asks.iter().find(|a| a.by == msg.sender.id);
        if !retried && asked.is_some_and(|a| still_open(a, &now)) {
            return self.resign_now(msg, &loaded);
        }
        if !retried {
            // The question is kept with the game: a second `/resign` confirms
            // it whichever process it reaches, and after a restart.
            applied(self.store.set_resign_ask(
                &record.key,
                record.version,
                &msg.sender.id,
                Some(&now),
                msg.message_id.as_deref(),
            ))?;
        }
        let id = loaded.record.key.id.as_str();
        let loses = match &loaded.clash {
            Some(m) if !clash::between_rounds(&loaded) => {
                format!("resign round {} of game {id}? You lose the round and your whole army (CA13).", m.round)
            }
            Some(_) => format!("give up the match (game {id})? You lose it."),
            None => format!("resign game {id}? You lose it."),
        };
        let minutes = RESIGN_WINDOW / 60_000;
        Ok(vec![Reply {
            text: format!(
                "{}, {loses} Confirm with /resign yes (or /resign again within {minutes} minutes); /resign no to play \
                 on.",
                mention(&msg.sender.id)
            ),
            picture: None,
            buttons: vec![
                Button { label: "Yes, resign".into(), command: "/resign yes".into() },
                Button { label: "No, play on".into(), command: "/resign no".into() },
            ],
        }])
    }

    /// `/resign yes` resigns at once, unless it answers the other player's
    /// question (their button); `/resign no` withdraws the question.
    pub(super) fn resign_confirm(&self, msg: &Incoming, yes: bool) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        let now = ask_now(&loaded, &msg.sender.id, msg.at);
        let record = &loaded.record;
        let asked = record.resign_asks.iter().find(|a| a.by == msg.sender.id);
        if yes {
            // A `/resign yes` answering the other player's question (their
            // button, pressed by the wrong person) resigns nothing.
            let theirs = record.resign_asks.iter().find(|a| a.by != msg.sender.id && still_open(a, &now));
            if asked.is_none()
                && let Some(other) = theirs
            {
                return refuse(format!(
                    "That question was {}'s, not yours: your game goes on. To resign yourself, send /resign.",
                    mention(&other.by)
                ));
            }
            return self.resign_now(msg, &loaded);
        }
        let retried = clash::seen(record, msg);
        match asked {
            Some(a) if still_open(a, &now) => {
                applied(self.store.set_resign_ask(
                    &record.key,
                    record.version,
                    &msg.sender.id,
                    None,
                    msg.message_id.as_deref(),
                ))?;
                Ok(vec![Reply::text(format!("{} plays on.", mention(&msg.sender.id)))])
            }
            // The `/resign no` that withdrew it, delivered again.
            _ if retried => Ok(vec![Reply::text(format!("{} plays on.", mention(&msg.sender.id)))]),
            _ => refuse("You have not asked to resign this position: there is nothing to withdraw. Play on."),
        }
    }

    fn resign_now(&self, msg: &Incoming, loaded: &Loaded) -> Answer {
        let colour = self.player_colour(msg, loaded)?;
        if loaded.clash.is_some() && !clash::between_rounds(loaded) {
            // CA13: resigning a round loses it, and the whole army.
            return self.resign_round(msg, loaded, colour);
        }
        // Between the rounds of a Clash match, resigning gives up the match.
        let outcome = match colour {
            Colour::White => Outcome::BlackWins,
            Colour::Black => Outcome::WhiteWins,
        };
        self.finish(msg, loaded, outcome, "resignation")
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
            Some(_) => refuse(
                "You have offered a draw already; your opponent may /draw to accept, and /cancel draw withdraws it.",
            ),
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
                        "{} offers a draw. {}: /draw to accept, /decline draw to decline.",
                        mention(&msg.sender.id),
                        mention(&opponent)
                    ),
                    picture: None,
                    buttons: vec![
                        Button { label: "Accept draw".into(), command: "/draw".into() },
                        Button { label: "Decline".into(), command: "/decline draw".into() },
                    ],
                }])
            }
        }
    }

    pub(super) fn takeback(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        clash::check_round(&loaded, &msg.sender.id)?;
        let r = &loaded.record;
        let against_bot = self.is_bot(&msg.platform, &other_player(r, &msg.sender.id));
        let accepted = match r.offer(OfferKind::Takeback { plies: 0 }) {
            Some(Offer { kind: OfferKind::Takeback { plies }, by, .. }) if *by != msg.sender.id => {
                Some(*plies as usize)
            }
            _ if against_bot => {
                // The bot always agrees: back to before the player's last move.
                let Some(last_own) = r.moves.iter().rposition(|m| m.by == msg.sender.id) else {
                    return refuse("None of your moves is on the board: there is nothing to take back.");
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
            // A draw offer standing goes with the position it was made in.
            let lapsed: String = r
                .offers
                .iter()
                .filter(|o| o.kind == OfferKind::Draw)
                .map(|o| format!(" {}'s draw offer lapses with it.", mention(&o.by)))
                .collect();
            let text = format!(
                "{} taken back.{lapsed} {}, your move.",
                count(plies, "move"),
                mention(replay.record.player(colour_of(next)))
            );
            return Ok(vec![Reply { text, picture, buttons: self.game_buttons(&replay) }]);
        }
        if r.offer(OfferKind::Takeback { plies: 0 }).is_some() {
            return refuse(
                "You have asked for a takeback already; your opponent may /takeback to accept, and /cancel takeback \
                 withdraws it.",
            );
        }
        // Back to the sender's last move: one ply if they moved last, two if
        // the opponent has answered.
        let Some(last_own) = r.moves.iter().rposition(|m| m.by == msg.sender.id) else {
            return refuse("None of your moves is on the board: there is nothing to take back.");
        };
        let plies = (r.moves.len() - last_own) as u32;
        let offer = Offer { kind: OfferKind::Takeback { plies }, by: msg.sender.id.clone(), at: msg.at };
        if applied(self.store.make_offer(&r.key, r.version, &offer, msg.message_id.as_deref()))?.is_none() {
            return Ok(Vec::new());
        }
        let opponent = other_player(r, &msg.sender.id);
        Ok(vec![Reply {
            text: format!(
                "{} asks to take back {}. {}: /takeback to accept, /decline takeback to decline.",
                mention(&msg.sender.id),
                count(plies as usize, "move"),
                mention(&opponent)
            ),
            picture: None,
            buttons: vec![
                Button { label: "Accept takeback".into(), command: "/takeback".into() },
                Button { label: "Decline".into(), command: "/decline takeback".into() },
            ],
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

    /// The draw and takeback offers the opponent has made to the sender in
    /// the sender's game here (none without a game).
    pub(super) fn offers_to(&self, msg: &Incoming) -> Result<Option<(Loaded, Vec<Offer>)>, Refusal> {
        let Some(record) = self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)? else {
            return Ok(None);
        };
        let loaded = self.load(record)?;
        let offers: Vec<Offer> = loaded.record.offers.iter().filter(|o| o.by != msg.sender.id).cloned().collect();
        Ok(Some((loaded, offers)))
    }

    /// `/accept draw`, `/accept takeback`: accepts the opponent's offer of
    /// that kind, as `/draw` or `/takeback` would; where there is none,
    /// says so rather than making one.
    pub(super) fn accept_offer(&self, msg: &Incoming, choice: OfferChoice) -> Answer {
        let kind = offer_kind(choice);
        let what = offer_words(&kind);
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        match loaded.record.offer(kind) {
            None => refuse(format!("There is no {what} to accept.")),
            Some(o) if o.by == msg.sender.id => {
                refuse(format!("That {what} is your own; it stands until your opponent answers it."))
            }
            Some(_) if choice == OfferChoice::Draw => self.draw(msg),
            Some(_) => self.takeback(msg),
        }
    }

    /// `/cancel draw`, `/cancel takeback`, or `/cancel` in a game where the
    /// sender has one offer standing: withdraws the sender's own offer.
    pub(super) fn withdraw_offer(&self, msg: &Incoming, choice: Option<OfferChoice>) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        let mine: Vec<&Offer> = loaded
            .record
            .offers
            .iter()
            .filter(|o| o.by == msg.sender.id)
            .filter(|o| choice.is_none_or(|c| o.kind.name() == offer_kind(c).name()))
            .collect();
        let offer = match (mine.as_slice(), choice) {
            ([one], _) => (*one).clone(),
            ([], Some(OfferChoice::Draw)) => return refuse("You have offered no draw: there is nothing to withdraw."),
            ([], _) => return refuse("You have asked for no takeback: there is nothing to withdraw."),
            _ => {
                return refuse(
                    "You offer a draw and ask for a takeback; say which to withdraw: /cancel draw or /cancel takeback.",
                );
            }
        };
        let r = &loaded.record;
        let cleared = self.store.clear_offer(&r.key, r.version, offer.kind, msg.message_id.as_deref());
        if applied(cleared)?.is_none() {
            return Ok(Vec::new());
        }
        Ok(vec![Reply::text(format!("{} withdraws the {}.", mention(&msg.sender.id), offer_words(&offer.kind)))])
    }

    /// `/decline draw`, `/decline takeback`: declines the opponent's offer
    /// of that kind.
    pub(super) fn decline_offer(&self, msg: &Incoming, choice: OfferChoice) -> Answer {
        let kind = offer_kind(choice);
        let what = offer_words(&kind);
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        match loaded.record.offer(kind) {
            None => refuse(format!("There is no {what} to decline.")),
            Some(o) if o.by == msg.sender.id => refuse(format!(
                "That {what} is your own; it stands until your opponent answers it (their move declines it), or \
                 /cancel {} withdraws it.",
                o.kind.name()
            )),
            Some(o) => {
                let offer = o.clone();
                self.decline_this(msg, &loaded, &offer)
            }
        }
    }

    /// Clears `offer` as declined by the sender.
    pub(super) fn decline_this(&self, msg: &Incoming, loaded: &Loaded, offer: &Offer) -> Answer {
        let r = &loaded.record;
        let cleared = self.store.clear_offer(&r.key, r.version, offer.kind, msg.message_id.as_deref());
        if applied(cleared)?.is_none() {
            return Ok(Vec::new());
        }
        Ok(vec![Reply::text(format!(
            "{} declines the {} of {}. Play goes on.",
            mention(&msg.sender.id),
            offer_words(&offer.kind),
            mention(&offer.by)
        ))])
    }
}

/// "draw offer", "takeback request".
/// The kind of offer a command's word names (a takeback of any length).
fn offer_kind(choice: OfferChoice) -> OfferKind {
    match choice {
        OfferChoice::Draw => OfferKind::Draw,
        OfferChoice::Takeback => OfferKind::Takeback { plies: 0 },
    }
}

pub(super) fn offer_words(kind: &OfferKind) -> &'static str {
    match kind {
        OfferKind::Draw => "draw offer",
        OfferKind::Takeback { .. } => "takeback request",
    }
}
