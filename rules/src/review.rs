//! Game review: every position of a game searched once, each move judged by
//! the winning chances it gave away.
//!
//! Scores are from White's side. A move's loss is the drop in the mover's
//! winning chances, `2 / (1 + e^(-0.004 * cp)) - 1` with the centipawns
//! clamped to ±1000 and a forced mate or a decided game counting as ±1. A
//! loss of at least 0.1 is an inaccuracy, 0.2 a mistake, 0.3 a blunder.
//! Throwing away a forced mate, or walking into one, is judged by the
//! centipawns on the other side of it: above 9.99 pawns an inaccuracy, above
//! 7 a mistake, else a blunder. The move the search itself prefers is never
//! flagged (a difference is then only the horizon of the search).
//!
//! Accuracy per move, from the mover's win percentage `50 + 50 * chances`
//! before and after it: `103.1668 * e^(-0.04354 * (before - after)) -
//! 3.1669`, clamped to 0..100; a player's accuracy is the mean over their
//! moves (100 for a player without moves).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::game::Game;
use crate::moves::Move;
use crate::position::Position;
use crate::search::{Engine, Found, Limits, Visit};
use crate::types::Color;

/// Longest expected line kept for a move, in plies.
const LINE_PLIES: usize = 8;
/// Forced moves looked past before a position is searched as it is (a
/// cycle of forced moves would otherwise never end).
const FORCED_PLIES: u32 = 8;

/// How much thought each position of a game gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewOptions {
    /// Search time for each position.
    pub time_per_position: Duration,
    /// Deepest search iteration (a smaller depth makes a review that does
    /// not depend on the machine's speed).
    pub max_depth: u32,
    /// The side for whom a draw counts as a win (Clash's ultimate round,
    /// CA14): a drawn end and the draws the search sees are judged so.
    pub draw_odds: Option<Color>,
}

impl Default for ReviewOptions {
    /// 300 ms a position, depth up to 64 (the time is what limits it), no draw odds.
    fn default() -> ReviewOptions {
        ReviewOptions { time_per_position: Duration::from_millis(300), max_depth: 64, draw_odds: None }
    }
}

/// An evaluation, always from White's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Score {
    /// Centipawns (positive: White is better).
    Cp(i32),
    /// A forced mate (or a won race): positive, White wins in that many
    /// moves; negative, Black does.
    Mate(i32),
    /// The game is over and this side has won.
    Won(Color),
}

impl Score {
    /// White's winning chances, from -1 (Black wins) to 1 (White wins).
    pub fn win_chances(&self) -> f64 {
        match *self {
            Score::Cp(cp) => {
                let cp = f64::from(cp.clamp(-1000, 1000));
                2.0 / (1.0 + (-0.004 * cp).exp()) - 1.0
            }
            Score::Mate(n) => f64::from(n.signum()),
            Score::Won(Color::White) => 1.0,
            Score::Won(Color::Black) => -1.0,
        }
    }

    /// The winning chances of `side`.
    pub fn chances_of(&self, side: Color) -> f64 {
        if side == Color::White { self.win_chances() } else { -self.win_chances() }
    }

    /// The side this score says mates (or has won), if any.
    pub fn mating_side(&self) -> Option<Color> {
        match *self {
            Score::Mate(n) if n > 0 => Some(Color::White),
            Score::Mate(n) if n < 0 => Some(Color::Black),
            Score::Won(c) => Some(c),
            _ => None,
        }
    }

    /// Centipawns from `side`'s point of view, `None` for a mate or a
    /// decided game.
    pub fn cp_of(&self, side: Color) -> Option<i32> {
        match *self {
            Score::Cp(cp) => Some(if side == Color::White { cp } else { -cp }),
            _ => None,
        }
    }

    /// The score as lichess writes it in `[%eval ...]`: pawns with two
    /// decimals (`0.35`, `-1.20`), or `#3` / `#-2` for mates (`#0` / `#-0`
    /// once the game is won).
    pub fn eval_text(&self) -> String {
        match *self {
            Score::Cp(cp) => {
                let sign = if cp < 0 { "-" } else { "" };
                let a = cp.unsigned_abs();
                format!("{sign}{}.{:02}", a / 100, a % 100)
            }
            Score::Mate(n) => format!("#{n}"),
            Score::Won(Color::White) => "#0".to_string(),
            Score::Won(Color::Black) => "#-0".to_string(),
        }
    }

    /// A short human form: `+0.35`, `-4.10`, `mate in 3 for White`,
    /// `White won`.
    pub fn describe(&self) -> String {
        match *self {
            Score::Cp(cp) => format!("{}{:.2}", if cp < 0 { "-" } else { "+" }, f64::from(cp.unsigned_abs()) / 100.0),
            Score::Mate(n) => {
                format!("mate in {} for {}", n.unsigned_abs(), if n > 0 { "White" } else { "Black" })
            }
            Score::Won(c) => format!("{} won", if c == Color::White { "White" } else { "Black" }),
        }
    }
}

/// How bad a move was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Judgement {
    /// A loss of at least 0.1 in winning chances.
    Inaccuracy,
    /// At least 0.2.
    Mistake,
    /// At least 0.3.
    Blunder,
}

impl Judgement {
    /// The PGN annotation symbol: `?!`, `?` or `??`.
    pub fn nag(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }

    /// The numeric annotation glyph of PGN (`$6`, `$2`, `$4`).
    pub fn nag_number(self) -> u8 {
        match self {
            Judgement::Inaccuracy => 6,
            Judgement::Mistake => 2,
            Judgement::Blunder => 4,
        }
    }

    /// `Inaccuracy`, `Mistake` or `Blunder`.
    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "Inaccuracy",
            Judgement::Mistake => "Mistake",
            Judgement::Blunder => "Blunder",
        }
    }

    /// The judgement of a loss of winning chances, if it is one.
    pub fn of_loss(loss: f64) -> Option<Judgement> {
        if loss >= 0.3 {
            Some(Judgement::Blunder)
        } else if loss >= 0.2 {
            Some(Judgement::Mistake)
        } else if loss >= 0.1 {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    /// A forced mate thrown away or walked into, judged by the centipawns
    /// (the mover's) on the other side of it.
    fn of_mate_swing(cp: i32) -> Judgement {
        if cp > 999 {
            Judgement::Inaccuracy
        } else if cp > 700 {
            Judgement::Mistake
        } else {
            Judgement::Blunder
        }
    }
}

/// One move of a reviewed game.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlyReview {
    /// Its index in the game's moves (0 for the first).
    pub ply: usize,
    /// Who played it.
    pub mover: Color,
    /// The move in SAN.
    pub san: String,
    /// The score before it.
    pub before: Score,
    /// The score after it.
    pub after: Score,
    /// The search's choice in the position before it (which may be the move
    /// played), in SAN.
    pub best_san: Option<String>,
    /// The expected line in SAN, starting with the best move.
    pub best_line: Vec<String>,
    /// The judgement, if the move is flagged.
    pub judgement: Option<Judgement>,
    /// The mover's loss of winning chances (0 or more; up to 2).
    pub loss: f64,
    /// The move number as PGN writes it (`14.` / `14...`).
    pub number: u32,
}

impl PlyReview {
    /// The move with its number and annotation, such as `14... Qxd4??`.
    pub fn label(&self) -> String {
        let dots = if self.mover == Color::White { "." } else { "..." };
        let nag = self.judgement.map_or("", Judgement::nag);
        format!("{}{dots} {}{nag}", self.number, self.san)
    }

    /// The mover's accuracy on this move (0..100).
    pub fn accuracy(&self) -> f64 {
        move_accuracy(self.before.chances_of(self.mover), self.after.chances_of(self.mover))
    }
}

/// One player's figures.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SideSummary {
    /// Moves flagged as inaccuracies.
    pub inaccuracies: u32,
    /// Moves flagged as mistakes.
    pub mistakes: u32,
    /// Moves flagged as blunders.
    pub blunders: u32,
    /// Mean accuracy over the player's moves, 0..100.
    pub accuracy: f64,
}

/// A reviewed game.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GameReview {
    /// Every move, in order.
    pub plies: Vec<PlyReview>,
    /// White's figures.
    pub white: SideSummary,
    /// Black's figures.
    pub black: SideSummary,
}

impl GameReview {
    /// Builds the review from judged moves, counting each side's figures.
    pub fn from_plies(plies: Vec<PlyReview>) -> GameReview {
        let summary = |c: Color| {
            let mine: Vec<&PlyReview> = plies.iter().filter(|p| p.mover == c).collect();
            let count = |j: Judgement| mine.iter().filter(|p| p.judgement == Some(j)).count() as u32;
            let accuracy = if mine.is_empty() {
                100.0
            } else {
                mine.iter().map(|p| p.accuracy()).sum::<f64>() / mine.len() as f64
            };
            SideSummary {
                inaccuracies: count(Judgement::Inaccuracy),
                mistakes: count(Judgement::Mistake),
                blunders: count(Judgement::Blunder),
                accuracy,
            }
        };
        let (white, black) = (summary(Color::White), summary(Color::Black));
        GameReview { plies, white, black }
    }

    /// The figures of `c`.
    pub fn side(&self, c: Color) -> &SideSummary {
        if c == Color::White { &self.white } else { &self.black }
    }

    /// The `n` flagged moves with the biggest losses (ties in game order).
    pub fn worst(&self, n: usize) -> Vec<&PlyReview> {
        worst_among(self.plies.iter(), n)
    }

    /// The `n` flagged moves of `c` with the biggest losses.
    pub fn worst_of(&self, c: Color, n: usize) -> Vec<&PlyReview> {
        worst_among(self.plies.iter().filter(|p| p.mover == c), n)
    }

    /// The score of every position, from the start to the end (one more
    /// than the moves); empty for a game without moves.
    pub fn scores(&self) -> Vec<Score> {
        let mut out: Vec<Score> = self.plies.iter().map(|p| p.before).collect();
        if let Some(last) = self.plies.last() {
            out.push(last.after);
        }
        out
    }
}

fn worst_among<'a>(plies: impl Iterator<Item = &'a PlyReview>, n: usize) -> Vec<&'a PlyReview> {
    let mut flagged: Vec<&PlyReview> = plies.filter(|p| p.judgement.is_some()).collect();
    // A stable sort keeps game order among equal losses.
    flagged.sort_by(|a, b| b.loss.total_cmp(&a.loss));
    flagged.truncate(n);
    flagged
}

/// Accuracy of one move from the mover's winning chances before and after.
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    let (wb, wa) = (50.0 + 50.0 * before, 50.0 + 50.0 * after);
    (103.1668 * (-0.04354 * (wb - wa)).exp() - 3.1669).clamp(0.0, 100.0)
}

/// What the review learnt of one position.
struct Analysis {
    score: Score,
    best: Option<Move>,
    line: Vec<Move>,
}

/// Reviews the game from `start` through `moves`; `progress(done, total)` is
/// called after each position (`total` is the number of positions, one more
/// than the moves reviewed); `stop` set to true makes it return `None`
/// promptly, even in the middle of a position's search.
///
/// The moves are replayed as a [`Game`], so repetition rules apply; a move
/// that is illegal, or comes after the game ended, ends the review there.
pub fn review_game(
    start: &Position,
    moves: &[Move],
    options: &ReviewOptions,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize),
) -> Option<GameReview> {
    // The positions, replayed with the game's rules.
    let mut game = Game::from_position(start.clone());
    let mut positions = vec![(game.position().clone(), game.outcome())];
    for m in moves {
        if game.play(*m).is_err() {
            break;
        }
        positions.push((game.position().clone(), game.outcome()));
    }
    let total = positions.len();
    let mut engine = Engine::new(32);
    engine.set_draw_odds(options.draw_odds);
    let limits = Limits::new(options.time_per_position, options.max_depth.max(1));
    // A watcher passes `stop` on to the running search.
    let cancel = engine.cancel_flag();
    let done = AtomicBool::new(false);
    let analyses = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    cancel.store(true, Ordering::Relaxed);
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let mut analyses = Vec::with_capacity(total);
        // Each position is searched knowing the game's positions before it,
        // so that a move back to one counts as the repetition it is (a draw,
        // or in Olympic Chess a loss for White, O6).
        let visits: Vec<Visit> = positions.iter().map(|(p, _)| Visit::of(p)).collect();
        for (i, (pos, outcome)) in positions.iter().enumerate() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            analyses.push(analyse(&mut engine, pos, *outcome, limits, FORCED_PLIES, &visits[..i]));
            progress(i + 1, total);
        }
        done.store(true, Ordering::Relaxed);
        analyses
    });
    if stop.load(Ordering::Relaxed) || analyses.len() < total {
        return None;
    }
    let plies = (0..total - 1)
        .map(|i| {
            let pos = &positions[i].0;
            let m = moves[i];
            let (now, next) = (&analyses[i], &analyses[i + 1]);
            judge(pos, m, i, now, next.score)
        })
        .collect();
    Some(GameReview::from_plies(plies))
}

/// Judges move `m` played in `pos`.
fn judge(pos: &Position, m: Move, ply: usize, now: &Analysis, after: Score) -> PlyReview {
    let mover = pos.turn();
    let before = now.score;
    let loss = (before.chances_of(mover) - after.chances_of(mover)).max(0.0);
    let by_chances = Judgement::of_loss(loss);
    let them = !mover;
    let mate_swing = if before.mating_side() == Some(mover) && after.mating_side() != Some(mover) {
        // A forced mate thrown away.
        Some(Judgement::of_mate_swing(after.cp_of(mover).unwrap_or(-1000)))
    } else if after.mating_side() == Some(them) && before.mating_side() != Some(them) {
        // A forced mate walked into.
        Some(Judgement::of_mate_swing(-before.cp_of(mover).unwrap_or(1000)))
    } else {
        None
    };
    let played_best = now.best == Some(m);
    let judgement = if played_best { None } else { mate_swing.or(by_chances) };
    let mut line = Vec::new();
    let mut p = pos.clone();
    for mv in &now.line {
        line.push(p.san(mv));
        p.play_unchecked(*mv);
    }
    PlyReview {
        ply,
        mover,
        san: pos.san(&m),
        before,
        after,
        best_san: now.best.map(|b| pos.san(&b)),
        best_line: line,
        judgement,
        loss,
        number: pos.fullmoves(),
    }
}

/// Searches one position (or reads its result, once the game is over).
fn analyse(
    engine: &mut Engine,
    pos: &Position,
    outcome: Option<crate::game::Outcome>,
    limits: Limits,
    forced: u32,
    earlier: &[Visit],
) -> Analysis {
    if let Some(o) = outcome {
        // A draw is the draw odds holder's win (CA14).
        let score = o.winner.or(engine.draw_odds()).map_or(Score::Cp(0), Score::Won);
        return Analysis { score, best: None, line: Vec::new() };
    }
    let moves = pos.legal_moves();
    if moves.len() == 1 && forced > 0 {
        // The search does not look past a forced move: look at the position
        // after it instead.
        let only = moves[0];
        let mut game = Game::from_position(pos.clone());
        let outcome = game.play(only).ok().and_then(|p| p.outcome);
        let mut before = earlier.to_vec();
        before.push(Visit::of(pos));
        let next = analyse(engine, game.position(), outcome, limits, forced - 1, &before);
        let mut line = vec![only];
        line.extend(next.line);
        line.truncate(LINE_PLIES);
        return Analysis { score: next.score, best: Some(only), line };
    }
    engine.set_history(earlier);
    match engine.search(pos, limits) {
        Some(found) => {
            let mut line = found.pv.clone();
            line.truncate(LINE_PLIES);
            Analysis { score: white_score(pos.turn(), &found), best: Some(found.best), line }
        }
        None => Analysis { score: Score::Cp(0), best: None, line: Vec::new() },
    }
}

/// The search's score, for the side to move, as White's.
fn white_score(turn: Color, found: &Found) -> Score {
    let sign = if turn == Color::White { 1 } else { -1 };
    if let Some(n) = found.mate_in() {
        Score::Mate(sign * n.max(1) as i32)
    } else if let Some(n) = found.mated_in() {
        Score::Mate(-sign * n.max(1) as i32)
    } else {
        Score::Cp(sign * found.score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_follow_the_published_curve() {
        // 2 / (1 + e^-1.2) - 1 for 300 centipawns.
        assert!((Score::Cp(300).win_chances() - 0.537_049_566_998_035_3).abs() < 1e-12);
        assert_eq!(Score::Cp(0).win_chances(), 0.0);
        assert_eq!(Score::Cp(5000).win_chances(), Score::Cp(1000).win_chances());
        assert_eq!(Score::Mate(-3).win_chances(), -1.0);
        assert_eq!(Score::Won(Color::White).win_chances(), 1.0);
    }

    #[test]
    fn eval_text_as_lichess_writes_it() {
        assert_eq!(Score::Cp(35).eval_text(), "0.35");
        assert_eq!(Score::Cp(-120).eval_text(), "-1.20");
        assert_eq!(Score::Cp(-5).eval_text(), "-0.05");
        assert_eq!(Score::Mate(3).eval_text(), "#3");
        assert_eq!(Score::Mate(-2).eval_text(), "#-2");
    }

    #[test]
    fn accuracy_formula() {
        assert!((move_accuracy(0.2, 0.2) - 99.9999).abs() < 1e-3);
        // A drop of 40 win-percent points: 103.1668 e^(-1.7416) - 3.1669.
        assert!((move_accuracy(0.4, -0.4) - 14.9).abs() < 0.1);
        assert_eq!(move_accuracy(-1.0, 1.0), 100.0);
        assert_eq!(move_accuracy(1.0, -1.0), 0.0);
    }
}
