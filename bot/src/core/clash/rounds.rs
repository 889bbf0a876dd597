//! A round's end (CA10, CA13, CA14): the move, resignation or agreed draw
//! that ends it, the score and the survivors, the next round's army phase or
//! the match's end, and the bot's part between rounds.

use super::auction::raise_words;
use super::*;

impl Core {
    /// Ends the round of `loaded` with `result` (CA10, CA13): the survivors
    /// go back to their armies, the points are counted, and the match goes
    /// on to its next round's army phase or auction, or ends (the game is
    /// then finished, rated by the match). `last` is the move that ended
    /// the round, with the game after it, stored in the same step. Returns
    /// the match after it and what to say; `None` for a retried delivery.
    pub(in crate::core) fn end_round(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        loaded: &Loaded,
        last: Option<(&Game, MoveRecord)>,
        result: RoundResult,
    ) -> Result<Option<(Loaded, String)>, Refusal> {
        let Some(before) = &loaded.clash else { return refuse("That is no Clash of the Armies match.") };
        let (game, mv) = match last {
            Some((g, mv)) => (g, Some(mv)),
            None => (&loaded.game, None),
        };
        let pos = game.position();
        let mut survivors = Vec::new();
        for rank in 0..8 {
            for file in 0..8 {
                let Some(sq) = Square::from_coords(file, rank) else { continue };
                if let Some(p) = pos.piece_at(sq) {
                    survivors.push((sq, p.color, pos.letter(p)));
                }
            }
        }
        let mut m = before.clone();
        m.end_round(result, &survivors).map_err(army_refusal)?;
        let r = &loaded.record;
        let name = |c: Color| Self::player_name(r, c);
        let round = before.round;

        let over = m.winner().is_some();
        let mut words = match result.winner {
            Some(w) => {
                let mut s = format!("Round {round} to {} ({}).", name(w), result.reason);
                match result.reason {
                    // The match is over: no army goes on.
                    _ if over => {}
                    RoundEnd::Resignation => {
                        let _ = write!(s, " {} loses the whole army.", name(!w));
                    }
                    RoundEnd::Checkmate | RoundEnd::Time => {
                        if let Some(leader) = before.army(!w).leader() {
                            let _ = write!(s, " {} loses the {leader}.", name(!w));
                        }
                    }
                    _ => {}
                }
                s
            }
            None => {
                let mut s = format!("Round {round} is drawn ({}).", result.reason);
                if round == ULTIMATE_ROUND
                    && let Some(odds) = before.draw_odds
                {
                    let _ = write!(s, " With the draw odds it counts as {}'s win.", name(odds));
                }
                s
            }
        };
        let _ = write!(
            words,
            " Match score: {} {}, {} {}.",
            name(Color::White),
            points_text(m.half_points(Color::White)),
            name(Color::Black),
            points_text(m.half_points(Color::Black))
        );
        let outcome_text = words.clone();
        let fen = game.position().fen();
        let change = |g: &mut GameRecord| -> Result<(), StoreError> {
            if let Some(mv) = &mv {
                g.moves.push(mv.clone());
                g.fen.clone_from(&fen);
            }
            g.offers.clear();
            g.reminded_at = None;
            g.updated_at = at;
            write_match(g, &m)?;
            if let Some(c) = g.clash.as_mut() {
                let bids = c.sealed_bids.iter().filter(|b| b.round == u32::from(round)).cloned().collect();
                c.rounds.push(ClashRound {
                    number: u32::from(round),
                    bids,
                    outcome: outcome_text.clone(),
                    start_fen: g.start_fen.clone(),
                    moves: g.moves.iter().map(|m| m.text.clone()).collect(),
                });
            }
            Ok(())
        };
        let stored = if let Some(winner) = m.winner() {
            let reason =
                format!("match {}-{}", points_text(m.half_points(winner)), points_text(m.half_points(!winner)));
            let end = GameEnd {
                outcome: outcome_of(Some(winner)),
                reason: reason.clone(),
                at,
                message_id: message_id.map(str::to_string),
            };
            let Some(stored) = applied(self.store.finish_game_with(&r.key, r.version, &end, change))? else {
                return Ok(None);
            };
            let _ = write!(words, " The match is over: {}", result_words(&stored, Some(winner), &reason));
            self.notify_round_over(&stored, round);
            self.notify_game_over(&stored);
            stored
        } else {
            let Some(stored) = applied(self.store.update_game(&r.key, r.version, message_id, change))? else {
                return Ok(None);
            };
            self.notify_round_over(&stored, round);
            let gold = |c: Color| gold_text(m.gold(c));
            let _ = write!(
                words,
                "\nThe survivors go back to their armies: {}: {}; {}: {}.",
                name(Color::White),
                m.army(Color::White).describe(),
                name(Color::Black),
                m.army(Color::Black).describe()
            );
            // Against the bot, it says itself what it does next.
            let bot = self.bot_color(r);
            match m.phase {
                Phase::Bidding => {
                    let _ = write!(
                        words,
                        "\nRound {} is the ultimate round: 40 gold each and 10 for each point; {} has {} gold, {} \
                         has {}. First the Amazon is auctioned",
                        m.round,
                        name(Color::White),
                        gold(Color::White),
                        name(Color::Black),
                        gold(Color::Black)
                    );
                    words.push_str(if bot.is_some() {
                        " by sealed bids (a multiple of 0.5, at most your gold)."
                    } else {
                        ": each of you sends me a sealed bid in a private message, /bid AMOUNT (a multiple of 0.5, at \
                         most your gold)."
                    });
                }
                _ => {
                    let _ = write!(
                        words,
                        "\nRound {}: 40 gold each; {} has {} gold, {} has {}.",
                        m.round,
                        name(Color::White),
                        gold(Color::White),
                        name(Color::Black),
                        gold(Color::Black),
                    );
                    if bot != Some(Color::White) {
                        let _ = write!(
                            words,
                            " {} (White) sets up first: /army shows your army; /buy, /sell and /place, then /ready.",
                            name(Color::White)
                        );
                    }
                }
            }
            stored
        };
        Ok(Some((Loaded { record: stored, game: game.clone(), clash: Some(m) }, words)))
    }

    /// A move that ended a round: stored with the round's end.
    pub(in crate::core) fn move_ends_round(
        &self,
        msg: &Incoming,
        loaded: &Loaded,
        game: &Game,
        record: MoveRecord,
        played: &kibitz_rules::Played,
        outcome: kibitz_rules::Outcome,
    ) -> Answer {
        let (at, id) = (msg.at, msg.message_id.as_deref());
        let Some((after, mut text)) =
            self.round_ending_move(at, id, &msg.sender.id, loaded, game, record, played, outcome)?
        else {
            return Ok(Vec::new());
        };
        let picture = self.round_picture(&after, game.position().turn());
        // Against the bot: it goes on with its part of the next round.
        self.with_bot(msg, after, &mut text);
        Ok(vec![Reply { text, picture, buttons: Vec::new() }])
    }

    /// The final position of a round that ended on the board, with its
    /// result; `None` for a round that ended otherwise.
    pub(in crate::core) fn round_picture(&self, l: &Loaded, view: Color) -> Option<Picture> {
        let outcome = l.game.outcome()?;
        let r = &l.record;
        let platform = &r.key.channel.platform;
        let round = l.clash.as_ref().and_then(|m| m.history.last()).map_or(1, |h| h.round);
        // The round's result, apart from the match's (the note).
        let status = match outcome.winner {
            Some(w) => format!("Round {round} to {} ({})", self.name(platform, r.player(colour_of(w))), outcome.reason),
            None => format!("Round {round} drawn ({})", outcome.reason),
        };
        let note = l.clash.as_ref().map(|m| self.standing_note(r, m, true)).unwrap_or_default();
        self.picture(l, view, |o| {
            if let Some(c) = o.caption.as_mut() {
                c.status = status;
                c.note = note;
            }
        })
    }

    /// Stores `mover`'s move that ended a round (`game` is after it) with
    /// the round's end. Returns the match after it, and what to say.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::core) fn round_ending_move(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        mover: &str,
        loaded: &Loaded,
        game: &Game,
        record: MoveRecord,
        played: &kibitz_rules::Played,
        outcome: kibitz_rules::Outcome,
    ) -> Result<Option<(Loaded, String)>, Refusal> {
        let result = round_result_of(outcome);
        let Some((after, words)) = self.end_round(at, message_id, loaded, Some((game, record)), result)? else {
            return Ok(None);
        };
        let mut text = if played.san == played.canonical {
            format!("{} played {}.", mention(mover), played.san)
        } else {
            format!("{} played {} ({}).", mention(mover), played.san, played.canonical)
        };
        let _ = write!(text, " {words}");
        Ok(Some((after, text)))
    }

    /// The bot's part between the rounds of a match against it: its army
    /// phase, its sealed bid, its raise or pass ([`plan::act`]). `None`
    /// when the match waits for the other player.
    pub(in crate::core) fn bot_between_rounds(
        &self,
        at: Timestamp,
        loaded: &Loaded,
        bot: Color,
    ) -> Result<Option<(Loaded, String)>, Refusal> {
        let Some(m) = &loaded.clash else { return Ok(None) };
        let r = &loaded.record;
        let style = plan::Style { level: r.settings.bot_level.unwrap_or(5), seed: seed_of(r) };
        let mut next = m.clone();
        let action = plan::act(&mut next, bot, style)
            .map_err(|e| Refusal(format!("I could not take my turn in the match: {e}")))?;
        let Some(action) = action else { return Ok(None) };
        let me = Self::player_name(r, bot);
        let you = Self::player_name(r, !bot);
        let keep = |stored: GameRecord| Loaded { record: stored, game: loaded.game.clone(), clash: Some(next.clone()) };
        let (after, words) = match action {
            plan::Action::Army { .. } => {
                let army = next.army(bot).describe();
                let gold = gold_text(next.gold(bot));
                if let Phase::Playing { round } = next.phase {
                    let fen = next.start_fen();
                    Position::from_fen(&CLASH, &fen)
                        .map_err(|e| Refusal(format!("These armies cannot start a round ({e}).")))?;
                    let Some(stored) = self.store_match(at, None, loaded, &next, |g| round_start(g, &fen))? else {
                        return Ok(None);
                    };
                    let after = self.load(stored)?;
                    let words = format!(
                        "{me} sets up: {army} ({gold} gold left), and is ready. {}",
                        Self::round_begins(&after.record, &next, round)
                    );
                    (after, words)
                } else {
                    let Some(stored) = self.store_match(at, None, loaded, &next, |_| {})? else { return Ok(None) };
                    let words = format!(
                        "{me} sets up first: {army} ({gold} gold left), and is ready.\n{you}, your army phase: you \
                         have {} gold. {ARMY_HELP}",
                        gold_text(next.gold(!bot))
                    );
                    (keep(stored), words)
                }
            }
            plan::Action::Bid(quarters) => {
                let sealed = SealedBid {
                    player: r.player(colour_of(bot)).to_string(),
                    round: u32::from(next.round),
                    bid: gold_text(quarters),
                    at,
                };
                let Some(stored) = self.store_match(at, None, loaded, &next, |g| {
                    if let Some(c) = g.clash.as_mut() {
                        c.sealed_bids.push(sealed.clone());
                    }
                })?
                else {
                    return Ok(None);
                };
                let words = if next.phase == Phase::Bidding {
                    format!(
                        "{me} has sent a sealed bid for the Amazon. {you}, send me yours in a private message: /bid \
                         AMOUNT."
                    )
                } else {
                    format!("Both {}", self.bids_words(&stored, m, &next))
                };
                (keep(stored), words)
            }
            plan::Action::Raise => {
                let Some(stored) = self.store_match(at, None, loaded, &next, |_| {})? else { return Ok(None) };
                let words = raise_words(&stored, &next, bot);
                (keep(stored), words)
            }
            plan::Action::Pass => {
                let Some(stored) = self.store_match(at, None, loaded, &next, |_| {})? else { return Ok(None) };
                let words = format!("{me} passes. {}", self.auction_words(&stored, m, &next));
                (keep(stored), words)
            }
        };
        Ok(Some((after, words)))
    }

    /// `/resign` during a round: the round is lost, and the whole army (CA13).
    pub(in crate::core) fn resign_round(
        &self,
        msg: &Incoming,
        loaded: &Loaded,
        colour: kibitz_storage::Colour,
    ) -> Answer {
        let color = if colour == kibitz_storage::Colour::White { Color::White } else { Color::Black };
        let round = loaded.clash.as_ref().map_or(1, |m| m.round);
        let result = RoundResult::win(!color, RoundEnd::Resignation);
        let Some((after, words)) = self.end_round(msg.at, msg.message_id.as_deref(), loaded, None, result)? else {
            return Ok(Vec::new());
        };
        let mut text = format!(
            "Game {}: {} resigns round {round}. {words}",
            loaded.record.key.id.as_str(),
            mention(&msg.sender.id)
        );
        if self.bot_color(&after.record).is_none() || after.record.result.is_some() {
            return Ok(vec![Reply::text(text)]);
        }
        // Against the bot: it goes on with its part of the next round.
        let after = self.with_bot(msg, after, &mut text);
        Ok(vec![self.shown(&after, color, text)])
    }

    /// A draw offer accepted during a round other than the ultimate one.
    pub(in crate::core) fn agree_round_draw(&self, msg: &Incoming, loaded: &Loaded) -> Answer {
        let result = RoundResult::draw(RoundEnd::Agreement);
        let Some((_, words)) = self.end_round(msg.at, msg.message_id.as_deref(), loaded, None, result)? else {
            return Ok(Vec::new());
        };
        Ok(vec![Reply::text(format!(
            "Game {}: {} accepts the draw. {words}",
            loaded.record.key.id.as_str(),
            mention(&msg.sender.id)
        ))])
    }
}
