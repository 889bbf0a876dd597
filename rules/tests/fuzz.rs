//! Property tests: FEN reading never panics and round-trips, move reading
//! never panics and reads back every move the engine writes, and the
//! incrementally kept hash agrees with a hash computed from scratch.

use kibitz_rules::{Position, VARIANTS, Variant};
use proptest::prelude::*;
use proptest::sample::select;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn variant_index() -> impl Strategy<Value = usize> {
    0..VARIANTS.len()
}

/// Plays the move picked by each choice (modulo the number of legal moves)
/// from the start position, until no move is left. Returns every position
/// visited, the start included.
fn walk(v: &'static Variant, choices: &[u16]) -> Vec<Position> {
    let mut pos = Position::new(v);
    let mut out = vec![pos.clone()];
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[c as usize % moves.len()]);
        out.push(pos.clone());
    }
    out
}

const FEN_CHARS: &str = "rnbqkpgsRNBQKPGS+/[]-0123456789wb abcdefgh@~";

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
    Swap(usize, usize),
}

fn fen_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => select(FEN_CHARS.chars().collect::<Vec<_>>()),
        1 => any::<char>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), fen_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), fen_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        match *e {
            Edit::Insert(i, c) => {
                let at = i % (chars.len() + 1);
                chars.insert(at, c);
            }
            Edit::Delete(i) if !chars.is_empty() => {
                let at = i % chars.len();
                chars.remove(at);
            }
            Edit::Replace(i, c) if !chars.is_empty() => {
                let at = i % chars.len();
                chars[at] = c;
            }
            Edit::Swap(i, j) if !chars.is_empty() => {
                let n = chars.len();
                chars.swap(i % n, j % n);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// A start FEN of some variant with a few random edits.
fn mutated_start_fen() -> impl Strategy<Value = String> {
    (variant_index(), prop::collection::vec(edit(), 1..6)).prop_map(|(v, edits)| apply(VARIANTS[v].start_fen, &edits))
}

/// Checks that a FEN that parses is written back in a form that parses to
/// the same FEN.
fn assert_round_trip(v: &'static Variant, p: &Position) {
    let fen = p.fen();
    let again =
        Position::from_fen(v, &fen).unwrap_or_else(|e| panic!("{}: the engine's own FEN {fen} is rejected: {e}", v.id));
    assert_eq!(again.fen(), fen, "{}", v.id);
}

/// Text a person might type, or not.
fn move_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "\\PC{0,12}",
        "[a-hA-H1-8xX=+#@!?NBRQKPSGnbrqkpsgOo0 ,;:/&-]{1,12}",
        "[a-h][1-8][a-h][1-8][a-h1-8qrbn+]{0,4}",
    ]
}

/// A random board of `v`, one king of each colour where the variant needs
/// them, with random hands, side, rights and counters.
fn random_fen(v: &'static Variant) -> impl Strategy<Value = String> {
    let squares = (v.width * v.height) as usize;
    let royal = v.pieces.iter().any(|p| p.royal);
    let mut tokens: Vec<String> = Vec::new();
    for p in v.pieces {
        if royal && p.royal {
            continue;
        }
        tokens.push(p.letter.to_string());
        tokens.push(p.letter.to_ascii_lowercase().to_string());
    }
    if v.id == "olympic" {
        tokens.extend(["+P", "+S", "+p", "+s"].map(String::from));
    }
    // Pieces of several powers (POWERS.md), royal ones included.
    if v.absorption {
        tokens.extend(["(BN)", "(qn)", "(RNP)", "(bp)", "(KQ)", "(kbn)", "(KP)"].map(String::from));
    }
    if v.grants {
        tokens.extend(["(RN)", "(qc)", "(NP)", "(BPC)", "(rp)", "(QNPC)"].map(String::from));
    }
    let hand = if v.drops {
        prop::collection::vec(select("RBGSPrbgsp".chars().collect::<Vec<_>>()), 0..6)
            .prop_map(|cs| cs.into_iter().collect::<String>())
            .boxed()
    } else if v.grants {
        prop::collection::vec((select("SRBNPCsrbnpc".chars().collect::<Vec<_>>()), 0..20u8), 0..6)
            .prop_map(|cs| cs.into_iter().map(|(c, n)| if n > 1 { format!("{c}{n}") } else { c.to_string() }).collect())
            .boxed()
    } else {
        Just(String::new()).boxed()
    };
    let fourth: Vec<&'static str> = match v.id {
        "chess" | "absorption" => vec!["-", "KQkq", "K", "q", "Kk", "Qq"],
        "alapawn-balanced" => vec!["-", "1"],
        _ => vec!["-"],
    };
    (
        prop::collection::vec(0..1000usize, squares),
        5..50usize,
        0..squares,
        0..squares,
        hand,
        any::<bool>(),
        select(fourth),
        prop_oneof![Just("-".to_string()), "[a-h][36]"],
        0u32..120,
        1u32..300,
    )
        .prop_map(move |(cells, density, wk, bk, hand, black, fourth, ep, half, full)| {
            let last = (v.height - 1) as usize;
            let mut board: Vec<Option<String>> = cells
                .iter()
                .enumerate()
                .map(|(sq, &x)| {
                    if x >= density * 10 {
                        return None;
                    }
                    let t = tokens[x % tokens.len()].as_str();
                    let rank = sq / v.width as usize;
                    match (v.id, t) {
                        ("chess", "P" | "p") if rank == 0 || rank == last => None,
                        ("olympic", "P") if rank == last => Some("+P".to_string()),
                        ("olympic", "p") if rank == 0 => Some("+p".to_string()),
                        _ => Some(t.to_string()),
                    }
                })
                .collect();
            if royal {
                board[wk] = Some("K".into());
                if bk != wk {
                    board[bk] = Some("k".into());
                }
            }
            let mut ranks = Vec::new();
            for r in (0..v.height as usize).rev() {
                let mut row = String::new();
                let mut gap = 0;
                for f in 0..v.width as usize {
                    match &board[r * v.width as usize + f] {
                        None => gap += 1,
                        Some(t) => {
                            if gap > 0 {
                                row.push_str(&gap.to_string());
                                gap = 0;
                            }
                            row.push_str(t);
                        }
                    }
                }
                if gap > 0 {
                    row.push_str(&gap.to_string());
                }
                ranks.push(row);
            }
            let hand = if v.drops || v.grants { format!("[{hand}]") } else { String::new() };
            let side = if black { "b" } else { "w" };
            format!("{}{hand} {side} {fourth} {ep} {half} {full}", ranks.join("/"))
        })
}

fn random_position() -> impl Strategy<Value = (usize, String)> {
    variant_index().prop_flat_map(|i| (Just(i), random_fen(VARIANTS[i])))
}

proptest! {
    #![proptest_config(config(300))]

    /// (a) Reading any text as a FEN of any variant does not panic.
    #[test]
    fn from_fen_never_panics_on_arbitrary_text(text in prop_oneof![
        any::<String>(),
        "[rnbqkpgsRNBQKPGS+1-9/\\[\\]\\- wbKQkq0-9a-h]{0,70}",
    ]) {
        for v in VARIANTS {
            let _ = Position::from_fen(v, &text);
        }
    }

    /// (a) and (b): a start FEN with random edits never panics, and whatever
    /// parses is written back as a FEN that parses to the same FEN.
    #[test]
    fn mutated_fens_never_panic_and_round_trip(fen in mutated_start_fen()) {
        for v in VARIANTS {
            if let Ok(p) = Position::from_fen(v, &fen) {
                assert_round_trip(v, &p);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(40))]

    /// (b) Every position of a random game round-trips through FEN, and so
    /// does every random edit of its FEN that parses.
    #[test]
    fn game_positions_round_trip(
        v in variant_index(),
        choices in prop::collection::vec(any::<u16>(), 0..60),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let variant = VARIANTS[v];
        let positions = walk(variant, &choices);
        for p in &positions {
            assert_round_trip(variant, p);
        }
        let last = positions.last().unwrap().fen();
        if let Ok(p) = Position::from_fen(variant, &apply(&last, &edits)) {
            assert_round_trip(variant, &p);
        }
    }
}

proptest! {
    #![proptest_config(config(200))]

    /// (a) and (b) on random boards: a FEN that parses can be written back
    /// and read again, and each of its legal moves can be written, read back
    /// and played, leaving a position that round-trips too.
    #[test]
    fn random_boards_round_trip_and_play((v, fen) in random_position()) {
        let variant = VARIANTS[v];
        if let Ok(p) = Position::from_fen(variant, &fen) {
            assert_round_trip(variant, &p);
            let _ = p.outcome();
            for m in &p.legal_moves() {
                let token = p.canonical(m);
                assert_eq!(p.parse_move(&token), Ok(*m), "{token} in {fen}");
                let mut next = p.clone();
                next.play_unchecked(*m);
                assert_round_trip(variant, &next);
                let _ = next.outcome();
            }
        }
    }
}

/// (c) on random boards: every legal move reads back from its SAN.
fn check_san_on_random_board(v: &'static Variant, fen: &str) {
    if let Ok(p) = Position::from_fen(v, fen) {
        for m in &p.legal_moves() {
            let san = p.san(m);
            assert_eq!(p.parse_move(&san), Ok(*m), "{san} in {fen}");
        }
    }
}

proptest! {
    #![proptest_config(config(200))]

    /// (c) SAN reads back on random boards of every variant.
    #[test]
    fn random_boards_san_reads_back((v, fen) in random_position()) {
        check_san_on_random_board(VARIANTS[v], &fen);
    }
}

proptest! {
    #![proptest_config(config(40))]

    /// (c) Reading any text as a move never panics, in positions reached by
    /// random legal moves.
    #[test]
    fn parse_move_never_panics(
        v in variant_index(),
        choices in prop::collection::vec(any::<u16>(), 0..40),
        texts in prop::collection::vec(move_text(), 1..8),
    ) {
        let positions = walk(VARIANTS[v], &choices);
        let p = positions.last().unwrap();
        for t in &texts {
            if let Ok(m) = p.parse_move(t) {
                assert!(p.is_legal(&m), "{t:?} read as an illegal move in {p:?}");
            }
        }
    }
}

/// (c) Every legal move reads back from its canonical token and from its
/// SAN, in a few positions of a random game.
fn check_notation_along_walk(v: &'static Variant, choices: &[u16]) {
    let positions = walk(v, choices);
    let step = positions.len().div_ceil(4).max(1);
    for p in positions.iter().step_by(step) {
        for m in &p.legal_moves() {
            let token = p.canonical(m);
            assert_eq!(p.parse_move(&token), Ok(*m), "{token} in {p:?}");
            let san = p.san(m);
            assert_eq!(p.parse_move(&san), Ok(*m), "{san} in {p:?}");
        }
    }
}

proptest! {
    #![proptest_config(config(25))]

    /// (c) canonical and SAN read back, `chess`.
    #[test]
    fn notation_reads_back_chess(choices in prop::collection::vec(any::<u16>(), 0..60)) {
        check_notation_along_walk(&kibitz_rules::CHESS, &choices);
    }

    /// (c) canonical and SAN read back, `olympic`.
    #[test]
    fn notation_reads_back_olympic(choices in prop::collection::vec(any::<u16>(), 0..60)) {
        check_notation_along_walk(&kibitz_rules::OLYMPIC, &choices);
    }

    /// (c) canonical and SAN read back, `alapawn`.
    #[test]
    fn notation_reads_back_alapawn(choices in prop::collection::vec(any::<u16>(), 0..60)) {
        check_notation_along_walk(&kibitz_rules::ALAPAWN, &choices);
    }

    /// (c) canonical and SAN read back, `alapawn-balanced`.
    #[test]
    fn notation_reads_back_alapawn_balanced(choices in prop::collection::vec(any::<u16>(), 0..60)) {
        check_notation_along_walk(&kibitz_rules::ALAPAWN_BALANCED, &choices);
    }
}

/// (d) Plays a random game and compares the incremental hash with the hash
/// of the position read back from its FEN, after every move.
fn check_hash_along_walk(v: &'static Variant, choices: &[u16]) {
    for p in walk(v, choices) {
        let reread = Position::from_fen(v, &p.fen()).unwrap();
        assert_eq!(p.hash(), reread.hash(), "{p:?}");
    }
}

proptest! {
    #![proptest_config(config(60))]

    /// (d) for `chess`.
    #[test]
    fn hash_matches_fen_chess(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        check_hash_along_walk(&kibitz_rules::CHESS, &choices);
    }

    /// (d) for `olympic`.
    #[test]
    fn hash_matches_fen_olympic(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        check_hash_along_walk(&kibitz_rules::OLYMPIC, &choices);
    }

    /// (d) for `alapawn`.
    #[test]
    fn hash_matches_fen_alapawn(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        check_hash_along_walk(&kibitz_rules::ALAPAWN, &choices);
    }

    /// (d) for `alapawn-balanced`.
    #[test]
    fn hash_matches_fen_alapawn_balanced(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        check_hash_along_walk(&kibitz_rules::ALAPAWN_BALANCED, &choices);
    }
}

/// (d) The random games above rarely meet it: a double step beside an enemy
/// pawn that cannot take en passant (the capture would expose its king).
#[test]
fn hash_matches_fen_after_pinned_en_passant() {
    let v = &kibitz_rules::CHESS;
    let p = Position::from_fen(v, "8/8/8/8/R2p3k/8/4P3/4K3 w - - 0 1").unwrap();
    let m = p.parse_move("e2e4").unwrap();
    let mut next = p.clone();
    next.play_unchecked(m);
    let reread = Position::from_fen(v, &next.fen()).unwrap();
    assert_eq!(next.hash(), reread.hash(), "{}", next.fen());
}

/// (a) and (b) with extreme counters: `from_fen` accepts any `u32`
/// half-move clock and move number, so playing a move from such a position
/// must not overflow, and the result must still round-trip.
#[test]
fn extreme_counters_do_not_overflow() {
    for (v, fen) in [
        (&kibitz_rules::CHESS, "4k3/8/8/8/8/8/8/R3K3 b - - 4294967295 4294967295"),
        (&kibitz_rules::OLYMPIC, "k4/5/5/5/K4[] b - - 4294967295 4294967295"),
        (&kibitz_rules::ALAPAWN, "4k3/p7/8/8/8/8/P7/4K3 b - - 4294967295 4294967295"),
    ] {
        let p = Position::from_fen(v, fen).unwrap();
        for m in &p.legal_moves() {
            let mut next = p.clone();
            next.play_unchecked(*m);
            assert_round_trip(v, &next);
        }
    }
}
