//! Clash of the Armies matches in the chat (rulings CA10-CA14): the army
//! phases, the sealed bids and raises of the Amazon auction, and the end of
//! each round.
//!
//! A match is one game record from the accepted challenge to the match's
//! end. The rules' match state ([`Match`]) lives in the record's `clash`
//! field, serialized; between rounds the record keeps the last round played
//! (or, before the first, the variant's start), and when both armies are
//! ready the record's start position becomes the round's, its moves
//! cleared. A round's end is written in one step with the move that ended
//! it; the match's end also finishes the game (rated by the match result).
//!
//! Sealed bids come by private message ([`Incoming::private`]); the result
//! of the auction goes to the match's channel through the core's outbox.
//!
//! Here: the match's record and the army phases; `clash/auction.rs` the
//! Amazon's auction, `clash/rounds.rs` each round's end.

use std::fmt::Write;

use kibitz_rules::army::{
    ArmyError, ArmyPiece, Match, Phase, PieceKind, PieceRef, RoundEnd, RoundResult, ULTIMATE_ROUND, gold_text,
    parse_bid, plan, points_text,
};
use kibitz_rules::{CLASH, Color, EndReason, Game, Position, Square};
use kibitz_storage::{ClashRound, GameEnd, GameRecord, MoveRecord, SealedBid, StoreError, Timestamp};

use super::bounds::quoting;
use super::{
    Answer, Core, Incoming, Loaded, Picture, Refusal, Reply, applied, color_of, colour_of, excerpt, mention,
    outcome_of, refuse, result_words,
};
use kibitz_render::{BoardOptions, Caption};

mod auction;
mod rounds;

/// The answer to a move, a hint or a takeback between rounds.
pub(super) const NOT_READY: &str = "The armies are not ready: /army shows yours.";

/// The side for whom a draw counts as a win in the round being played:
/// in the ultimate round, the loser of the Amazon's auction (CA14).
pub(super) fn draw_odds(loaded: &Loaded) -> Option<Color> {
    loaded.clash.as_ref().filter(|m| m.is_ultimate()).and_then(|m| m.draw_odds)
}

/// The match of a Clash record: `None` for any other game, a new match for
/// a record whose match has not changed since it was created.
pub(super) fn match_of(record: &GameRecord) -> Result<Option<Match>, serde_json::Error> {
    match &record.clash {
        None => Ok(None),
        Some(c) => match &c.state {
            None => Ok(Some(Match::new())),
            Some(state) => serde_json::from_value(state.clone()).map(Some),
        },
    }
}

/// Writes `m` into the record's Clash state.
fn write_match(game: &mut GameRecord, m: &Match) -> Result<(), StoreError> {
    let state = serde_json::to_value(m).map_err(|e| StoreError::Encode {
        record: format!("the match of game {}", game.key.id),
        reason: e.to_string(),
    })?;
    let clash = game.clash.get_or_insert_with(Default::default);
    clash.state = Some(state);
    clash.round = u32::from(m.round);
    Ok(())
}

/// A Clash match between rounds: an army phase or the auction (not a
/// match given up between rounds, which is over).
pub(super) fn between_rounds(l: &Loaded) -> bool {
    l.record.result.is_none()
        && l.clash
            .as_ref()
            .is_some_and(|m| matches!(m.phase, Phase::Army { .. } | Phase::Bidding | Phase::Raising { .. }))
}

/// Refuses moves, hints, legal moves and takebacks between rounds, saying
/// what the match waits for and, to `sender`, what to do.
pub(super) fn check_round(l: &Loaded, sender: &str) -> Result<(), Refusal> {
    if between_rounds(l) { refuse(not_begun(l, sender)) } else { Ok(()) }
}

/// Why no round is being played, for a move, a hint or a takeback between
/// rounds: the phase the match is in and, for `sender` if a player, their
/// part in it.
pub(super) fn not_begun(l: &Loaded, sender: &str) -> String {
    let Some(m) = &l.clash else { return NOT_READY.to_string() };
    let r = &l.record;
    let who = r.colour_of(sender).map(color_of);
    let name = |c: Color| mention(r.player(colour_of(c)));
    let head = format!("Round {} has not begun", m.round);
    let auction = m.auction.as_ref();
    match m.phase {
        Phase::Army { color } if who == Some(color) => format!(
            "{head}: this is your army phase. /buy PIECE [SQUARE], /sell SQUARE and /place PIECE SQUARE, then \
             /ready; /army shows your army."
        ),
        Phase::Army { color } => {
            format!("{head}: {} is setting up an army. /army shows the armies.", name(color))
        }
        Phase::Bidding => match who {
            Some(c) if auction.is_none_or(|a| a.bids[c.index()].is_none()) => {
                format!("{head}: the Amazon is up for sealed bids. Send me yours in a private message: /bid AMOUNT.")
            }
            Some(c) => format!("{head}: your sealed bid is in; the auction waits for {}'s.", name(!c)),
            None => format!("{head}: the players are bidding for the Amazon."),
        },
        Phase::Raising { to_move } if who == Some(to_move) => {
            if auction.is_some_and(|a| a.must_raise(to_move)) {
                format!("{head}: the Amazon's auction waits for you. /raise: after equal bids White raises first.")
            } else {
                format!("{head}: the Amazon's auction waits for you: /raise or /pass.")
            }
        }
        Phase::Raising { to_move } => {
            format!("{head}: the Amazon's auction waits for {} to raise or pass.", name(to_move))
        }
        Phase::Playing { .. } | Phase::Over { .. } => NOT_READY.to_string(),
    }
}

/// Refuses the position and PGN between rounds (there is no round then).
pub(super) fn check_shown(l: &Loaded) -> Result<(), Refusal> {
    if between_rounds(l) { refuse("No round is being played now: /army shows the armies.") } else { Ok(()) }
}

/// Refuses draw offers between rounds and in the ultimate round (CA14).
pub(super) fn check_draw(l: &Loaded) -> Result<(), Refusal> {
    let Some(m) = &l.clash else { return Ok(()) };
    if between_rounds(l) {
        return refuse("No round is being played: there is no draw to offer.");
    }
    if !m.draw_allowed() {
        return refuse(format!("{} Play on, or /resign.", ArmyError::DrawNotAllowed));
    }
    Ok(())
}

/// Whether `msg` was applied to `record` already (a retried delivery).
pub(super) fn seen(record: &GameRecord, msg: &Incoming) -> bool {
    msg.message_id.as_ref().is_some_and(|id| record.applied_messages.contains(id))
}

fn army_refusal(e: ArmyError) -> Refusal {
    Refusal(e.to_string())
}

/// A piece of several of its kind, named by kind: how to name it by its
/// square instead (`usage` is the command with `SQUARE` in its place).
fn which_one(e: ArmyError, usage: &str) -> Refusal {
    match &e {
        ArmyError::AmbiguousKind { kind, squares } => {
            let on: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
            let example = usage.replace("SQUARE", on.first().map_or("b1", String::as_str));
            Refusal(format!(
                "You have more than one {kind} ({}): name the one you mean by its square, as in {example}.",
                on.join(", ")
            ))
        }
        _ => army_refusal(e),
    }
}

/// A refusal that quotes what the player typed, as an excerpt.
fn quoted_refusal(e: ArmyError, input: &str) -> Refusal {
    let said = quoting(&e.to_string(), input);
    if !matches!(e, ArmyError::UnknownPiece { .. }) {
        return Refusal(said);
    }
    // `/buy queen z9`: a piece and a word that was meant as its square.
    let words: Vec<&str> = input.split_whitespace().collect();
    if let [name @ .., last] = words.as_slice()
        && !name.is_empty()
        && PieceKind::from_name(&name.join(" ")).is_some()
    {
        return Refusal(format!("'{}' is not a square (try b1).", excerpt(last)));
    }
    // `/buy quen`: the piece it is a slip away from.
    match super::pieces::nearest_name(&CLASH, input) {
        Some(near) => Refusal(format!("{said} Did you mean {near}?")),
        None => Refusal(format!("{said} /prices lists them.")),
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// `a Knight`, `an Elephant`.
fn a(kind: PieceKind) -> String {
    let vowel = kind.name().starts_with(['A', 'E', 'I', 'O', 'U']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

/// Where the match stands, for `/games` and captions between rounds.
pub(super) fn phase_line(m: &Match) -> String {
    match m.phase {
        Phase::Army { color } => format!("Round {}: {}'s army phase", m.round, color_name(color)),
        Phase::Bidding => format!("Round {}: sealed bids for the Amazon", m.round),
        Phase::Raising { to_move } => format!("Round {}: {} raises or passes", m.round, color_name(to_move)),
        Phase::Playing { round } => format!("Round {round} in play"),
        Phase::Over { winner } => format!("the match is over: {} won", color_name(winner)),
    }
}

/// How a match goes, for its announcement.
pub(super) fn match_rules_line() -> String {
    format!("up to {ULTIMATE_ROUND} rounds, a win is 1 point, 2 points win the match. Round 1: 40 gold each.")
}

/// What a player does in their army phase.
pub(super) const ARMY_HELP: &str =
    "/buy PIECE [SQUARE], /sell, /place PIECE SQUARE, then /ready; /army shows your army and gold.";

/// The announcement of an accepted match.
pub(super) fn match_begins(r: &GameRecord) -> String {
    format!(
        "Game {}: {} (White) vs {} (Black), a match of Clash of the Armies: {} {} sets up first: {ARMY_HELP}",
        r.key.id.as_str(),
        mention(&r.white),
        mention(&r.black),
        match_rules_line(),
        mention(&r.white)
    )
}

/// The seed of the bot's choices in a match: its game id.
fn seed_of(r: &GameRecord) -> u64 {
    r.key.id.as_str().bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The change to a record when both armies are ready: the round's start
/// position, no moves yet.
fn round_start(g: &mut GameRecord, fen: &str) {
    g.start_fen = fen.to_string();
    g.fen = fen.to_string();
    g.moves.clear();
    g.offers.clear();
    g.hints.clear();
    g.reminded_at = None;
}

/// The one piece in `before` that is not in `after` (by kind and square).
fn gone(before: &[ArmyPiece], after: &[ArmyPiece]) -> Option<ArmyPiece> {
    let mut rest = after.to_vec();
    for p in before {
        match rest.iter().position(|q| q == p) {
            Some(i) => {
                rest.remove(i);
            }
            None => return Some(*p),
        }
    }
    None
}

/// `summary` as it may be shown in a channel: the sender's own sealed bid is
/// not (the opponent may read the channel).
fn public_summary(m: &Match, color: Color) -> String {
    m.summary(color)
        .lines()
        .map(|l| match l.strip_prefix("Auction: you bid ").and_then(|rest| rest.split_once("; ")) {
            Some((_, waiting)) => format!("Auction: your sealed bid is in; {waiting}"),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How a round ended in the engine's words, as the match counts it.
fn round_result_of(outcome: kibitz_rules::Outcome) -> RoundResult {
    match (outcome.winner, outcome.reason) {
        (Some(w), _) => RoundResult::win(w, RoundEnd::Checkmate),
        (None, EndReason::Repetition | EndReason::PerpetualCheck) => RoundResult::draw(RoundEnd::Repetition),
        (None, EndReason::FiftyMoves) => RoundResult::draw(RoundEnd::FiftyMoves),
        (None, _) => RoundResult::draw(RoundEnd::Stalemate),
    }
}

impl Core {
    fn player_name(r: &GameRecord, c: Color) -> String {
        mention(r.player(colour_of(c)))
    }

    /// The sender's match in this channel, the match itself, and the
    /// sender's colour; `None` for a retried delivery of a message that was
    /// applied already (it gets no second answer, not even a refusal).
    fn own_match(&self, msg: &Incoming) -> Result<Option<(Loaded, Match, Color)>, Refusal> {
        let record = match self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)? {
            Some(r) => r,
            None if msg.private => {
                return refuse(
                    "Here, in private, I take your sealed /bid and show your /army; do the rest in your match's channel.",
                );
            }
            None => {
                return refuse("You have no Clash of the Armies match here. Start one with /challenge @friend clash.");
            }
        };
        if seen(&record, msg) {
            return Ok(None);
        }
        let loaded = self.load(record)?;
        let Some(m) = loaded.clash.clone() else {
            return refuse(
                "Your game here is not a Clash of the Armies match: armies are bought for matches (/challenge @friend clash).",
            );
        };
        let color = match loaded.record.colour_of(&msg.sender.id) {
            Some(kibitz_storage::Colour::White) => Color::White,
            _ => Color::Black,
        };
        Ok(Some((loaded, m, color)))
    }

    /// The sender's Clash matches on the platform, anywhere.
    fn matches_of(&self, msg: &Incoming) -> Result<Vec<(Loaded, Match)>, Refusal> {
        let mut found = Vec::new();
        for (_, record) in self.store.games_of(&msg.platform, &msg.sender.id)? {
            let Ok(record) = record else { continue };
            if record.clash.is_none() {
                continue;
            }
            let loaded = self.load(record)?;
            if let Some(m) = loaded.clash.clone() {
                found.push((loaded, m));
            }
        }
        Ok(found)
    }

    /// Stores `m` as the match of `loaded`, with `change` to the record in
    /// the same step. `None` for a retried delivery.
    fn save_match(
        &self,
        msg: &Incoming,
        loaded: &Loaded,
        m: &Match,
        change: impl Fn(&mut GameRecord),
    ) -> Result<Option<GameRecord>, Refusal> {
        self.store_match(msg.at, msg.message_id.as_deref(), loaded, m, change)
    }

    fn store_match(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        loaded: &Loaded,
        m: &Match,
        change: impl Fn(&mut GameRecord),
    ) -> Result<Option<GameRecord>, Refusal> {
        let r = &loaded.record;
        applied(self.store.update_game(&r.key, r.version, message_id, |g| {
            write_match(g, m)?;
            g.updated_at = at;
            // The clock between rounds starts again, with its reminder.
            g.reminded_at = None;
            change(g);
            Ok(())
        }))
    }

    /// The correspondence clock between the rounds of a match (`days N`):
    /// the player the match waits for (an army phase, a missing sealed bid,
    /// a raise) is reminded at three quarters of the time and loses the
    /// match when it runs out. The notice to post, if any.
    pub(super) fn clock_between_rounds(&self, now: Timestamp, l: &Loaded, allowed: u64) -> Option<String> {
        let m = l.clash.as_ref()?;
        let (color, what) = match m.phase {
            Phase::Army { color } => (color, "the army phase"),
            Phase::Raising { to_move } => (to_move, "a raise or a pass"),
            Phase::Bidding => {
                let bids = m.auction.as_ref().map_or([None, None], |a| a.bids);
                match bids {
                    [Some(_), None] => (Color::Black, "a sealed bid"),
                    [None, Some(_)] => (Color::White, "a sealed bid"),
                    // Both or neither: nobody in particular holds the match up.
                    _ => return None,
                }
            }
            _ => return None,
        };
        let r = &l.record;
        let used = now.0.saturating_sub(r.updated_at.0);
        let player = Self::player_name(r, color);
        let id = r.key.id.as_str();
        if used >= allowed {
            let end = GameEnd { outcome: outcome_of(Some(!color)), reason: "time".into(), at: now, message_id: None };
            let finished = self.store.finish_game(&r.key, r.version, &end).ok()?;
            self.notify_game_over(&finished);
            return Some(format!(
                "Game {id}: {player} ran out of time for {what} and loses the match. {}",
                result_words(&finished, Some(!color), "time")
            ));
        }
        if used >= allowed / 4 * 3 && r.reminded_at.is_none() {
            self.store
                .update_game(&r.key, r.version, None, |g| {
                    g.reminded_at = Some(now);
                    Ok(())
                })
                .ok()?;
            let hours = (allowed - used).div_ceil(3_600_000);
            return Some(format!(
                "{player}, game {id} waits for you ({what}): {} hour{} left before you lose the match on time.",
                hours,
                if hours == 1 { "" } else { "s" }
            ));
        }
        None
    }

    /// The armies as they stand, on the board.
    pub(super) fn army_picture(&self, r: &GameRecord, m: &Match, view: Color) -> Option<Picture> {
        // Armies without a Leader make no legal position, but can be drawn.
        let pos = Position::from_fen(&CLASH, &m.start_fen()).unwrap_or_else(|_| m.board_position());
        let platform = &r.key.channel.platform;
        // Short: the caption shares its line with the players' names.
        let status = match m.phase {
            Phase::Army { color } => format!("Round {}: {} sets up", m.round, color_name(color)),
            Phase::Bidding | Phase::Raising { .. } => format!("Round {}: auction", m.round),
            _ => format!("Round {}: armies", m.round),
        };
        let mut opts = BoardOptions {
            size: Some(self.config.board_size),
            flip: view == Color::Black,
            caption: Some(Caption {
                white: self.name(platform, &r.white),
                black: self.name(platform, &r.black),
                status,
                ..Caption::default()
            }),
            notes: Some([army_notes(m, Color::White), army_notes(m, Color::Black)]),
            ..BoardOptions::default()
        };
        if let Some(c) = opts.caption.as_mut() {
            c.note = self.standing_note(r, m, false);
        }
        let png = self.renderer.board_png(&pos, &opts).ok()?;
        Some(Picture { name: format!("army-{}-{}.png", r.key.id.as_str(), m.round), bytes: png })
    }

    /// `/army` for one match: the summary for `color` and the picture.
    fn army_reply(&self, loaded: &Loaded, m: &Match, color: Color, private: bool) -> Reply {
        let r = &loaded.record;
        let mut text = format!(
            "Game {}, {} (White) vs {} (Black), for {}:\n",
            r.key.id.as_str(),
            mention(&r.white),
            mention(&r.black),
            Self::player_name(r, color)
        );
        text.push_str(&if private { m.summary(color) } else { public_summary(m, color) });
        let todo = match m.phase {
            Phase::Army { color: c } if c == color => {
                "\n/buy PIECE [SQUARE], /sell SQUARE, /place PIECE SQUARE, then /ready."
            }
            // In the private chat itself, the bid is sent right there.
            Phase::Bidding if m.auction.as_ref().is_none_or(|a| a.bids[color.index()].is_none()) && private => {
                "\nSend me your bid here: /bid AMOUNT (with the game's id if you play several matches)."
            }
            Phase::Bidding if m.auction.as_ref().is_none_or(|a| a.bids[color.index()].is_none()) => {
                "\nSend me your bid in a private message: /bid AMOUNT."
            }
            Phase::Raising { to_move }
                if to_move == color && m.auction.as_ref().is_some_and(|a| a.must_raise(color)) =>
            {
                "\n/raise: after equal bids White raises first."
            }
            Phase::Raising { to_move } if to_move == color => "\n/raise or /pass.",
            _ => "",
        };
        text.push_str(todo);
        Reply { text, picture: self.army_picture(r, m, color), buttons: Vec::new() }
    }

    /// `/army`: in a channel, the sender's match there; in a private chat,
    /// all the sender's matches.
    pub(super) fn army(&self, msg: &Incoming) -> Answer {
        if msg.private && self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)?.is_none() {
            let all = self.matches_of(msg)?;
            if all.is_empty() {
                return refuse(
                    "You have no Clash of the Armies match running. Start one with /challenge @friend clash.",
                );
            }
            return Ok(all
                .iter()
                .map(|(loaded, m)| {
                    let color = if loaded.record.white == msg.sender.id { Color::White } else { Color::Black };
                    self.army_reply(loaded, m, color, true)
                })
                .collect());
        }
        let Some((loaded, m, color)) = self.own_match(msg)? else { return Ok(Vec::new()) };
        Ok(vec![self.army_reply(&loaded, &m, color, msg.private)])
    }

    pub(super) fn buy(&self, msg: &Incoming, piece: &str, square: Option<&str>) -> Answer {
        let Some((loaded, mut m, color)) = self.own_match(msg)? else { return Ok(Vec::new()) };
        let kind = PieceKind::parse(piece).map_err(|e| quoted_refusal(e, piece))?;
        let square = match square {
            Some(s) => {
                Some(Square::parse(s).ok_or_else(|| Refusal(format!("'{}' is not a square (try b1).", excerpt(s))))?)
            }
            None => None,
        };
        let at = m.buy(color, kind, square).map_err(army_refusal)?;
        if self.save_match(msg, &loaded, &m, |_| {})?.is_none() {
            return Ok(Vec::new());
        }
        let cost = kind.cost_quarters().unwrap_or(0);
        Ok(vec![Reply::text(format!(
            "{} buys {} on {at} for {} gold: {} gold left.",
            mention(&msg.sender.id),
            a(kind),
            gold_text(cost),
            gold_text(m.gold(color))
        ))])
    }

    /// The piece `/place` or `/sell` names: a square, a kind, or both
    /// (`bishop b1`: the Bishop on b1, checked to be one).
    fn piece_ref(&self, m: &Match, color: Color, text: &str) -> Result<PieceRef, Refusal> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if let [name @ .., last] = words.as_slice()
            && !name.is_empty()
            && let Some(sq) = Square::parse(&last.to_ascii_lowercase())
        {
            let kind = PieceKind::parse(&name.join(" ")).map_err(|e| quoted_refusal(e, text))?;
            return match m.army(color).pieces.iter().find(|p| p.square == Some(sq)) {
                Some(p) if p.kind == kind => Ok(PieceRef::Square(sq)),
                Some(p) => refuse(format!("The piece on {sq} is your {}, not {}.", p.kind, a(kind))),
                None => refuse(format!("You have no piece on {sq}.")),
            };
        }
        PieceRef::parse(text).map_err(|e| quoted_refusal(e, text))
    }

    pub(super) fn sell(&self, msg: &Incoming, what: &str) -> Answer {
        let Some((loaded, mut m, color)) = self.own_match(msg)? else { return Ok(Vec::new()) };
        let what = self.piece_ref(&m, color, what)?;
        let before = m.army(color).pieces.clone();
        let refund = m.sell(color, what).map_err(|e| which_one(e, "/sell SQUARE"))?;
        if self.save_match(msg, &loaded, &m, |_| {})?.is_none() {
            return Ok(Vec::new());
        }
        let sold = gone(&before, &m.army(color).pieces);
        let which = match sold {
            Some(ArmyPiece { kind, square: Some(s) }) => format!("the {kind} on {s}"),
            Some(ArmyPiece { kind, square: None }) => format!("the {kind} without a square"),
            None => "a piece".to_string(),
        };
        Ok(vec![Reply::text(format!(
            "{} sells {which} for {} gold: {} gold now.",
            mention(&msg.sender.id),
            gold_text(refund),
            gold_text(m.gold(color))
        ))])
    }

    pub(super) fn place(&self, msg: &Incoming, piece: &str, square: &str) -> Answer {
        let Some((loaded, mut m, color)) = self.own_match(msg)? else { return Ok(Vec::new()) };
        let what = self.piece_ref(&m, color, piece)?;
        let to =
            Square::parse(square).ok_or_else(|| Refusal(format!("'{}' is not a square (try b1).", excerpt(square))))?;
        let before = m.army(color).pieces.clone();
        m.place(color, what, to).map_err(|e| which_one(e, &format!("/place SQUARE {to}")))?;
        let moved = gone(&before, &m.army(color).pieces);
        if moved.is_none() {
            return refuse(format!("It stands on {to} already."));
        }
        if self.save_match(msg, &loaded, &m, |_| {})?.is_none() {
            return Ok(Vec::new());
        }
        let text = match moved {
            Some(ArmyPiece { kind, square: Some(from) }) => {
                format!("{} moves the {kind} from {from} to {to}.", mention(&msg.sender.id))
            }
            Some(ArmyPiece { kind, square: None }) => format!("{} places the {kind} on {to}.", mention(&msg.sender.id)),
            None => String::new(),
        };
        Ok(vec![Reply::text(text)])
    }

    /// `/ready`: White hands over to Black; Black's confirmation starts the round.
    pub(super) fn ready(&self, msg: &Incoming) -> Answer {
        let Some((loaded, mut m, color)) = self.own_match(msg)? else { return Ok(Vec::new()) };
        m.ready(color).map_err(army_refusal)?;
        let r = &loaded.record;
        let me = mention(&msg.sender.id);
        let Phase::Playing { round } = m.phase else {
            // White is ready; Black sets up, seeing White's army (CA12).
            let Some(stored) = self.save_match(msg, &loaded, &m, |_| {})? else { return Ok(Vec::new()) };
            if self.bot_color(r) == Some(!color) {
                // The bot sets up at once, and the round begins.
                let mut text = format!("{me}'s army is ready: {}.", m.army(color).describe());
                let after = Loaded { record: stored, game: loaded.game.clone(), clash: Some(m.clone()) };
                let after = self.with_bot(msg, after, &mut text);
                return Ok(vec![self.shown(&after, round_view(&after, color), text)]);
            }
            let text = format!(
                "{me}'s army is ready: {}.\n{}, your army phase: you have {} gold. /buy, /sell and /place, then \
                 /ready; /army shows both armies.",
                m.army(color).describe(),
                Self::player_name(r, !color),
                gold_text(m.gold(!color))
            );
            return Ok(vec![Reply { text, picture: self.army_picture(r, &m, !color), buttons: Vec::new() }]);
        };
        let fen = m.start_fen();
        if let Err(e) = Position::from_fen(&CLASH, &fen) {
            return refuse(format!("These armies cannot start a round ({e}). Change yours and /ready again."));
        }
        let Some(stored) = self.save_match(msg, &loaded, &m, |g| round_start(g, &fen))? else {
            return Ok(Vec::new());
        };
        let after = self.load(stored)?;
        let mut text = format!(
            "{me}'s army is ready: {}. {}",
            m.army(color).describe(),
            Self::round_begins(&after.record, &m, round)
        );
        // Against the bot, it opens the round if it has White.
        let after = self.with_bot(msg, after, &mut text);
        Ok(vec![self.shown(&after, round_view(&after, color), text)])
    }

    /// "Round 2 begins: ..." when both armies are ready.
    fn round_begins(r: &GameRecord, m: &Match, round: u8) -> String {
        let mut text = format!(
            "Round {round} begins: {} (White) vs {} (Black). {} moves first.",
            mention(&r.white),
            mention(&r.black),
            mention(&r.white)
        );
        if round == ULTIMATE_ROUND {
            text.push_str(" This is the ultimate round: no draw may be agreed");
            if let Some(odds) = m.draw_odds {
                let _ = write!(text, ", and a draw counts as a win for {} (draw odds)", Self::player_name(r, odds));
            }
            text.push('.');
        }
        text
    }
}

impl Core {
    /// The match's standing for a caption's note: the round, the score and
    /// who has draw odds (CA10, CA14). `after_round`: the note of a round's
    /// final position, where the match has moved on.
    pub(super) fn standing_note(&self, r: &GameRecord, m: &Match, after_round: bool) -> String {
        let platform = &r.key.channel.platform;
        let name = |c: Color| self.name(platform, r.player(colour_of(c)));
        let score = format!(
            "{} {}, {} {}",
            name(Color::White),
            points_text(m.half_points(Color::White)),
            name(Color::Black),
            points_text(m.half_points(Color::Black))
        );
        let over = matches!(m.phase, Phase::Over { .. });
        let mut s = match m.phase {
            _ if over => format!("Match over: {score}"),
            _ if after_round => format!("Match: {score}"),
            Phase::Playing { round } => format!("Round {round} of {ULTIMATE_ROUND}; match: {score}"),
            _ => format!("Round {} of {ULTIMATE_ROUND}; match: {score}", m.round),
        };
        if let Some(odds) = m.draw_odds.filter(|_| !over) {
            let _ = write!(s, "; draw odds: {}", name(odds));
        }
        s
    }

    /// `/pgn` of a match: every round as a game of its own, with its result
    /// as played (a drawn round is `1/2-1/2`, draw odds or not), its number
    /// in `Round` and the match's standing after it in `Match`; the round
    /// in play last, unfinished.
    pub(super) fn match_pgn(&self, loaded: &Loaded) -> Answer {
        let Some(m) = &loaded.clash else { return refuse("That is no Clash of the Armies match.") };
        let r = &loaded.record;
        let platform = &r.key.channel.platform;
        let (white, black) = (self.name(platform, &r.white), self.name(platform, &r.black));
        let site = format!("Kibitz {platform}");
        let date = super::info::date_of(r.started_at);
        let time_control = super::info::time_control(&r.settings);
        // One round's game with the match's tags.
        let round_pgn = |game: &Game, result: &str, number: u32, standing: &str, comments: &[(usize, &str)]| {
            let number = number.to_string();
            let tags = [
                ("Result", result),
                ("Event", "Kibitz match, Clash of the Armies"),
                ("Site", site.as_str()),
                ("Date", date.as_str()),
                ("Round", number.as_str()),
                ("White", white.as_str()),
                ("Black", black.as_str()),
                ("Match", standing),
                ("TimeControl", time_control.as_str()),
            ];
            game.pgn(&tags, comments)
        };
        let mut games = Vec::new();
        let mut half = [0u32; 2];
        let rounds = r.clash.as_ref().map(|c| c.rounds.clone()).unwrap_or_default();
        for cr in &rounds {
            let record = m.history.iter().find(|h| u32::from(h.round) == cr.number);
            let result = record.map_or("*", |h| kibitz_rules::Outcome::score_of(h.result.winner));
            let mut standing = format!("round {}", cr.number);
            if let Some(h) = record {
                match h.scored_winner {
                    Some(w) => half[w.index()] += 2,
                    None => {
                        half[0] += 1;
                        half[1] += 1;
                    }
                }
                match (h.result.winner, h.scored_winner) {
                    (Some(w), _) => {
                        let _ = write!(
                            standing,
                            " to {} by {}",
                            if w == Color::White { &white } else { &black },
                            h.result.reason
                        );
                    }
                    (None, Some(odds)) => {
                        let _ = write!(
                            standing,
                            " drawn ({}), a win for {} by the draw odds",
                            h.result.reason,
                            if odds == Color::White { &white } else { &black }
                        );
                    }
                    (None, None) => {
                        let _ = write!(standing, " drawn ({})", h.result.reason);
                    }
                }
            }
            let _ = write!(standing, "; match: {white} {}, {black} {}", points_text(half[0]), points_text(half[1]));
            games.push(round_pgn(&round_game(&cr.start_fen, &cr.moves), result, cr.number, &standing, &[]));
        }
        if let Phase::Playing { round } = m.phase
            && r.result.is_none()
        {
            let standing = format!(
                "round {round} in play; match: {white} {}, {black} {}",
                points_text(m.half_points(Color::White)),
                points_text(m.half_points(Color::Black))
            );
            let comments: Vec<(usize, &str)> =
                r.hints.iter().map(|&p| (p as usize, "hint")).filter(|(p, _)| *p < r.moves.len()).collect();
            games.push(round_pgn(&loaded.game, "*", u32::from(round), &standing, &comments));
        }
        if games.is_empty() {
            return refuse("No round has been played yet: /army shows the armies.");
        }
        let all = games.join("\n");
        Ok(vec![super::info::pgn_reply(all, &format!("match-{}.pgn", r.key.id.as_str()), "match")])
    }
}

/// A finished round's game, replayed from its start and canonical moves
/// (as far as they replay); a round kept without them is an empty game.
fn round_game(start_fen: &str, moves: &[String]) -> Game {
    let Ok(start) = Position::from_fen(&CLASH, start_fen) else { return Game::new(&CLASH) };
    let mut game = Game::from_position(start);
    for text in moves {
        let Some(mv) = game.legal_moves().into_iter().find(|x| game.position().canonical(x) == *text) else { break };
        if game.play(mv).is_err() {
            break;
        }
    }
    game
}

/// The side a picture of `l` is drawn from: during a round, the player to
/// move's; between rounds, `asker`'s.
fn round_view(l: &Loaded, asker: Color) -> Color {
    if between_rounds(l) { asker } else { l.game.position().turn() }
}

/// The panel beside an army picture: gold, points and how full each class
/// is (CA11, CA12).
fn army_notes(m: &Match, color: Color) -> Vec<String> {
    use kibitz_rules::army::{PieceClass, gold_text, points_text};
    let army = m.army(color);
    let mut lines = vec![
        format!("{}", color_name(color)),
        format!("Gold {}", gold_text(m.gold(color))),
        format!("Points {}", points_text(m.half_points(color))),
    ];
    for class in [PieceClass::Leader, PieceClass::Jewel, PieceClass::Heavy, PieceClass::Light, PieceClass::Peasant] {
        lines.push(format!("{} {}/{}", class.name(), army.count_class(class), class.limit()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use kibitz_storage::{ChannelKey, ClashMatch, GameSettings, NewGame, Store};

    #[test]
    fn the_caption_note_tells_the_round_the_score_and_the_draw_odds() {
        let dir = tempfile::tempdir().unwrap();
        let core = Core::new(Store::open(dir.path()).unwrap(), super::super::CoreConfig::default());
        let new = NewGame {
            variant: "clash".into(),
            white: "alice".into(),
            black: "bob".into(),
            settings: GameSettings::default(),
            start_fen: CLASH.start_fen.into(),
            at: Timestamp(1),
            clash: Some(ClashMatch::default()),
            bot: None,
        };
        let r = core.store().create_game(&ChannelKey::new("test", "c1"), &new).unwrap();
        let mut m = Match::new();
        assert_eq!(core.standing_note(&r, &m, false), "Round 1 of 3; match: alice 0, bob 0");
        // CA14: the ultimate round, 1-1, Black lost the auction and has draw odds.
        m.round = ULTIMATE_ROUND;
        m.half_points = [2, 2];
        m.phase = Phase::Playing { round: ULTIMATE_ROUND };
        m.draw_odds = Some(Color::Black);
        assert_eq!(core.standing_note(&r, &m, false), "Round 3 of 3; match: alice 1, bob 1; draw odds: bob");
        // A drawn ultimate round is the odds-holder's win (CA14): the match is over.
        m.half_points = [2, 4];
        m.phase = Phase::Over { winner: Color::Black };
        assert_eq!(core.standing_note(&r, &m, false), "Match over: alice 1, bob 2");
        // After a round that leaves the match going, the note is the match's.
        m.round = 2;
        m.half_points = [1, 1];
        m.phase = Phase::Army { color: Color::White };
        m.draw_odds = None;
        assert_eq!(core.standing_note(&r, &m, true), "Match: alice 0.5, bob 0.5");
    }
}
