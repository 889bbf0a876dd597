//! A Clash match in the store: its state kept as written, across reopening,
//! and written with the result in one step when the match ends.

mod common;

use common::START;
use kibitz_storage::{ChannelKey, ClashMatch, GameEnd, GameSettings, NewGame, Outcome, Store, StoreError, Timestamp};
use serde_json::json;

fn clash_game(store: &Store, channel: &ChannelKey) -> kibitz_storage::GameRecord {
    store
        .create_game(
            channel,
            &NewGame {
                variant: "clash".into(),
                white: "ann".into(),
                black: "bob".into(),
                settings: GameSettings::default(),
                start_fen: START.into(),
                at: Timestamp(1),
                clash: Some(ClashMatch::default()),
                bot: None,
            },
        )
        .unwrap()
}

#[test]
fn a_clash_record_written_before_the_state_reads_without_it() {
    let old: ClashMatch = serde_json::from_value(json!({
        "round": 1,
        "gold": {"ann": 10},
        "armies": {},
        "sealed_bids": [],
        "rounds": []
    }))
    .unwrap();
    assert_eq!((old.state, old.round, old.gold["ann"]), (None, 1, 10));
}

on_both_backends! {
    fn the_match_state_is_kept_as_written_across_reopening(backing) {
        let channel = ChannelKey::new("console", "arena");
        let state = json!({"round": 2, "phase": {"Army": {"color": "White"}}, "gold": [57, 80]});
        let key = {
            let store = backing.open();
            let g = clash_game(&store, &channel);
            assert_eq!(g.clash.as_ref().unwrap().state, None, "a new match has no state yet");
            let g = store
                .update_game(&g.key, g.version, Some("m1"), |g| {
                    let clash = g.clash.as_mut().unwrap();
                    clash.state = Some(state.clone());
                    clash.round = 2;
                    Ok(())
                })
                .unwrap();
            g.key
        };
        let store = backing.open();
        let clash = store.game(&key).unwrap().clash.unwrap();
        assert_eq!((clash.state, clash.round), (Some(state), 2));
        assert!(store.verify().unwrap().is_empty());
    }

    fn finishing_with_a_last_change_writes_both_or_neither(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("console", "arena");
        let g = clash_game(&store, &channel);
        let end = GameEnd { outcome: Outcome::WhiteWins, reason: "match 2-0".into(), at: Timestamp(5), message_id: None };

        // A change that fails leaves the game running, unchanged.
        let failed = store.finish_game_with(&g.key, g.version, &end, |_| Err(StoreError::NotAClashMatch(g.key.clone())));
        assert!(matches!(failed, Err(StoreError::NotAClashMatch(_))));
        assert_eq!(store.game(&g.key).unwrap(), g);

        let done = store
            .finish_game_with(&g.key, g.version, &end, |g| {
                g.clash.as_mut().unwrap().state = Some(json!({"phase": {"Over": {"winner": "White"}}}));
                Ok(())
            })
            .unwrap();
        assert_eq!(done.result.as_ref().unwrap().outcome, Outcome::WhiteWins);
        let archived = store.archived_game(&g.key).unwrap();
        assert_eq!(archived, done);
        assert!(archived.clash.unwrap().state.is_some());
        assert!(store.player_game_in_channel(&channel, "ann").unwrap().is_none());
    }
}
