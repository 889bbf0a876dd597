//! Who is who: players are the platforms' user ids, never names a human can
//! take. Telegram messages go through the adapter's own steps (the player
//! id of a user, the user directory, typed `@username`s read as ids), then
//! the core.

use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_bot::telegram;
use kibitz_storage::{ChannelKey, GameSettings, NewGame, Store, Timestamp};

const CHAT: &str = "-100";
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn core(dir: &std::path::Path) -> Core {
    let config =
        CoreConfig { hint_time: std::time::Duration::from_millis(50), board_size: 160, ..CoreConfig::default() };
    Core::new(Store::open(dir).unwrap(), config)
}

/// A Telegram user.
fn tg(id: u64, first_name: &str, username: Option<&str>) -> teloxide::types::User {
    teloxide::types::User {
        id: teloxide::types::UserId(id),
        is_bot: false,
        first_name: first_name.into(),
        last_name: None,
        username: username.map(str::to_string),
        language_code: None,
        is_premium: false,
        added_to_attachment_menu: false,
    }
}

/// What the Telegram adapter does with a message from `user` in `chat`:
/// notes the user, reads typed mentions as ids, and hands it to the core.
/// A command naming a user nobody knows is answered without the core.
fn tg_say(core: &Core, chat: &str, user: &teloxide::types::User, text: &str, at: u64) -> Vec<Reply> {
    let id = telegram::player_id(user);
    core.store().see_user("telegram", &id, &user.first_name, user.username.as_deref(), Timestamp(at)).unwrap();
    let text = telegram::core_text(text, "KibitzBot").unwrap();
    let (text, unknown) = telegram::resolve_mentions(&text, |n| core.store().user_by_username("telegram", n).unwrap());
    if !unknown.is_empty() {
        return vec![Reply { text: format!("unknown: {unknown:?}"), ..Reply::default() }];
    }
    let msg = Incoming {
        platform: "telegram".into(),
        channel: chat.into(),
        sender: User { id, name: user.first_name.clone() },
        text,
        message_id: Some(format!("{chat}:{at}")),
        at: Timestamp(at),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn text(replies: &[Reply]) -> String {
    replies.iter().map(|r| r.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn game_of(core: &Core, chat: &str, player: &str) -> Option<kibitz_storage::GameRecord> {
    core.store().player_game_in_channel(&ChannelKey::new("telegram", chat), player).unwrap()
}

/// alice (11) challenges bob_t (22) and bob_t accepts: a game between ids.
fn start(core: &Core, alice: &teloxide::types::User, bob: &teloxide::types::User) {
    tg_say(core, CHAT, bob, "hello", 1);
    let r = tg_say(core, CHAT, alice, "/challenge @Bob_T white", 2);
    assert!(text(&r).contains("<@11> challenges <@22>"), "{r:?}");
    let r = tg_say(core, CHAT, bob, "/accept", 3);
    assert!(text(&r).contains("<@11> (White) vs <@22> (Black)"), "{r:?}");
}

#[test]
fn a_player_named_without_at_is_found_by_username() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let alice = tg(11, "Alice", Some("alice"));
    let bob = tg(22, "Bob", Some("Bob_T"));
    tg_say(&core, CHAT, &bob, "hello", 1);
    // Nobody goes by this name here: a hint, and no challenge.
    let r = tg_say(&core, CHAT, &alice, "/challenge stranger", 2);
    assert!(text(&r).contains("I don't know a player or a game called 'stranger'"), "{r:?}");
    assert!(text(&r).contains("/challenge @stranger"), "{r:?}");
    assert!(core.store().challenges(&ChannelKey::new("telegram", CHAT)).unwrap().is_empty());
    // A game's name with a slip in it, where no player goes by it: the game
    // it most likely meant.
    let r = tg_say(&core, CHAT, &alice, "/challenge olympc", 6);
    assert!(text(&r).contains("Did you mean olympic?"), "{r:?}");
    assert!(core.store().challenges(&ChannelKey::new("telegram", CHAT)).unwrap().is_empty());
    // A game's id is the game, not a player.
    let r = tg_say(&core, CHAT, &alice, "/challenge olympic", 3);
    assert!(text(&r).contains("opens a challenge: Olympic Chess"), "{r:?}");
    tg_say(&core, CHAT, &alice, "/cancel", 4);
    // A username the directory knows is that player.
    let r = tg_say(&core, CHAT, &alice, "/challenge bob_t white", 5);
    assert!(text(&r).contains("<@11> challenges <@22>"), "{r:?}");
    // So for /stats: the player's own ratings, by id; a name nobody goes by
    // gets a hint.
    let r = tg_say(&core, CHAT, &alice, "/stats Bob_T", 7);
    assert!(text(&r).starts_with("<@22>:"), "{r:?}");
    let r = tg_say(&core, CHAT, &alice, "/stats stranger", 8);
    assert!(text(&r).contains("I don't know a player called 'stranger'. Mention them (/stats @stranger)"), "{r:?}");
}

#[test]
fn an_impostor_holding_a_taken_over_username_cannot_resign() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let alice = tg(11, "Alice", Some("alice"));
    let bob = tg(22, "Bob", Some("Bob_T"));
    start(&core, &alice, &bob);
    // Bob gives up the username; user 9999 takes it.
    tg_say(&core, "22", &tg(22, "Bob", Some("bobby")), "/games", 4);
    let impostor = tg(9999, "Mallory", Some("Bob_T"));
    let r = tg_say(&core, CHAT, &impostor, "/resign", 5);
    assert!(text(&r).contains("You are not playing here"), "{r:?}");
    let game = game_of(&core, CHAT, "22").expect("Bob's game goes on");
    assert!(game.result.is_none());
    assert_eq!((game.white.as_str(), game.black.as_str()), ("11", "22"));
    assert!(game_of(&core, CHAT, "9999").is_none());
    // `@Bob_T` now names the impostor, who has no game.
    assert_eq!(core.store().user_by_username("telegram", "bob_t").unwrap().as_deref(), Some("9999"));
    // Bob, under his new name, still plays.
    let r = tg_say(&core, CHAT, &tg(22, "Bob", Some("bobby")), "/resign yes", 6);
    assert!(text(&r).contains("1-0: <@11> wins (resignation)"), "{r:?}");
}

#[test]
fn a_released_username_hands_over_no_games_or_rating() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let alice = tg(11, "Alice", Some("alice"));
    let bob = tg(22, "Bob", Some("Bob_T"));
    start(&core, &alice, &bob);
    // Both sides move, so that the game is rated.
    tg_say(&core, CHAT, &alice, "e4", 4);
    tg_say(&core, CHAT, &bob, "e5", 5);
    let r = tg_say(&core, CHAT, &bob, "/resign yes", 6);
    assert!(text(&r).contains("1-0"), "{r:?}");
    start(&core, &alice, &bob);
    // Bob drops his username (he has none now); 9999 takes it.
    tg_say(&core, CHAT, &tg(22, "Bob", None), "/games", 5);
    let newcomer = tg(9999, "Newcomer", Some("bob_t"));
    let r = tg_say(&core, CHAT, &newcomer, "/stats", 6);
    assert_eq!(text(&r), "<@9999>: no rated games yet.");
    let r = tg_say(&core, CHAT, &newcomer, "/games", 7);
    assert!(text(&r).contains("You have no games running"), "{r:?}");
    // Naming the username now names the newcomer, not Bob.
    let r = tg_say(&core, CHAT, &alice, "/stats @bob_t", 8);
    assert_eq!(text(&r), "<@9999>: no rated games yet.");
    // Bob's rating and game stay his.
    let r = tg_say(&core, CHAT, &alice, "/stats @22", 9);
    assert!(text(&r).contains("(1 game)"), "{r:?}");
    assert!(game_of(&core, CHAT, "22").is_some());
    assert_eq!(core.store().user("telegram", "22").unwrap().unwrap().username, None);
}

#[test]
fn a_user_who_sets_a_username_keeps_their_games() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let alice = tg(11, "Alice", Some("alice"));
    let carol = tg(33, "Carol", None);
    tg_say(&core, CHAT, &carol, "/challenge white", 1);
    let r = tg_say(&core, CHAT, &alice, "/accept", 2);
    assert!(text(&r).contains("<@33> (White) vs <@11> (Black)"), "{r:?}");
    tg_say(&core, CHAT, &carol, "e4", 3);
    // Carol sets a username: the same player.
    let carol = tg(33, "Carol", Some("CarolK"));
    let r = tg_say(&core, CHAT, &carol, "/board", 4);
    assert!(text(&r).contains("Black (Alice) to move"), "{r:?}");
    tg_say(&core, CHAT, &alice, "e5", 5);
    let r = tg_say(&core, CHAT, &carol, "Nf3", 6);
    assert!(text(&r).contains("<@33> played Nf3"), "{r:?}");
    // And others may name her by it.
    let r = tg_say(&core, CHAT, &alice, "/stats @carolk", 7);
    assert!(text(&r).starts_with("<@33>:"), "{r:?}");
}

#[test]
fn a_human_named_like_the_bot_is_not_the_bot() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    core.set_bot_id("telegram", "999");
    core.store().see_user("telegram", "999", "Kibitz", Some("KibitzBot"), Timestamp(0)).unwrap();
    let alice = tg(11, "Alice", Some("alice"));
    // A human who took the bot's configured name as their username.
    let human = tg(5555, "Not a bot", Some("kibitz"));
    tg_say(&core, CHAT, &human, "hello", 1);
    let r = tg_say(&core, CHAT, &alice, "/challenge @kibitz chess white level 3", 2);
    assert!(text(&r).starts_with("A level is for games against me"), "{r:?}");
    let r = tg_say(&core, CHAT, &alice, "/challenge @kibitz chess white", 3);
    assert!(text(&r).contains("<@11> challenges <@5555>"), "{r:?}");
    tg_say(&core, CHAT, &human, "/accept", 4);
    let r = tg_say(&core, CHAT, &alice, "e4", 5);
    assert!(text(&r).contains("<@5555>, your move"), "the human is asked to move: {r:?}");
    assert!(!text(&r).contains("<@5555> played"), "nobody moved for the human: {r:?}");
    assert!(core.tick(Timestamp(3_600_000), "telegram").is_empty());
    assert_eq!(game_of(&core, CHAT, "5555").unwrap().moves.len(), 1);
    // The bot itself is its id, named by its username.
    let r = tg_say(&core, "-200", &alice, "/challenge @KibitzBot chess black level 1", 6);
    assert!(text(&r).contains("<@999> (White) vs <@11> (Black)"), "{r:?}");
    assert!(text(&r).contains("<@999> played"), "{r:?}");
}

#[test]
fn a_group_that_becomes_a_supergroup_keeps_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let alice = tg(11, "Alice", Some("alice"));
    let bob = tg(22, "Bob", Some("Bob_T"));
    let old = ChannelKey::new("telegram", CHAT);
    start(&core, &alice, &bob);
    tg_say(&core, CHAT, &alice, "e4", 4);
    tg_say(&core, CHAT, &tg(33, "Carol", Some("carol")), "/challenge", 5);
    let mut settings = core.store().channel_settings(&old).unwrap();
    settings.hints_allowed = true;
    core.store().set_channel_settings(&old, &settings).unwrap();
    // A finished game in the archive.
    let finished = NewGame {
        variant: "chess".into(),
        white: "44".into(),
        black: "55".into(),
        settings: GameSettings::default(),
        start_fen: START.into(),
        at: Timestamp(1),
        clash: None,
        bot: None,
    };
    let g = core.store().create_game(&old, &finished).unwrap();
    let end = kibitz_storage::GameEnd {
        outcome: kibitz_storage::Outcome::Draw,
        reason: "draw agreed".into(),
        at: Timestamp(2),
        message_id: None,
    };
    core.store().finish_game(&g.key, g.version, &end).unwrap();

    let moved = core.store().move_channel(&old, "-1009").unwrap();
    assert_eq!((moved.games, moved.challenges, moved.archived, moved.settings), (1, 1, 1, true));
    let new = ChannelKey::new("telegram", "-1009");
    assert!(core.store().games_in_channel(&old).unwrap().is_empty());
    assert!(core.store().challenges(&old).unwrap().is_empty());
    assert!(core.store().channel_settings(&new).unwrap().hints_allowed);
    let archived = core.store().archived_games_of("telegram", "55", 5).unwrap();
    assert_eq!(archived.len(), 1);
    assert_eq!(archived[0].0.channel, new);
    assert!(core.store().verify().unwrap().is_empty(), "{:?}", core.store().verify());
    // Play goes on in the new chat.
    let r = tg_say(&core, "-1009", &bob, "e5", 6);
    assert!(text(&r).contains("<@22> played e5"), "{r:?}");
    let r = tg_say(&core, CHAT, &bob, "/board", 7);
    assert!(text(&r).contains("no game here"), "{r:?}");
    // Told again (the new chat's own notice): nothing more moves.
    assert_eq!(core.store().move_channel(&old, "-1009").unwrap(), Default::default());
}

#[test]
fn names_for_captions_outlive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let core = core(dir.path());
        let msg = Incoming {
            platform: "discord".into(),
            channel: "c".into(),
            sender: User { id: "8080".into(), name: "Zoë".into() },
            text: "/help".into(),
            message_id: None,
            at: Timestamp(5),
            private: false,
            manages: None,
        };
        core.handle(&msg);
    }
    let store = Store::open(dir.path()).unwrap();
    let user = store.user("discord", "8080").unwrap().expect("the name is kept");
    assert_eq!((user.name.as_str(), user.username), ("Zoë", None));
}

/// Records kept as the old Telegram adapter kept them, players keyed by
/// their lower-cased username, belong to the user's id once the user is seen, and only to them.
#[test]
fn legacy_username_records_move_to_the_id_once() {
    let dir = tempfile::tempdir().unwrap();
    let old = core(dir.path());
    let legacy = |who: &str, text: &str, at: u64, chat: &str| -> Vec<Reply> {
        // The old adapter: the sender is the lower-cased username.
        let msg = Incoming {
            platform: "telegram".into(),
            channel: chat.into(),
            sender: User { id: who.into(), name: who.into() },
            text: text.into(),
            message_id: None,
            at: Timestamp(at),
            private: false,
            manages: None,
        };
        old.handle(&msg)
    };
    {
        // A rated game played out, a game going on, a challenge pending.
        legacy("alice", "/challenge @bob_t white", 1, CHAT);
        legacy("bob_t", "/accept", 2, CHAT);
        legacy("alice", "e4", 3, CHAT);
        legacy("bob_t", "e5", 3, CHAT);
        assert!(text(&legacy("bob_t", "/resign yes", 3, CHAT)).contains("1-0"));
        legacy("alice", "/challenge @bob_t white", 4, CHAT);
        legacy("bob_t", "/accept", 5, CHAT);
        legacy("alice", "e4", 6, CHAT);
        legacy("bob_t", "/challenge @alice", 7, "-400");
    }
    drop(old);
    let core = core(dir.path());
    let bob = tg(22, "Bob", Some("Bob_T"));
    // Bob's first message under the new adapter: his records are his id's.
    let r = tg_say(&core, CHAT, &bob, "/board", 10);
    assert!(text(&r).contains("Black (Bob) to move"), "{r:?}");
    let game = game_of(&core, CHAT, "22").expect("the game is Bob's id's");
    assert_eq!((game.white.as_str(), game.black.as_str()), ("alice", "22"));
    assert!(game_of(&core, CHAT, "bob_t").is_none());
    let challenge = core.store().challenge(&ChannelKey::new("telegram", "-400"), "22").unwrap();
    assert_eq!(challenge.map(|c| c.challenger).as_deref(), Some("22"));
    let r = tg_say(&core, CHAT, &bob, "/stats", 11);
    assert!(text(&r).starts_with("<@22>:") && text(&r).contains("(1 game)"), "{r:?}");
    let archived = core.store().archived_games_of("telegram", "22", 5).unwrap();
    assert_eq!(archived.len(), 1);
    assert_eq!(archived[0].1.as_ref().unwrap().black, "22");
    assert!(core.store().verify().unwrap().is_empty(), "{:?}", core.store().verify());

    // Bob moves on to another username; 9999 takes Bob_T and gets nothing.
    tg_say(&core, CHAT, &tg(22, "Bob", Some("bobby")), "/games", 12);
    let impostor = tg(9999, "Mallory", Some("Bob_T"));
    let r = tg_say(&core, CHAT, &impostor, "/resign", 13);
    assert!(text(&r).contains("You are not playing here"), "{r:?}");
    let r = tg_say(&core, CHAT, &impostor, "/stats", 14);
    assert_eq!(text(&r), "<@9999>: no rated games yet.");
    assert!(game_of(&core, CHAT, "22").is_some_and(|g| g.result.is_none()));
    // Bob resigns his game under his id.
    let r = tg_say(&core, CHAT, &tg(22, "Bob", Some("bobby")), "/resign yes", 15);
    assert!(text(&r).contains("wins (resignation)"), "{r:?}");
}

#[test]
fn on_the_console_nobody_speaks_as_the_bot() {
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut console = kibitz_bot::console::Console::new(core(dir.path()), out.path());
    let said = console.line("kibitz: /challenge @alice");
    assert_eq!(said, ["kibitz is my name here; speak as someone else."]);
    assert_eq!(console.line("/as KIBITZ"), ["KIBITZ is my name here; speak as someone else."]);
    assert!(console.line("alice: /stats").iter().any(|l| l.contains("@alice")));
    let started = console.line("alice: /challenge @kibitz chess black level 1").join("\n");
    assert!(started.contains("@kibitz (White) vs @alice (Black)"), "{started}");
}

#[test]
fn on_the_console_a_name_is_the_same_person_in_any_case() {
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut console = kibitz_bot::console::Console::new(core(dir.path()), out.path());
    let said = console.line("alice: /challenge @Bob chess white").join("\n");
    assert!(said.contains("@alice challenges @bob"), "{said}");
    let started = console.line("bob: /accept").join("\n");
    assert!(started.contains("@alice (White) vs @bob (Black)"), "{started}");
    // The same player whatever the case of the name typed before the colon.
    assert!(console.line("Alice: e4").join("\n").contains("@alice played e4"));
    assert!(console.line("BOB: e5").join("\n").contains("@bob played e5"));
    // The bot, named in any case, takes the challenge.
    console.line("alice: /resign yes");
    let vs_bot = console.line("alice: /challenge @Kibitz chess level 1 black").join("\n");
    assert!(vs_bot.contains("@kibitz (White) vs @alice (Black)"), "{vs_bot}");
    // A name without @, in another case, is the same person too.
    console.line("/in other");
    console.line("alice: /challenge Carol olympic");
    let accepted = console.line("carol: /accept").join("\n");
    assert!(accepted.contains("Olympic Chess"), "{accepted}");
}

#[test]
fn a_challenge_is_accepted_or_declined_by_the_challengers_username_without_at() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let (alice, bob) = (tg(11, "Alice", Some("alice_k")), tg(22, "Bob", Some("bobby")));
    tg_say(&core, CHAT, &bob, "hello", 1);
    let r = tg_say(&core, CHAT, &alice, "/challenge @bobby chess white", 2);
    assert!(text(&r).contains("challenges"), "{r:?}");
    // A name nobody has: refused, and nothing changes.
    let r = tg_say(&core, CHAT, &bob, "/accept alicia", 3);
    assert_eq!(
        text(&r),
        "I don't know a player called 'alicia'. Mention them (/accept @alicia) so that I know who it is."
    );
    // The challenger's username, in any case, is the challenger.
    let r = tg_say(&core, CHAT, &bob, "/accept Alice_K", 4);
    assert!(text(&r).contains("moves first"), "{r:?}");
    let game = game_of(&core, CHAT, "22").expect("the game started");
    assert_eq!((game.white.as_str(), game.black.as_str()), ("11", "22"));
    tg_say(&core, CHAT, &alice, "/resign yes", 5);
    tg_say(&core, CHAT, &alice, "/challenge @bobby chess", 6);
    let r = tg_say(&core, CHAT, &bob, "/decline alice_k", 7);
    assert!(text(&r).contains("declines the challenge"), "{r:?}");
}

#[test]
fn on_the_console_a_speaker_may_change_chats_too() {
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut console = kibitz_bot::console::Console::new(core(dir.path()), out.path());
    assert_eq!(console.line("alice: /in @kibitz"), ["(now in private chats with @kibitz)"]);
    assert!(console.line("alice: hello").join("\n").contains("just you and me"));
    assert_eq!(console.line("alice: /in #local"), ["(now in #local)"]);
}
