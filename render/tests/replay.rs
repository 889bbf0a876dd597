//! The replay GIF, decoded with the `image` crate: one frame per position,
//! the size of the board picture, the first and last frames the start and
//! final board pictures (up to the GIF's palette), the pauses, per variant.

use image::codecs::gif::GifDecoder;
use image::{AnimationDecoder, RgbaImage};
use kibitz_render::{BoardOptions, Caption, FIRST_DELAY_MS, LAST_DELAY_MS, MOVE_DELAY_MS, Renderer, ReplayOptions};
use kibitz_rules::{Game, Move, Position, Variant};

/// The frames of a GIF, each composed whole, with its delay in ms.
fn frames(gif: &[u8]) -> Vec<(RgbaImage, u32)> {
    let decoder = GifDecoder::new(std::io::Cursor::new(gif)).expect("a GIF");
    decoder
        .into_frames()
        .collect_frames()
        .expect("frames decode")
        .into_iter()
        .map(|f| {
            let (n, d) = f.delay().numer_denom_ms();
            (f.into_buffer(), n / d)
        })
        .collect()
}

fn png(bytes: &[u8]) -> RgbaImage {
    image::load_from_memory(bytes).expect("a PNG").to_rgba8()
}

/// How far a frame is from a picture: the mean difference per channel, and
/// the share of pixels off by more than 48 in some channel.
///
/// The GIF has 255 colours for the whole replay, so flat areas come within a
/// few steps and only the soft edges of pieces move further: a frame showing
/// the same picture stays under 2.5 on average with under 1% of pixels far
/// off, while a piece on another square moves whole squares' worth of
/// pixels (a chess square is over 1.5% of the picture) by far more.
fn distance(a: &RgbaImage, b: &RgbaImage) -> (f64, f64) {
    assert_eq!(a.dimensions(), b.dimensions());
    let mut sum = 0u64;
    let mut far = 0usize;
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d: Vec<u8> = (0..3).map(|i| p[i].abs_diff(q[i])).collect();
        sum += d.iter().map(|&x| u64::from(x)).sum::<u64>();
        if d.iter().any(|&x| x > 48) {
            far += 1;
        }
    }
    let n = (a.width() * a.height()) as f64;
    (sum as f64 / (n * 3.0), far as f64 / n)
}

fn assert_close(what: &str, a: &RgbaImage, b: &RgbaImage) {
    let (mean, far) = distance(a, b);
    assert!(mean < 2.5 && far < 0.01, "{what}: mean difference {mean:.2}, {:.2}% far off", far * 100.0);
}

fn assert_differs(what: &str, a: &RgbaImage, b: &RgbaImage) {
    let (_, far) = distance(a, b);
    assert!(far > 0.01, "{what}: only {:.2}% of pixels differ", far * 100.0);
}

fn picture(pos: &Position, game: Option<&Game>, opts: &ReplayOptions) -> RgbaImage {
    let board = BoardOptions {
        size: opts.size,
        flip: opts.flip,
        caption: opts.caption.clone(),
        last_move: game.and_then(|g| g.moves().last()).map(|m| (m.from(), m.to())),
        touched: game.map(|g| g.last_touched().to_vec()).unwrap_or_default(),
        ..BoardOptions::default()
    };
    png(&Renderer::shared().board_png(pos, &board).unwrap())
}

/// Plays `moves` from `fen` and checks the replay against the board pictures.
fn check(variant: &str, fen: Option<&str>, moves: &[&str], opts: ReplayOptions) -> Vec<(RgbaImage, u32)> {
    let v = Variant::by_id(variant).unwrap();
    let start = fen.map_or_else(|| Position::new(v), |f| Position::from_fen(v, f).unwrap());
    let mut game = Game::from_position(start.clone());
    for m in moves {
        game.play_text(m).unwrap_or_else(|e| panic!("{variant}: {m}: {e:?}"));
    }
    let played: Vec<Move> = game.moves().to_vec();
    let gif = Renderer::shared().replay_gif(&start, &played, &opts).unwrap();
    assert!(gif.starts_with(b"GIF89a"), "{variant}: not a GIF");
    let frames = frames(&gif);
    assert_eq!(frames.len(), moves.len() + 1, "{variant}: one frame per position");

    let first = picture(&start, None, &opts);
    let last = picture(game.position(), Some(&game), &opts);
    for (f, _) in &frames {
        assert_eq!(f.dimensions(), first.dimensions(), "{variant}: frames are the board picture's size");
    }
    assert_close(&format!("{variant}: first frame"), &frames[0].0, &first);
    assert_close(&format!("{variant}: last frame"), &frames[moves.len()].0, &last);
    if !moves.is_empty() {
        assert_differs(&format!("{variant}: start and end"), &frames[0].0, &last);
        assert_eq!(frames[0].1, u32::from(FIRST_DELAY_MS), "{variant}: first pause");
        assert_eq!(frames[moves.len()].1, u32::from(LAST_DELAY_MS), "{variant}: last pause");
        for (f, d) in &frames[1..moves.len()] {
            let _ = f;
            assert_eq!(*d, u32::from(MOVE_DELAY_MS), "{variant}: pause after a move");
        }
    }
    // Every frame between is the board picture after its move.
    let mut replayed = Game::from_position(start);
    for (i, m) in played.iter().enumerate() {
        replayed.play(*m).unwrap();
        let pic = picture(replayed.position(), Some(&replayed), &opts);
        assert_close(&format!("{variant}: frame {}", i + 1), &frames[i + 1].0, &pic);
    }
    frames
}

fn caption(status: &str) -> Option<Caption> {
    Some(Caption { white: "ann".into(), black: "ben".into(), status: status.into(), ..Caption::default() })
}

#[test]
fn chess_mate_with_check_and_caption() {
    let moves = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
    let opts = ReplayOptions { size: Some(400), caption: caption("1-0 (checkmate)"), ..ReplayOptions::default() };
    check("chess", None, &moves, opts);
}

#[test]
fn chess_from_blacks_side() {
    let moves = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5"];
    let opts = ReplayOptions { size: Some(320), flip: true, caption: caption("Black's view") };
    check("chess", None, &moves, opts);
}

/// Olympic Chess: captures go to the hand and come back as drops (O5); the
/// hands panel changes with them.
#[test]
fn olympic_with_drops() {
    let moves = ["Kb2", "Rxa2+", "Gxa2", "P@c2", "Sxc2", "Kd4", "R@d2+", "Kc4", "Gb3#"];
    let opts = ReplayOptions { size: Some(400), caption: caption("1-0 (checkmate)"), ..ReplayOptions::default() };
    check("olympic", None, &moves, opts);
}

/// Balanced Alapawn: a two-pawn turn lights all four squares (A6).
#[test]
fn alapawn_pair() {
    let moves = ["e2e3", "d7d6", "a2a3h2h3", "c7c6"];
    let opts = ReplayOptions { size: Some(320), ..ReplayOptions::default() };
    check("alapawn-balanced", Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"), &moves, opts);
}

/// Absorption: a capturing piece takes its victim's powers (PA3), drawn as
/// badges; the replay shows the absorbed piece as the picture does.
#[test]
fn absorption_badges() {
    let moves = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qxg2", "Bxg2"];
    let opts = ReplayOptions { size: Some(400), caption: caption("absorption"), ..ReplayOptions::default() };
    check("absorption", None, &moves, opts);
}

/// Construction: powers granted from the reserve (C2) change the piece it is
/// granted to and the reserve beside the board.
#[test]
fn construction_grants() {
    let moves = ["S@b1", "S@d8", "N>b1", "S@f8", "Nc3", "S@d7", "S@h2", "S@e7", "Ne4"];
    let opts = ReplayOptions { size: Some(400), ..ReplayOptions::default() };
    check("construction", None, &moves, opts);
}

/// Clash of the Armies: a Rabbit's chain (CA2) and the invulnerability
/// rings (CA6) on the board.
#[test]
fn clash_board() {
    let opts = ReplayOptions { size: Some(400), ..ReplayOptions::default() };
    check("clash", Some("4k3/8/3p4/8/3P4/3T4/8/K7 w - - 0 1"), &["d3d5d7", "e8f8", "a1b2"], opts);
}

#[test]
fn no_moves_is_one_frame() {
    let frames = check("chess", None, &[], ReplayOptions { size: Some(240), ..ReplayOptions::default() });
    assert_eq!(frames[0].1, u32::from(LAST_DELAY_MS));
}

#[test]
fn an_illegal_move_is_an_error() {
    let v = Variant::by_id("chess").unwrap();
    let start = Position::new(v);
    let m = start.parse_move("e4").unwrap();
    // e4 twice: the second is Black's turn, and no black piece stands on e2.
    let err = Renderer::shared().replay_gif(&start, &[m, m], &ReplayOptions::default()).unwrap_err();
    assert!(err.to_string().contains("move 2"), "{err}");
}

/// A long game played by a fixed pseudo-random choice of legal moves, in its
/// canonical notation.
fn long_game(variant: &str, plies: usize, mut seed: u32) -> Vec<String> {
    let mut game = Game::new(Variant::by_id(variant).unwrap());
    let mut out = Vec::new();
    while out.len() < plies && game.outcome().is_none() {
        let list = game.legal_moves();
        if list.is_empty() {
            break;
        }
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let m = list[(seed >> 16) as usize % list.len()];
        out.push(game.position().canonical(&m));
        game.play(m).unwrap();
    }
    out
}

/// Over a long game the same square looks recur (a piece back on a square
/// of the same shade, a highlight on an empty square) and are drawn from
/// the tiles kept earlier in the replay; every frame must still be its
/// position's board picture.
#[test]
fn long_games_reuse_square_tiles() {
    for (variant, plies) in [("chess", 60), ("olympic", 40)] {
        let moves = long_game(variant, plies, 17);
        assert!(moves.len() >= 20, "{variant}: only {} plies", moves.len());
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        let opts = ReplayOptions { size: Some(320), caption: caption("long game"), ..ReplayOptions::default() };
        check(variant, None, &moves, opts);
    }
}
