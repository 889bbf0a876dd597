//! The review of a finished game: queued in the store when the game ends
//! (or on `/review`), analysed in the background by the reviewer
//! ([`crate::reviewer`]), kept in the store and posted when done.
//!
//! A review is owed from the moment it is queued: the job stays in the
//! store until its replies wait in the outbox (see [`Core::notices_kept`]),
//! so a crash loses none. No live game is ever reviewed: it would be a hint.

use std::sync::atomic::AtomicBool;

use kibitz_rules::review::{GameReview, PlyReview, ReviewOptions, review_game};
use kibitz_storage::{ClashRound, GameKey, ReviewJob};

use super::*;

/// How long a process keeps a review it took before another may take it
/// (when the process died meanwhile): longer than any review takes.
pub const REVIEW_LEASE: Duration = Duration::from_secs(600);

/// How many of the biggest mistakes a review names.
const WORST: usize = 3;

/// How many plies of a better move's expected line a review shows.
const LINE_SHOWN: usize = 6;

/// What became of a review job the reviewer took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reviewed {
    /// Done: its replies wait with the notices.
    Posted,
    /// Stopped before it was done (the bot is stopping): it stays owed.
    Stopped,
    /// Nothing to review (the game is gone, unreadable, or has no moves): dropped.
    Dropped,
}

/// Review jobs whose replies wait with the notices (`waiting`), and those
/// whose replies an adapter took to store in the outbox (`taken`).
#[derive(Default)]
pub(super) struct ReviewMarks {
    waiting: Vec<ReviewJob>,
    taken: Vec<ReviewJob>,
}

/// Wakes the reviewer when a job is queued (a counter and its condition).
#[derive(Default)]
pub(super) struct ReviewWake {
    queued: Mutex<u64>,
    changed: std::sync::Condvar,
}

/// What a review is of: the game's record and, for a Clash round, the round.
struct Subject {
    record: GameRecord,
    round: Option<ClashRound>,
}

impl Subject {
    /// "game k3x9" or "round 2 of game k3x9".
    fn name(&self) -> String {
        match &self.round {
            Some(r) => format!("round {} of game {}", r.number, self.record.key.id.as_str()),
            None => format!("game {}", self.record.key.id.as_str()),
        }
    }

    /// The side holding draw odds in the round (Clash's ultimate round after
    /// the Amazon's auction, CA14), for whom a draw is a win.
    fn draw_odds(&self) -> Option<Color> {
        let round = self.round.as_ref()?;
        if round.number != u32::from(kibitz_rules::army::ULTIMATE_ROUND) {
            return None;
        }
        super::clash::match_of(&self.record).ok()??.draw_odds
    }

    /// The start position and the moves, as the rules read them.
    fn game(&self) -> Option<Game> {
        let variant = Variant::by_id(&self.record.variant)?;
        let (fen, texts): (&str, Vec<&str>) = match &self.round {
            Some(r) => (&r.start_fen, r.moves.iter().map(String::as_str).collect()),
            None => (&self.record.start_fen, self.record.moves.iter().map(|m| m.text.as_str()).collect()),
        };
        let mut game = Game::from_position(Position::from_fen(variant, fen).ok()?);
        for text in texts {
            let mv = game.legal_moves().into_iter().find(|x| game.position().canonical(x) == text)?;
            game.play(mv).ok()?;
        }
        Some(game)
    }
}

impl Core {
    /// Starts the review of `finished`: queued for the reviewer, unless
    /// reviews at the end are off or there is nothing to review (a game
    /// where a side never moved: `/review` still reviews it on request). A
    /// Clash match is reviewed round by round, as each round ends.
    pub(super) fn start_review(&self, finished: &GameRecord) {
        let aborted = finished.result.as_ref().is_some_and(|r| r.outcome == Outcome::Aborted);
        if !self.config.review_at_end || aborted || finished.moves.len() < 2 || finished.clash.is_some() {
            return;
        }
        self.queue_review(&finished.key, None);
    }

    /// Starts the review of `round` of the Clash match `record`.
    pub(super) fn start_round_review(&self, record: &GameRecord, round: &ClashRound) {
        if !self.config.review_at_end || round.moves.len() < 2 || round.start_fen.is_empty() {
            return;
        }
        self.queue_review(&record.key, Some(round.number));
    }

    /// Queues a review and wakes the reviewer; `false` if it could not be stored.
    fn queue_review(&self, game: &GameKey, round: Option<u32>) -> bool {
        let job = ReviewJob { game: game.clone(), round, queued_at: Timestamp::now() };
        match self.store.queue_review(&job) {
            Ok(_) => {
                self.wake_reviewer();
                true
            }
            Err(e) => {
                tracing::error!("could not queue the review of {}: {}", game, e.detail());
                false
            }
        }
    }

    /// Wakes the reviewer (a job was queued, or it is to stop).
    pub fn wake_reviewer(&self) {
        if let Ok(mut n) = self.review_wake.queued.lock() {
            *n += 1;
            self.review_wake.changed.notify_all();
        }
    }

    /// Waits up to `limit` for a job to be queued after the wake count
    /// `seen`; returns the wake count now.
    pub fn wait_for_reviews(&self, seen: u64, limit: Duration) -> u64 {
        let Ok(n) = self.review_wake.queued.lock() else { return seen };
        match self.review_wake.changed.wait_timeout_while(n, limit, |n| *n == seen) {
            Ok((n, _)) => *n,
            Err(_) => seen,
        }
    }

    /// The wake count now (see [`Core::wait_for_reviews`]).
    pub fn reviews_queued(&self) -> u64 {
        self.review_wake.queued.lock().map_or(0, |n| *n)
    }

    /// How the reviewer searches: the configured time and depth per position.
    fn review_options(&self, subject: &Subject) -> ReviewOptions {
        ReviewOptions {
            time_per_position: self.config.review_time,
            max_depth: self.config.review_depth,
            draw_odds: subject.draw_odds(),
        }
    }

    /// Does one review job: analyses the game (unless a review of it is
    /// kept already), keeps the review, and leaves its replies with the
    /// notices for the game's channel. Setting `stop` ends it early
    /// ([`Reviewed::Stopped`]; the job stays owed).
    pub fn review_job(&self, job: &ReviewJob, stop: &AtomicBool) -> Reviewed {
        let Some(subject) = self.subject(job) else {
            tracing::warn!("the review of {} has nothing to review; dropped", job.game);
            if let Err(e) = self.store.drop_review(&job.game, job.round) {
                tracing::warn!("could not drop the review of {}: {}", job.game, e.detail());
            }
            return Reviewed::Dropped;
        };
        let review = match self.kept_review(&job.game, job.round) {
            Some(review) => review,
            None => {
                let Some(game) = subject.game() else {
                    let _ = self.store.drop_review(&job.game, job.round);
                    return Reviewed::Dropped;
                };
                let Some(review) =
                    review_game(game.start(), game.moves(), &self.review_options(&subject), stop, &mut |_, _| {})
                else {
                    return Reviewed::Stopped;
                };
                match serde_json::to_string(&review) {
                    Ok(text) => {
                        if let Err(e) = self.store.set_review(&job.game, job.round, &text) {
                            // Posted all the same; a `/review` later analyses it again.
                            tracing::warn!("could not keep the review of {}: {}", job.game, e.detail());
                        }
                    }
                    Err(e) => tracing::warn!("could not write the review of {}: {e}", job.game),
                }
                review
            }
        };
        let reply = self.review_reply(&subject, &review);
        self.notify_review(job, reply);
        Reviewed::Posted
    }

    /// Runs every review owed on `platform` now, on this thread, one after
    /// another (the console's `!reviews`, tests): their replies wait with the
    /// notices. Returns how many were posted.
    pub fn run_reviews(&self, platform: &str) -> usize {
        let stop = AtomicBool::new(false);
        let mut posted = 0;
        while let Ok(jobs) = self.store.claim_reviews(Timestamp::now(), platform, REVIEW_LEASE, 1) {
            let Some(job) = jobs.into_iter().next() else { break };
            if self.review_job(&job, &stop) == Reviewed::Posted {
                posted += 1;
            }
        }
        posted
    }

    /// The game (or round) a job is of, if it can be reviewed.
    fn subject(&self, job: &ReviewJob) -> Option<Subject> {
        let record = match self.store.game(&job.game) {
            // A running Clash match: its finished rounds can be reviewed.
            Ok(record) if job.round.is_some() => record,
            Ok(_) => return None,
            Err(StoreError::GameOver(_)) => self.store.archived_game(&job.game).ok()?,
            Err(_) => return None,
        };
        let round = match job.round {
            Some(n) => Some(record.clash.as_ref()?.rounds.iter().find(|r| r.number == n)?.clone()),
            None => None,
        };
        let moves = round.as_ref().map_or(record.moves.len(), |r| r.moves.len());
        (moves > 0).then_some(Subject { record, round })
    }

    /// The kept review of a game or round, if there is one that reads.
    fn kept_review(&self, game: &GameKey, round: Option<u32>) -> Option<GameReview> {
        let text = self.store.review_of(game, round).ok()??;
        serde_json::from_str(&text).ok()
    }

    /// The review's replies wait with the notices; its job leaves the store
    /// once they are in the outbox ([`Core::notices_kept`]).
    fn notify_review(&self, job: &ReviewJob, reply: Reply) {
        if let (Ok(mut notices), Ok(mut marks)) = (self.notices.lock(), self.review_marks.lock()) {
            notices.push((job.game.channel.clone(), reply));
            marks.waiting.push(job.clone());
        }
        self.notices_waiting.send_modify(|n| *n += 1);
    }

    /// Notes that the notices of `platform` were taken (called with the
    /// notices' lock held).
    pub(super) fn review_notices_taken(&self, platform: &str) {
        if let Ok(mut marks) = self.review_marks.lock() {
            let (mine, others): (Vec<_>, Vec<_>) =
                marks.waiting.drain(..).partition(|j| j.game.channel.platform == platform);
            marks.waiting = others;
            marks.taken.extend(mine);
        }
    }

    /// The notices of `platform` taken last are stored in the outbox (or, on
    /// the console, shown): the reviews among them are no longer owed.
    pub fn notices_kept(&self, platform: &str) {
        let done: Vec<ReviewJob> = match self.review_marks.lock() {
            Ok(mut marks) => {
                let (mine, others): (Vec<_>, Vec<_>) =
                    marks.taken.drain(..).partition(|j| j.game.channel.platform == platform);
                marks.taken = others;
                mine
            }
            Err(_) => return,
        };
        for job in done {
            if let Err(e) = self.store.drop_review(&job.game, job.round) {
                // Owed still: posted again when its lease ends.
                tracing::warn!("could not drop the review of {} once posted: {}", job.game, e.detail());
            }
        }
    }

    /// The notices of `platform` taken last could not be stored: the reviews
    /// among them stay owed (and are done again when their lease ends).
    pub fn notices_lost(&self, platform: &str) {
        if let Ok(mut marks) = self.review_marks.lock() {
            marks.taken.retain(|j| j.game.channel.platform != platform);
        }
    }

    /// A receiver that sees a change whenever notices wait to be posted
    /// outside of any message (a finished review): an adapter that is idle
    /// posts them at once.
    pub fn notices_signal(&self) -> tokio::sync::watch::Receiver<u64> {
        self.notices_waiting.subscribe()
    }

    /// `/review [GAME]`: the review of a finished game, at once if it is
    /// kept, else queued ("the review follows in a moment").
    pub(super) fn review(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let record = self.finished_game(msg, id)?;
        let gid = record.key.id.as_str().to_string();
        if record.result.as_ref().is_some_and(|r| r.outcome == Outcome::Aborted) {
            return refuse(format!("Game {gid} was aborted: there is nothing to review."));
        }
        let rounds: Vec<ClashRound> = match &record.clash {
            Some(c) => c.rounds.iter().filter(|r| !r.moves.is_empty() && !r.start_fen.is_empty()).cloned().collect(),
            None => Vec::new(),
        };
        let subjects: Vec<Subject> = if record.clash.is_some() {
            rounds.into_iter().map(|r| Subject { record: record.clone(), round: Some(r) }).collect()
        } else if record.moves.is_empty() {
            Vec::new()
        } else {
            vec![Subject { record: record.clone(), round: None }]
        };
        if subjects.is_empty() {
            return refuse(format!("Game {gid} ended before any move: there is nothing to review."));
        }
        let mut replies = Vec::new();
        let mut queued = 0;
        let mut last_queued = None;
        for s in &subjects {
            let number = s.round.as_ref().map(|r| r.number);
            match self.kept_review(&record.key, number) {
                Some(review) => replies.push(self.review_reply(s, &review)),
                None => {
                    if !self.queue_review(&record.key, number) {
                        return refuse("I cannot start a review just now; try again in a moment.");
                    }
                    queued += 1;
                    last_queued = number;
                }
            }
        }
        if queued > 0 {
            let what = match (subjects.len(), queued) {
                (1, _) => format!("game {gid}"),
                (_, 1) => last_queued.map_or(format!("a round of game {gid}"), |n| format!("round {n} of game {gid}")),
                (_, n) => format!("{n} rounds of game {gid}"),
            };
            let follow = if queued > 1 { "the reviews follow" } else { "the review follows" };
            replies.push(Reply::text(format!("Reviewing {what}; {follow} in a moment.")));
        }
        Ok(replies)
    }

    /// The finished game `/review` means: the named one (here, or one of the
    /// sender's elsewhere), else the sender's last game here. A game still
    /// running is refused: its review would be a hint.
    fn finished_game(&self, msg: &Incoming, id: Option<&str>) -> Result<GameRecord, Refusal> {
        let channel = Self::channel(msg);
        let live = |gid: &str| {
            Refusal(format!(
                "Game {gid} is still being played, and a review of a live game would be a hint. It gets its review when it ends."
            ))
        };
        let Some(id) = id else {
            if let Some(g) = self.store.player_game_in_channel(&channel, &msg.sender.id)? {
                return Err(live(g.key.id.as_str()));
            }
            let last = self.store.archived_games_of(&msg.platform, &msg.sender.id, 50)?;
            return match last.into_iter().find(|(k, _)| k.channel == channel) {
                Some((_, record)) => Ok(record?),
                None => refuse("You have no finished game here to review; name one: /review ID."),
            };
        };
        let gid = GameId::parse(id).map_err(|_| not_a_game_id(id))?;
        match self.store.game(&channel.game(gid.clone())) {
            Ok(_) => return Err(live(gid.as_str())),
            Err(StoreError::GameOver(key)) => return Ok(self.store.archived_game(&key)?),
            Err(StoreError::NoSuchGame(_)) => {}
            Err(e) => return Err(e.into()),
        }
        // One of the sender's games elsewhere on the platform.
        if self.store.games_of(&msg.platform, &msg.sender.id)?.iter().any(|(k, _)| k.id == gid) {
            return Err(live(gid.as_str()));
        }
        let archived = self.store.archived_games_of(&msg.platform, &msg.sender.id, 500)?;
        match archived.into_iter().find(|(k, _)| k.id == gid) {
            Some((_, record)) => Ok(record?),
            None => refuse(format!("There is no game {} here, nor among your finished games.", gid.as_str())),
        }
    }

    /// The kept review of the finished game `record` (not of a Clash match), if any.
    pub(super) fn review_for_pgn(&self, record: &GameRecord) -> Option<GameReview> {
        if record.result.is_none() || record.clash.is_some() {
            return None;
        }
        self.kept_review(&record.key, None)
    }

    /// `text` with each mention (`<@ID>`) written as the player's name: a
    /// review tells of the players without calling them.
    fn unmentioned(&self, platform: &str, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("<@") {
            out.push_str(&rest[..at]);
            match rest[at..].find('>') {
                Some(end) => {
                    out.push_str(&self.name(platform, &rest[at + 2..at + end]));
                    rest = &rest[at + end + 1..];
                }
                None => {
                    out.push_str(&rest[at..]);
                    rest = "";
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The posted review: the evaluation graph, with the players' figures
    /// and the biggest mistakes as its caption.
    fn review_reply(&self, subject: &Subject, review: &GameReview) -> Reply {
        let r = &subject.record;
        let platform = &r.key.channel.platform;
        let (white, black) = (self.name(platform, &r.white), self.name(platform, &r.black));
        let mut text = match &subject.round {
            // The round's result in its own words, the first sentence, with names for mentions.
            Some(round) => {
                let first = round.outcome.split(". ").next().unwrap_or_default().trim_end_matches('.');
                let result = self.unmentioned(platform, first);
                let mut text = format!("Review of {}: {white} (White) vs {black} (Black). {result}.", subject.name());
                if let Some(odds) = subject.draw_odds() {
                    let holder = if odds == Color::White { &white } else { &black };
                    let _ =
                        write!(text, " {holder} had draw odds (CA14): a draw counts as their win, and is judged so.");
                }
                text
            }
            None => {
                let result = r.result.as_ref().map_or("*", |x| x.outcome.pgn_result());
                format!("Review of {}: {white} (White) vs {black} (Black), {result}.", subject.name())
            }
        };
        for (name, side) in [(&white, Color::White), (&black, Color::Black)] {
            let s = review.side(side);
            let _ = write!(
                text,
                "\n{name}: {}, {}, {}, accuracy {:.0}%.",
                count(s.inaccuracies as usize, "inaccuracy").replace("inaccuracys", "inaccuracies"),
                count(s.mistakes as usize, "mistake"),
                count(s.blunders as usize, "blunder"),
                s.accuracy
            );
        }
        let worst = review.worst(WORST);
        if worst.is_empty() {
            text.push_str("\nNo move worth a second look: well played.");
        } else {
            text.push_str(if worst.len() == 1 { "\nThe biggest mistake:" } else { "\nThe biggest mistakes:" });
            for p in worst {
                let _ = write!(text, "\n{}", mistake_line(p));
            }
        }
        let title = format!("{}: {white} vs {black}", capitalised(&subject.name()));
        let picture = match kibitz_render::eval_graph_png(review, &title) {
            Ok(png) => {
                let round = subject.round.as_ref().map_or(String::new(), |r| format!("-round{}", r.number));
                Some(Picture { name: format!("review-{}{round}.png", r.key.id.as_str()), bytes: png })
            }
            Err(e) => {
                tracing::warn!("could not draw the evaluation graph of {}: {e}", subject.name());
                None
            }
        };
        Reply { text, picture, buttons: Vec::new() }
    }
}

/// "23. Qxd4?? (blunder) — better Nf6 (Nf6 Bxf6 gxf6)".
fn mistake_line(p: &PlyReview) -> String {
    let mut line = p.label();
    if let Some(j) = p.judgement {
        let _ = write!(line, " ({})", j.name().to_lowercase());
    }
    if let Some(best) = &p.best_san {
        let _ = write!(line, " — better {best}");
        let shown: Vec<&str> = p.best_line.iter().take(LINE_SHOWN).map(String::as_str).collect();
        if shown.len() > 1 {
            let _ = write!(line, " ({})", shown.join(" "));
        }
    }
    line
}

/// `s` with its first letter in upper case.
fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
