//! Golden pictures: rendered output compared byte for byte with the reviewed
//! pictures in `tests/golden/`.
//!
//! A changed picture fails the test and is written to
//! `target/golden-actual/NAME.png` for review. Only after looking at it, and
//! if it is right, accept it with `KIBITZ_BLESS=1 cargo test -p kibitz-render
//! --test golden` and commit the new file: pictures are never re-blessed
//! silently.

use std::path::PathBuf;

mod common;

use kibitz_render::{BoardOptions, Caption, Renderer, diagram_svg, eval_graph_png, legend_svg, powers_diagram_svg};
use kibitz_rules::{Position, Square, Variant};

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

fn board(variant: &str, fen: &str, opts: BoardOptions) -> Vec<u8> {
    let v = Variant::by_id(variant).unwrap();
    let pos = Position::from_fen(v, fen).unwrap();
    Renderer::shared().board_png(&pos, &opts).unwrap()
}

fn check(name: &str, png: &[u8]) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let golden = dir.join("tests/golden").join(format!("{name}.png"));
    if std::env::var_os("KIBITZ_BLESS").is_some() {
        std::fs::write(&golden, png).unwrap();
        return;
    }
    let expected = std::fs::read(&golden).unwrap_or_default();
    if expected != png {
        let out = dir.join("../target/golden-actual");
        std::fs::create_dir_all(&out).unwrap();
        let actual = out.join(format!("{name}.png"));
        std::fs::write(&actual, png).unwrap();
        panic!(
            "picture {name} differs from {} ({} bytes, now {}): review {} and, if it is right, \
             accept it with KIBITZ_BLESS=1",
            golden.display(),
            expected.len(),
            png.len(),
            actual.display()
        );
    }
}

/// The evaluation graph of a fixed review: White's share light, Black's
/// dark, the mate at the end marked at the top edge, and each player's
/// flagged moves labelled.
#[test]
fn eval_graph() {
    let png = eval_graph_png(&common::review(), "alice vs bob \u{2022} 1-0 White wins by checkmate").unwrap();
    check("eval-graph", &png);
}

#[test]
fn chess_start() {
    check(
        "chess-start",
        &board("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", BoardOptions::default()),
    );
}

#[test]
fn chess_after_e4_from_black_with_caption() {
    let opts = BoardOptions {
        flip: true,
        last_move: Some((Some(sq("e2")), sq("e4"))),
        caption: Some(Caption {
            white: "Alice".into(),
            black: "Bob".into(),
            status: "Black to move".into(),
            ..Caption::default()
        }),
        ..BoardOptions::default()
    };
    check("chess-e4-black", &board("chess", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", opts));
}

#[test]
fn chess_check_dots_and_arrow() {
    // 1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6?? 4.Qxf7+ : Black in check; the king's
    // targets dotted (a ring on the capture), a hint arrow.
    let opts = BoardOptions {
        size: Some(480),
        last_move: Some((Some(sq("h5")), sq("f7"))),
        selected: Some(sq("e8")),
        dots: vec![sq("f7"), sq("e7")],
        arrows: vec![(sq("e8"), sq("f7"))],
        ..BoardOptions::default()
    };
    check("chess-check", &board("chess", "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4", opts));
}

#[test]
fn olympic_hands_and_promotion() {
    let opts = BoardOptions { last_move: Some((Some(sq("b3")), sq("b4"))), ..BoardOptions::default() };
    check("olympic-hands", &board("olympic", "r1s1k/2g2/2P1+P/1B3/K1G1R[SSPbp] w - - 0 1", opts));
}

#[test]
fn olympic_drop_from_black() {
    let opts =
        BoardOptions { flip: true, size: Some(400), last_move: Some((None, sq("c3"))), ..BoardOptions::default() };
    check("olympic-drop-black", &board("olympic", "rbsgk/4p/2P2/P4/KGSBR[s] b - - 0 3", opts));
}

#[test]
fn alapawn_start() {
    check(
        "alapawn-start",
        &board("alapawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", BoardOptions::default()),
    );
}

#[test]
fn legends() {
    for id in ["chess", "olympic", "absorption", "construction", "construction-split", "clash"] {
        let svg = legend_svg(Renderer::shared(), Variant::by_id(id).unwrap());
        check(&format!("legend-{id}"), &Renderer::shared().svg_png(&svg).unwrap());
    }
}

#[test]
fn movement_diagrams() {
    // Construction's static piece (no marks, words instead), Pawn power (a
    // second pawn on the first rank for the double step) and Castling power
    // (the swap with the King); Power Absorption's King (sliding, in words).
    let powers = [("construction", 1), ("construction", 5), ("construction", 6), ("absorption", 0)];
    // Construction with split powers: a moving Rook half, a capturing Knight
    // half, a moving Pawn half (with its double step) and the full Pawn.
    let split =
        [("construction-split", 2), ("construction-split", 7), ("construction-split", 8), ("construction-split", 14)];
    let others = [("chess", 4u8), ("olympic", 3), ("alapawn", 5), ("clash", 6), ("clash", 17), ("clash", 13)];
    for (id, piece) in others.into_iter().chain(powers).chain(split) {
        let v = Variant::by_id(id).unwrap();
        let svg = diagram_svg(Renderer::shared(), v, piece).unwrap();
        let name = v.pieces[piece as usize].name.to_ascii_lowercase().replace(' ', "-");
        check(&format!("diagram-{id}-{name}"), &Renderer::shared().svg_png(&svg).unwrap());
    }
}

#[test]
fn compound_diagrams() {
    // Power Absorption's Bishop+Knight (PA2) and Construction's rook that
    // may still swap with its King (C6): each power's moves together.
    use kibitz_rules::Powers;
    let v = Variant::by_id("absorption").unwrap();
    let bn = Powers::BISHOP.with(Powers::KNIGHT);
    let svg = powers_diagram_svg(Renderer::shared(), v, bn, false, "Bishop+Knight").unwrap();
    check("diagram-absorption-bishop-knight", &Renderer::shared().svg_png(&svg).unwrap());
    let v = Variant::by_id("construction").unwrap();
    let rc = Powers::ROOK.with(Powers::CASTLE);
    let svg = powers_diagram_svg(Renderer::shared(), v, rc, false, "Rook+Castling").unwrap();
    check("diagram-construction-rook-castling", &Renderer::shared().svg_png(&svg).unwrap());
    // One power is no compound; chess has none.
    assert!(powers_diagram_svg(Renderer::shared(), v, Powers::ROOK, false, "Rook").is_none());
    assert!(powers_diagram_svg(Renderer::shared(), Variant::by_id("chess").unwrap(), bn, false, "B+N").is_none());
}

#[test]
fn caption_with_names_in_other_scripts() {
    let opts = BoardOptions {
        size: Some(400),
        caption: Some(Caption {
            white: "Zoë Ωμέγα".into(),
            black: "Жук 🐴".into(),
            status: "1-0 mate".into(),
            ..Caption::default()
        }),
        ..BoardOptions::default()
    };
    check("caption-scripts", &board("alapawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", opts));
}

#[test]
fn pieces_made_of_powers() {
    use kibitz_rules::{Color, Piece, Powers};
    // Power Absorption's bishop-knight (Black) and Construction's rook-pawn.
    let chess = Variant::by_id("chess").unwrap();
    let bn = Piece::new(Color::Black, Powers::BISHOP.with(Powers::KNIGHT));
    let rp = Piece::new(Color::White, Powers::ROOK.with(Powers::PAWN).with(Powers::KNIGHT));
    for (name, piece) in [("piece-bishop-knight", bn), ("piece-rook-pawn-knight", rp)] {
        let svg = kibitz_render::piece_svg(Renderer::shared(), chess, piece, 96);
        check(name, &Renderer::shared().svg_png(&svg).unwrap());
    }
    // Power Absorption's King-Queen: the King with one Queen badge.
    let absorption = Variant::by_id("absorption").unwrap();
    let kq = Piece { color: Color::White, powers: Powers::KING.with(Powers::QUEEN), royal: true, promoted: false };
    let svg = kibitz_render::piece_svg(Renderer::shared(), absorption, kq, 96);
    check("piece-king-queen", &Renderer::shared().svg_png(&svg).unwrap());
}

#[test]
fn absorption_compounds_and_sliding_kings() {
    let opts = BoardOptions { last_move: Some((Some(sq("c6")), sq("d5"))), ..BoardOptions::default() };
    check(
        "absorption-compounds",
        &board("absorption", "r1b1k2r/pp(np)2ppp/2n5/3(QP)4/1(bn)6/2N5/PPP2PPP/R1B1K2R w KQkq - 0 10", opts),
    );
    check(
        "absorption-kings",
        &board("absorption", "7r/8/2(kb)1p3/8/8/5(KQ)2/8/R7 w - - 0 40", BoardOptions::default()),
    );
}

#[test]
fn construction_reserves() {
    check(
        "construction-start",
        &board("construction", "4k3/8/8/8/8/8/8/4K3[S15R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1", BoardOptions::default()),
    );
    // The middlegame of the brief, from both sides: (RC) rooks that may
    // still swap, (BP) and (QN) compounds, one Bishop power in each reserve.
    let mid = "(rc)3k2r/pp(bp)2(qn)pp/8/8/8/8/PP(BP)2(QN)PP/(RC)3K2R[Bb] w - - 5 15";
    check("construction-midgame", &board("construction", mid, BoardOptions::default()));
    let opts = BoardOptions { flip: true, ..BoardOptions::default() };
    check("construction-midgame-black", &board("construction", mid, opts.clone()));
    check(
        "construction-armies-black",
        &board("construction", "(rc)3k2r/pp(bp)2(qn)pp/8/8/8/8/PP(BP)2(QN)PP/(RC)3K2R[S3R2BP4Cs15b] b - - 5 15", opts),
    );
}

#[test]
fn construction_split_reserves_and_halves() {
    // CS1: the reserve's sixteen kinds of half beside statics and Castling.
    check(
        "construction-split-start",
        &board(
            "construction-split",
            "4k3/8/8/8/8/8/8/4K3[S15T3U3D3E3H2I2F8G8C2s15t3u3d3e3h2i2f8g8c2] w - - 0 1",
            BoardOptions::default(),
        ),
    );
    // Lone halves (stones with half badges), halves beside full powers, a
    // Queen of four halves with a capturing Knight half, from Black's side.
    let mid = "r3k1(tc)1/1(hg)2f3/2s1(dg)3/8/3(QI)4/2(BF)5/G(RF)3S2/(UC)3K2C[S8T2EHF5s9tu2ig5c] w - - 12 20";
    check("construction-split-midgame", &board("construction-split", mid, BoardOptions::default()));
    let opts = BoardOptions { flip: true, ..BoardOptions::default() };
    check("construction-split-midgame-black", &board("construction-split", mid, opts));
}

#[test]
fn clash_marks_and_pieces() {
    // A raised shield (CA8) guards its Shielderer and the pieces beside it;
    // the Rogue on c4 is invulnerable after its quiet move (CA6).
    let opts = BoardOptions { last_move: Some((Some(sq("b3")), sq("c4"))), ..BoardOptions::default() };
    check(
        "clash-shield-rogue",
        &board("clash", "rg2k1hr/pp1o1ppp/2n5/4Y3/2V*5/8/POP1TPPP/R2AS1WR b kqD2 - 3 15", opts),
    );
}

#[test]
fn clash_army_panel() {
    // The army phase's picture (CA11, CA12): gold and class counts beside
    // the board, each side next to its own half.
    let notes = [
        vec!["White".into(), "Gold 19.00".into(), "Points 1".into(), "Leader 1/1".into(), "Light 1/4".into()],
        vec!["Black".into(), "Gold 40.00".into(), "Points 0".into(), "Leader 0/1".into(), "Light 0/4".into()],
    ];
    let opts = BoardOptions { notes: Some(notes), ..BoardOptions::default() };
    check("clash-army-panel", &board("clash", "4k3/8/8/8/8/8/4P3/1T1QK3 w - - 0 1", opts));
}

/// Long names and long results on both board sizes (issue: captions that
/// overlapped): names shortened with "…", the result on a line of its own,
/// the note on another; nothing overlaps.
#[test]
fn captions_with_long_names_and_results() {
    let long = |status: &str, note: &str| Caption {
        white: "Maximilian_the_Magnificent_1999".into(),
        black: "Bartholomew_Featherstonehaugh".into(),
        status: status.into(),
        note: note.into(),
    };
    let olympic_end = "rbsgk/4p/5/5/KGSBR[p] w - - 0 12";
    let cases = [
        ("caption-olympic-long", "olympic", olympic_end, 640, false, long("0-1 (the last pawn was captured)", "")),
        (
            "caption-olympic-short",
            "olympic",
            olympic_end,
            640,
            true,
            Caption {
                white: "alice".into(),
                black: "bob".into(),
                status: "White to move".into(),
                ..Caption::default()
            },
        ),
        ("caption-olympic-small", "olympic", olympic_end, 240, false, long("0-1 (the last pawn was captured)", "")),
        (
            "caption-chess-long",
            "chess",
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            640,
            false,
            long("0-1 (checkmate)", "Round 2 of 3 · match 1-0 · Black has draw odds"),
        ),
        (
            "caption-chess-long-black",
            "chess",
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            400,
            true,
            long("0-1 (checkmate)", ""),
        ),
        (
            "caption-chess-result",
            "chess",
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            640,
            false,
            Caption {
                white: "alice".into(),
                black: "bob".into(),
                status: "0-1 (the last pawn was captured)".into(),
                ..Caption::default()
            },
        ),
    ];
    for (name, variant, fen, size, flip, caption) in cases {
        let opts = BoardOptions { size: Some(size), flip, caption: Some(caption), ..BoardOptions::default() };
        check(name, &board(variant, fen, opts));
    }
}

/// The last turn's every square highlighted, as the bot draws it: a Balanced
/// Alapawn two-pawn turn (A6) lights a2, a3, h2 and h3 (not a2 and h3 alone,
/// which read as one move a2-h3); a Rabbit's chain (CA2) lights its start,
/// the pieces it jumped and where it landed.
#[test]
fn last_turn_touches_every_square() {
    use kibitz_rules::Game;
    let cases = [
        (
            "touched-alapawn-pair",
            "alapawn-balanced",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            &["e2e3", "d7d6", "a2a3h2h3"][..],
        ),
        ("touched-clash-chain", "clash", "4k3/8/3p4/8/3P4/3T4/8/K7 w - - 0 1", &["d3d5d7"][..]),
    ];
    for (name, id, fen, moves) in cases {
        let v = Variant::by_id(id).unwrap();
        let mut game = Game::from_position(Position::from_fen(v, fen).unwrap());
        for m in moves {
            game.play_text(m).unwrap();
        }
        let last = game.moves().last().map(|m| (m.from(), m.to()));
        let opts = BoardOptions {
            size: Some(400),
            last_move: last,
            touched: game.last_touched().to_vec(),
            ..BoardOptions::default()
        };
        check(name, &Renderer::shared().board_png(game.position(), &opts).unwrap());
    }
}
