//! Helpers shared by the storage tests.
#![allow(dead_code)]

use kibitz_storage::testing::TestSchema;
use kibitz_storage::{ChannelKey, GameRecord, GameSettings, MoveRecord, NewGame, Store, Timestamp};

pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A store in a fresh temporary directory (kept alive by the returned guard).
pub fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

/// Where a test's store lives: a temporary sled directory, or a schema of
/// its own on the PostgreSQL test server. Opening it again is "reopening".
pub enum Backing {
    Sled(tempfile::TempDir),
    Postgres(TestSchema),
}

impl Backing {
    pub fn sled() -> Backing {
        Backing::Sled(tempfile::tempdir().unwrap())
    }

    /// `None`: no server outside CI, the test is skipped.
    pub fn postgres(label: &str) -> Option<Backing> {
        TestSchema::new(label).map(Backing::Postgres)
    }

    /// The store (the embedded one may be open once at a time).
    pub fn open(&self) -> Store {
        match self {
            Backing::Sled(dir) => Store::open(dir.path()).unwrap(),
            Backing::Postgres(schema) => schema.store().unwrap(),
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Backing::Postgres(_))
    }
}

/// Tests run once against each backend: `fn name(backing) { ... }` becomes
/// `name::sled` and `name::postgres`, with `backing: &Backing`.
#[macro_export]
macro_rules! on_both_backends {
    ($( $(#[$meta:meta])* fn $name:ident($backing:ident) $body:block )*) => { $(
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn run($backing: &$crate::common::Backing) $body

            #[test]
            fn sled() {
                run(&$crate::common::Backing::sled());
            }

            #[test]
            fn postgres() {
                if let Some(backing) = $crate::common::Backing::postgres(stringify!($name)) {
                    run(&backing);
                }
            }
        }
    )* };
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
                bot: None,
            },
        )
        .unwrap()
}

/// `g` after a move of each side (`moves`: White's, then Black's), as a
/// game must have been played to change ratings.
pub fn both_moved(store: &Store, g: GameRecord, moves: [&str; 2]) -> GameRecord {
    let id = g.key.id.as_str().to_string();
    let g = store.apply_move(&g.key, g.version, mv(moves[0], &g.white, &format!("{id}-w")), "fen").unwrap();
    store.apply_move(&g.key, g.version, mv(moves[1], &g.black, &format!("{id}-b")), "fen").unwrap()
}

/// A move by `by`, carried by chat message `message`.
pub fn mv(text: &str, by: &str, message: &str) -> MoveRecord {
    MoveRecord { text: text.into(), by: by.into(), at: Timestamp(2_000), message_id: Some(message.into()) }
}
