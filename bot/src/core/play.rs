//! Playing: moves (as commands and bare), the board, the legal moves, hints.

use kibitz_rules::{Move, MoveError};

use super::*;

impl Core {
    /// A message that is not a command, from a player of a game here: a
    /// move if it has the shape of one (answered like `/move`, refusals and
    /// "not your turn" included), or if it is a legal move of the sender's
    /// turn or a move but for a square beyond the board (`Nf9`, answered
    /// with the reason); otherwise chat, and nothing.
    pub(super) fn bare_move(&self, msg: &Incoming) -> Vec<Reply> {
        let text = msg.text.trim();
        // A move is a word or a few (`Bxc6 keep`, `give rook e2`, `give
        // knight capturing half d7`, `drop a static piece on d2`).
        if text.is_empty() || text.len() > 32 || text.split_whitespace().count() > 6 {
            return Vec::new();
        }
        let Ok(loaded) = self.own_game(msg) else {
            if !shape::move_shaped(text) {
                return Vec::new();
            }
            // A move of a game the clock ended while it was on its way, or
            // of one that ended within the hour.
            return match self.flagged_before(msg) {
                Some(reply) => vec![reply],
                None => self.ended_here(msg, 3_600_000).map(Reply::text).into_iter().collect(),
            };
        };
        if clash::between_rounds(&loaded) {
            // A move before the round: what the match waits for (not to a
            // retried delivery of the move that ended the last round).
            let retried = clash::seen(&loaded.record, msg);
            let player = loaded.record.colour_of(&msg.sender.id).is_some();
            if shape::move_shaped(text) && player && !retried {
                return vec![Reply::text(clash::not_begun(&loaded, &msg.sender.id))];
            }
            // `buy knight`: an army command without its slash.
            let first = text.split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
            if player && ["buy", "sell", "place", "ready", "bid"].contains(&first.as_str()) {
                let rest = text.split_once(char::is_whitespace).map_or("", |(_, r)| r.trim());
                let said = if rest.is_empty() { first.clone() } else { format!("{first} {}", excerpt(rest)) };
                return vec![Reply::text(format!(
                    "Commands begin with a slash: /{said}. /army shows your army and gold."
                ))];
            }
            return Vec::new();
        }
        if !shape::move_shaped(text) {
            let my_turn = loaded.record.colour_of(&msg.sender.id) == Some(colour_of(loaded.game.position().turn()));
            // A drop, grant, swap or shot begun without its square, on the
            // sender's turn: where?
            if my_turn && let Some(ask) = unfinished(text, loaded.game.position()) {
                return vec![Reply::text(ask)];
            }
            // `Nf3 Nc6 Bb5`: a line of moves, on the sender's turn.
            if my_turn && let Some(why) = several_moves(loaded.game.position(), text) {
                return vec![Reply::text(why)];
            }
            // `castle`: how castling is written.
            if my_turn && ["castle", "castles", "castling"].iter().any(|w| text.eq_ignore_ascii_case(w)) {
                let v = loaded.game.position().variant();
                let words = if v.grants {
                    "Castling here is a swap (C6): your King trades places with a piece of yours that holds the \
                     castling power, written swap SQUARE (swap a1) or Ra1<>e1."
                } else if v.armies {
                    "Castling is written O-O or O-O-O, with a Heavy piece in its corner (CA8); /moves e1 (or e8) shows \
                     whether it is legal now."
                } else if v.castling {
                    "Castling is written O-O (on the King's side) or O-O-O (on the Queen's side); /moves e1 (or e8) \
                     shows whether it is legal now."
                } else {
                    "There is no castling in this game."
                };
                return vec![Reply::text(words)];
            }
            if !my_turn || (!shape::off_board_shaped(text) && loaded.game.position().parse_move(text).is_err()) {
                return Vec::new();
            }
        }
        self.play(msg, text).unwrap_or_else(|Refusal(t)| vec![Reply::text(t)])
    }

    /// A move. The same message may be handled at once by two processes (a
    /// delivery posted twice): when the other one applied it meanwhile, the
    /// answer is what it did ([`Core::recap`]), not a refusal or silence.
    pub(super) fn play(&self, msg: &Incoming, text: &str) -> Answer {
        match self.play_move(msg, text) {
            Ok(replies) if replies.is_empty() => Ok(self.recap(msg).unwrap_or_default()),
            Err(refusal) => match self.recap(msg) {
                Some(recap) => Ok(recap),
                None => self.flagged_before(msg).map(|r| vec![r]).ok_or(refusal),
            },
            done => done,
        }
    }

    fn play_move(&self, msg: &Incoming, text: &str) -> Answer {
        let loaded = self.own_game(msg)?;
        clash::check_round(&loaded, &msg.sender.id)?;
        let to_move = loaded.game.position().turn();
        let mover = loaded.record.player(colour_of(to_move)).to_string();
        if mover != msg.sender.id {
            return refuse(format!("It is not your turn: {} is to move.", mention(&mover)));
        }
        if let Some(late) = self.too_late(msg, &loaded, to_move)? {
            return Ok(late);
        }
        let flagged = self.flag_fell(msg, &loaded, to_move)?;
        if !flagged.is_empty() {
            return Ok(flagged);
        }
        let mut game = loaded.game.clone();
        let played = match game.play_text(text) {
            Ok(p) => p,
            Err(e) => {
                if let Some(why) = several_moves(game.position(), text) {
                    return refuse(why);
                }
                if matches!(e, MoveError::Syntax(_) | MoveError::Illegal { .. })
                    && let Some(why) = stray_word(game.position(), text)
                {
                    return refuse(why);
                }
                let said = e.to_string();
                let mut why = quoting(&format!("{said}{}", sentence_end(&said)), text);
                if matches!(e, MoveError::Syntax(_)) {
                    why.push(' ');
                    why.push_str(&guide::how_moves_look(game.position().variant()));
                }
                return refuse(why);
            }
        };
        let record = MoveRecord {
            text: played.canonical.clone(),
            by: msg.sender.id.clone(),
            at: msg.at,
            message_id: msg.message_id.clone(),
        };
        if loaded.clash.is_some()
            && let Some(outcome) = played.outcome
        {
            // The move ends a round of a Clash match: move and round end are one change.
            return self.move_ends_round(msg, &loaded, &game, record, &played, outcome);
        }
        let fen = game.position().fen();
        let clock = self.clock_after_move(&loaded.record, msg.at);
        let r = &loaded.record;
        let Some(stored) = applied(self.store.apply_timed_move(&r.key, r.version, record, &fen, clock))? else {
            return Ok(Vec::new());
        };
        let offered = loaded.record.offers.clone();
        let mut after = Loaded { record: stored, game, clash: loaded.clash };
        let mut text =
            self.after_move(msg.at, msg.message_id.as_deref(), &mut after, &msg.sender.id, &played, &offered);
        let mut view = after.game.position().turn();
        if after.record.settings.bot_level.is_some() {
            // Against the bot: it answers at once, and the board stays on the player's side.
            view = to_move;
            after = self.with_bot(msg, after, &mut text);
            if clash::between_rounds(&after) {
                // The bot's move ended a round: its final position.
                return Ok(vec![Reply { text, picture: self.round_picture(&after, view), buttons: Vec::new() }]);
            }
        }
        Ok(vec![self.shown(&after, view, text)])
    }

    /// A correspondence move judged by when it was sent: one sent after the
    /// mover's days ran out loses on time, as the clock would have judged it
    /// at the deadline (the bot may have been down then, or the message held
    /// up). Clash rounds are left to the clock's tick.
    pub(super) fn too_late(
        &self,
        msg: &Incoming,
        loaded: &Loaded,
        to_move: Color,
    ) -> Result<Option<Vec<Reply>>, Refusal> {
        let r = &loaded.record;
        let Some(days) = r.settings.days_per_move.filter(|_| r.clash.is_none()) else { return Ok(None) };
        let since = r.moves.last().map_or(r.started_at, |m| m.at);
        let deadline = Timestamp(since.0.saturating_add(u64::from(days) * 86_400_000));
        if msg.at < deadline {
            return Ok(None);
        }
        let outcome = if to_move == Color::White { Outcome::BlackWins } else { Outcome::WhiteWins };
        let end = GameEnd { outcome, reason: "time".into(), at: deadline, message_id: msg.message_id.clone() };
        let Some(finished) = applied(self.store.finish_game(&r.key, r.version, &end))? else {
            return Ok(Some(Vec::new()));
        };
        let words = result_words(&finished, Some(!to_move), "time");
        let text = format!(
            "Game {}: your move came after your time ran out ({} per move); {} ran out of time. {words}",
            r.key.id.as_str(),
            count(days as usize, "day"),
            mention(&msg.sender.id)
        );
        let mut replies = vec![Reply::text(text)];
        replies.extend(self.game_over(&finished));
        Ok(Some(replies))
    }

    /// What to say after `mover` played: the move, removals, and the result
    /// (the game is then finished in the store) or who moves next.
    pub(super) fn after_move(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        after: &mut Loaded,
        mover: &str,
        played: &kibitz_rules::Played,
        offered: &[Offer],
    ) -> String {
        let mut text = if played.san == played.canonical {
            format!("{} played {}", mention(mover), played.san)
        } else {
            format!("{} played {} ({})", mention(mover), played.san, played.canonical)
        };
        text.push_str(&taken_words(after.game.position(), played));
        text.push('.');
        text.push_str(&lost_words(after.game.position(), played));
        if let Some((was, now)) = played.absorbed {
            let pos = after.game.position();
            let _ = write!(text, " The {} is now {}.", pos.piece_name(was), pos.powers_name(now));
        }
        // PA3: a declined absorption is said in words (the SAN's `-` alone
        // is easily missed, `Bxc6-+`).
        if let Move::Normal { to, keep: true, .. } | Move::EnPassant { to, keep: true, .. } = played.mv
            && let Some(piece) = after.game.position().piece_at(to)
        {
            let pos = after.game.position();
            let name = pos.piece_name(piece);
            let victim = played
                .taken
                .first()
                .map_or("its victim's".to_string(), |(_, v)| format!("the {}'s", pos.piece_name(*v)));
            let _ = write!(text, " The {name} declines {victim} powers and keeps its own (PA3).");
        }
        // C5, CS5: the reward a pawn move onto the last rank put in the reserve.
        if let Move::Normal { to, promote: kibitz_rules::Promote::To(i), .. } = played.mv
            && after.game.position().variant().grants
        {
            let pos = after.game.position();
            let reward = pos.reward_name(i);
            let now = match pos.piece_at(to) {
                Some(p) if p.powers.is_empty() => "is now static".to_string(),
                Some(p) => format!("is now a {}", pos.piece_name(p)),
                None => "is gone".to_string(),
            };
            let (power, ruling) =
                if pos.variant().split_powers { ("pawn halves are", "CS5") } else { ("pawn power is", "C5") };
            let _ = write!(
                text,
                " Its {power} used up: the piece on {to} {now}, and {reward} goes to the reserve ({ruling})."
            );
        }
        if !played.removed.is_empty() {
            // A5: each side's last moved piece goes, on a third repetition
            // or after fifty quiet moves.
            let pos = after.game.position();
            let each: Vec<String> = played
                .removed
                .iter()
                .map(|(sq, p)| {
                    let side = if p.color == Color::White { "White" } else { "Black" };
                    format!("{side}'s {} on {sq}", pos.piece_name(*p))
                })
                .collect();
            let _ = write!(
                text,
                " {}, so each side's last moved piece goes (A5): {} removed.",
                match played.removal {
                    Some(kibitz_rules::EndReason::FiftyMoves) => {
                        "Fifty moves each have passed without a capture or a pawn move"
                    }
                    _ => "The position came a third time",
                },
                match each.as_slice() {
                    [one] => format!("{one} is"),
                    [rest @ .., last] => format!("{} and {last} are", rest.join(", ")),
                    [] => String::new(),
                }
            );
        }
        // The offers the move ended, said: the opponent's are declined by
        // it, the mover's own takeback request is withdrawn.
        if played.outcome.is_none() {
            let ended: Vec<_> = offered.iter().filter(|o| !after.record.offers.contains(o)).collect();
            let words = |mine: bool| -> Vec<String> {
                ended
                    .iter()
                    .filter(|o| (o.by == mover) == mine)
                    .map(|o| offers::offer_words(&o.kind).to_string())
                    .collect()
            };
            let (own, theirs) = (words(true), words(false));
            if !own.is_empty() {
                let verb = if own.len() == 1 { "is" } else { "are" };
                let _ = write!(text, " {}'s {} {verb} withdrawn by the move.", mention(mover), own.join(" and "));
            }
            if let Some(by) = ended.iter().find(|o| o.by != mover) {
                let _ = write!(text, " The move declines {}'s {}.", mention(&by.by), theirs.join(" and "));
            }
        }
        if let Some(outcome) = played.outcome {
            let end = GameEnd {
                outcome: outcome_of(outcome.winner),
                reason: outcome.reason.to_string(),
                at,
                message_id: message_id.map(|m| format!("{m}:end:{mover}")),
            };
            if let Ok(r) = self.store.finish_game(&after.record.key, after.record.version, &end) {
                self.notify_game_over(&r);
                after.record = r;
            }
            // O6: a repetition that is no draw says so.
            let reason = match outcome.reason {
                kibitz_rules::EndReason::Repetition
                    if after.game.position().variant().repetition == kibitz_rules::Repetition::WhiteLoses =>
                {
                    "threefold repetition: in Olympic Chess it loses for White, O6".to_string()
                }
                r => r.to_string(),
            };
            let _ = write!(text, " {}", result_words(&after.record, outcome.winner, &reason));
        } else {
            let next = after.game.position().turn();
            let next_player = after.record.player(colour_of(next)).to_string();
            if after.game.position().is_check() {
                text.push_str(" Check!");
            }
            // The bot answers at once: the clocks are shown after its move.
            let bot_next = self.is_bot(&after.record.key.channel.platform, &next_player);
            if !bot_next {
                let _ = write!(text, " {}, your move", mention(&next_player));
                match clock::deadline(&after.record).filter(|_| after.clash.is_none()) {
                    Some(until) => {
                        let _ = write!(text, ": you have until {}.", clock::deadline_words(until, at));
                    }
                    None => text.push('.'),
                }
            }
            if let Some(line) = self.clock_line(&after.record, at).filter(|_| !bot_next) {
                let _ = write!(text, " {line}.");
            }
            // The mover's draw offer outlives the move; the reply says so.
            if let Some(offer) = after.record.offers.iter().find(|o| o.kind == OfferKind::Draw && !bot_next) {
                let _ = write!(text, " {}'s draw offer stands: /draw accepts it.", mention(&offer.by));
            }
        }
        text
    }

    pub(super) fn board(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        // `/board black`, `/board flip`: the board from a side of one's choice.
        let side = id.map(str::to_ascii_lowercase);
        let side = match side.as_deref() {
            Some("white") => Some(Some(Color::White)),
            Some("black") => Some(Some(Color::Black)),
            Some("flip" | "flipped" | "rotate" | "other" | "turn") => Some(None),
            _ => None,
        };
        let loaded = self.find_game(msg, if side.is_some() { None } else { id })?;
        let own = match loaded.record.colour_of(&msg.sender.id) {
            Some(Colour::Black) => Color::Black,
            _ => Color::White,
        };
        let view = match side {
            Some(Some(c)) => c,
            Some(None) => !own,
            None => own,
        };
        if let Some(m) = loaded.clash.as_ref().filter(|_| clash::between_rounds(&loaded)) {
            // Between rounds the board is the armies as they stand.
            let text = format!("Game {}: {}", loaded.record.key.id.as_str(), status_line(&loaded));
            let picture = self.army_picture(&loaded.record, m, view);
            return Ok(vec![Reply { text, picture, buttons: Vec::new() }]);
        }
        let mut line = game_line(&loaded);
        // Who is to move, by name (a board asked for pings nobody).
        if loaded.record.result.is_none() && loaded.game.outcome().is_none() {
            let r = &loaded.record;
            let turn = loaded.game.position().turn();
            let side = if turn == Color::White { "White" } else { "Black" };
            let name = self.name(&r.key.channel.platform, r.player(colour_of(turn)));
            line = line.replacen(&format!("{side} to move"), &format!("{side} ({name}) to move"), 1);
        }
        let mut text = format!("Game {}: {line}", loaded.record.key.id.as_str());
        if let Some(h) = challenges::handicap_of(&loaded) {
            let _ = write!(text, ", handicap {h}");
        }
        // The time: both clocks, or the mover's deadline.
        let r = &loaded.record;
        if r.result.is_none() && loaded.game.outcome().is_none() {
            if let (Some(line), Some(c)) = (self.clock_line(r, msg.at), r.settings.clock) {
                let _ = write!(text, " ({c}: {line})");
            } else if let Some(until) = clock::deadline(r).filter(|_| loaded.clash.is_none()) {
                let _ = write!(text, ", until {}", clock::deadline_words(until, msg.at));
            }
        }
        if side.is_some() {
            let _ = write!(text, " (seen from {}'s side)", if view == Color::White { "White" } else { "Black" });
        }
        let picture = self.picture(&loaded, view, |_| {});
        // A spectator's board has no buttons: none of them is theirs to press.
        let buttons =
            if loaded.record.colour_of(&msg.sender.id).is_some() { self.game_buttons(&loaded) } else { Vec::new() };
        Ok(vec![Reply { text, picture, buttons }])
    }

    /// `/moves [GAME] [SQUARE | PAGE | more]`: the legal moves of the asker (as if
    /// it were their turn when it is not), or of the side to move for
    /// someone not playing; grouped by piece and paged.
    pub(super) fn moves(&self, msg: &Incoming, id: Option<&str>, arg: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        clash::check_round(&loaded, &msg.sender.id)?;
        if loaded.record.result.is_some() || loaded.game.outcome().is_some() {
            return refuse("The game is over: there are no moves.");
        }
        let ask = moves::Ask::read(arg.unwrap_or(""))?;
        let turn = loaded.game.position().turn();
        let asker = loaded.record.colour_of(&msg.sender.id).map(color_of);
        let (game, whose) = match asker {
            Some(c) if c == turn => (loaded.game.clone(), moves::Whose::Yours),
            Some(c) => match moves::as_if_to_move(&loaded.game, c) {
                Some(g) => (g, moves::Whose::YoursLater),
                None => {
                    let next = mention(loaded.record.player(colour_of(turn)));
                    return refuse(format!(
                        "It is {next}'s turn, and your last move gave check: your moves depend on the reply. Ask again \
                         on your turn."
                    ));
                }
            },
            None => (loaded.game.clone(), moves::Whose::Side(turn, loaded.record.player(colour_of(turn)).to_string())),
        };
        let pos = game.position();
        let legal = game.legal_moves();
        if legal.is_empty() {
            return refuse(match whose {
                moves::Whose::YoursLater => "As the board stands you would have no legal move.",
                _ => "There are no legal moves.",
            });
        }
        let key = (msg.platform.clone(), msg.channel.clone(), msg.sender.id.clone());
        let page = match ask {
            moves::Ask::Square(square) => {
                // `/moves Nf3`: a move, not a square; the piece that makes it.
                let (sq, legal_move) = match Square::parse(&square) {
                    Some(sq) => (sq, None),
                    None => match moves::square_of_move(pos, &legal, &square)? {
                        (Some(from), said) => (from, Some(said)),
                        // A drop (O5, C2): no piece on the board makes it.
                        (None, said) => return Ok(vec![Reply::text(format!("{said} is a legal move."))]),
                    },
                };
                let (mut text, targets) = moves::one_piece(pos, &legal, sq, &whose)?;
                if let Some(said) = legal_move {
                    text = format!("{said} is a legal move. {text}");
                }
                let view = asker.unwrap_or(Color::White);
                let picture = self.picture(&loaded, view, |o| {
                    o.dots = targets.clone();
                    o.selected = Some(sq);
                });
                return Ok(vec![Reply { text, picture, buttons: Vec::new() }]);
            }
            moves::Ask::Drops(letter) => return Ok(vec![Reply::text(moves::drops_of(pos, &legal, letter)?)]),
            moves::Ask::Kind(name) => return Ok(vec![Reply::text(moves::of_kind(pos, &legal, &name, &whose)?)]),
            moves::Ask::Page(n) => n,
            moves::Ask::More => self.pages.lock().ok().and_then(|p| p.get(&key).copied()).map_or(2, |n| n + 1),
        };
        let text = moves::listing_page(pos, &legal, &whose, page)?;
        if let Ok(mut pages) = self.pages.lock() {
            pages.insert(key, page);
        }
        Ok(vec![Reply::text(text)])
    }

    pub(super) fn hint(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        if !loaded.record.settings.hints_allowed {
            return refuse("Hints are off in this game. Start a game with /challenge ... hints on to use them.");
        }
        clash::check_round(&loaded, &msg.sender.id)?;
        let pos = loaded.game.position();
        if loaded.record.player(colour_of(pos.turn())) != msg.sender.id {
            return refuse("Hints are for the player to move; wait for your turn.");
        }
        // The game's earlier positions count: a move back to one may be a
        // repetition (a draw, or in Olympic Chess a loss for White, O6).
        let mut engine = search::Engine::new(16);
        engine.set_draw_odds(clash::draw_odds(&loaded));
        engine.set_history(&loaded.game.earlier_visits());
        let limits = search::Limits::new(self.config.hint_time, self.config.hint_depth);
        let Some(found) = engine.search(pos, limits) else {
            return refuse("The game is over: there is nothing to hint.");
        };
        // Record the hint with the game: it is marked in the PGN.
        let ply = loaded.record.moves.len() as u32;
        let stored =
            self.store.update_game(&loaded.record.key, loaded.record.version, msg.message_id.as_deref(), |g| {
                if !g.hints.contains(&ply) {
                    g.hints.push(ply);
                }
                Ok(())
            });
        if applied(stored)?.is_none() {
            return Ok(Vec::new());
        }
        let san = pos.san(&found.best);
        // A forced end is named by how the expected line ends: not every
        // win is a mate (Alapawn's race, A3; Olympic's repetition, O6).
        let ending = || {
            let mut g = loaded.game.clone();
            for m in &found.pv {
                if g.play(*m).is_err() {
                    break;
                }
            }
            g.outcome().map(|o| o.reason)
        };
        let moves = |n: u32| count(n as usize, "move");
        let why = match (found.mate_in(), found.mated_in()) {
            (Some(n), _) => match ending() {
                Some(kibitz_rules::EndReason::Checkmate) => format!("mate in {n}"),
                Some(reason) => format!("a win in {} ({reason})", moves(n)),
                // The line was cut short of its end.
                None => format!("a forced win in {}", moves(n)),
            },
            (_, Some(n)) => match ending() {
                Some(kibitz_rules::EndReason::Checkmate) => format!("but mate follows in {n}"),
                Some(reason) => format!("but a loss follows in {} ({reason})", moves(n)),
                None => format!("but a forced loss follows in {}", moves(n)),
            },
            // The score is the hinted player's: plus is good for them.
            _ => match found.score {
                0 => "the position is level".to_string(),
                s => format!("score {:+.2} for you (in pawns)", s as f64 / 100.0),
            },
        };
        // The expected line of play, in SAN.
        let mut line = Vec::new();
        let mut p = pos.clone();
        for m in found.pv.iter().take(6) {
            line.push(p.san(m));
            p.play_unchecked(*m);
        }
        let arrow = found.best.from().map(|f| (f, found.best.to()));
        let view = pos.turn();
        let picture = self.picture(&loaded, view, |o| o.arrows = arrow.into_iter().collect());
        let canonical = pos.canonical(&found.best);
        // The move's canonical form beside it, where it reads otherwise.
        let shown = if canonical == san { san } else { format!("{san} ({canonical})") };
        Ok(vec![Reply {
            text: format!("Hint for {}: {shown}, {why}. Expected line: {}.", mention(&msg.sender.id), line.join(" ")),
            picture,
            buttons: Vec::new(),
        }])
    }
}

/// C2, C6: `drop`, `give rook`, `swap` without the square they need; O5:
/// `drop` without its piece and square; CA4: `shoot` without its target;
/// and how to finish them. `None` for anything else (chat), and for words
/// of moves this game does not have.
fn unfinished(text: &str, pos: &kibitz_rules::Position) -> Option<String> {
    let (rank, corner) = if pos.turn() == Color::White { ('2', "a1") } else { ('7', "a8") };
    let words: Vec<&str> = text.split_whitespace().collect();
    let said = |w: &str, list: &[&str]| list.iter().any(|l| w.eq_ignore_ascii_case(l));
    let variant = pos.variant();
    let machines = variant.pieces.iter().any(|p| p.powers.contains(kibitz_rules::Powers::MACHINE));
    if machines && matches!(words.as_slice(), [verb] if said(verb, &["shoot"])) {
        return Some(
            "At what? shoot SQUARE names the enemy piece a War Machine of yours removes (shoot e5), or M^e5.".into(),
        );
    }
    if variant.drops && !variant.grants && matches!(words.as_slice(), [verb] if said(verb, &["drop"])) {
        return Some(
            "Which piece, and where? drop PIECE SQUARE drops a piece from your hand (drop pawn c3), or P@c3.".into(),
        );
    }
    if !variant.grants {
        return None;
    }
    match words.as_slice() {
        [verb] if said(verb, &["drop"]) => {
            Some(format!("Where? drop SQUARE drops a static piece on one of your first two ranks (drop d{rank})."))
        }
        [verb] if said(verb, &["swap"]) => {
            Some(format!("With which piece? swap SQUARE names the piece holding a Castling power (swap {corner})."))
        }
        [verb] if said(verb, &shape::GRANTS) => {
            Some("Which power, and to which piece? give POWER SQUARE (give rook e2).".into())
        }
        [verb, power @ ..]
            if said(verb, &shape::GRANTS)
                && power.len() <= 4
                && power.iter().all(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
                && kibitz_rules::VARIANTS.iter().any(|v| {
                    v.grants
                        && v.pieces.iter().any(|p| {
                            p.name.eq_ignore_ascii_case(&power.join(" ")) || p.name.eq_ignore_ascii_case(power[0])
                        })
                }) =>
        {
            let power = power.join(" ").to_lowercase();
            Some(format!("To which piece? give {power} SQUARE names the piece that takes it (give {power} e2)."))
        }
        _ => None,
    }
}

/// What a move took away from where it landed (a Rabbit's chain, a shot):
/// `, taking the pawn on b5`; nothing for other moves, whose SAN says it.
fn taken_words(pos: &kibitz_rules::Position, played: &kibitz_rules::Played) -> String {
    if !matches!(played.mv, Move::Chain { .. } | Move::Shoot { .. }) || played.taken.is_empty() {
        return String::new();
    }
    let each: Vec<String> = played.taken.iter().map(|(sq, p)| format!("the {} on {sq}", pos.piece_name(*p))).collect();
    let list = match each.as_slice() {
        [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => each.join(""),
    };
    format!(", taking {list}")
}

/// The mover's own piece a move took off the board with its victim:
/// ` The Phoenix takes the bishop with it (CA7).`, ` The rabbit leaves the
/// board with it (CA2).`; nothing for other moves.
fn lost_words(pos: &kibitz_rules::Position, played: &kibitz_rules::Played) -> String {
    let Some((_, piece)) = played.lost else { return String::new() };
    let name = pos.piece_name(piece);
    let phoenix = played.taken.iter().find(|(_, p)| p.powers.contains(kibitz_rules::Powers::PHOENIX));
    match phoenix {
        Some(&(sq, _)) => format!(" The Phoenix on {sq} takes the {name} with it: both leave the board (CA7)."),
        None if matches!(played.mv, Move::Chain { .. }) => {
            format!(" The {name} leaves the board with it (CA2).")
        }
        None => format!(" The {name} leaves the board."),
    }
}

/// `e4 e5`, `Nf3 Nc6 Bb5`: moves of both sides in one message, which is
/// not one move (`e2 e4` is, and is played). The first alone is legal.
fn several_moves(pos: &kibitz_rules::Position, text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [first, second, ..] = words[..] else { return None };
    if !words[1..].iter().all(|w| shape::move_shaped(w)) {
        return None;
    }
    let m = pos.parse_move(first).ok()?;
    Some(format!(
        "One move a message: {} alone plays yours ({}); {second} is for your opponent to play.",
        pos.san(&m),
        pos.canonical(&m)
    ))
}

/// A legal move with a word before it that is no game of the sender's
/// (`/move xyz e4`) or after it (`e4 now`): what the word is, and the
/// command that plays the move. Suggested only, never played.
fn stray_word(pos: &kibitz_rules::Position, text: &str) -> Option<String> {
    let (first, rest) = text.trim().split_once(char::is_whitespace)?;
    let rest = rest.trim();
    // The words of the notation itself (`drop d2`, `swap a1`, `give rook
    // e2`, `Bxc6 keep`) get the notation's own reasons.
    let said = |w: &str, list: &[&str]| list.iter().any(|l| w.eq_ignore_ascii_case(l));
    if said(first, &shape::VERBS) || said(first, &shape::GRANTS) || said(rest, &shape::MARKS) {
        return None;
    }
    if pos.parse_move(rest).is_ok() {
        let (first, rest) = (excerpt(first), excerpt(rest));
        return Some(if elsewhere::is_game_id(&first) {
            format!(
                "You have no game '{first}' running; to play {rest} in this game, send /move {rest} (/games lists yours)."
            )
        } else {
            format!("'{first}' is not part of a move; to play {rest}, send /move {rest}.")
        });
    }
    if pos.parse_move(first).is_ok() {
        let (first, rest) = (excerpt(first), excerpt(rest));
        return Some(format!("'{rest}' is not part of a move; to play {first}, send /move {first}."));
    }
    None
}
