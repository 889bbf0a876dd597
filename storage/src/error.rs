//! The one error type of the store.

use crate::{GameId, GameKey};

/// Everything that can go wrong in the store.
///
/// The `Display` text is written for the player who typed the command; a
/// damaged record names the one game (or challenge, rating, setting) it
/// belongs to, and says that nothing else is affected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// sled could not read or write its files (disk full, permissions, a damaged database).
    #[error("the game store could not read or write its files ({0}); please tell whoever hosts the bot")]
    Database(#[from] sled::Error),
    /// A stored record could not be decoded: it is damaged. Only that record is affected.
    #[error("{record} is damaged and cannot be read ({reason}); nothing else is affected")]
    Corrupt {
        /// What the record is, for example "game `k7qz` in discord/1234".
        record: String,
        /// What was wrong with it.
        reason: String,
    },
    /// A stored record was written by a newer version of Kibitz than this one.
    #[error(
        "{record} was saved by a newer version of Kibitz (record version {version}; this version reads up to \
         {supported}); nothing else is affected"
    )]
    UnknownVersion {
        /// What the record is.
        record: String,
        /// The version found on disk.
        version: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// A record could not be encoded for writing (not expected for plain records).
    #[error("{record} could not be saved ({reason})")]
    Encode {
        /// What the record is.
        record: String,
        /// Why encoding failed.
        reason: String,
    },
    /// The chat message was handled already (its replies stored); a repeated
    /// delivery changes nothing.
    #[error("message {0} was handled already")]
    AlreadyHandled(String),
    /// No active game has this id in this channel.
    #[error("there is no game `{}` in this channel", .0.id)]
    NoSuchGame(GameKey),
    /// The game has finished and is in the archive; it takes no more moves.
    #[error("game `{}` is over", .0.id)]
    GameOver(GameKey),
    /// The game changed since the caller read it: another move (or offer, or result) came first.
    #[error(
        "game `{}` changed while this was being done (someone else acted first); look at the board and try again",
        .key.id
    )]
    Conflict {
        /// The game.
        key: GameKey,
        /// The version the caller expected.
        expected: u64,
        /// The version found.
        actual: u64,
    },
    /// This chat message (same message id) was already applied to the game: a retried delivery.
    #[error("this message was already applied to game `{}`", .key.id)]
    AlreadyApplied {
        /// The game.
        key: GameKey,
        /// The game's version now.
        version: u64,
    },
    /// A player may be in only one game per channel.
    #[error("{player} is already playing game `{game}` in this channel")]
    PlayerBusy {
        /// The player.
        player: String,
        /// The game they are in.
        game: GameId,
    },
    /// No pending challenge from this player in this channel.
    #[error("there is no open challenge from {challenger} in this channel")]
    NoSuchChallenge {
        /// Who was named as the challenger.
        challenger: String,
    },
    /// The challenge names another opponent.
    #[error("the challenge from {challenger} is for {challenged}")]
    NotYourChallenge {
        /// Who challenged.
        challenger: String,
        /// Whom they challenged.
        challenged: String,
    },
    /// A player tried to accept their own challenge.
    #[error("you cannot accept your own challenge")]
    OwnChallenge,
    /// No offer of this kind is pending in the game.
    #[error("there is no pending {kind} offer in game `{}`", .key.id)]
    NoOffer {
        /// The game.
        key: GameKey,
        /// The kind of offer ("draw" or "takeback").
        kind: &'static str,
    },
    /// A takeback asked for more moves than the game has.
    #[error("cannot take back {requested} moves: game `{}` has only {available}", .key.id)]
    TakebackTooLong {
        /// The game.
        key: GameKey,
        /// Moves asked for.
        requested: usize,
        /// Moves played.
        available: usize,
    },
    /// A player has already sealed a bid in this round of a Clash match.
    #[error("{player} has already sealed a bid for round {round}")]
    BidAlreadySealed {
        /// The player.
        player: String,
        /// The round.
        round: u32,
    },
    /// A bid was sealed in a game that is not a Clash match.
    #[error("game `{}` is not a Clash match", .0.id)]
    NotAClashMatch(GameKey),
    /// A name (platform, channel, player, variant) contains a NUL character, which keys cannot hold.
    #[error("`{name}` cannot be used as a {what}: it contains a NUL character")]
    InvalidName {
        /// What the name was for.
        what: &'static str,
        /// The name, with the NUL shown as `\0`.
        name: String,
    },
    /// Text that is not a game id.
    #[error("`{0}` is not a game id: game ids are 4 letters and digits such as `k7qz`")]
    InvalidGameId(String),
    /// Every game id of the channel is taken (about 920,000 games).
    #[error("this channel has no free game id left")]
    NoFreeId,
}

/// The result type of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
