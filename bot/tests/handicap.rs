//! Power Absorption handicaps (PA7) in the chat: the challenge grammar and
//! its refusals, the record, the texts and PGN tag, no rating, and the bot
//! giving the odds.

use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_storage::{ChannelKey, Rating, Store, Timestamp};

fn core(dir: &std::path::Path) -> Core {
    let config = CoreConfig { board_size: 160, ..CoreConfig::default() };
    Core::new(Store::open(dir).unwrap(), config)
}

fn say(core: &Core, who: &str, text: &str, at: u64) -> Vec<Reply> {
    let msg = Incoming {
        platform: "test".into(),
        channel: "c1".into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: None,
        at: Timestamp(at),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn channel() -> ChannelKey {
    ChannelKey::new("test", "c1")
}

#[test]
fn bad_handicaps_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    for (text, says) in [
        ("/challenge @bob chess handicap white plain", "Handicaps are for Power Absorption Chess"),
        ("/challenge @bob olympic handicap black nopawn", "Olympic Chess has none"),
        ("/challenge @bob absorption handicap white plan", "'plan' is not a handicap: nopawn, noqueen or plain"),
        ("/challenge @bob absorption handicap", "a handicap names a colour"),
        ("/challenge @bob absorption handicap nopawn white", "a handicap names a colour"),
    ] {
        let r = say(&core, "alice", text, 0);
        assert!(r[0].text.contains(says), "{text}: {}", r[0].text);
        assert!(core.store().challenge(&channel(), "alice").unwrap().is_none(), "{text} made a challenge");
    }
}

#[test]
fn a_handicap_game_records_it_shows_it_and_is_not_rated() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let r = say(&core, "alice", "/challenge @bob absorption white handicap white plain black nopawn", 0);
    assert!(r[0].text.contains("(playing White, handicap White plain, Black nopawn, not rated)"), "{}", r[0].text);
    let r = say(&core, "bob", "/accept", 1);
    assert!(
        r[0].text.contains("Power Absorption Chess, handicap White plain, Black nopawn (not rated)."),
        "{}",
        r[0].text
    );
    assert!(r[0].picture.is_some());
    let g = core.store().player_game_in_channel(&channel(), "alice").unwrap().unwrap();
    assert!(!g.settings.rated);
    assert_eq!(g.settings.handicap.as_deref(), Some("White plain, Black nopawn"));
    assert!(g.start_fen.ends_with(" 0 1 h:W=plain,B=nopawn"), "{}", g.start_fen);

    // PA7 in play: White's bishop takes the knight and stays a bishop, with
    // no declining move; Black's pawn taking it back absorbs the bishop.
    for (who, m) in [("alice", "e4"), ("bob", "e5"), ("alice", "Nf3"), ("bob", "Nc6"), ("alice", "Bb5"), ("bob", "a6")]
    {
        say(&core, who, m, 2);
    }
    let r = say(&core, "alice", "/moves b5", 3);
    assert!(r[0].text.contains("Bxc6") && !r[0].text.contains("Bxc6-"), "{}", r[0].text);
    say(&core, "alice", "Bxc6", 4);
    let g = core.store().player_game_in_channel(&channel(), "alice").unwrap().unwrap();
    assert!(g.fen.starts_with("r1bqkbnr/1ppp1ppp/p1B5/"), "{}", g.fen);
    let r = say(&core, "bob", "dxc6", 5);
    assert!(r[0].text.contains("Bishop+Pawn"), "{}", r[0].text);
    let r = say(&core, "alice", "/board", 6);
    assert!(r[0].text.ends_with(", handicap White plain, Black nopawn"), "{}", r[0].text);

    let r = say(&core, "bob", "/resign yes", 7);
    assert!(r[0].text.contains("wins (resignation)") && !r[0].text.contains("(+"), "{}", r[0].text);
    for player in ["alice", "bob"] {
        assert_eq!(core.store().rating("test", player, "absorption").unwrap(), Rating::default());
    }
    let pgn: String = say(&core, "alice", "/pgn", 8).iter().map(|r| format!("{}\n", r.text)).collect();
    assert!(pgn.contains("[Handicap \"White plain, Black nopawn\"]"), "{pgn}");
    assert!(!pgn.contains("[FEN"), "{pgn}");
}

#[test]
fn the_bot_gives_the_odds() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let bot = core.bot_id("test");
    // Asking for the handicapped colour oneself is refused.
    let r = say(&core, "alice", &format!("/challenge @{bot} absorption handicap white plain white level 1"), 0);
    assert!(r[0].text.contains("I give the odds"), "{}", r[0].text);
    assert!(core.store().player_game_in_channel(&channel(), "alice").unwrap().is_none());
    // The bot takes the handicapped colour: White, and moves first.
    let r = say(&core, "alice", &format!("/challenge @{bot} absorption handicap white plain level 1"), 1);
    assert!(r[0].text.contains("handicap White plain (not rated), me at level 1"), "{}", r[0].text);
    let g = core.store().player_game_in_channel(&channel(), "alice").unwrap().unwrap();
    assert_eq!((g.white.as_str(), g.black.as_str()), (bot.as_str(), "alice"));
    assert_eq!(g.moves.len(), 1, "the bot with White moved");
    assert!(!g.settings.rated && g.fen.ends_with(" h:W=plain"), "{}", g.fen);
    say(&core, "alice", "/resign yes", 2);
    // With the handicap on Black, the bot plays Black.
    say(&core, "alice", &format!("/challenge @{bot} absorption handicap black nopawn noqueen black level 1"), 3);
    assert!(core.store().player_game_in_channel(&channel(), "alice").unwrap().is_none());
    say(&core, "alice", &format!("/challenge @{bot} absorption handicap black nopawn noqueen level 1"), 4);
    let g = core.store().player_game_in_channel(&channel(), "alice").unwrap().unwrap();
    assert_eq!((g.white.as_str(), g.black.as_str()), ("alice", bot.as_str()));
    assert!(g.start_fen.ends_with(" h:B=nopawn+noqueen"), "{}", g.start_fen);
}

/// A rematch swaps the colours and the handicap with them (PA7): the odds
/// stay with the player who gave them, against a player and against the bot.
#[test]
fn a_rematch_keeps_the_handicap_with_its_player() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @bob absorption handicap white plain white", 0);
    say(&core, "bob", "/accept", 1);
    let first = core.store().player_game_in_channel(&channel(), "alice").unwrap().unwrap();
    assert!(first.start_fen.ends_with(" h:W=plain"), "{}", first.start_fen);
    say(&core, "bob", "/resign yes", 2);
    let asked = say(&core, "bob", &format!("/rematch {}", first.key.id.as_str()), 3);
    assert!(asked[0].text.contains("playing White, handicap Black plain, not rated"), "{}", asked[0].text);
    say(&core, "alice", "/accept", 4);
    let second = core.store().player_game_in_channel(&channel(), "alice").unwrap().unwrap();
    assert_eq!((second.white.as_str(), second.black.as_str()), ("bob", "alice"));
    assert!(second.start_fen.ends_with(" h:B=plain"), "{}", second.start_fen);
    assert!(!second.settings.rated);
    say(&core, "alice", "/resign yes", 5);

    let bot = core.bot_id("test");
    say(&core, "carol", &format!("/challenge @{bot} absorption handicap white plain level 1"), 6);
    let g = core.store().player_game_in_channel(&channel(), "carol").unwrap().unwrap();
    assert_eq!(g.white, bot);
    say(&core, "carol", "/resign yes", 7);
    say(&core, "carol", "/rematch", 8);
    let g = core.store().player_game_in_channel(&channel(), "carol").unwrap().unwrap();
    assert_eq!((g.white.as_str(), g.black.as_str()), ("carol", bot.as_str()), "colours swapped");
    assert!(g.start_fen.ends_with(" h:B=plain"), "the bot still gives the odds: {}", g.start_fen);
}
