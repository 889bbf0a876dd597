//! `/moves`: the legal moves grouped by the piece that moves, shortened
//! (a Balanced Alapawn two-pawn turn is listed under its first step) and
//! paged so that each page fits one message.

use std::fmt::Write;

use kibitz_rules::{Color, Game, Move, MoveError, Piece, Position, Square};

use super::bounds::{cut, excerpt, quoting, sentence_end, units};
use super::{REPLY_LIMIT, Refusal, count, mention, refuse};

/// What `/moves` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ask {
    /// The moves of the piece on a square (as typed).
    Square(String),
    /// A page of the whole list, from 1.
    Page(usize),
    /// The page after the one shown last.
    More,
    /// The drops of the piece with this letter (`/moves P@`).
    Drops(char),
    /// The moves of every piece of a kind, by its name (`/moves knight`,
    /// `/moves pawns`).
    Kind(String),
}

/// Whether `word` names a kind of piece of some game (`knight`, `pawns`,
/// `Silver`), or a page (`next`, `page`), rather than a game's id.
pub(super) fn is_listing_word(word: &str) -> bool {
    ["next", "page"].iter().any(|w| word.eq_ignore_ascii_case(w)) || kind_named(word).is_some()
}

/// The piece name `text` says, singular and as the games write it
/// (`pawns` is `Pawn`), in any game.
fn kind_named(text: &str) -> Option<&'static str> {
    let lower = text.trim().to_ascii_lowercase();
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    kibitz_rules::VARIANTS
        .iter()
        .flat_map(|v| v.pieces.iter())
        .find(|p| p.name.eq_ignore_ascii_case(&lower) || p.name.eq_ignore_ascii_case(singular))
        .map(|p| p.name)
}

/// `/moves knight`: the moves of the asker's pieces of that kind, each
/// piece on its line.
pub(super) fn of_kind(pos: &Position, legal: &[Move], name: &str, whose: &Whose) -> Result<String, Refusal> {
    let v = pos.variant();
    let Some(index) = v.pieces.iter().position(|p| p.name.eq_ignore_ascii_case(name)) else {
        return refuse(format!("There is no {} in {}: /moves lists the moves you have.", name.to_lowercase(), v.name));
    };
    // Where pieces are sets of powers (PA2, C3), a piece holding the kind's
    // powers with others (a Queen+Pawn) is of the kind too.
    let kind = &v.pieces[index];
    let of_kind: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| {
            m.from().and_then(|f| pos.piece_at(f)).is_some_and(|p| match v.piece_index_of(p.powers, p.royal) {
                Some(i) => i as usize == index,
                None => p.powers.contains(kind.powers) && (p.royal || !kind.royal),
            })
        })
        .collect();
    let lower = name.to_lowercase();
    if of_kind.is_empty() {
        return refuse(match whose {
            Whose::Side(..) => format!("No {lower} of the side to move has a legal move."),
            Whose::YoursLater => format!("No {lower} of yours would have a legal move as the board stands."),
            Whose::Yours => format!("No {lower} of yours has a legal move now: /moves lists the moves you have."),
        });
    }
    let head = match whose {
        Whose::Yours => format!("Your {lower} moves ({}):", count(of_kind.len(), "move")),
        Whose::YoursLater => {
            format!(
                "Your {lower} moves for when it is your turn ({} as the board stands):",
                count(of_kind.len(), "move")
            )
        }
        Whose::Side(c, player) => {
            let side = if *c == Color::White { "White" } else { "Black" };
            format!("{} ({side}) to move, {lower} moves ({}):", mention(player), count(of_kind.len(), "move"))
        }
    };
    let room = REPLY_LIMIT.saturating_sub(units(&head) + FOOTER_ROOM).max(40);
    let mut text = head;
    let mut used = 0;
    for g in groups(pos, &of_kind) {
        let line = cut(&group_line(&g), room.saturating_sub(used), &cut_note(&g));
        used += units(&line) + 1;
        text.push('\n');
        text.push_str(&line);
        if used >= room {
            break;
        }
    }
    Ok(text)
}

/// `/moves P@`: the legal drops of the piece written `letter`.
pub(super) fn drops_of(pos: &Position, legal: &[Move], letter: char) -> Result<String, Refusal> {
    let pieces = pos.variant().pieces;
    let sans: Vec<String> = legal
        .iter()
        .filter(|m| matches!(m, Move::Drop { piece, .. } if pieces[*piece as usize].letter == letter))
        .map(|m| pos.san(m))
        .collect();
    if sans.is_empty() {
        return refuse(format!("You have no {letter}@ drop now: /moves lists the moves you have."));
    }
    let name = pieces.iter().find(|p| p.letter == letter).map_or(String::new(), |p| p.name.to_ascii_lowercase());
    Ok(format!("Drops of the {name} in hand ({}): {}", count(sans.len(), "move"), shortened(&sans)))
}

impl Ask {
    /// Reads the argument of `/moves`: nothing, a page number (`page 2`),
    /// `more` or `next`, drops (`P@`), a kind of piece, or a square.
    pub(super) fn read(text: &str) -> Result<Ask, Refusal> {
        let t = text.trim();
        if t.is_empty() {
            return Ok(Ask::Page(1));
        }
        if t.eq_ignore_ascii_case("more") || t.eq_ignore_ascii_case("next") {
            return Ok(Ask::More);
        }
        // `/moves P@`: the drops of one kind of piece in hand (O5, C2).
        if let [letter, b'@'] = t.as_bytes()
            && letter.is_ascii_alphabetic()
        {
            return Ok(Ask::Drops((*letter as char).to_ascii_uppercase()));
        }
        // `/moves page 2`.
        let t = match t.split_once(' ') {
            Some((page, n)) if page.eq_ignore_ascii_case("page") => n.trim(),
            _ => t,
        };
        if let Some(name) = kind_named(t) {
            return Ok(Ask::Kind(name.to_string()));
        }
        if t.chars().all(|c| c.is_ascii_digit()) {
            return match t.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(Ask::Page(n)),
                _ => refuse("Pages count from 1: /moves 2 shows the second."),
            };
        }
        Ok(Ask::Square(t.to_string()))
    }
}

/// Whose moves a listing shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Whose {
    /// The asker's, on their turn.
    Yours,
    /// The asker's, as if it were their turn (it is the opponent's).
    YoursLater,
    /// The side to move's (for someone not playing), and its player.
    Side(Color, String),
}

/// The game as if `color` were to move on the board as it stands (no en
/// passant, since that belongs to the other side's last move). `None` when
/// that is no position: `color`'s last move gave check.
pub(super) fn as_if_to_move(game: &Game, color: Color) -> Option<Game> {
    let pos = game.position();
    let fen = pos.fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    if fields.len() < 4 {
        return None;
    }
    fields[1] = if color == Color::White { "w" } else { "b" };
    fields[3] = "-";
    let flipped = Position::from_fen(pos.variant(), &fields.join(" ")).ok()?;
    if flipped.royal_square(!color).is_some_and(|k| flipped.is_attacked(k, color)) {
        return None;
    }
    Some(Game::from_position(flipped))
}

/// "Knight", "Bishop+Knight" style names: the variant's name for the piece,
/// else the names of its powers (`Queen+Pawn` for what moves write `(QP)`).
fn piece_name(pos: &Position, p: Piece) -> String {
    let v = pos.variant();
    let name = match v.piece_index_of(p.powers, p.royal) {
        // C6: a piece holding the castling power alone.
        Some(_) if p.powers == kibitz_rules::Powers::CASTLE => "Castling piece".to_string(),
        Some(i) => v.pieces[i as usize].name.to_string(),
        // `powers_name` falls back to the upper-case code where no power
        // has a name: the code as moves write it, then.
        None => match pos.powers_name(p) {
            name if name.chars().any(char::is_lowercase) => name,
            _ => pos.piece_code(Piece { color: Color::White, ..p }),
        },
    };
    if p.promoted { format!("Promoted {}", name.to_lowercase()) } else { name }
}

/// The moves of one piece (or of the drops, or of the powers to give).
struct Group {
    head: String,
    square: Option<Square>,
    sans: Vec<String>,
}

fn groups(pos: &Position, legal: &[Move]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for m in legal {
        let (head, square) = match *m {
            Move::Drop { piece, .. } => {
                let name = pos.variant().pieces.get(piece as usize).map_or("Piece", |p| p.name);
                (format!("{name} drops"), None)
            }
            Move::Grant { .. } => ("Powers to give".to_string(), None),
            _ => match m.from().and_then(|f| pos.piece_at(f).map(|p| (f, p))) {
                Some((f, p)) => (format!("{} {f}", piece_name(pos, p)), Some(f)),
                None => ("Other moves".to_string(), None),
            },
        };
        let san = pos.san(m);
        match groups.iter_mut().find(|g| g.head == head) {
            Some(g) => g.sans.push(san),
            None => groups.push(Group { head, square, sans: vec![san] }),
        }
    }
    groups
}

/// The moves of a group, shortened: two-pawn turns that share their first
/// step are listed once under it (`a6 then: a5 b6`).
fn shortened(sans: &[String]) -> String {
    let mut singles: Vec<&str> = Vec::new();
    let mut pairs: Vec<(&str, Vec<&str>)> = Vec::new();
    for san in sans {
        match san.split_once(',') {
            Some((first, second)) => match pairs.iter_mut().find(|(f, _)| *f == first) {
                Some((_, list)) => list.push(second),
                None => pairs.push((first, vec![second])),
            },
            None => singles.push(san),
        }
    }
    let mut parts = Vec::new();
    if !singles.is_empty() {
        parts.push(singles.join(" "));
    }
    for (first, seconds) in pairs {
        parts.push(format!("{first} then: {}", seconds.join(" ")));
    }
    parts.join("; ")
}

/// What ends a group's line cut short: where its piece's moves are whole.
fn cut_note(g: &Group) -> String {
    g.square.map_or("…".to_string(), |sq| format!("… (/moves {sq} for all)"))
}

fn group_line(g: &Group) -> String {
    format!("{} ({}): {}", g.head, count(g.sans.len(), "move"), shortened(&g.sans))
}

fn heading(whose: &Whose, n: usize) -> String {
    let moves = count(n, "legal move");
    match whose {
        Whose::Yours => format!("Your {moves}:"),
        Whose::YoursLater => format!("Your moves for when it is your turn ({moves} as the board stands):"),
        Whose::Side(c, player) => {
            let side = if *c == Color::White { "White" } else { "Black" };
            format!("{} ({side}) to move, {moves}:", mention(player))
        }
    }
}

/// Room kept on each page for the heading's neighbours: the page line and
/// the note on pairs.
const FOOTER_ROOM: usize = 140;

/// Page `page` (from 1) of the grouped list of `legal` in `pos`.
pub(super) fn listing_page(pos: &Position, legal: &[Move], whose: &Whose, page: usize) -> Result<String, Refusal> {
    paged(pos, legal, whose, page, REPLY_LIMIT)
}

/// [`listing_page`] with pages of at most `limit` units.
fn paged(pos: &Position, legal: &[Move], whose: &Whose, page: usize, limit: usize) -> Result<String, Refusal> {
    let head = heading(whose, legal.len());
    let room = limit.saturating_sub(units(&head) + FOOTER_ROOM).max(40);
    let lines: Vec<String> = groups(pos, legal).iter().map(|g| cut(&group_line(g), room, &cut_note(g))).collect();
    // Lines to pages, each within the room.
    let mut pages: Vec<Vec<&String>> = vec![Vec::new()];
    let mut used = 0;
    for line in &lines {
        let len = units(line) + 1;
        if used + len > room
            && let Some(last) = pages.last()
            && !last.is_empty()
        {
            pages.push(Vec::new());
            used = 0;
        }
        used += len;
        if let Some(last) = pages.last_mut() {
            last.push(line);
        }
    }
    let total = pages.len();
    let Some(shown) = pages.get(page - 1) else {
        return refuse(if total == 1 {
            "All the moves fit on one page: /moves shows them.".to_string()
        } else {
            format!("There are {}: /moves {total} is the last.", count(total, "page"))
        });
    };
    let mut text = head;
    for line in shown {
        text.push('\n');
        text.push_str(line);
    }
    if total > 1 {
        let _ = write!(text, "\nPage {page} of {total}.");
        if page < total {
            let _ = write!(text, " /moves {} (or /moves more) for the next;", page + 1);
        }
        text.push_str(" /moves SQUARE for one piece.");
    }
    // A6: how a two-pawn turn is written, with one of this position's own
    // (two pawns once each, else one pawn twice).
    let pairs = || legal.iter().filter(|m| matches!(m, Move::PawnPair { .. }));
    let two_pawns = pairs().find(|m| matches!(m, Move::PawnPair { first, second } if second.0 != first.1));
    if let Some(example) = two_pawns.or_else(|| pairs().next()) {
        let _ = write!(text, "\nA two-pawn turn is written with a comma: {}.", pos.san(example));
    }
    Ok(text)
}

/// `/moves SQUARE`: the moves of the piece on `sq` (and the powers it may
/// be given), and the squares to mark on the picture.
pub(super) fn one_piece(
    pos: &Position,
    legal: &[Move],
    sq: Square,
    whose: &Whose,
) -> Result<(String, Vec<Square>), Refusal> {
    let Some(piece) = pos.piece_at(sq).filter(|p| p.color == pos.turn()) else {
        // O5, C2: what may be dropped there instead.
        let drops: Vec<String> =
            legal.iter().filter(|m| matches!(m, Move::Drop { to, .. } if *to == sq)).map(|m| pos.san(m)).collect();
        let mut text = match whose {
            Whose::Side(..) => format!("No piece of the side to move stands on {sq}."),
            _ => format!("None of your pieces stands on {sq}."),
        };
        if !drops.is_empty() {
            let _ = write!(text, " Drops there: {}.", drops.join(", "));
        }
        return refuse(text);
    };
    let name = piece_name(pos, piece);
    let from_here: Vec<Move> = legal.iter().copied().filter(|m| m.from() == Some(sq)).collect();
    // C2: powers the piece may be given.
    let grants: Vec<String> =
        legal.iter().filter(|m| matches!(m, Move::Grant { to, .. } if *to == sq)).map(|m| pos.san(m)).collect();
    // C6: the King's swaps with the pieces holding a castling power.
    let swaps: Vec<String> =
        legal.iter().filter(|m| matches!(m, Move::Swap { king, .. } if *king == sq)).map(|m| pos.san(m)).collect();
    if from_here.is_empty() && grants.is_empty() && swaps.is_empty() {
        return refuse(match whose {
            Whose::YoursLater => format!("Your {} on {sq} would have no legal move as the board stands.", name),
            _ => match pos.why_stuck(sq) {
                Some(kibitz_rules::Why::KingInCheck { in_check: true, pinned: false, by, royal, .. }) => {
                    let from = by.map(|b| format!(" from {b}")).unwrap_or_default();
                    format!(
                        "The {name} on {sq} has no legal move: your {royal} is in check{from} and none of its moves answers it."
                    )
                }
                Some(why) => format!("The {name} on {sq} has no legal move: {why}."),
                None => format!("The {name} on {sq} has no legal move."),
            },
        });
    }
    let targets: Vec<Square> = from_here.iter().map(|m| m.to()).collect();
    let sans: Vec<String> = from_here.iter().map(|m| pos.san(m)).collect();
    let mut text = match whose {
        Whose::YoursLater => "Your moves for when it is your turn: ".to_string(),
        _ => String::new(),
    };
    if sans.is_empty() {
        // A static piece (C2): nothing to move, only powers to take; a
        // King hemmed in, only swaps.
        let _ = write!(text, "{name} {sq} has no move of its own");
        if !grants.is_empty() {
            let _ = write!(text, "; the powers it may be given ({}): {}", grants.len(), grants.join(" "));
        }
        if !swaps.is_empty() {
            let _ = write!(text, "; its swaps: {}", swaps.join(" "));
        }
    } else {
        let _ = write!(text, "{name} {sq} ({}): {}", count(sans.len(), "move"), shortened(&sans));
        if !grants.is_empty() {
            let _ = write!(text, " (powers: {})", grants.join(" "));
        }
        if !swaps.is_empty() {
            let _ = write!(text, " (swaps: {})", swaps.join(" "));
        }
    }
    Ok((text, targets))
}

/// `/moves Nf3`: the argument read as a move rather than a square. A legal
/// move gives the square of the piece that makes it (none for a drop) and
/// the move as the board writes it; anything else is refused with the
/// reason the move is not legal, and how to ask for a square.
pub(super) fn square_of_move(pos: &Position, legal: &[Move], text: &str) -> Result<(Option<Square>, String), Refusal> {
    let t = text.trim();
    let parsed = pos.parse_move(t);
    // The example: a square of the asker's that has moves, the one of the
    // piece the text is closest to if it can be told (the closest legal
    // move's, a candidate's, a piece written with the same letter).
    let from_san = |san: &String| pos.parse_move(san).ok().filter(|m| legal.contains(m)).and_then(|m| m.from());
    let near = match &parsed {
        Err(MoveError::Illegal { closest, .. }) => closest.iter().find_map(from_san),
        Err(MoveError::Ambiguous { candidates, .. }) => candidates.iter().find_map(from_san),
        _ => None,
    };
    let initial = t.chars().next();
    let same_letter = || {
        legal.iter().filter(|m| m.from().is_some()).find(|m| pos.san(m).chars().next() == initial).and_then(Move::from)
    };
    let meant = near.or_else(same_letter);
    let sq = meant.or_else(|| legal.iter().find_map(Move::from)).map_or("e2".to_string(), |s| s.to_string());
    // A piece of the kind meant that has moves is the example; without one,
    // none of another piece.
    let usage = match meant {
        Some(_) => format!("/moves {sq} shows the moves of the piece on {sq}."),
        None if initial.is_some_and(|c| c.is_ascii_uppercase()) => {
            "No piece of that kind has a legal move now; /moves lists the moves you have.".to_string()
        }
        None => format!("/moves {sq} shows the moves of the piece on {sq}."),
    };
    let mut chars = t.chars();
    if chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && (1..=2).contains(&chars.clone().count())
        && chars.all(|c| c.is_ascii_digit())
    {
        return refuse(format!("'{}' is not a square (try {sq}).", excerpt(t)));
    }
    match parsed {
        Ok(m) if legal.contains(&m) => Ok((m.from(), pos.san(&m))),
        Ok(_) => refuse(format!("{} is not a legal move here. {usage}", excerpt(text))),
        Err(MoveError::Syntax(_)) => refuse(format!("'{}' is not a square or a move. {usage}", excerpt(text))),
        Err(e) => {
            let said = e.to_string();
            let said = quoting(&format!("{said}{}", sentence_end(&said)), t);
            // A kind of turn the game has not: no piece of this game to point to.
            if matches!(e, MoveError::Refused { why: kibitz_rules::Why::NotInGame { .. }, .. }) {
                return refuse(said);
            }
            refuse(format!("{said} {usage}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// O5: `/moves P@` lists a piece's drops, and an empty square names
    /// the drops onto it.
    #[test]
    fn drops_are_listed_by_piece_and_by_square() {
        assert!(matches!(Ask::read("p@"), Ok(Ask::Drops('P'))));
        let v = kibitz_rules::Variant::by_id("olympic").unwrap();
        let pos = Position::from_fen(v, "rbsgk/4p/5/P4/KGSBR[P] w - - 0 1").unwrap();
        let legal: Vec<Move> = pos.legal_moves().to_vec();
        let listed = drops_of(&pos, &legal, 'P').unwrap_or_else(|r| panic!("{}", r.0));
        assert!(listed.starts_with("Drops of the pawn in hand (13 moves): "), "{listed}");
        assert!(listed.contains("P@e3") && !listed.contains("P@a2"), "{listed}");
        assert_eq!(
            drops_of(&pos, &legal, 'S').unwrap_err().0,
            "You have no S@ drop now: /moves lists the moves you have."
        );
        let sq = Square::parse("e3").unwrap();
        let none = one_piece(&pos, &legal, sq, &Whose::Yours).err().map(|r| r.0).unwrap_or_default();
        assert_eq!(none, "None of your pieces stands on e3. Drops there: P@e3.");
    }

    #[test]
    fn asks_are_read() {
        assert_eq!(Ask::read("").ok(), Some(Ask::Page(1)));
        assert_eq!(Ask::read(" 3 ").ok(), Some(Ask::Page(3)));
        assert_eq!(Ask::read("MORE").ok(), Some(Ask::More));
        assert_eq!(Ask::read("e2").ok(), Some(Ask::Square("e2".into())));
        assert!(Ask::read("0").is_err());
        assert!(Ask::read("99999999999999999999999").is_err());
    }

    #[test]
    fn pairs_are_listed_under_their_first_step() {
        let sans: Vec<String> = ["a6", "ab6", "a6,a5", "a6,b6", "ab6,bc5"].iter().map(|s| s.to_string()).collect();
        assert_eq!(shortened(&sans), "a6 ab6; a6 then: a5 b6; ab6 then: bc5");
    }

    #[test]
    fn the_waiting_side_sees_its_own_moves() {
        // After 1. e4 it is Black's turn; White's moves as if it were White's.
        let mut game = Game::new(&kibitz_rules::CHESS);
        game.play_text("e4").unwrap();
        let white = as_if_to_move(&game, Color::White).unwrap();
        assert_eq!(white.position().turn(), Color::White);
        // 1. e4 opened the bishop's and queen's lines: 30 moves (FIDE counts).
        assert_eq!(white.legal_moves().len(), 30);
        // A side whose last move gave check has no such position.
        let mut game = Game::new(&kibitz_rules::CHESS);
        for m in ["e4", "f5", "Qh5+"] {
            game.play_text(m).unwrap();
        }
        assert!(as_if_to_move(&game, Color::White).is_none());
    }

    #[test]
    fn pages_fit_one_message_each() {
        let game = Game::new(&kibitz_rules::CHESS);
        let legal: Vec<Move> = game.legal_moves().into_iter().collect();
        let Ok(one) = listing_page(game.position(), &legal, &Whose::Yours, 1) else { panic!("no first page") };
        assert!(one.starts_with("Your 20 legal moves:\n") && one.contains("\nPawn a2 (2 moves): a3 a4\n"), "{one}");
        assert!(one.contains("\nKnight b1 (2 moves): Na3 Nc3"), "{one}");
        assert!(listing_page(game.position(), &legal, &Whose::Yours, 2).is_err());
        // Small pages: each within its limit, and every move on exactly one of them.
        let mut seen = Vec::new();
        let mut page = 1;
        while let Ok(text) = paged(game.position(), &legal, &Whose::Yours, page, 300) {
            assert!(units(&text) <= 300, "{text}");
            assert!(text.contains(&format!("Page {page} of ")), "{text}");
            for line in text.lines().skip(1).filter(|l| !l.starts_with("Page ")) {
                let (_, moves) = line.split_once("): ").unwrap_or_default();
                seen.extend(moves.split(' ').map(str::to_string));
            }
            page += 1;
        }
        assert!(page > 2, "one page only");
        let mut all: Vec<String> = legal.iter().map(|m| game.position().san(m)).collect();
        all.sort();
        seen.sort();
        assert_eq!(seen, all);
    }
}
