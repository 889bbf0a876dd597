//! Bounded replies: whatever a player sends, each reply fits one message,
//! and the player's own text comes back only as a short excerpt.

use kibitz_bot::command;
use kibitz_bot::core::{CAPTION_LIMIT, Core, CoreConfig, EXCERPT, Incoming, REPLY_LIMIT, Reply, User, units};
use kibitz_storage::{ChannelKey, Store, Timestamp};
use proptest::prelude::*;

const KB100: usize = 100 * 1024;

fn core(dir: &std::path::Path) -> Core {
    let config =
        CoreConfig { hint_time: std::time::Duration::from_millis(20), board_size: 160, ..CoreConfig::default() };
    Core::new(Store::open(dir).unwrap(), config)
}

fn say(core: &Core, who: &str, text: &str, at: u64) -> Vec<Reply> {
    let msg = Incoming {
        platform: "test".into(),
        channel: "c1".into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: Some(format!("m{at}")),
        at: Timestamp(at),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn channel() -> ChannelKey {
    ChannelKey::new("test", "c1")
}

/// Nothing about the channel is stored: no challenge, no game.
fn nothing_stored(core: &Core) {
    assert!(core.store().challenges(&channel()).unwrap().is_empty(), "a challenge was stored");
    assert!(core.store().games_in_channel(&channel()).unwrap().is_empty(), "a game was stored");
    assert!(core.store().active_games().unwrap().is_empty(), "a game was stored");
}

/// Each reply within its limit, and none quoting more than an excerpt of `typed`.
fn check_bounds(replies: &[Reply], typed: &str) -> Result<(), String> {
    for r in replies {
        let limit = if r.picture.is_some() { CAPTION_LIMIT } else { REPLY_LIMIT };
        if units(&r.text) > limit {
            return Err(format!("a reply of {} units (limit {limit}): {:.200}", units(&r.text), r.text));
        }
        // A mention names a user, who may be mentioned in full.
        let mention = |w: &str| w.starts_with('@') && w.len() <= 1 + command::ID_LIMIT;
        for word in typed.split_whitespace().filter(|w| w.chars().count() > EXCERPT && !mention(w)) {
            let quote: String = word.chars().take(EXCERPT).collect();
            if r.text.contains(&quote) {
                return Err(format!("the reply quotes more than an excerpt of {quote:?}…: {:.300}", r.text));
            }
        }
    }
    Ok(())
}

fn one_short_reply(replies: &[Reply], typed: &str) -> String {
    assert_eq!(replies.len(), 1, "{replies:?}");
    check_bounds(replies, typed).unwrap();
    assert!(units(&replies[0].text) < 300, "not short: {}", replies[0].text);
    replies[0].text.clone()
}

#[test]
fn a_100_kb_piece_name_gets_one_short_reply() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let text = format!("/piece {}", "knight rider ".repeat(KB100 / 13));
    let said = one_short_reply(&say(&core, "alice", &text, 1), &text);
    assert!(said.starts_with("I know no piece called 'knight rider knight rider"), "{said}");
    assert!(said.contains("…'"), "{said}");
    let word = format!("/piece {}", "q".repeat(KB100));
    let said = one_short_reply(&say(&core, "alice", &word, 2), &word);
    assert!(said.contains(&format!("'{}…'", "q".repeat(EXCERPT - 1))), "{said}");
    nothing_stored(&core);
}

#[test]
fn stats_of_a_100_kb_name_is_refused_as_no_user() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let text = format!("/stats @{}", "b".repeat(KB100));
    let said = one_short_reply(&say(&core, "alice", &text, 1), &text);
    assert!(said.contains("is not a user"), "{said}");
    nothing_stored(&core);
}

#[test]
fn a_challenge_to_a_100_kb_name_is_refused_and_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let text = format!("/challenge @{} chess white", "c".repeat(KB100));
    let said = one_short_reply(&say(&core, "alice", &text, 1), &text);
    assert!(said.contains("is not a user"), "{said}");
    nothing_stored(&core);
    // A long word where the variant goes is quoted short too.
    let text = format!("/challenge @bob {}", "v".repeat(KB100));
    let said = one_short_reply(&say(&core, "alice", &text, 2), &text);
    assert!(said.starts_with("I don't play 'vvv"), "{said}");
    nothing_stored(&core);
}

#[test]
fn a_long_list_of_games_is_cut_with_a_count_of_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let games = 70;
    for i in 0..games {
        let msg = |who: &str, text: &str| Incoming {
            platform: "test".into(),
            channel: format!("room{i}"),
            sender: User { id: who.into(), name: who.into() },
            text: text.into(),
            message_id: None,
            at: Timestamp(i),
            private: false,
            manages: None,
        };
        core.handle(&msg("alice", "/challenge @bob"));
        let started = core.handle(&msg("bob", "/accept"));
        assert!(started[0].text.contains("moves first"), "{started:?}");
    }
    let list = say(&core, "alice", "/games", 100);
    check_bounds(&list, "").unwrap();
    let text = &list[0].text;
    let shown = text.lines().filter(|l| l.contains(", in channel room")).count();
    assert!(shown > 10 && shown < games as usize, "{text}");
    assert_eq!(text.lines().last().unwrap(), format!("… ({} more; /board GAME shows one)", games as usize - shown));
    // /moves lists every move, or says how many it leaves out.
    let moves = say(&core, "alice", "/challenge @carol white", 101);
    assert_eq!(moves.len(), 1);
    say(&core, "carol", "/accept", 102);
    let moves = say(&core, "alice", "/moves", 103);
    check_bounds(&moves, "").unwrap();
    assert!(moves[0].text.starts_with("Your 20 legal moves:\n"), "{moves:?}");
    let listed = moves[0].text.lines().skip(1).filter_map(|l| l.split_once("): ")).map(|(_, m)| m.split(' ').count());
    assert_eq!(listed.sum::<usize>(), 20);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever is typed, in or out of a game, every reply fits one message
    /// and quotes the typed text only as an excerpt.
    #[test]
    fn any_text_gets_bounded_replies(texts in proptest::collection::vec(
        prop_oneof![
            "\\PC{0,3000}",
            "[/!](piece|stats|challenge|accept|decline|move|moves|board|pgn|fen|rules|leaderboard|buy|sell|place|bid|games|help) [a-zA-Z0-9@ ]{0,3000}",
            "/(challenge|stats|accept) @[a-z0-9]{0,200}( [a-z]{0,100}){0,3}",
            "[a-hKQRBN][1-8x@a-h=+#-]{1,6}",
        ],
        1..8,
    )) {
        let dir = tempfile::tempdir().unwrap();
        let core = core(dir.path());
        say(&core, "alice", "/challenge @bob white", 0);
        say(&core, "bob", "/accept", 0);
        for (i, t) in texts.iter().enumerate() {
            let who = if i % 2 == 0 { "alice" } else { "bob" };
            let replies = say(&core, who, t, i as u64 + 1);
            prop_assert!(check_bounds(&replies, t).is_ok(), "{}", check_bounds(&replies, t).unwrap_err());
        }
    }
}
