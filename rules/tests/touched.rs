//! The squares a turn touches, for highlighting the last turn: one table
//! row per kind of move, with the ruling that shapes it.

use kibitz_rules::{Game, Position, Square, Variant};

fn squares(list: &str) -> Vec<Square> {
    list.split_whitespace().map(|s| Square::parse(s).unwrap()).collect()
}

/// (ruling, variant, position, move, squares touched in order).
const TABLE: &[(&str, &str, &str, &str, &str)] = &[
    ("G2 a move", "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2e4", "e2 e4"),
    ("G2 en passant", "chess", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", "e5 d6"),
    ("G2 castling, as the king's move", "chess", "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", "e1 g1"),
    ("G2 a drop", "olympic", "rbsgk/4p/2P2/5/KGSBR[S] w - - 0 1", "S@a3", "a3"),
    ("C2 a grant: the piece that receives it", "construction", "4k3/8/8/8/8/8/4S3/3K4[R] w - - 0 1", "R>e2", "e2"),
    ("C6 a swap: both squares", "construction", "4k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1", "a1e1", "a1 e1"),
    // Over d4 (own pawn) to d5, over d6 (enemy) to d7.
    ("CA2 a chain: every square", "clash", "4k3/8/3p4/8/3P4/3T4/8/K7 w - - 0 1", "d3d5d7", "d3 d4 d5 d6 d7"),
    ("CA2 a chain leaving the board", "clash", "4k3/8/8/8/8/8/T7/n3K3 w - - 0 1", "a2a1x", "a2 a1"),
    ("CA4 a shot: shooter and target", "clash", "4k3/8/8/3p4/8/3M4/8/4K3 w - - 0 1", "d3^d5", "d3 d5"),
    ("CA8 a shield: the Shielderer", "clash", "4k3/8/8/8/8/8/8/4S3 w D - 0 1", "D", "e1"),
    (
        "A6 two pawns: both steps",
        "alapawn-balanced",
        "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR b - - 0 1",
        "a7a6h7h6",
        "a7 a6 h7 h6",
    ),
    (
        "A6 one pawn twice: each square once",
        "alapawn-balanced",
        "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR b - - 0 1",
        "a7a6a5",
        "a7 a6 a5",
    ),
];

#[test]
fn every_kind_of_turn_touches_its_squares() {
    for &(ruling, id, fen, text, expected) in TABLE {
        let variant = Variant::by_id(id).unwrap_or_else(|| panic!("{ruling}: no variant {id}"));
        let pos = Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("{ruling}: {fen}: {e}"));
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{ruling}: {text}: {e}"));
        assert!(pos.is_legal(&m), "{ruling}: {text} is legal");
        assert_eq!(pos.touched_squares(&m).to_vec(), squares(expected), "{ruling}: {text}");
        // The game remembers them for the picture of the position after.
        let mut game = Game::from_position(pos);
        assert!(game.last_touched().is_empty(), "{ruling}: nothing before the first move");
        game.play(m).unwrap();
        assert_eq!(game.last_touched(), squares(expected).as_slice(), "{ruling}: {text}");
    }
}
