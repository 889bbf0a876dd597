//! The command-line forms that other tools depend on: `perft`, `moves`, `play`, `review`, `migrate`.

use std::process::{Command, Output};

fn kibitz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kibitz")).args(args).output().expect("kibitz runs")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "kibitz failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn perft_prints_the_count_last() {
    let out = stdout(&kibitz(&["perft", "--variant", "olympic", "3"]));
    assert_eq!(out.lines().last(), Some("2464"));
    let out =
        stdout(&kibitz(&["perft", "--variant", "olympic", "--fen", "r1s1k/2g1p/2P2/1B3/K1G1R[Sb] w - - 0 1", "2"]));
    assert_eq!(out.lines().last(), Some("134"));
}

#[test]
fn perft_divide_lists_root_moves_then_total() {
    let out = stdout(&kibitz(&["perft", "--variant", "chess", "--divide", "2"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.last(), Some(&"400"));
    let rows: Vec<&str> = lines.iter().copied().filter(|l| l.contains(':')).collect();
    assert_eq!(rows.len(), 20);
    assert!(rows.contains(&"e2e4: 20"));
    assert!(rows.contains(&"g1f3: 20"));
}

#[test]
fn moves_are_canonical_and_sorted() {
    let out = stdout(&kibitz(&["moves", "--variant", "olympic", "--fen", "r1s1k/2g1p/2P2/1B3/K1G1R[Sb] w - - 0 1"]));
    let moves: Vec<&str> = out.lines().collect();
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
    // Five moves: the rest would leave the king to the bishop's check.
    assert_eq!(moves.len(), 5);
    assert!(moves.iter().all(|m| m.len() >= 4));
}

#[test]
fn moves_of_start_position() {
    let out = stdout(&kibitz(&["moves", "--variant", "alapawn"]));
    assert_eq!(out.lines().count(), 26);
    assert!(out.lines().any(|l| l == "e2d3"), "A2: diagonal quiet step");
}

#[test]
fn play_prints_fen_and_outcome() {
    let out = stdout(&kibitz(&["play", "--variant", "chess", "f3", "e5", "g4", "Qh4#"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_eq!(lines[1], "0-1 Black wins by checkmate");
    let out = stdout(&kibitz(&["play", "--variant", "olympic", "Sb2", "e4e3"]));
    assert_eq!(out.lines().collect::<Vec<_>>(), ["rbsgk/5/4p/PS3/KG1BR[] w - - 0 2", "* game in progress"]);
}

/// PA7: `--handicap` on perft, moves, play and analyse.
#[test]
fn handicap_flag_limits_absorption() {
    // White plain: depth 3 from the start counts chess's published 8,902
    // (the only captures by then are White's, which absorb nothing).
    let out = stdout(&kibitz(&["perft", "--variant", "absorption", "--handicap", "white plain", "3"]));
    assert_eq!(out.lines().last(), Some("8902"));
    let out = stdout(&kibitz(&["perft", "--variant", "absorption", "3"]));
    assert_eq!(out.lines().last(), Some("8922"));
    // A plain bishop taking a knight has no declining move and stays a bishop.
    let fen = "4k3/8/2n5/8/4B3/8/8/4K3 w - - 0 1";
    let args = ["moves", "--variant", "absorption", "--fen", fen, "--handicap", "white plain"];
    let out = stdout(&kibitz(&args));
    assert!(out.lines().any(|l| l == "e4c6") && !out.lines().any(|l| l == "e4c6-"), "{out}");
    let args = ["play", "--variant", "absorption", "--fen", fen, "--handicap", "white plain", "Bxc6+"];
    let out = stdout(&kibitz(&args));
    assert_eq!(out.lines().next(), Some("4k3/8/2B5/8/8/8/8/4K3 b - - 0 1 h:W=plain"));
    let args = ["play", "--variant", "absorption", "--handicap", "black nopawn noqueen", "e4"];
    let out = stdout(&kibitz(&args));
    assert!(
        out.starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 h:B=nopawn+noqueen\n"),
        "{out}"
    );
    let out = stdout(&kibitz(&["analyse", "--variant", "absorption", "--handicap", "white plain", "--time", "50"]));
    assert!(!out.is_empty());
    // Unknown words and other games are refused with a reason.
    let out = kibitz(&["moves", "--variant", "absorption", "--handicap", "white plan"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("'plan' is not a handicap"));
    let out = kibitz(&["moves", "--variant", "chess", "--handicap", "white plain"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Power Absorption"));
}

#[test]
fn play_names_the_first_illegal_move() {
    let out = kibitz(&["play", "--variant", "chess", "e4", "e5", "Ke3", "Nf6"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 3 (Ke3)"), "{err}");
    assert!(err.contains("Ke3 is not possible: your king on e1 cannot reach e3 (it can play Ke2)"), "{err}");
}

#[test]
fn bad_input_is_refused_clearly() {
    let out = kibitz(&["moves", "--variant", "xiangqi"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown variant 'xiangqi'"));
    let out = kibitz(&["moves", "--variant", "chess", "--fen", "not a fen"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a FEN"));
}

/// A store with a few games in `dir/db`, written change by change.
fn store_with_games(dir: &std::path::Path, games: usize) -> std::path::PathBuf {
    use kibitz_storage::{ChannelKey, GameSettings, MoveRecord, NewGame, Store, Timestamp};
    let path = dir.join("db");
    let store = Store::open(&path).unwrap();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for i in 0..games {
        let channel = ChannelKey::new("console", format!("c{i}"));
        let new = NewGame {
            variant: if i % 2 == 0 { "chess" } else { "olympic" }.into(),
            white: "ann".into(),
            black: "bob".into(),
            settings: GameSettings::default(),
            start_fen: start.into(),
            at: Timestamp(1_000),
            clash: None,
            bot: None,
        };
        let g = store.create_game(&channel, &new).unwrap();
        let mv = MoveRecord { text: "e2e4".into(), by: "ann".into(), at: Timestamp(2_000), message_id: None };
        store.apply_move(&g.key, g.version, mv, "fen").unwrap();
    }
    path
}

fn console_on(db: &std::path::Path, extra: &[&str]) -> Output {
    let out = db.with_file_name("pictures");
    let mut args = vec!["console", "--db", db.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(&args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("kibitz runs")
}

fn assert_refused_as_damaged(db: &std::path::Path) {
    let out = console_on(db, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a damaged store was opened: {err}");
    assert!(err.contains("is damaged") || err.contains("lost changes"), "{err}");
    assert!(err.contains("kibitz restore"), "{err}");
    assert!(err.contains("--accept-damage"), "{err}");
    // Accepted: the bot starts with what is left, and says so.
    let out = console_on(db, &["--accept-damage"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("damage accepted"), "{err}");
}

#[test]
fn a_truncated_log_stops_the_bot_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = store_with_games(dir.path(), 100);
    let log = db.join("db");
    let len = std::fs::metadata(&log).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&log).unwrap().set_len(len / 2).unwrap();
    assert_refused_as_damaged(&db);
}

#[test]
fn a_flipped_bit_stops_the_bot_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = store_with_games(dir.path(), 100);
    let log = db.join("db");
    let mut bytes = std::fs::read(&log).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x04;
    std::fs::write(&log, bytes).unwrap();
    assert_refused_as_damaged(&db);
}

#[test]
fn backup_while_the_bot_runs_and_restore() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let db = store_with_games(dir.path(), 6);
    let pictures = dir.path().join("pictures");
    let mut bot = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(["console", "--db", db.to_str().unwrap(), "--out", pictures.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = bot.stdin.take().unwrap();
    let mut output = BufReader::new(bot.stdout.take().unwrap());
    // Once it answers, it has the store open.
    writeln!(input, "ann: /help").unwrap();
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert!(line.contains("Kibitz"), "{line}");

    let file = dir.path().join("kibitz.backup");
    let out = kibitz(&["backup", "--db", db.to_str().unwrap(), file.to_str().unwrap()]);
    assert!(stdout(&out).contains("backup written"));
    // The running bot's store is not overwritten.
    let out = kibitz(&["restore", "--db", db.to_str().unwrap(), file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("in use"), "{}", String::from_utf8_lossy(&out.stderr));
    drop(input);
    assert!(bot.wait().unwrap().success());

    let restored = dir.path().join("restored");
    let out = kibitz(&["restore", "--db", restored.to_str().unwrap(), file.to_str().unwrap()]);
    assert!(stdout(&out).contains("restored into"));
    let before = kibitz_storage::Store::open(&db).unwrap();
    let after = kibitz_storage::Store::open(&restored).unwrap();
    let mut a = before.games_of("console", "ann").unwrap();
    let mut b = after.games_of("console", "ann").unwrap();
    assert_eq!(a.len(), 6);
    a.sort_by(|x, y| x.0.cmp(&y.0));
    b.sort_by(|x, y| x.0.cmp(&y.0));
    let games = |l: Vec<(kibitz_storage::GameKey, Result<kibitz_storage::GameRecord, kibitz_storage::StoreError>)>| {
        l.into_iter().map(|(_, g)| g.unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(games(a), games(b));
}

/// The console in a fresh store, fed `input` on standard input to its end.
fn console_fed(input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let (db, out) = (dir.path().join("db"), dir.path().join("out"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(["console", "--db", db.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kibitz runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn the_console_refuses_an_unreadable_line_and_goes_on() {
    let done = console_fed(b"alice: /variants\nalice: /piece kn\xffight\r\nbob: /challenge @alice\n");
    let text = stdout(&done);
    let lines: Vec<&str> = text.lines().collect();
    let games = lines.iter().position(|l| l.starts_with("kibitz: Games I play:")).expect(&text);
    let refused = lines.iter().position(|l| l.contains("not UTF-8 text")).expect(&text);
    let challenge = lines.iter().position(|l| l.contains("@bob challenges @alice")).expect(&text);
    assert!(games < refused && refused < challenge, "{text}");
    assert_eq!(lines.iter().filter(|l| l.contains("not UTF-8")).count(), 1, "{text}");
}

/// A session read from a file that ends with /review gets the review before
/// the console closes, though the background reviewer had no line after it
/// to show it with.
#[test]
fn the_console_shows_a_review_asked_for_last_before_closing() {
    let done = console_fed(
        b"alice: /challenge @bob white\nbob: /accept\nalice: f3\nbob: e5\nalice: g4\nbob: Qh4#\nalice: /review\n",
    );
    assert!(done.status.success());
    let text = stdout(&done);
    let asked = text.find("Reviewing game").expect(&text);
    let review = text.find("Review of game").expect(&text);
    assert!(asked < review, "{text}");
    // The blunder that allowed mate is named.
    assert!(text.contains("2. g4?? (blunder)"), "{text}");
    assert_eq!(text.matches("Review of game").count(), 1, "{text}");
}

/// `url` with `password` in its user part, if it has none yet.
fn with_password(url: &str, password: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((user, host)) if !user.contains(':') => format!("{scheme}://{user}:{password}@{host}"),
            _ => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

#[test]
fn migrate_copies_the_store_into_postgres_and_shows_no_password() {
    let Some(schema) = kibitz_storage::testing::TestSchema::new("cli_migrate") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = store_with_games(dir.path(), 3);
    let password = "pw-Zq81-never-shown";
    let url = with_password(&schema.url(), password);

    let out = kibitz(&["migrate", "--from", db.to_str().unwrap(), "--to", &url]);
    let text = stdout(&out);
    assert!(!text.contains(password) && !String::from_utf8_lossy(&out.stderr).contains(password), "{text}");
    assert!(text.starts_with(&format!("copied the store {} into postgres://", db.display())), "{text}");
    for line in ["active games: 3", "active game players: 6", "archived games: 0", "damaged, left out: 0"] {
        assert!(text.lines().any(|l| l == line), "{line} not in {text}");
    }
    let store = schema.store().unwrap();
    let games = store.active_games().unwrap();
    assert_eq!(games.len(), 3);
    assert!(games.iter().all(|(_, g)| g.as_ref().is_ok_and(|g| g.moves.len() == 1 && g.fen == "fen")));
    assert!(store.verify().unwrap().is_empty());

    // Again into the same database: refused, nothing written twice.
    let again = kibitz(&["migrate", "--from", db.to_str().unwrap(), "--to", &url]);
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("already holds Kibitz records") && err.contains("nothing was copied"), "{err}");
    assert!(!err.contains(password), "{err}");
    assert_eq!(store.active_games().unwrap().len(), 3);
}

#[test]
fn migrate_refuses_bad_input_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let password = "pw-Zq81-never-shown";
    let nowhere = format!("postgres://kibitz:{password}@127.0.0.1:9/kibitz");
    let missing = dir.path().join("none");
    let out = kibitz(&["migrate", "--from", missing.to_str().unwrap(), "--to", &nowhere]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("there is no game store in"), "{err}");
    assert!(err.contains("postgres://kibitz@127.0.0.1:9/kibitz") && !err.contains(password), "{err}");
    assert!(!missing.exists(), "no store is made where there was none");

    let db = store_with_games(dir.path(), 1);
    let out = kibitz(&["migrate", "--from", db.to_str().unwrap(), "--to", &nowhere]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot be reached") && err.contains("nothing was copied"), "{err}");
    assert!(!err.contains(password), "{err}");

    let out = kibitz(&["migrate", "--from", db.to_str().unwrap(), "--to", &format!("host=db password={password}")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--to must be a PostgreSQL URL") && !err.contains(password), "{err}");
}

/// The console on the shared store (`KIBITZ_POSTGRES_URL`): a game started
/// in one run is there in the next, and in the database; no sled folder is made.
#[test]
fn the_console_plays_on_postgres_when_the_environment_names_it() {
    let Some(schema) = kibitz_storage::testing::TestSchema::new("cli_console") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("unused-sled");
    let out = dir.path().join("pictures");
    let run = |lines: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kibitz"))
            .args(["console", "--db", db.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .env("KIBITZ_POSTGRES_URL", schema.url())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("kibitz runs");
        use std::io::Write;
        child.stdin.take().unwrap().write_all(lines.as_bytes()).unwrap();
        let done = child.wait_with_output().unwrap();
        assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
        stdout(&done)
    };
    let first = run("alice: /challenge @bob chess white\nbob: /accept\nalice: e4\n");
    assert!(first.contains("@alice played e4"), "{first}");
    let second = run("bob: e5\n");
    assert!(second.contains("@bob played e5"), "{second}");
    assert!(!db.exists(), "a sled store was made beside the shared one");
    let store = schema.store().unwrap();
    let game = store.player_game_in_channel(&kibitz_storage::ChannelKey::new("console", "local"), "alice").unwrap();
    let moves: Vec<String> = game.expect("the game is in the database").moves.into_iter().map(|m| m.text).collect();
    assert_eq!(moves, ["e2e4", "e7e5"]);
}

/// A listing cut short by its reader (`kibitz perft --divide ... | head -1`,
/// `kibitz bench search | head -2`) ends quietly, not with a panic about a
/// broken pipe.
#[test]
fn a_listing_cut_short_ends_quietly() {
    for args in [&["perft", "--variant", "chess", "--divide", "4"][..], &["bench", "search"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kibitz"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("kibitz runs");
        // The reader goes before the first line is written (both take a
        // while to find it).
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

/// `kibitz review` at a fixed depth (the verdicts then do not depend on the
/// machine's speed): the summaries, the flagged move with the better one,
/// the graph and the annotated PGN.
#[test]
fn review_flags_the_hung_queen_and_writes_graph_and_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("graph.png");
    let pgn = dir.path().join("game.pgn");
    // Depth 10: at 6 to 8 the search may prefer the Elephant Gambit 2...d5,
    // which its evaluation rates too kindly for a model answer (at 8 since
    // the moves are generated in stages).
    let args = ["review", "--variant", "chess", "--depth", "10", "--time", "120000", "e4", "e5", "Nf3", "Qg5", "Nxg5"];
    let mut args: Vec<&str> = args.to_vec();
    let (g, p) = (graph.to_str().unwrap(), pgn.to_str().unwrap());
    args.extend(["-o", g, "--pgn", p]);
    let out = stdout(&kibitz(&args));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("White: 0 inaccuracies, 0 mistakes, 0 blunders, accuracy "), "{out}");
    assert!(lines[1].starts_with("Black: 0 inaccuracies, 0 mistakes, 1 blunder, accuracy "), "{out}");
    let flagged: Vec<&&str> = lines.iter().filter(|l| l.contains('(')).collect();
    assert_eq!(flagged.len(), 1, "{out}");
    assert!(flagged[0].starts_with("2... Qg5?? (Blunder, "), "{out}");
    // The better move is a sound answer to 2.Nf3: a defence of e5 or the
    // Petrov's counter-attack 2...Nf6; which one the search prefers is its
    // own choice.
    let best = flagged[0].split(" best ").nth(1).and_then(|b| b.split(':').next()).unwrap_or("");
    assert!(["Nc6", "d6", "Nf6", "Qe7", "Qf6"].contains(&best), "{out}");
    let png = std::fs::read(&graph).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 800);
    let text = std::fs::read_to_string(&pgn).unwrap().replace('\n', " ");
    assert!(text.contains("2... Qg5?? { [%eval "), "{text}");
    assert!(text.contains(&format!("{{ Blunder. {best} was best. }} (2... {best}")), "{text}");
}

#[test]
fn review_of_another_variant_from_a_position() {
    let out = stdout(&kibitz(&[
        "review",
        "--variant",
        "olympic",
        "--fen",
        "1r1k1/5/5/5/K3R[] w - - 0 1",
        "--depth",
        "6",
        "--time",
        "120000",
        "Ka2",
        "Kc4",
        "Re4+",
        "Kd5",
        "Re5+",
        "Kxe5",
    ]));
    assert!(out.contains("White: 0 inaccuracies, 0 mistakes, 1 blunder"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("3. Re5+?? (Blunder, ")), "{out}");
}

#[test]
fn review_refuses_bad_moves_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("graph.png");
    let out = kibitz(&["review", "--depth", "2", "e4", "e5", "Ke3", "-o", graph.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 3 (Ke3)"), "{err}");
    assert!(!graph.exists());
    let out = kibitz(&["review", "--variant", "xiangqi", "e4"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown variant 'xiangqi'"));
}

/// The frames of a GIF file, composed whole.
fn gif_frames(path: &std::path::Path) -> Vec<image::RgbaImage> {
    use image::AnimationDecoder;
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("the GIF was written"));
    let decoder = image::codecs::gif::GifDecoder::new(file).expect("a GIF");
    decoder.into_frames().collect_frames().expect("frames decode").into_iter().map(|f| f.into_buffer()).collect()
}

#[test]
fn gif_writes_a_frame_per_position() {
    let dir = tempfile::tempdir().unwrap();
    let white = dir.path().join("game.gif");
    let black = dir.path().join("flipped.gif");
    let mate = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
    let run = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["gif", "--variant", "chess", "--size", "320", "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.extend_from_slice(&mate);
        let printed = stdout(&kibitz(&args));
        assert_eq!(printed.trim(), out.display().to_string());
    };
    run(&white, &[]);
    run(&black, &["--flip"]);
    let frames = gif_frames(&white);
    assert_eq!(frames.len(), mate.len() + 1, "the start and a frame per move");
    // The board picture of the same size is as wide (the caption adds height only).
    let png = dir.path().join("board.png");
    stdout(&kibitz(&["render", "--variant", "chess", "--size", "320", "-o", png.to_str().unwrap()]));
    let board = image::open(&png).unwrap();
    assert_eq!(frames[0].width(), board.width());
    assert!(frames[0].height() > board.height(), "a caption above the board");
    // From Black's side the start looks different (the queens stand elsewhere).
    let flipped = gif_frames(&black);
    assert_eq!(flipped.len(), frames.len());
    assert_ne!(flipped[0], frames[0]);
}

#[test]
fn gif_refuses_a_bad_move_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("game.gif");
    let run = kibitz(&["gif", "--variant", "chess", "-o", out.to_str().unwrap(), "e4", "Ke3"]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("move 2 (Ke3)"), "{err}");
    assert!(!out.exists(), "nothing written");
}
