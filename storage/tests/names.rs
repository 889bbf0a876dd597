//! Names with a NUL in them (a platform, a channel, a player, a message id)
//! are refused with a clear error by every call, on both backends, and
//! change nothing.

mod common;

use common::{game, mv};
use kibitz_storage::{
    Challenge, ChannelKey, ChannelSettings, ClashMatch, ColourChoice, Completion, GameEnd, GameSettings, Outcome,
    Store, StoreError, Timestamp,
};

fn refused<T: std::fmt::Debug>(what: &str, result: kibitz_storage::Result<T>) {
    match result {
        Err(e @ StoreError::InvalidName { .. }) => {
            let text = e.to_string();
            assert!(!text.contains('\0'), "{what}: the message shows the NUL as text: {text:?}");
        }
        other => panic!("{what}: {other:?}"),
    }
}

fn every_call_refuses(store: &Store) {
    let bad = "a\0b";
    let channel = ChannelKey::new("discord", "c");
    let bad_channel = ChannelKey::new("discord", bad);
    let bad_platform = ChannelKey::new(bad, "c");
    let challenge = |by: &str| Challenge {
        challenger: by.into(),
        challenged: None,
        variant: "chess".into(),
        colour: ColourChoice::Random,
        settings: GameSettings::default(),
        clash: false,
        at: Timestamp(1),
    };
    let g = game(store, &channel, "ann", "bob");

    refused("create_challenge", store.create_challenge(&channel, &challenge(bad)));
    refused("create_challenge channel", store.create_challenge(&bad_channel, &challenge("ann")));
    refused("challenge", store.challenge(&channel, bad));
    refused("challenges", store.challenges(&bad_platform));
    refused("withdraw_challenge", store.withdraw_challenge(&channel, bad));
    refused("accept_challenge", store.accept_challenge(&channel, "zed", bad, "fen", Timestamp(1)));
    refused("games_in_channel", store.games_in_channel(&bad_channel));
    refused("player_game_in_channel", store.player_game_in_channel(&channel, bad));
    refused("games_of", store.games_of("discord", bad));
    refused("archived_games_of", store.archived_games_of(bad, "ann", 5));
    refused("rating", store.rating("discord", "ann", bad));
    refused("leaderboard", store.leaderboard("discord", bad, 5));
    refused("ratings_of", store.ratings_of("discord", bad));
    refused("record_result", store.record_result("discord", "chess", "ann", bad, Outcome::Draw));
    refused("channel_settings", store.channel_settings(&bad_channel));
    refused("set_channel_settings", store.set_channel_settings(&bad_channel, &ChannelSettings::default()));
    refused("apply_move", store.apply_move(&g.key, g.version, mv("e2e4", "ann", bad), "f"));
    let end =
        GameEnd { outcome: Outcome::Draw, reason: "agreed".into(), at: Timestamp(5), message_id: Some(bad.into()) };
    refused("finish_game", store.finish_game(&g.key, g.version, &end));
    refused("user", store.user("telegram", bad));
    refused("user_by_username", store.user_by_username("telegram", bad));
    refused("see_user", store.see_user("telegram", bad, "x", None, Timestamp(1)));
    refused("note_user", store.note_user("discord", "1", "x", Some(bad), Timestamp(1)));
    refused("note_name", store.note_name("telegram", bad, "x", Timestamp(1)));
    refused("migrate_username", store.migrate_username("telegram", "ann", bad));
    refused("move_channel", store.move_channel(&channel, bad));
    refused("is_handled", store.is_handled("telegram", bad));
    let done = Completion {
        platform: "telegram".into(),
        message_id: Some(bad.into()),
        cursor: None,
        owed: vec![("-5".into(), b"reply".to_vec())],
        at: Timestamp(1),
    };
    refused("complete", store.complete(&done));
    refused(
        "complete platform",
        store.complete(&Completion { platform: bad.into(), message_id: None, ..done.clone() }),
    );
    refused(
        "complete channel",
        store.complete(&Completion { owed: vec![(bad.into(), b"x".to_vec())], ..done.clone() }),
    );
    let cursor = Some(("-5".to_owned(), bad.to_owned()));
    refused("complete cursor", store.complete(&Completion { message_id: Some("m".into()), cursor, ..done.clone() }));
    assert!(!store.is_handled("telegram", "m").unwrap());
    refused("owed", store.owed(bad));
    refused("claim_owed", store.claim_owed(bad));
    refused("delivered", store.delivered(bad, 1));
    refused("set_progress", store.set_progress(bad, 1, 1));
    refused("cursor", store.cursor("telegram", bad));
    refused("cursors", store.cursors(bad));
    refused("forget_handled", store.forget_handled(bad, Timestamp(1)));

    // Nothing changed.
    assert_eq!(store.game(&g.key).unwrap(), g);
    assert!(store.challenges(&channel).unwrap().is_empty());
    assert!(store.owed("telegram").unwrap().is_empty());
    assert_eq!(store.rating("discord", "ann", "chess").unwrap().games, 0);
    assert!(store.verify().unwrap().is_empty());
}

on_both_backends! {
    fn every_call_refuses_a_name_with_nul(backing) {
        every_call_refuses(&backing.open());
    }
}

on_both_backends! {
    /// Free text is not a name: a NUL in a display name, a move, a reason
    /// or a Clash state is kept as written, in either store.
    fn texts_with_nul_inside_records_are_kept_as_written(backing) {
        let store = backing.open();
        let odd = "Zo\0e \u{E000}0 \\u0000";
        store.see_user("telegram", "7", odd, Some("zoe"), Timestamp(1)).unwrap();
        let channel = ChannelKey::new("telegram", "-7");
        let g = game(&store, &channel, "7", "8");
        let g = store.apply_move(&g.key, g.version, mv(odd, "7", "m1"), odd).unwrap();
        let g = store
            .update_game(&g.key, g.version, Some("m2"), |g| {
                g.clash = Some(ClashMatch { state: Some(serde_json::json!({ odd: [odd] })), ..ClashMatch::default() });
                Ok(())
            })
            .unwrap();
        let end = GameEnd { outcome: Outcome::Draw, reason: odd.into(), at: Timestamp(9), message_id: Some("m3".into()) };
        let done = store.finish_game(&g.key, g.version, &end).unwrap();
        drop(store);

        let store = backing.open();
        let user = store.user("telegram", "7").unwrap().unwrap();
        assert_eq!(user.name, odd);
        let archived = store.archived_game(&g.key).unwrap();
        assert_eq!(archived, done);
        assert_eq!((archived.moves[0].text.as_str(), archived.fen.as_str()), (odd, odd));
        assert_eq!(archived.result.unwrap().reason, odd);
        assert_eq!(archived.clash.unwrap().state, Some(serde_json::json!({ odd: [odd] })));
        assert!(store.verify().unwrap().is_empty());
    }
}
