//! Helpers shared by the storage tests.
#![allow(dead_code)]

use kibitz_storage::{ChannelKey, GameRecord, GameSettings, MoveRecord, NewGame, Store, Timestamp};

pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A store in a fresh temporary directory (kept alive by the returned guard).
pub fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

/// Starts a chess game between `white` and `black` in `channel`.
pub fn game(store: &Store, channel: &ChannelKey, white: &str, black: &str) -> GameRecord {
    store
        .create_game(
            channel,
            &NewGame {
                variant: "chess".into(),
                white: white.into(),
                black: black.into(),
                settings: GameSettings::default(),
                start_fen: START.into(),
                at: Timestamp(1_000),
                clash: None,
            },
        )
        .unwrap()
}

/// A move by `by`, carried by chat message `message`.
pub fn mv(text: &str, by: &str, message: &str) -> MoveRecord {
    MoveRecord { text: text.into(), by: by.into(), at: Timestamp(2_000), message_id: Some(message.into()) }
}
