//! A game's life in the store: challenge, moves, offers, takeback, Clash bids, the end, the archive, ratings.

mod common;

use common::{START, both_moved, game, mv};
use kibitz_storage::{
    Challenge, ChannelKey, ChannelSettings, ClashMatch, Colour, ColourChoice, GameEnd, GameId, GameSettings, NewGame,
    Offer, OfferKind, Outcome, Rating, ResignAsk, SealedBid, StoreError, Timestamp,
};

fn challenge(challenger: &str, challenged: Option<&str>, colour: ColourChoice) -> Challenge {
    Challenge {
        challenger: challenger.into(),
        challenged: challenged.map(Into::into),
        variant: "chess".into(),
        colour,
        settings: GameSettings { rated: true, hints_allowed: true, days_per_move: Some(3), ..GameSettings::default() },
        clash: false,
        at: Timestamp(500),
    }
}

on_both_backends! {
    fn a_challenge_accepted_becomes_a_game(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "chess-club");
        store.create_challenge(&channel, &challenge("ann", Some("bob"), ColourChoice::Black)).unwrap();
        assert_eq!(store.challenge(&channel, "ann").unwrap().unwrap().challenged.as_deref(), Some("bob"));

        // Only the player challenged may accept, and not the challenger.
        assert!(matches!(
            store.accept_challenge(&channel, "ann", "cid", START, Timestamp(600)),
            Err(StoreError::NotYourChallenge { .. })
        ));
        assert!(matches!(
            store.accept_challenge(&channel, "ann", "ann", START, Timestamp(600)),
            Err(StoreError::OwnChallenge)
        ));

        let game = store.accept_challenge(&channel, "ann", "bob", START, Timestamp(600)).unwrap();
        assert_eq!((game.white.as_str(), game.black.as_str()), ("bob", "ann"));
        assert_eq!(game.colour_of("ann"), Some(Colour::Black));
        assert_eq!(game.player(Colour::White), "bob");
        assert_eq!(game.version, 1);
        assert_eq!(game.fen, START);
        assert_eq!(game.settings.days_per_move, Some(3));
        assert!(GameId::parse(game.key.id.as_str()).is_ok());
        assert!(store.challenge(&channel, "ann").unwrap().is_none());
        assert!(matches!(
            store.accept_challenge(&channel, "ann", "bob", START, Timestamp(600)),
            Err(StoreError::NoSuchChallenge { .. })
        ));

        // The id players type finds the game, in any letter case.
        let typed = GameId::parse(&game.key.id.as_str().to_uppercase()).unwrap();
        assert_eq!(store.game(&channel.game(typed)).unwrap(), game);
        assert_eq!(store.player_game_in_channel(&channel, "ann").unwrap().unwrap(), game);
        assert!(store.player_game_in_channel(&channel, "cid").unwrap().is_none());
    }

    fn an_open_challenge_is_for_anyone_and_colours_by_lot_are_one_each(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("telegram", "-100");
        store.create_challenge(&channel, &challenge("ann", None, ColourChoice::Random)).unwrap();
        store.create_challenge(&channel, &challenge("cid", None, ColourChoice::White)).unwrap();
        assert_eq!(store.challenges(&channel).unwrap().len(), 2);
        // Accepting removes the accepter's own challenge too: they are busy now.
        let game = store.accept_challenge(&channel, "ann", "cid", START, Timestamp(600)).unwrap();
        let mut players = [game.white.as_str(), game.black.as_str()];
        players.sort();
        assert_eq!(players, ["ann", "cid"]);
        assert!(store.challenges(&channel).unwrap().is_empty());
        store.create_challenge(&channel, &challenge("dan", None, ColourChoice::Random)).unwrap();
        store.withdraw_challenge(&channel, "dan").unwrap();
        assert!(matches!(store.withdraw_challenge(&channel, "dan"), Err(StoreError::NoSuchChallenge { .. })));
    }

    fn a_channel_holds_several_games_but_a_player_only_one(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "c");
        let other = ChannelKey::new("discord", "d");
        let first = game(&store, &channel, "ann", "bob");
        let second = game(&store, &channel, "cid", "dan");
        assert_ne!(first.key.id, second.key.id);
        let busy = store.create_game(
            &channel,
            &NewGame {
                variant: "olympic".into(),
                white: "eve".into(),
                black: "bob".into(),
                settings: GameSettings::default(),
                start_fen: START.into(),
                at: Timestamp(1),
                clash: None,
                bot: None,
            },
        );
        match busy {
            Err(e @ StoreError::PlayerBusy { .. }) => {
                assert_eq!(e.to_string(), format!("bob is already playing game {} in this channel", first.key.id));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            store.create_challenge(&channel, &challenge("ann", None, ColourChoice::Random)),
            Err(StoreError::PlayerBusy { .. })
        ));
        // Another channel is another place.
        let third = game(&store, &other, "bob", "ann");

        let listed: Vec<_> = store.games_in_channel(&channel).unwrap().into_iter().map(|(k, g)| (k, g.unwrap())).collect();
        assert_eq!(listed.len(), 2);
        assert!(listed.iter().all(|(k, g)| *k == g.key));
        let of_bob: Vec<_> = store.games_of("discord", "bob").unwrap().into_iter().map(|(k, _)| k).collect();
        assert_eq!(of_bob, [first.key.clone(), third.key.clone()]);
        assert!(store.games_of("telegram", "bob").unwrap().is_empty());
    }

    fn the_bot_plays_a_game_with_each_player_in_a_channel_at_once(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "c");
        let against_bot = |human: &str, bot_white: bool| NewGame {
            variant: "chess".into(),
            white: if bot_white { "bot".into() } else { human.into() },
            black: if bot_white { human.into() } else { "bot".into() },
            settings: GameSettings { bot_level: Some(3), rated: false, ..GameSettings::default() },
            start_fen: START.into(),
            at: Timestamp(1),
            clash: None,
            bot: Some(if bot_white { Colour::White } else { Colour::Black }),
        };
        let ann = store.create_game(&channel, &against_bot("ann", false)).unwrap();
        let bob = store.create_game(&channel, &against_bot("bob", true)).unwrap();
        assert_eq!(bob.bot, Some(Colour::White));
        // Each human plays one game here; the bot, kept nowhere, is never busy.
        assert!(matches!(store.create_game(&channel, &against_bot("ann", true)), Err(StoreError::PlayerBusy { .. })));
        assert_eq!(store.player_game_in_channel(&channel, "ann").unwrap().map(|g| g.key), Some(ann.key.clone()));
        assert_eq!(store.player_game_in_channel(&channel, "bob").unwrap().map(|g| g.key), Some(bob.key.clone()));
        assert!(store.player_game_in_channel(&channel, "bot").unwrap().is_none());
        let problems = store.verify().unwrap();
        assert!(problems.is_empty(), "the index is whole as it is: {problems:?}");
        // One ends; the other goes on, the store still whole.
        let end = GameEnd { outcome: Outcome::WhiteWins, reason: "resignation".into(), at: Timestamp(5), message_id: None };
        store.finish_game(&ann.key, ann.version, &end).unwrap();
        assert!(store.player_game_in_channel(&channel, "ann").unwrap().is_none());
        assert_eq!(store.game(&bob.key).unwrap().key, bob.key);
        let problems = store.verify().unwrap();
        assert!(problems.is_empty(), "{problems:?}");
    }

    fn moves_offers_and_takebacks(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("console", "here");
        let g = game(&store, &channel, "ann", "bob");
        let g = store.apply_move(&g.key, g.version, mv("e2e4", "ann", "m1"), "fen after e4").unwrap();
        let g = store.apply_move(&g.key, g.version, mv("e7e5", "bob", "m2"), "fen after e5").unwrap();
        assert_eq!(g.version, 3);
        assert_eq!(g.moves.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["e2e4", "e7e5"]);
        assert_eq!(g.moves[1].by, "bob");
        assert_eq!(g.fen, "fen after e5");

        let takeback = Offer { kind: OfferKind::Takeback { plies: 1 }, by: "bob".into(), at: Timestamp(3) };
        let draw = Offer { kind: OfferKind::Draw, by: "bob".into(), at: Timestamp(3) };
        let g = store.make_offer(&g.key, g.version, &takeback, Some("m3")).unwrap();
        let g = store.make_offer(&g.key, g.version, &draw, Some("m4")).unwrap();
        assert_eq!(g.offers.len(), 2);
        assert_eq!(g.offer(OfferKind::Takeback { plies: 0 }), Some(&takeback));
        let g = store.clear_offer(&g.key, g.version, OfferKind::Draw, Some("m5")).unwrap();
        assert!(g.offer(OfferKind::Draw).is_none());
        assert!(matches!(store.clear_offer(&g.key, g.version, OfferKind::Draw, None), Err(StoreError::NoOffer { .. })));

        let g = store.take_back(&g.key, g.version, 1, "fen after e4", Timestamp(4), Some("m6")).unwrap();
        assert_eq!(g.moves.len(), 1);
        assert_eq!(g.fen, "fen after e4");
        assert!(g.offers.is_empty());
        assert!(matches!(
            store.take_back(&g.key, g.version, 5, START, Timestamp(4), None),
            Err(StoreError::TakebackTooLong { requested: 5, available: 1, .. })
        ));

        // The mover's own draw offer outlives the move (the opponent may
        // still take it); their takeback request lapses.
        let g = store.make_offer(&g.key, g.version, &draw, None).unwrap();
        let g = store.make_offer(&g.key, g.version, &takeback, None).unwrap();
        let g = store.apply_move(&g.key, g.version, mv("e7e5", "bob", "m7"), "fen").unwrap();
        assert_eq!(g.offers, vec![draw.clone()]);
        assert_eq!(store.game(&g.key).unwrap(), g);
        // The opponent's move declines it.
        let g = store.apply_move(&g.key, g.version, mv("g1f3", "ann", "m8"), "fen").unwrap();
        assert!(g.offers.is_empty());
        assert_eq!(store.game(&g.key).unwrap(), g);
    }

    fn a_resignation_question_is_kept_until_a_move_or_a_takeback(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("console", "here");
        let g = game(&store, &channel, "ann", "bob");
        let g = store.apply_move(&g.key, g.version, mv("e2e4", "ann", "m1"), "fen after e4").unwrap();
        let ask = |by: &str, at| ResignAsk { by: by.into(), at: Timestamp(at), plies: 1, rounds: 0 };
        let g = store.set_resign_ask(&g.key, g.version, "bob", Some(&ask("bob", 2)), Some("r1")).unwrap();
        let g = store.set_resign_ask(&g.key, g.version, "ann", Some(&ask("ann", 3)), None).unwrap();
        // One each: asking again replaces the player's own.
        let g = store.set_resign_ask(&g.key, g.version, "bob", Some(&ask("bob", 4)), None).unwrap();
        assert_eq!(g.resign_asks, vec![ask("ann", 3), ask("bob", 4)]);
        assert_eq!(store.game(&g.key).unwrap(), g);
        // The same message again is not applied twice.
        assert!(matches!(
            store.set_resign_ask(&g.key, g.version, "bob", None, Some("r1")),
            Err(StoreError::AlreadyApplied { .. })
        ));
        let g = store.set_resign_ask(&g.key, g.version, "ann", None, Some("n1")).unwrap();
        assert_eq!(g.resign_asks, vec![ask("bob", 4)]);
        let g = store.apply_move(&g.key, g.version, mv("e7e5", "bob", "m2"), "fen after e5").unwrap();
        assert!(g.resign_asks.is_empty());
        let g = store.set_resign_ask(&g.key, g.version, "ann", Some(&ask("ann", 5)), None).unwrap();
        let g = store.take_back(&g.key, g.version, 1, "fen after e4", Timestamp(6), None).unwrap();
        assert!(g.resign_asks.is_empty());
        assert_eq!(store.game(&g.key).unwrap(), g);
    }

    fn clash_bids_are_sealed_once_per_round(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "arena");
        let clash = ClashMatch {
            round: 1,
            gold: [("ann".to_owned(), 10), ("bob".to_owned(), 10)].into(),
            armies: [("ann".to_owned(), vec!["R".to_owned()])].into(),
            ..ClashMatch::default()
        };
        let g = store
            .create_game(
                &channel,
                &NewGame {
                    variant: "clash".into(),
                    white: "ann".into(),
                    black: "bob".into(),
                    settings: GameSettings::default(),
                    start_fen: START.into(),
                    at: Timestamp(1),
                    clash: Some(clash),
                    bot: None,
                },
            )
            .unwrap();
        let bid = SealedBid { player: "ann".into(), round: 1, bid: "4 gold: knight".into(), at: Timestamp(2) };
        let g = store.seal_bid(&g.key, g.version, &bid, Some("b1")).unwrap();
        assert!(matches!(
            store.seal_bid(&g.key, g.version, &bid, None),
            Err(StoreError::BidAlreadySealed { round: 1, .. })
        ));
        // Round results and gold are whatever the Clash rules write.
        let g = store
            .update_game(&g.key, g.version, Some("r1"), |g| {
                let clash = g.clash.as_mut().unwrap();
                clash.gold.insert("ann".into(), 6);
                clash.round = 2;
                Ok(())
            })
            .unwrap();
        let stored = store.game(&g.key).unwrap().clash.unwrap();
        assert_eq!((stored.round, stored.gold["ann"], stored.sealed_bids.len()), (2, 6, 1));
        assert_eq!(stored.armies["ann"], ["R"]);

        let plain = game(&store, &channel, "cid", "dan");
        assert!(matches!(store.seal_bid(&plain.key, 1, &bid, None), Err(StoreError::NotAClashMatch(_))));
    }

    fn finishing_archives_frees_the_players_and_rates_them(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "c");
        let g = both_moved(&store, game(&store, &channel, "ann", "bob"), ["f2f3", "e7e5"]);
        let end =
            GameEnd { outcome: Outcome::BlackWins, reason: "checkmate".into(), at: Timestamp(9_000), message_id: None };
        assert!(matches!(store.finish_game(&g.key, g.version - 1, &end), Err(StoreError::Conflict { .. })));
        let done = store.finish_game(&g.key, g.version, &end).unwrap();
        let result = done.result.clone().unwrap();
        assert_eq!((result.outcome, result.reason.as_str()), (Outcome::BlackWins, "checkmate"));
        let (white, black) = (result.white_rating.unwrap(), result.black_rating.unwrap());
        assert!(black.after.rating > 1500.0 && white.after.rating < 1500.0);
        assert_eq!(store.rating("discord", "bob", "chess").unwrap(), black.after);
        assert_eq!(store.rating("discord", "bob", "olympic").unwrap(), Rating::default());
        assert_eq!(store.rating("telegram", "bob", "chess").unwrap(), Rating::default());
        assert_eq!(store.ratings_of("discord", "ann").unwrap()[0].0, "chess");

        // The game is over: no more moves, the players are free, the archive has it.
        assert!(matches!(store.game(&g.key), Err(StoreError::GameOver(_))));
        assert!(matches!(store.apply_move(&g.key, done.version, mv("a", "bob", "x"), "f"), Err(StoreError::GameOver(_))));
        assert!(matches!(store.finish_game(&g.key, done.version, &end), Err(StoreError::GameOver(_))));
        assert!(store.player_game_in_channel(&channel, "ann").unwrap().is_none());
        assert!(store.games_in_channel(&channel).unwrap().is_empty());
        assert_eq!(store.archived_game(&g.key).unwrap(), done);

        // Newest first, queryable by either player.
        let g2 = both_moved(&store, game(&store, &channel, "bob", "ann"), ["e2e4", "e7e5"]);
        let end2 = GameEnd {
            outcome: Outcome::Draw,
            reason: "agreed".into(),
            at: Timestamp(10_000),
            message_id: Some("d".into()),
        };
        store.finish_game(&g2.key, g2.version, &end2).unwrap();
        assert!(matches!(store.finish_game(&g2.key, g2.version, &end2), Err(StoreError::AlreadyApplied { .. })));
        for player in ["ann", "bob"] {
            let archived: Vec<_> =
                store.archived_games_of("discord", player, 10).unwrap().into_iter().map(|(k, _)| k).collect();
            assert_eq!(archived, [g2.key.clone(), g.key.clone()]);
        }
        assert_eq!(store.archived_games_of("discord", "ann", 1).unwrap().len(), 1);
        assert_eq!(store.rating("discord", "ann", "chess").unwrap().games, 2);

        // A game that ends before both sides moved leaves ratings alone.
        let g4 = game(&store, &channel, "ann", "bob");
        let g4 = store.apply_move(&g4.key, g4.version, mv("e2e4", "ann", "m4"), "fen").unwrap();
        let end4 = GameEnd { outcome: Outcome::WhiteWins, reason: "time".into(), at: Timestamp(10_500), message_id: None };
        let done4 = store.finish_game(&g4.key, g4.version, &end4).unwrap();
        assert!(done4.result.unwrap().white_rating.is_none());
        assert_eq!(store.rating("discord", "ann", "chess").unwrap().games, 2);

        // Aborted and unrated games leave ratings alone.
        let g3 = game(&store, &channel, "ann", "bob");
        let end3 = GameEnd { outcome: Outcome::Aborted, reason: "aborted".into(), at: Timestamp(11_000), message_id: None };
        let done3 = store.finish_game(&g3.key, g3.version, &end3).unwrap();
        assert!(done3.result.unwrap().white_rating.is_none());
        assert_eq!(store.rating("discord", "ann", "chess").unwrap().games, 2);
        assert!(store.verify().unwrap().is_empty());
    }

    /// PA7: the handicap rides in the record (settings and start FEN), and a
    /// handicap game is not rated even if marked so.
    fn a_handicap_game_keeps_its_handicap_and_is_not_rated(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "h");
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 h:W=plain";
        let mut c = challenge("ann", Some("bob"), ColourChoice::White);
        c.variant = "absorption".into();
        c.settings.handicap = Some("White plain".into());
        store.create_challenge(&channel, &c).unwrap();
        assert_eq!(store.challenge(&channel, "ann").unwrap().unwrap().settings.handicap.as_deref(), Some("White plain"));
        let g = store.accept_challenge(&channel, "ann", "bob", start, Timestamp(600)).unwrap();
        assert_eq!(g.settings.handicap.as_deref(), Some("White plain"));
        assert_eq!((g.start_fen.as_str(), g.fen.as_str()), (start, start));
        let read = store.game(&g.key).unwrap();
        assert_eq!(read, g);
        let end = GameEnd { outcome: Outcome::WhiteWins, reason: "resignation".into(), at: Timestamp(700), message_id: None };
        let done = store.finish_game(&g.key, g.version, &end).unwrap();
        assert!(done.result.unwrap().white_rating.is_none());
        assert_eq!(store.rating("discord", "ann", "absorption").unwrap(), Rating::default());
        assert_eq!(store.archived_game(&g.key).unwrap().settings.handicap.as_deref(), Some("White plain"));
    }

    fn results_played_elsewhere_are_rated_too(backing) {
        let store = backing.open();
        let (w, b) = store.record_result("discord", "chess", "ann", "bob", Outcome::WhiteWins).unwrap().unwrap();
        assert_eq!(store.rating("discord", "ann", "chess").unwrap(), w.after);
        assert_eq!(store.rating("discord", "bob", "chess").unwrap(), b.after);
        assert!(store.record_result("discord", "chess", "ann", "ann", Outcome::WhiteWins).unwrap().is_none());
    }

    fn channel_settings_default_and_persist(backing) {
        let channel = ChannelKey::new("telegram", "42");
        let settings = ChannelSettings {
            default_variant: Some("olympic".into()),
            rated: false,
            hints_allowed: true,
            days_per_move: Some(2),
        };
        {
            let store = backing.open();
            assert_eq!(store.channel_settings(&channel).unwrap(), ChannelSettings::default());
            store.set_channel_settings(&channel, &settings).unwrap();
        }
        let store = backing.open();
        assert_eq!(store.channel_settings(&channel).unwrap(), settings);
        assert_eq!(store.channel_settings(&ChannelKey::new("discord", "42")).unwrap(), ChannelSettings::default());
    }

    fn names_with_nul_are_refused_not_mangled(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "a\0b");
        assert!(matches!(store.games_in_channel(&channel), Err(StoreError::InvalidName { what: "channel", .. })));
        assert!(matches!(store.rating("discord", "x\0", "chess"), Err(StoreError::InvalidName { what: "player", .. })));
    }
}
