//! Rematches: the Rematch button under every finished game and `/rematch`
//! start the same game again with colours swapped and the settings kept:
//! a challenge to a player (or an accept of theirs), at once against the
//! bot, a new match after a Clash match.

use kibitz_bot::core::{Button, Core, CoreConfig, Incoming, Reply, User};
use kibitz_storage::{ChannelKey, ChatClock, GameRecord, Store, Timestamp};

fn core(dir: &std::path::Path) -> Core {
    let config =
        CoreConfig { hint_time: std::time::Duration::from_millis(50), board_size: 160, ..CoreConfig::default() };
    Core::new(Store::open(dir).unwrap(), config)
}

fn say(core: &Core, who: &str, text: &str, at: u64) -> Vec<Reply> {
    let msg = Incoming {
        platform: "test".into(),
        channel: "c1".into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: Some(format!("{who}-{at}")),
        at: Timestamp(1_767_355_200_000 + at),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn texts(replies: &[Reply]) -> String {
    replies.iter().map(|r| r.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn game_of(core: &Core, player: &str) -> Option<GameRecord> {
    core.store().player_game_in_channel(&ChannelKey::new("test", "c1"), player).unwrap()
}

/// The Rematch button among `replies`, which must be there once.
fn rematch_button(replies: &[Reply]) -> Button {
    let buttons: Vec<&Button> = replies.iter().flat_map(|r| &r.buttons).filter(|b| b.label == "Rematch").collect();
    assert_eq!(buttons.len(), 1, "{replies:?}");
    buttons[0].clone()
}

#[test]
fn the_button_challenges_the_opponent_with_colours_swapped_and_the_settings_kept() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @bob white hints on 10+5", 0);
    say(&core, "bob", "/accept", 1);
    let first = game_of(&core, "alice").unwrap();
    say(&core, "alice", "e4", 2);
    let ended = say(&core, "alice", "/resign yes", 3);
    assert!(texts(&ended).contains("0-1: <@bob> wins (resignation)"), "{ended:?}");
    let button = rematch_button(&ended);
    assert_eq!(button.command, format!("/rematch {}", first.key.id.as_str()));
    // bob presses it: a challenge to alice, bob now with White.
    let asked = texts(&say(&core, "bob", &button.command, 4));
    assert!(
        asked.starts_with(&format!(
            "Rematch of game {}! <@bob> challenges <@alice> to Chess (playing White, 10+5, hints on).",
            first.key.id.as_str()
        )),
        "{asked}"
    );
    // Pressed again: it waits.
    let again = texts(&say(&core, "bob", "/rematch", 5));
    assert!(again.contains("Your challenge to <@alice> is waiting"), "{again}");
    let started = texts(&say(&core, "alice", "/accept", 6));
    assert!(started.contains("<@bob> (White) vs <@alice> (Black), Chess, 10+5, hints on."), "{started}");
    let second = game_of(&core, "alice").unwrap();
    assert_ne!(second.key, first.key);
    assert_eq!((second.white.as_str(), second.black.as_str()), ("bob", "alice"));
    assert_eq!(second.settings, first.settings);
    assert!(second.settings.rated && second.settings.hints_allowed);
    assert_eq!(second.settings.clock, Some(ChatClock { minutes: 10, increment: 5 }));
}

#[test]
fn a_rematch_asked_by_both_starts_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @bob black days 2", 0);
    say(&core, "bob", "/accept", 1);
    let aborted = say(&core, "bob", "/abort", 2);
    // An aborted game is no game to replay: no button.
    assert!(texts(&aborted).contains("aborted"), "{aborted:?}");
    assert!(aborted.iter().all(|r| r.buttons.iter().all(|b| b.label != "Rematch")), "{aborted:?}");
    say(&core, "alice", "/challenge @bob black days 2", 3);
    say(&core, "bob", "/accept", 4);
    say(&core, "bob", "d4", 5);
    let ended = say(&core, "alice", "/resign yes", 6);
    rematch_button(&ended);
    // alice asks first (she had Black: now White); bob's /rematch accepts hers.
    let asked = texts(&say(&core, "alice", "/rematch", 7));
    assert!(asked.contains("<@alice> challenges <@bob> to Chess (playing White, 2 days per move)"), "{asked}");
    let started = texts(&say(&core, "bob", "/rematch", 8));
    assert!(started.contains("<@alice> (White) vs <@bob> (Black), Chess."), "{started}");
    let g = game_of(&core, "bob").unwrap();
    assert_eq!((g.white.as_str(), g.settings.days_per_move), ("alice", Some(2)));
    // While it runs, a rematch of it waits for its end; and it is only
    // its players' to ask for.
    let said = texts(&say(&core, "alice", &format!("/rematch {}", g.key.id.as_str()), 9));
    assert!(said.contains("is still being played"), "{said}");
    let said = texts(&say(&core, "carol", &format!("/rematch {}", g.key.id.as_str()), 9));
    assert_eq!(said, format!("Only <@alice> and <@bob> can ask for a rematch of game {}.", g.key.id.as_str()));
}

#[test]
fn only_a_player_may_ask_and_only_after_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    assert!(texts(&say(&core, "alice", "/rematch", 0)).contains("You have no finished game here"));
    say(&core, "alice", "/challenge @bob white", 1);
    say(&core, "bob", "/accept", 2);
    let id = game_of(&core, "alice").unwrap().key.id;
    say(&core, "alice", "e4", 3);
    say(&core, "bob", "/resign yes", 4);
    let said = texts(&say(&core, "carol", &format!("/rematch {}", id.as_str()), 5));
    assert!(said.contains("Only <@alice> and <@bob> can ask for a rematch"), "{said}");
    assert!(texts(&say(&core, "alice", "/rematch zzzz", 6)).contains("There is no finished game zzzz here."));
    assert!(core.store().challenges(&ChannelKey::new("test", "c1")).unwrap().is_empty());
}

#[test]
fn against_the_bot_the_rematch_starts_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @kibitz white level 2 3+2", 0);
    say(&core, "alice", "e4", 1);
    let first = core.store().player_game_in_channel(&ChannelKey::new("test", "c1"), "alice").unwrap().unwrap();
    let ended = say(&core, "alice", "/resign yes", 2);
    let button = rematch_button(&ended);
    // A challenge she opened meanwhile goes with the rematch, which says so.
    say(&core, "alice", "/challenge @bob", 2);
    let started = texts(&say(&core, "alice", &button.command, 3));
    assert!(
        started.contains("(Your challenge to <@bob> is withdrawn: a player plays one game at a time in a channel.)"),
        "{started}"
    );
    assert!(core.store().challenge(&ChannelKey::new("test", "c1"), "alice").unwrap().is_none());
    // The bot has White now, and has moved already.
    assert!(
        started.contains("<@kibitz> (White) vs <@alice> (Black), Chess, 3+2, me at level 2 (about 500)."),
        "{started}"
    );
    assert!(started.contains("<@kibitz> played"), "{started}");
    let g = game_of(&core, "alice").unwrap();
    assert_eq!((g.white.as_str(), g.black.as_str(), g.moves.len()), ("kibitz", "alice", 1));
    assert_eq!(g.settings, first.settings);
}

#[test]
fn a_clash_match_is_followed_by_a_new_match() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @bob clash white days 2", 0);
    say(&core, "bob", "/accept", 1);
    let first = game_of(&core, "alice").unwrap();
    // Giving up between rounds gives up the match.
    let ended = say(&core, "alice", "/resign yes", 2);
    assert!(texts(&ended).contains("0-1"), "{ended:?}");
    let button = rematch_button(&ended);
    let asked = texts(&say(&core, "bob", &button.command, 3));
    assert!(
        asked.contains("<@bob> challenges <@alice> to a match of Clash of the Armies (playing White, 2 days per move)"),
        "{asked}"
    );
    let started = texts(&say(&core, "alice", "/accept", 4));
    assert!(started.contains("<@bob> (White) vs <@alice> (Black), a match of Clash of the Armies"), "{started}");
    let second = game_of(&core, "alice").unwrap();
    assert_ne!(second.key, first.key);
    let m = second.clash.as_ref().unwrap();
    assert!(m.rounds.is_empty() && m.state.is_none(), "a new match: {m:?}");
    assert_eq!(second.settings, first.settings);
}
