//! The stored records: plain values that know nothing of rules or chat platforms.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub use crate::clock::{ChatClock, ClockState};
use crate::codec::{Envelope, Record};
use crate::{ChannelKey, GameId, GameKey, Rating};

/// A moment, in milliseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Now, by the system clock (the epoch if the clock is set before it).
    pub fn now() -> Timestamp {
        Timestamp(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
    }
}

/// A side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    /// White, who moves first.
    White,
    /// Black.
    Black,
}

/// The colour a challenger asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColourChoice {
    /// The challenger plays White.
    White,
    /// The challenger plays Black.
    Black,
    /// Drawn by lot when the challenge is accepted.
    #[default]
    Random,
}

/// How a game is played, as agreed when it starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameSettings {
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    /// Whether players may ask the bot for hints.
    pub hints_allowed: bool,
    /// Days each player has for a move; `None` for no limit.
    pub days_per_move: Option<u32>,
    /// The bot's playing level (1-8) when one of the players is the bot.
    pub bot_level: Option<u8>,
    /// A chat clock (`10+5`) instead of days per move; `None` for none.
    /// Records written before chat clocks existed read with `None`.
    pub clock: Option<ChatClock>,
    /// Power Absorption's handicaps (PA7) in words, as the PGN tag writes
    /// them (`White plain, Black nopawn noqueen`); `None` for none. The
    /// game's start position holds them too. A handicap game is never rated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handicap: Option<String>,
    /// Whether the game is played in a private chat with the bot, so that
    /// a list elsewhere names that chat as such rather than by its id.
    /// Records written before this was kept read as `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
}

impl GameSettings {
    /// Whether the result changes ratings: a rated game without handicap.
    pub fn counts_for_rating(&self) -> bool {
        self.rated && self.handicap.is_none()
    }
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            rated: true,
            hints_allowed: false,
            days_per_move: None,
            bot_level: None,
            clock: None,
            handicap: None,
            private: false,
        }
    }
}

/// One move as played: its text, who played it and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// The move in canonical notation (`e2e4`, `P@c3`, `a2a3b2b3`).
    pub text: String,
    /// The player who played it.
    pub by: String,
    /// When it was played.
    pub at: Timestamp,
    /// The chat message that carried it, if any: a message is applied once.
    pub message_id: Option<String>,
}

/// What an offer proposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum OfferKind {
    /// End the game drawn.
    Draw,
    /// Take back the last `plies` moves.
    Takeback {
        /// How many moves (plies) to take back.
        plies: u32,
    },
}

impl OfferKind {
    /// The name players use: "draw" or "takeback".
    pub fn name(self) -> &'static str {
        match self {
            OfferKind::Draw => "draw",
            OfferKind::Takeback { .. } => "takeback",
        }
    }
}

/// A pending draw or takeback offer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    /// What is offered.
    #[serde(flatten)]
    pub kind: OfferKind,
    /// The player who offered.
    pub by: String,
    /// When.
    pub at: Timestamp,
}

/// A player's `/resign` waiting for their confirmation: kept with the game,
/// so that the confirmation counts whichever process it reaches and after a
/// restart. A move or a takeback ends it; so does another position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignAsk {
    /// The player who asked.
    pub by: String,
    /// When.
    pub at: Timestamp,
    /// The position it was asked in: the moves played then.
    pub plies: usize,
    /// And the Clash rounds finished then (0 in other games).
    #[serde(default)]
    pub rounds: usize,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
    /// Called off without a result; never rated.
    Aborted,
}

impl Outcome {
    /// The result as PGN writes it: `1-0`, `0-1`, `1/2-1/2`, or `*` for a
    /// game called off.
    pub fn pgn_result(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::Aborted => "*",
        }
    }
}

/// A player's rating before and after a game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// Before the game.
    pub before: Rating,
    /// After the game.
    pub after: Rating,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// Who won.
    pub outcome: Outcome,
    /// Why, in words: "checkmate", "resignation", "draw agreed", "time".
    pub reason: String,
    /// When the game ended.
    pub at: Timestamp,
    /// White's rating change, if the game was rated.
    pub white_rating: Option<RatingChange>,
    /// Black's rating change, if the game was rated.
    pub black_rating: Option<RatingChange>,
}

/// A bid in a Clash round, sealed until every player has bid.
///
/// The store keeps the bid as text; keeping it hidden until the reveal is the
/// chat core's job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedBid {
    /// The bidder.
    pub player: String,
    /// The round the bid is for.
    pub round: u32,
    /// The bid, as text the Clash rules will read.
    pub bid: String,
    /// When it was sealed.
    pub at: Timestamp,
}

/// A finished round of a Clash match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClashRound {
    /// The round number, from 1.
    pub number: u32,
    /// The bids of the round, revealed.
    pub bids: Vec<SealedBid>,
    /// What happened, as text the Clash rules wrote.
    pub outcome: String,
    /// The round's start position (FEN); empty in records written before
    /// rounds kept their moves.
    #[serde(default)]
    pub start_fen: String,
    /// The round's moves, canonical, in order (for its PGN).
    #[serde(default)]
    pub moves: Vec<String>,
}

/// The state of a Clash match beside its board: rounds, gold, armies and sealed bids.
///
/// The store knows nothing of the Clash rules: the match itself (points,
/// gold, armies, the auction, the rounds played) is `state`, the rules'
/// match as the chat core serialized it, kept as it was written. The other
/// fields are plain values beside it: the round, the bids as sealed, the
/// rounds played as text. A record without `state` (written before it
/// existed) reads with `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClashMatch {
    /// The rules' match state (`kibitz_rules::army::Match`, serialized by
    /// the chat core); `None` for a match that has not changed since it was
    /// created, which is a new match.
    pub state: Option<serde_json::Value>,
    /// The current round, from 1.
    pub round: u32,
    /// Each player's gold.
    pub gold: BTreeMap<String, i64>,
    /// Each player's army, as piece names or codes.
    pub armies: BTreeMap<String, Vec<String>>,
    /// Bids sealed for the current round.
    pub sealed_bids: Vec<SealedBid>,
    /// Rounds played.
    pub rounds: Vec<ClashRound>,
}

/// An active or finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Where the game is and its id.
    pub key: GameKey,
    /// Bumped by every change; a change names the version it was made against.
    pub version: u64,
    /// The variant id (`chess`, `olympic`, ...).
    pub variant: String,
    /// The player with White.
    pub white: String,
    /// The player with Black.
    pub black: String,
    /// The agreed settings.
    pub settings: GameSettings,
    /// The start position (FEN).
    pub start_fen: String,
    /// The current position (FEN).
    pub fen: String,
    /// Every move, in order.
    pub moves: Vec<MoveRecord>,
    /// When the game started.
    pub started_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Pending draw and takeback offers (at most one of each kind).
    #[serde(default)]
    pub offers: Vec<Offer>,
    /// The players' `/resign`s waiting for their confirmation (at most one each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resign_asks: Vec<ResignAsk>,
    /// The Clash match state, for Clash games.
    #[serde(default)]
    pub clash: Option<ClashMatch>,
    /// The result, once the game is over (then it is in the archive).
    #[serde(default)]
    pub result: Option<GameResult>,
    /// Chat messages already applied to this game, so that a retried delivery applies once.
    #[serde(default)]
    pub applied_messages: Vec<String>,
    /// The plies at which the player to move asked for a hint (marked in the PGN).
    #[serde(default)]
    pub hints: Vec<u32>,
    /// When the player to move was reminded of the clock (correspondence
    /// games); cleared by the next move.
    #[serde(default)]
    pub reminded_at: Option<Timestamp>,
    /// The chat clock as it stands, for a game with one (see
    /// [`GameSettings::clock`]); `None` for other games and in records
    /// written before chat clocks existed.
    #[serde(default)]
    pub clock: Option<ClockState>,
    /// In a game against the bot, the bot's colour ([`NewGame::bot`]): the
    /// player not kept in the index of who plays in the channel. `None` for
    /// other games, and for games against the bot begun before it was kept
    /// (whose bot is in the index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<Colour>,
}

impl GameRecord {
    /// The players kept in the index of who plays in the game's channel:
    /// both, but for the bot ([`GameRecord::bot`]).
    pub fn indexed_players(&self) -> Vec<&String> {
        indexed(&self.white, &self.black, self.bot)
    }

    /// Whether the game's result changes ratings: its settings say so
    /// ([`GameSettings::counts_for_rating`]), two different players play
    /// it, and it [was really played](GameRecord::was_played).
    pub fn counts_for_rating(&self) -> bool {
        self.settings.counts_for_rating() && self.white != self.black && self.was_played()
    }

    /// Whether each side made a move (or, in Clash, a round was finished).
    /// A game that ends before then, on time, by resignation or by
    /// agreement, leaves both ratings as they were.
    pub fn was_played(&self) -> bool {
        self.moves.len() >= 2 || self.clash.as_ref().is_some_and(|c| !c.rounds.is_empty())
    }

    /// The player of `colour`.
    pub fn player(&self, colour: Colour) -> &str {
        match colour {
            Colour::White => &self.white,
            Colour::Black => &self.black,
        }
    }

    /// The colour `player` plays, if they play in this game (White if they play both).
    pub fn colour_of(&self, player: &str) -> Option<Colour> {
        if self.white == player {
            Some(Colour::White)
        } else if self.black == player {
            Some(Colour::Black)
        } else {
            None
        }
    }

    /// The pending offer of this kind (a takeback of any length matches a takeback).
    pub fn offer(&self, kind: OfferKind) -> Option<&Offer> {
        self.offers.iter().find(|o| o.kind.name() == kind.name())
    }
}

impl Record for GameRecord {
    const VERSION: u32 = 2;

    fn upgrade(version: u32, bytes: &[u8]) -> Option<serde_json::Result<Self>> {
        match version {
            1 => Some(serde_json::from_slice::<Envelope<GameV1>>(bytes).map(|e| e.record.upgrade())),
            _ => None,
        }
    }
}

/// Version 1 of the game record: moves as bare text, no settings beyond hints
/// and days per move (0 for no limit), seconds instead of milliseconds, no
/// offers, Clash state, result or message ids.
#[derive(Deserialize)]
struct GameV1 {
    platform: String,
    channel: String,
    id: String,
    version: u64,
    variant: String,
    white: String,
    black: String,
    hints: bool,
    days_per_move: u32,
    start_fen: String,
    fen: String,
    moves: Vec<String>,
    started_at: u64,
}

impl GameV1 {
    /// Version 1 did not say who played each move or when: White and Black
    /// alternate (one entry per turn), and every move is dated at the start.
    fn upgrade(self) -> GameRecord {
        let started_at = Timestamp(self.started_at.saturating_mul(1000));
        let moves = self
            .moves
            .into_iter()
            .enumerate()
            .map(|(i, text)| MoveRecord {
                text,
                by: if i % 2 == 0 { self.white.clone() } else { self.black.clone() },
                at: started_at,
                message_id: None,
            })
            .collect();
        GameRecord {
            key: GameKey::new(ChannelKey::new(self.platform, self.channel), GameId::stored(self.id.as_bytes())),
            version: self.version,
            variant: self.variant,
            white: self.white,
            black: self.black,
            settings: GameSettings {
                hints_allowed: self.hints,
                days_per_move: (self.days_per_move > 0).then_some(self.days_per_move),
                ..GameSettings::default()
            },
            start_fen: self.start_fen,
            fen: self.fen,
            moves,
            started_at,
            updated_at: started_at,
            offers: Vec::new(),
            resign_asks: Vec::new(),
            clash: None,
            result: None,
            applied_messages: Vec::new(),
            hints: Vec::new(),
            reminded_at: None,
            clock: None,
            bot: None,
        }
    }
}

/// A game about to start, for [`Store::create_game`](crate::Store::create_game).
#[derive(Clone, Debug, PartialEq)]
pub struct NewGame {
    /// The variant id.
    pub variant: String,
    /// The player with White.
    pub white: String,
    /// The player with Black.
    pub black: String,
    /// The agreed settings.
    pub settings: GameSettings,
    /// The start position (FEN).
    pub start_fen: String,
    /// When it starts.
    pub at: Timestamp,
    /// The Clash match state, for Clash games.
    pub clash: Option<ClashMatch>,
    /// In a game against the bot, the bot's colour: the bot plays any number
    /// of games in a channel at once (one with each player), so it is not
    /// kept as playing there, and is never refused as busy.
    pub bot: Option<Colour>,
}

impl NewGame {
    /// The players kept as playing in the game's channel: both, but for the
    /// bot ([`NewGame::bot`]).
    pub(crate) fn indexed_players(&self) -> Vec<&String> {
        indexed(&self.white, &self.black, self.bot)
    }
}

/// `white` and `black`, but for the bot's colour.
fn indexed<'a>(white: &'a String, black: &'a String, bot: Option<Colour>) -> Vec<&'a String> {
    let mut players = Vec::with_capacity(2);
    if bot != Some(Colour::White) {
        players.push(white);
    }
    if bot != Some(Colour::Black) {
        players.push(black);
    }
    players
}

/// A pending challenge in a channel: at most one per challenger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// Who challenges.
    pub challenger: String,
    /// Whom; `None` for an open challenge anyone may accept.
    pub challenged: Option<String>,
    /// The variant id.
    pub variant: String,
    /// The challenger's colour.
    pub colour: ColourChoice,
    /// The proposed settings.
    pub settings: GameSettings,
    /// Whether the game is a Clash match (it then starts with an empty [`ClashMatch`]).
    #[serde(default)]
    pub clash: bool,
    /// When the challenge was made.
    pub at: Timestamp,
}

impl Record for Challenge {
    const VERSION: u32 = 1;
}

/// Settings of a channel: defaults for new games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChannelSettings {
    /// The variant played when a challenge names none.
    pub default_variant: Option<String>,
    /// Whether games are rated unless a challenge says otherwise.
    pub rated: bool,
    /// Whether hints are allowed unless a challenge says otherwise.
    pub hints_allowed: bool,
    /// Days per move unless a challenge says otherwise; `None` for no limit.
    pub days_per_move: Option<u32>,
}

impl Default for ChannelSettings {
    fn default() -> Self {
        ChannelSettings { default_variant: None, rated: true, hints_allowed: false, days_per_move: None }
    }
}

impl Record for ChannelSettings {
    const VERSION: u32 = 1;
}

impl Record for Rating {
    const VERSION: u32 = 1;
}
