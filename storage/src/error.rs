//! The one error type of the store.

use std::path::PathBuf;

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
    ///
    /// The `Display` text is for the player and names no system detail (a
    /// change refused this way was undone); [`StoreError::detail`] has the
    /// whole error, for logs.
    #[error("{}", database_words(.0))]
    Database(#[from] sled::Error),
    /// Another process (a running bot) has the store open.
    #[error("the game store {} is in use by another process (is the bot running?)", .path.display())]
    InUse {
        /// The store's directory.
        path: PathBuf,
    },
    /// The store opened with fewer changes than its manifest records: the
    /// end of its log was damaged or cut off, and the changes after `kept` are gone.
    #[error(
        "the game store lost changes after change {kept}: the manifest beside it records {expected} changes, \
         so the last {} are gone (a damaged or truncated log)",
        .expected - .kept
    )]
    LostChanges {
        /// Changes the store still holds.
        kept: u64,
        /// Changes the manifest says were made.
        expected: u64,
    },
    /// A backup file that cannot be read back.
    #[error("{path} is not a readable Kibitz backup ({reason})")]
    BadBackup {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
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
    #[error("there is no game {} in this channel", .0.id)]
    NoSuchGame(GameKey),
    /// The game has finished and is in the archive; it takes no more moves.
    #[error("game {} is over", .0.id)]
    GameOver(GameKey),
    /// The game changed since the caller read it: another move (or offer, or result) came first.
    #[error(
        "game {} changed while this was being done (someone else acted first); look at the board and try again",
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
    #[error("this message was already applied to game {}", .key.id)]
    AlreadyApplied {
        /// The game.
        key: GameKey,
        /// The game's version now.
        version: u64,
    },
    /// A player may be in only one game per channel.
    #[error("{player} is already playing game {game} in this channel")]
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
    #[error("there is no pending {kind} offer in game {}", .key.id)]
    NoOffer {
        /// The game.
        key: GameKey,
        /// The kind of offer ("draw" or "takeback").
        kind: &'static str,
    },
    /// A takeback asked for more moves than the game has.
    #[error("cannot take back {requested} moves: game {} has only {available}", .key.id)]
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
    #[error("game {} is not a Clash match", .0.id)]
    NotAClashMatch(GameKey),
    /// A name (platform, channel, player, variant) contains a NUL character, which keys cannot hold.
    #[error("{name} cannot be used as a {what}: it contains a NUL character")]
    InvalidName {
        /// What the name was for.
        what: &'static str,
        /// The name, with the NUL shown as `\0`.
        name: String,
    },
    /// Text that is not a game id.
    #[error("{0} is not a game id: game ids are 4 letters and digits such as k7qz")]
    InvalidGameId(String),
    /// Every game id of the channel is taken (about 920,000 games).
    #[error("this channel has no free game id left")]
    NoFreeId,
    /// The shared database (PostgreSQL) refused or failed a request.
    #[error("{}", shared_words(.0))]
    Shared(#[from] postgres::Error),
    /// The shared database could not be reached (no connection in time).
    #[error("the bot cannot reach its database just now; nothing was changed, try again later")]
    Unreachable(String),
    /// The shared database's schema could not be brought up to date.
    #[error("the database's schema could not be brought up to date: {0}")]
    Schema(String),
    /// There is no embedded store in the directory named (to copy from, say).
    #[error("there is no game store in {}", .path.display())]
    NoStore {
        /// The directory.
        path: PathBuf,
    },
    /// A copy into a shared database that already holds records was refused.
    #[error(
        "the database already holds Kibitz records ({holds}); nothing was copied: copy into an empty database \
         (or schema) so that two stores are not mixed"
    )]
    TargetNotEmpty {
        /// What it holds, for example "games, users".
        holds: String,
    },
    /// Something this kind of store does not do.
    #[error("{0}")]
    Unsupported(&'static str),
}

impl StoreError {
    /// The whole error, with the system's own words, for logs and for the
    /// host (the `Display` text is for players).
    pub fn detail(&self) -> String {
        match self {
            StoreError::Database(e) => format!("{}: {e}", database_words(e)),
            StoreError::Shared(e) => format!("{}: {e}", shared_words(e)),
            StoreError::Unreachable(e) => format!("the database cannot be reached: {e}"),
            other => other.to_string(),
        }
    }

    /// Whether this is the disk being full.
    pub fn is_storage_full(&self) -> bool {
        matches!(self, StoreError::Database(sled::Error::Io(e)) if is_full(e))
    }
}

fn is_full(e: &std::io::Error) -> bool {
    // sled wraps the system's error in one of its own kind, with the original as text.
    e.kind() == std::io::ErrorKind::StorageFull || e.raw_os_error() == Some(28) || e.to_string().contains("code: 28,")
}

fn database_words(e: &sled::Error) -> &'static str {
    match e {
        sled::Error::Io(e) if is_full(e) => "the bot's storage is full; nothing was changed, try again later",
        sled::Error::Corruption { .. } => {
            "the bot's game store is damaged; nothing was changed, please tell whoever hosts the bot"
        }
        _ => "the bot could not save that; nothing was changed",
    }
}

fn shared_words(e: &postgres::Error) -> &'static str {
    use postgres::error::SqlState;
    match e.code() {
        Some(c) if *c == SqlState::DISK_FULL => "the bot's storage is full; nothing was changed, try again later",
        Some(c) if *c == SqlState::DATA_CORRUPTED || *c == SqlState::INDEX_CORRUPTED => {
            "the bot's game store is damaged; nothing was changed, please tell whoever hosts the bot"
        }
        _ if e.is_closed() => "the bot lost its connection to its database; nothing was changed, try again later",
        _ => "the bot could not save that; nothing was changed",
    }
}

/// The result type of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
