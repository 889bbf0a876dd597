//! Does a chat message have the shape of a move? A bare message of a player
//! that looks like a move gets an answer even when it is refused; ordinary
//! chat ("hello", "gg", "e4 is a good move!") stays unanswered.
//!
//! The test knows notation only, not the position: SAN (`Nf3`, `exd5`,
//! `e8=Q+`, `O-O`, `(NP)f3`), canonical tokens (`e2e4`, `e7e8q`, `c4c5+`,
//! `a2a3a4`), drops (`P@c3`, `drop d2`), pairs (`a3,b3`), grants (`R>e2`,
//! `give rook e2`, `give rook moving half e2`), swaps (`Ra1<>e1`, `swap
//! a1`), shots (`M^h5`), chains (`Tb6d6`) and declined absorptions
//! (`Bxc6-`, `Bxc6 keep`).

/// The words that mark a capture as declining or taking an absorption
/// (PA3): `Bxc6 keep`.
pub(super) const MARKS: [&str; 6] = ["keep", "decline", "declines", "noabsorb", "absorb", "absorbs"];

/// The words that begin a grant (C2, CS2): `give rook e2`.
pub(super) const GRANTS: [&str; 3] = ["give", "grant", "add"];

/// The words that begin a drop, a swap or a War Machine's shot (C2, C6,
/// CA4): `drop d2`, `swap a1`, `shoot h5`.
pub(super) const VERBS: [&str; 3] = ["drop", "swap", "shoot"];

/// True if `text` reads as a move in some position of some variant.
pub(super) fn move_shaped(text: &str) -> bool {
    shaped(text, square)
}

/// True if `text` would read as a move but for a square beyond any board's
/// edge (`Nf9`, `e9`, `Qi4`): from the player to move, a slip worth an
/// answer ("there is no f9 square"), where from anyone else it is chat.
pub(super) fn off_board_shaped(text: &str) -> bool {
    !move_shaped(text) && shaped(text, square_like)
}

/// What [`move_shaped`] asks, with `square` telling a square.
fn shaped(text: &str, square: Squares) -> bool {
    // `1.e4`, `1. e4`: a move number before the move.
    let text = kibitz_rules::without_en_passant_mark(kibitz_rules::without_move_number(text.trim()));
    // `♘f3`: a figurine for the piece's letter.
    let text: String = text.chars().map(|c| kibitz_rules::figurine_letter(c).unwrap_or(c)).collect();
    // A6: `cb6, b5` and `c6 , b5` as `cb6,b5`.
    let text = if text.contains(',') { text.split(',').map(str::trim).collect::<Vec<_>>().join(",") } else { text };
    let words: Vec<&str> = text.split_whitespace().collect();
    let said = |w: &str, list: &[&str]| list.iter().any(|l| w.eq_ignore_ascii_case(l));
    match words.as_slice() {
        [one] => token(one, square),
        // C2, C6, CA4: `drop d2`, `swap a1`, `shoot h5`.
        [verb, sq] if said(verb, &VERBS) => square(sq),
        // A6: a pawn pair with a space in it, `a3 h3`, `cb6 b5`: two pawn
        // steps (not two moves of pieces, `Bxc6 dxc6`, which is chat).
        [a, b] if pawn_step(a, square) && pawn_step(b, square) => true,
        [one, mark] if said(mark, &MARKS) => token(one, square),
        // `N f3`, `knight f3`, `Knight g1-f3`: the piece as a word of its own.
        [piece, rest] => piece_word(piece) && token(&format!("N{rest}"), square),
        // O5, C2: `drop rook c3`, `drop a static piece on d2`.
        [verb, middle @ .., sq] if verb.eq_ignore_ascii_case("drop") && (1..=4).contains(&middle.len()) => {
            words_only(middle) && square(sq)
        }
        // C2, CS2: `give rook e2`, `give rook moving half e2`, `give moving
        // bishop d2`, and the square first, `give d2 rook`.
        [give, middle @ .., sq] if said(give, &GRANTS) && (1..=4).contains(&middle.len()) => {
            (words_only(middle) && square(sq)) || (square(middle[0]) && words_only(&[&middle[1..], &[*sq]].concat()))
        }
        _ => false,
    }
}

/// Words of letters only (`rook`, `moving half`), no squares or marks.
fn words_only(words: &[&str]) -> bool {
    words.iter().all(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
}

/// A pawn's step as a pair writes it: a square (`a3`) or a file and a
/// square (`cb6`), no capture.
fn pawn_step(word: &str, square: Squares) -> bool {
    square(word) || (word.len() == 3 && word.as_bytes()[0].is_ascii_lowercase() && square(&word[1..]))
}

/// A piece's letter (`N`) or the name of a piece in some game (`knight`,
/// `Silver`), as a word of its own.
fn piece_word(word: &str) -> bool {
    let mut chars = word.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return c.is_ascii_uppercase();
    }
    kibitz_rules::VARIANTS.iter().any(|v| v.pieces.iter().any(|p| p.name.eq_ignore_ascii_case(word)))
}

/// Tells whether two characters name a square.
type Squares = fn(&str) -> bool;

fn token(t: &str, square: Squares) -> bool {
    token_within(t, square, 0)
}

/// [`token`], `depth` readings deep: each rewriting (capitals, a drop's
/// letter, brackets) reads the text again, and a text that rewrites back
/// into itself (`P@12`, `p@12`) stops being read.
fn token_within(t: &str, square: Squares, depth: u8) -> bool {
    if !t.is_ascii() || t.len() > 16 || depth > 6 {
        return false;
    }
    // O3: a promotion named by what it makes, `axb5+P`, `Sxc5=+S`.
    if let Some(stem) = ["=+P", "=+S", "+P", "+S"].iter().find_map(|s| t.strip_suffix(s))
        && stem.len() >= 2
    {
        return token_within(&format!("{stem}=+"), square, depth + 1);
    }
    let t = t.trim_end_matches(['+', '#', '!', '?']);
    // G2: any letter case, `NE2`, `QXH7`, `E2E4`: a move typed in capitals
    // (a square alone, `A1`, stays chat).
    if t.bytes().any(|b| b.is_ascii_digit()) && !t.bytes().any(|b| b.is_ascii_lowercase()) && t.len() >= 3 {
        let lower = t.to_ascii_lowercase();
        let piece_first = format!("{}{}", &t[..1], &lower[1..]);
        // Each reading has a lower-case letter, so neither comes back here.
        let readings = [lower.as_str(), piece_first.as_str()];
        if readings.iter().any(|r| r.bytes().any(|b| b.is_ascii_lowercase()) && token_within(r, square, depth + 1)) {
            return true;
        }
    }
    let castle = t.to_ascii_uppercase().replace('0', "O");
    if castle == "O-O" || castle == "O-O-O" {
        return true;
    }
    // CA8: the shield, a whole turn of its own.
    if t == "D" {
        return true;
    }
    // CA2: a Rabbit leaving the board with its edge victim, `Tb8x`.
    if let Some(rest) = t.strip_suffix('x')
        && rest.ends_with(|c: char| c.is_ascii_digit())
        && rest.len() >= 3
    {
        return token_within(rest, square, depth + 1);
    }
    // `cxd8(Q)`: the promotion in brackets.
    if let [.., b'(', p, b')'] = t.as_bytes()
        && p.is_ascii_alphabetic()
        && t.len() > 4
    {
        return token_within(&format!("{}={}", t[..t.len() - 3].trim_end_matches('='), *p as char), square, depth + 1);
    }
    // O5: `P*b3` as shogi writes a drop, `p@b3` in lower case.
    if let [p, b'@' | b'*', ..] = t.as_bytes()
        && p.is_ascii_alphabetic()
        && (t.as_bytes()[1] == b'*' || p.is_ascii_lowercase())
    {
        return token_within(&format!("{}@{}", (*p as char).to_ascii_uppercase(), &t[2..]), square, depth + 1);
    }
    // PA3: a trailing `-` declines an absorption.
    let t = t.strip_suffix('-').unwrap_or(t);
    // Long algebraic: `e2-e4`, `Ng1-f3`.
    let joined = t.replace('-', "");
    // And every square of a pair or a chain, `c7-c6-b5` (A6, CA2).
    if t.contains('-') && (joined.len() + 1 == t.len() || t.split('-').all(square)) {
        return token_within(&joined, square, depth + 1);
    }
    if let Some((a, b)) = t.split_once(',') {
        return san(a, square) && san(b, square);
    }
    // CA4: a shot by its squares, `h6^e4`.
    if let Some((a, b)) = t.split_once('^')
        && square(a)
        && square(b)
    {
        return true;
    }
    san(t, square) || canonical(t, square) || special(t, square)
}

fn square(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1])
}

/// A file letter and a rank digit, on a board or beyond it (`f9`, `i4`).
fn square_like(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && b[0].is_ascii_lowercase() && b[0] != b'x' && b[1].is_ascii_digit()
}

/// Splits a piece letter (`N`, `+S`, `(NP)`) off the front.
fn piece(t: &str) -> (bool, &str) {
    let b = t.as_bytes();
    match b.first() {
        Some(b'(') => match t.find(')') {
            Some(end) if end > 1 && t[1..end].chars().all(|c| c.is_ascii_alphabetic()) => (true, &t[end + 1..]),
            _ => (false, t),
        },
        Some(b'+') if b.get(1).is_some_and(u8::is_ascii_uppercase) => (true, &t[2..]),
        Some(c) if c.is_ascii_uppercase() => (true, &t[1..]),
        _ => (false, t),
    }
}

/// `Nf3`, `Nbxd2`, `exd5`, `e8=Q`, `gxh8Q`, `P@c3`, `Sxc1=+`.
fn san(t: &str, square: Squares) -> bool {
    let (lettered, rest) = piece(t);
    if let Some(sq) = rest.strip_prefix('@') {
        return lettered && square(sq);
    }
    // The promotion at the end.
    let rest = rest.strip_suffix("=+").unwrap_or(rest).trim_end_matches('=');
    // CS5: a reward named as a group of powers, `a8=(TU)`.
    let rest = match rest.rsplit_once("=(") {
        Some((stem, group)) if group.strip_suffix(')').is_some_and(|g| !g.is_empty() && words_only(&[g])) => stem,
        _ => rest,
    };
    let b = rest.as_bytes();
    let rest = match b {
        [.., b'=', p] if p.is_ascii_alphabetic() => &rest[..rest.len() - 2],
        [.., d, p] if p.is_ascii_uppercase() && d.is_ascii_digit() => &rest[..rest.len() - 1],
        _ => rest,
    };
    if rest.len() < 2 || !square(&rest[rest.len() - 2..]) {
        return false;
    }
    let from = rest[..rest.len() - 2].trim_end_matches(['x', ':']);
    let fb = from.as_bytes();
    match fb {
        [] => true,
        // A file, a rank after a piece's letter, or a piece's letter in
        // lower case (`nf3`, `qxh5`; `b` is a file first).
        [f] => (b'a'..=b'h').contains(f) || (lettered && (b'1'..=b'8').contains(f)) || (!lettered && lower_piece(*f)),
        _ => square(from),
    }
}

/// A lower-case letter that names a piece in some game and is no file:
/// `k`, `n`, `q`, `r`, and Olympic's `s` (Silver).
fn lower_piece(c: u8) -> bool {
    matches!(c, b'k' | b'n' | b'q' | b'r' | b's')
}

/// `e2e4`, `e7e8q`, `c4c5+`, `a2a3a4`, `a2a3b2b3`, `b4b6d6x`.
fn canonical(t: &str, square: Squares) -> bool {
    let t = t.strip_suffix(['+', 'x']).unwrap_or(t);
    let t = match t.as_bytes() {
        [.., d, p] if d.is_ascii_digit() && p.is_ascii_lowercase() => &t[..t.len() - 1],
        _ => t,
    };
    t.len() >= 4 && t.len() <= 8 && t.len() % 2 == 0 && (0..t.len()).step_by(2).all(|i| square(&t[i..i + 2]))
}

/// Grants `R>e2`, swaps `Ra1<>e1`, shots `M^h5`, chains `Tb6d6`.
fn special(t: &str, square: Squares) -> bool {
    let (lettered, rest) = piece(t);
    // C6: a swap by its squares, `a1<>e1`.
    if let Some((a, b)) = rest.split_once("<>") {
        return square(a) && square(b);
    }
    if !lettered {
        return false;
    }
    if let Some(sq) = rest.strip_prefix('>') {
        return square(sq);
    }
    if let Some((a, b)) = rest.split_once('^') {
        return (a.is_empty() || square(a)) && square(b);
    }
    let rest = rest.strip_suffix('x').unwrap_or(rest);
    let rest = rest.replace(['x', ':'], "");
    rest.len() >= 4 && rest.len() % 2 == 0 && (0..rest.len()).step_by(2).all(|i| square(&rest[i..i + 2]))
}

#[cfg(test)]
mod tests {
    use super::{move_shaped, off_board_shaped};

    #[test]
    fn moves_to_squares_beyond_the_board_are_slips() {
        for text in ["Nf9", "e9", "i4", "Qi4", "exd9", "e2e9", "Rz1", "a0", "Nf9+"] {
            assert!(off_board_shaped(text), "{text} should read as a slip");
        }
        // Moves on the board, and chat, are not.
        for text in ["Nf3", "e4", "hello", "gg", "A1", "10", "xD", "x9", "I", "ok", "e4 is good", "Be"] {
            assert!(!off_board_shaped(text), "{text}");
        }
    }

    #[test]
    fn moves_have_the_shape() {
        for text in [
            "e4",
            // CA8: the shield.
            "D",
            // A6: pairs with a space.
            "a3 h3",
            "d3, c3",
            "cb6 b5",
            "cb6, b5",
            "c6 , b5",
            // Move numbers as PGN writes them.
            "1.e4",
            "1. e4",
            "12... Nf6",
            // G2: capitals, and O3's promotion named by what it makes.
            "NE2",
            "QXH7",
            "E2E4",
            "c7-c6-b5",
            "axb5+P",
            "Sxc5=+S",
            // A piece's letter in lower case, which is read too.
            "nf4",
            "qh5",
            "nxe5",
            "Ke2",
            "gxh8",
            "Nd2",
            "O-O",
            "0-0-0",
            "o-o",
            "e5",
            "Qh5#",
            "e2e4",
            "e7e8q",
            "c4c5+",
            "Nbd2",
            "N1d2",
            "Ng1f3",
            "exd5",
            "e8=Q+",
            "gxh8Q",
            "P@c3",
            "Sxc1",
            "Sxc1=G",
            "Sc5=+",
            "+Pd4",
            "(NP)f3",
            "a3,b3",
            "a2a3a4",
            "a2a3b2b3",
            "R>e2",
            "give rook e2",
            "give rook moving half e2",
            "Give Knight capturing half c3",
            "give moving bishop d2",
            "give moving half bishop d2",
            "drop d2",
            "swap a1",
            "shoot h5",
            "Ra1<>e1",
            "M^h5",
            "Mb2^h5",
            "h6^e4",
            "Tb6d6",
            "Txb6",
            "Tb8x",
            "b4b6d6x",
            "Bxc6-",
            "Bxc6 keep",
            "dxe5",
            "Be5?!",
            // The en passant mark.
            "exd6e.p.",
            "exd6 e.p.",
            "exd6 ep",
            // The piece as a figurine, or as a word of its own.
            "♘f3",
            "♞xe5",
            "N f3",
            "knight f3",
            "Knight g1-f3",
            "e2-e4",
            "Ng1-f3",
            "e7-e5",
            "pawn e4",
            "drop rook c3",
            "drop static d2",
            "drop a static piece on d2",
            "drop a rook on c3",
            "give d2 rook",
            "give e2 moving bishop",
            "a1<>e1",
            "a8=(TU)",
            "bxa8=(RB)+",
            "bxc8=(G)+",
            "bxc8=(X)",
            "drop Silver b2",
            "P*b3",
            "p@b3",
            "cxd8(Q)",
        ] {
            assert!(move_shaped(text), "{text} should look like a move");
        }
    }

    #[test]
    fn chat_does_not() {
        for text in [
            "hello",
            "ok",
            "Ok",
            "gg",
            "GG",
            "e4 is a good move!",
            "nice one",
            "lol",
            "Hi",
            "I",
            "A",
            "a",
            "xD",
            "A1",
            "A12",
            "B2B",
            // Rewritings that would come back to themselves.
            "P*12",
            "p@12",
            "P@12",
            "no",
            "yes please",
            "what about e4?",
            "10",
            "12",
            "2-1",
            "i9",
            "e9",
            "Nice",
            "Be",
            "https://lichess.org",
            "é4",
            "",
            "OOO",
            "ooo",
            "give me a break",
            "drop it",
            "swap sides",
            "give me half a chance",
            "king me",
            "knight rider",
            "drop the rook",
            "give d2 e4",
            "a1<>",
            "a8=()",
            "♘",
            // Two moves of pieces on one line: talk about a line.
            "Bxc6 dxc6",
            "Nf3 Nc6",
        ] {
            assert!(!move_shaped(text), "{text:?} should be chat");
        }
    }
}
