//! Properties of the pictures that do not need a reviewer.

mod common;

use kibitz_render::{BoardOptions, Caption, GRAPH_HEIGHT, GRAPH_WIDTH, Renderer, eval_graph_png, eval_graph_svg};
use kibitz_rules::{Game, Position, Variant};

fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    (w, h)
}

#[test]
fn same_input_same_bytes_with_or_without_caches() {
    let pos = Position::new(Variant::by_id("chess").unwrap());
    let opts = BoardOptions::default();
    let a = Renderer::default().board_png(&pos, &opts).unwrap();
    let shared = Renderer::shared();
    let b = shared.board_png(&pos, &opts).unwrap();
    let c = shared.board_png(&pos, &opts).unwrap();
    assert_eq!(a, b);
    assert_eq!(b, c);
}

#[test]
fn sizes_follow_the_board() {
    let r = Renderer::shared();
    let chess = Position::new(Variant::by_id("chess").unwrap());
    let (w, h) = png_size(&r.board_png(&chess, &BoardOptions::default()).unwrap());
    assert!(w >= 640 && h >= 640 && w == h, "{w}x{h}");
    let captioned = BoardOptions { caption: Some(Caption::default()), ..BoardOptions::default() };
    let (w2, h2) = png_size(&r.board_png(&chess, &captioned).unwrap());
    assert_eq!(w2, w);
    assert!(h2 > h, "the caption strip adds height");
    // Olympic keeps its hands in a panel to the right.
    let olympic = Position::new(Variant::by_id("olympic").unwrap());
    let (w3, h3) = png_size(&r.board_png(&olympic, &BoardOptions::default()).unwrap());
    assert!(w3 > h3, "{w3}x{h3}");
}

#[test]
fn every_position_of_random_games_renders() {
    // Pictures of positions reached by play, from both sides, in every variant.
    let r = Renderer::shared();
    for v in kibitz_rules::VARIANTS {
        let mut game = Game::new(v);
        let mut seed = 7u64;
        for ply in 0..40 {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let m = moves[(seed >> 33) as usize % moves.len()];
            game.play(m).unwrap();
            let opts = BoardOptions { size: Some(240), flip: ply % 2 == 1, ..BoardOptions::default() };
            let svg = r.board_svg(game.position(), &opts);
            assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
            png_size(&r.board_png(game.position(), &opts).unwrap());
        }
    }
}

#[test]
fn svg_names_every_piece_once() {
    let pos = Position::new(Variant::by_id("chess").unwrap());
    let svg = Renderer::shared().board_svg(&pos, &BoardOptions::default());
    assert_eq!(svg.matches("scale(").count(), 32);
}

#[test]
fn names_cannot_break_the_picture() {
    let pos = Position::new(Variant::by_id("chess").unwrap());
    let caption = Caption {
        white: "<script>&\"evil\"</script> 🐴 Ωμέγα Жук".into(),
        black: "x".repeat(500),
        status: "White to move".into(),
        ..Caption::default()
    };
    let opts = BoardOptions { caption: Some(caption), ..BoardOptions::default() };
    let svg = Renderer::shared().board_svg(&pos, &opts);
    assert!(!svg.contains("<script>"));
    png_size(&Renderer::shared().board_png(&pos, &opts).unwrap());
}

/// The PNG decoded: its size and the colour at (x, y).
fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (info.width, info.height, buf)
}

#[test]
fn eval_graph_draws_whites_share_and_the_marks() {
    let review = common::review();
    let png = eval_graph_png(&review, "alice vs bob").unwrap();
    let (w, h, rgb) = decode(&png);
    assert_eq!((w, h), (GRAPH_WIDTH, GRAPH_HEIGHT));
    let at = |x: u32, y: u32| {
        let i = ((y * w + x) * 3) as usize;
        (rgb[i], rgb[i + 1], rgb[i + 2])
    };
    // Near the start the game is even: light (White's share) just below the
    // midline, dark just above the curve's top; at the end White mates, so
    // the light reaches the top of the chart.
    let light = |(r, g, b): (u8, u8, u8)| r > 200 && g > 180 && b > 150;
    let mid = (68 + (h - 34)) / 2;
    assert!(light(at(30, mid + 20)), "{:?}", at(30, mid + 20));
    assert!(!light(at(30, 75)), "{:?}", at(30, 75));
    assert!(light(at(w - 20, 75)), "{:?}", at(w - 20, 75));

    let svg = eval_graph_svg(&review, "alice <&> bob");
    assert!(svg.contains("alice &lt;&amp;&gt; bob"));
    // The flagged moves of each player are labelled, the others are not.
    for label in ["6... Nxe4??", "10... Rf8??", "8. Bd2?", "9. Qh5?!", "5... Na5?!"] {
        assert!(svg.contains(&format!(">{label}</text>")), "{label}");
    }
    assert!(!svg.contains(">3... Nc6"));
    assert_eq!(review.black.blunders, 2);
    assert_eq!(review.white.mistakes, 1);
    // Forced mates and the won end sit on the edge, marked.
    assert_eq!(svg.matches("l4.5 4.5 l-4.5 4.5").count(), 3);
}

#[test]
fn eval_graph_of_a_game_without_moves() {
    let review = kibitz_rules::review::GameReview::from_plies(Vec::new());
    let png = eval_graph_png(&review, "").unwrap();
    assert_eq!(png_size(&png), (GRAPH_WIDTH, GRAPH_HEIGHT));
    assert!(eval_graph_svg(&review, "").contains(">no moves<"));
}

/// PA7: a handicap game's caption names the handicap.
#[test]
fn caption_shows_the_handicap() {
    let v = Variant::by_id("absorption").unwrap();
    let pos = Position::from_fen(v, &format!("{} h:W=plain", v.start_fen)).unwrap();
    let caption = Caption { white: "alice".into(), black: "bob".into(), ..Caption::default() };
    let opts = BoardOptions { caption: Some(caption), ..BoardOptions::default() };
    let svg = Renderer::shared().board_svg(&pos, &opts);
    assert!(svg.contains(">Handicap: White plain<"), "no handicap line in the caption");
    let plain = Renderer::shared().board_svg(&Position::new(v), &opts);
    assert!(!plain.contains("Handicap"));
}
