//! The rulings the bot cites in its answers (`CA4`, `C6`, `A6`...), each in
//! a player's words, for `/help CA4`. The rulings themselves close the gaps
//! the variant texts leave (the project's rules documents); what is here
//! says what each one means at the board, not how it was decided.

/// A ruling: its id, the game it belongs to, a title and what it says.
pub(crate) struct Ruling {
    pub id: &'static str,
    pub game: &'static str,
    pub title: &'static str,
    pub says: &'static str,
}

const fn r(id: &'static str, game: &'static str, title: &'static str, says: &'static str) -> Ruling {
    Ruling { id, game, title, says }
}

pub(crate) const RULINGS: &[Ruling] = &[
    r(
        "G1",
        "every game",
        "Board and squares",
        "files are letters from a, ranks numbers from 1; White starts on rank 1 and moves first.",
    ),
    r(
        "G2",
        "every game",
        "How moves are written",
        "every move has one canonical form with no spaces (e2e4, e7e8q, a drop P@c3); I also read SAN (Nf3, exd5, O-O) and always answer with both. /help notation VARIANT shows a game's forms.",
    ),
    r(
        "G3",
        "every game",
        "Positions",
        "positions are written as FEN; pieces in hand go in brackets after the board ([Sb]), a promoted piece gets a +.",
    ),
    r(
        "G4",
        "every game",
        "Draws",
        "unless a game says otherwise: stalemate, a third repetition and fifty moves without a capture or pawn move end the game as a draw at once, without a claim, and so does a draw both players agree to; in chess also too little material to mate.",
    ),
    r("G5", "every game", "Perft", "a finished position has no legal moves (this is how move counts are checked)."),
    r(
        "O1",
        "olympic",
        "Setup",
        "Minishogi's array: White King a1, Gold b1, Silver c1, Bishop d1, Rook e1 and a Pawn on a2; Black's army the same, turned half round (King e5, Pawn e4).",
    ),
    r(
        "O2",
        "olympic",
        "Pieces",
        "King, Rook and Bishop as in chess. The Pawn steps one square forward onto an empty square and captures one diagonally forward (no double step, no en passant). The Silver steps one square diagonally or straight forward; the Gold one square straight in any direction or diagonally forward.",
    ),
    r(
        "O3",
        "olympic",
        "Promotion",
        "the last rank is the zone: a Pawn reaching it becomes a Gold (+P); a Silver moving into, out of or within it may become a Gold (+S) or stay a Silver. A promoted piece moves as a Gold.",
    ),
    r(
        "O4",
        "olympic",
        "Pieces in hand",
        "a piece you capture changes colour and goes to your hand; a promoted piece goes back to what it was.",
    ),
    r(
        "O5",
        "olympic",
        "Drops",
        "instead of moving you may drop a piece from your hand on any empty square (P@c3). A Pawn may not be dropped on its last rank (it may on its first); a dropped piece never promotes.",
    ),
    r(
        "O6",
        "olympic",
        "End",
        "checkmate wins and stalemate draws; there is no fifty-move rule. When a position (board, side to move and hands) comes for the third time, White loses, unless every Black move since its previous time gave check: then White wins.",
    ),
    r(
        "A1",
        "alapawn",
        "The King is an ordinary piece",
        "chess pieces on chess squares, but no check and no checkmate: the King may be captured and may go where it is attacked. No castling.",
    ),
    r(
        "A2",
        "alapawn",
        "Pawns",
        "a pawn steps one square forward or diagonally forward onto an empty square and captures one diagonally forward; no double step, no en passant.",
    ),
    r(
        "A3",
        "alapawn",
        "Winning",
        "a pawn reaching the last rank wins at once (it does not promote), and so does capturing the other side's last pawn.",
    ),
    r("A4", "alapawn", "No move", "a player with no legal move loses."),
    r(
        "A5",
        "alapawn",
        "Removal",
        "on a third repetition (same side to move), or after fifty moves each with no capture and no pawn move, each side's last moved piece leaves the board if it is still there. A side left without pawns loses (both: the one who moved last); otherwise play goes on and the counts start afresh.",
    ),
    r(
        "A6",
        "alapawn-balanced",
        "Two pawn steps",
        "a turn may instead be two pawn steps without capturing: one pawn twice, if the square it passes is not attacked by any enemy piece (h6,h5), or two pawns once each (a6,b6). White's first turn that moves a pawn must be a single step of one pawn.",
    ),
    r(
        "PA1",
        "absorption",
        "Chess underneath",
        "FIDE's setup and laws, with castling, en passant, promotion and the usual draws; only a King and Rook that have never moved may castle.",
    ),
    r(
        "PA2",
        "absorption",
        "Powers",
        "a piece is a set of powers (King, Rook, Bishop, Knight, Pawn; a Queen is Rook and Bishop) and moves with any of them.",
    ),
    r(
        "PA3",
        "absorption",
        "Absorbing",
        "a capturing piece adds the captured piece's powers to its own, unless you decline (write the capture with a trailing -, Bxc6-). Declining is offered only where absorbing would change the piece (a pawn taking a pawn has nothing to decline). The King is never captured but absorbs too.",
    ),
    r(
        "PA4",
        "absorption",
        "The pawn's power",
        "any non-royal piece holding it steps forward like a pawn (two from its side's second rank), captures diagonally forward, and takes en passant a piece that has just stepped two with its pawn power. A King holding it gets no pawn moves. A step both the pawn's power and another power make is one move, except onto the last rank, where only the pawn's move promotes.",
    ),
    r(
        "PA5",
        "absorption",
        "Promotion",
        "a pawn move onto the last rank swaps the pawn's power for a Queen, Rook, Bishop or Knight power of your choice, after absorbing; another piece reaching it by another power promotes nothing. A King holding the pawn's power that reaches the enemy's back rank by any move has it swapped the same way.",
    ),
    r(
        "PA6",
        "absorption",
        "Kings with sliding powers",
        "a King's rook, bishop or queen move may not pass over a square the enemy attacks, and its attacks stop there too; a sliding King checks the other King when nothing between them is attacked by another enemy piece. The knight's power is not affected.",
    ),
    r(
        "PA7",
        "absorption",
        "Handicaps",
        "a challenge may limit what either side, or both, absorbs: nopawn never the pawn's power, noqueen nothing from a piece with both rook and bishop powers, plain nothing at all (ordinary chess pieces, King included); nopawn and noqueen combine. Handicap games are not rated.",
    ),
    r(
        "C1",
        "construction",
        "Start",
        "only the Kings, on e1 and e8; each side's reserve holds 15 static pieces and 3 rook, 3 bishop, 2 knight, 8 pawn and 2 castling powers.",
    ),
    r(
        "C2",
        "construction",
        "A turn",
        "one of: drop a static piece on an empty square of your first two ranks (S@d2), move a piece, or give one power from your reserve to one of your pieces other than the King (R>d2, or: give rook d2).",
    ),
    r(
        "C3",
        "construction",
        "Pieces",
        "a piece holds at most one power of each kind; rook and bishop together move as a queen. A static piece (no powers) cannot move or capture but can be captured. Captured pieces and their powers leave the game.",
    ),
    r(
        "C4",
        "construction",
        "The pawn's power",
        "one step forward, or two from your first rank through an empty square; captures one diagonally forward; no en passant. It may not be given to a piece on its last rank.",
    ),
    r(
        "C5",
        "construction",
        "Promotion",
        "a pawn move onto the last rank takes away the pawn's power (a piece left with none is static) and adds a rook, bishop, knight or pawn power or a static piece of your choice to your reserve (e8=R).",
    ),
    r(
        "C6",
        "construction",
        "The castling power",
        "its holder swaps squares with its own King once, if the King is not in check and the holder not attacked, and the King is not in check after; the power is then used up. Written as the holder's square then the King's (a1e1).",
    ),
    r(
        "C7",
        "construction",
        "End",
        "checkmate (in check, and no move, drop or grant takes it away) wins; stalemate and the usual draws; drops and grants do not reset the fifty-move count.",
    ),
    r(
        "CS1",
        "construction-split",
        "Halves",
        "as Construction, but rook, bishop, knight and pawn powers come as a moving half (onto empty squares only) and a capturing half (captures only), each in the counts of the whole power; castling powers are not split.",
    ),
    r(
        "CS2",
        "construction-split",
        "Giving halves",
        "a grant gives one half, at most one of each half a piece; both halves of a kind make the whole power.",
    ),
    r(
        "CS3",
        "construction-split",
        "Pawn halves",
        "the moving half steps one forward, or two from your first rank through an empty square; the capturing half captures one diagonally forward; no en passant, and neither may be given to a piece on its last rank.",
    ),
    r("CS4", "construction-split", "Attacks", "a piece attacks (checks, pins, guards) only with its capturing halves."),
    r(
        "CS5",
        "construction-split",
        "Promotion",
        "a move onto the last rank made with a pawn half takes away the piece's pawn halves and adds a static piece or any one half to your reserve (e8=U).",
    ),
    r(
        "CA1",
        "clash",
        "Peasants",
        "the Pawn as in chess; the Omnipawn moves and captures one step forward or diagonally forward. Both may step two squares straight forward from their starting rank (the second) without capturing, and may then be taken en passant by an enemy Pawn or Omnipawn. On the last rank a peasant must become a Light, Heavy or Jewel piece other than the Amazon.",
    ),
    r(
        "CA2",
        "clash",
        "The Rabbit",
        "slides one or two squares straight onto an empty square and never captures by landing; or jumps a piece of either colour one or two squares away in a straight line (any of the four directions) with nothing between, landing on the empty square just beyond it, and jumped enemy pieces are captured when the move ends. Jumps may chain, never landing twice on one square nor jumping one piece twice; a jump over an enemy at the edge takes both off the board. Written as every landing square in order (b1b3d3).",
    ),
    r(
        "CA3",
        "clash",
        "Light and Heavy pieces",
        "Elephant: one step straight or a bishop's move. Waffle: one step straight or a leap of two diagonally. Hawk: leaps two or three squares in any of the eight directions. Kite: leaps one, two or three squares straight. General: King and Knight; Chancellor: Rook and Knight; Archbishop: Bishop and Knight; Amazon: Queen and Knight.",
    ),
    r(
        "CA4",
        "clash",
        "The War Machine",
        "slides one or two squares straight or steps one diagonally, moving or capturing; or instead shoots: it removes an enemy piece it could capture, without moving (shoot h5). A shot is not a move, so its King may still castle with it.",
    ),
    r(
        "CA5",
        "clash",
        "The Jester",
        "moves along a path of one to three single straight steps, turning as it likes; every square it passes must be empty, the last may hold an enemy. It attacks, checks and pins along any such open path.",
    ),
    r(
        "CA6",
        "clash",
        "The Rogue",
        "slides one or two squares in any direction; after a move that captures nothing it cannot be captured until its owner's next turn.",
    ),
    r(
        "CA7",
        "clash",
        "The Phoenix",
        "slides one to four squares in any direction; whatever captures it (by moving, shooting or jumping) is removed too, and a Leader may not capture it.",
    ),
    r(
        "CA8",
        "clash",
        "Leaders",
        "the King moves as in chess and castles once with a Heavy piece on its corner, as in chess. The Shielderer steps one square straight; once a game, as a whole turn (D), it raises a shield until its owner's third turn after: it and each friendly piece straight next to it cannot be captured meanwhile.",
    ),
    r(
        "CA9",
        "clash",
        "Invulnerable pieces",
        "cannot be captured in any way (moving, shooting or jumping) but still block; an invulnerable Leader that is attacked is not in check.",
    ),
    r(
        "CA10",
        "clash",
        "Rounds",
        "a win is 1 point, a draw half a point each; 2 points win the match. Otherwise a third, ultimate round decides: the higher score, and on equal scores that round's winner.",
    ),
    r(
        "CA11",
        "clash",
        "Gold",
        "40 gold before each round, and before the ultimate round 10 more for each point; unspent gold carries over.",
    ),
    r(
        "CA12",
        "clash",
        "The army phase",
        "White buys, sells (at full price) and places, then confirms; then Black, seeing White's army. At any time an army holds at most 1 Leader (needed to confirm), 1 Jewel, 2 Heavy, 4 Light with at most 2 of a kind, and 8 Peasants, placed: Peasants on the second rank, Light on the b, c, f and g files of the back rank, Heavy in its corners, the Jewel on the d file, the Leader on the e file. Two Bishops stand on squares of opposite colours.",
    ),
    r(
        "CA13",
        "clash",
        "Survivors",
        "captured pieces are lost; survivors come back for the next round, promoted pieces as what they became. A checkmated player, or one out of time, loses the Leader; one who resigns loses the whole army.",
    ),
    r(
        "CA14",
        "clash",
        "The Amazon auction",
        "before the ultimate round each player sends me a sealed bid for the Amazon in a private message (/bid, in halves of a gold, at most your gold). The higher bidder pays and takes the Amazon as their Jewel (a Jewel they own is refunded); the other gets draw odds (a draw counts as their win). On equal bids White raises by 0.5 first, then Black and White in turn raise by 0.5 or pass; whoever passes first loses, and a player who cannot afford a raise passes. No draw may be agreed in that round.",
    ),
];

/// The ruling `word` names (`ca4`, `CA4`, `(CA4)`), if any.
pub(crate) fn ruling(word: &str) -> Option<&'static Ruling> {
    let id = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    RULINGS.iter().find(|r| r.id.eq_ignore_ascii_case(id))
}

/// What to say of `word` where it is written like a ruling id that no ruling
/// has (`CA15`, `O0`): which ids that group has.
pub(crate) fn no_such(word: &str) -> Option<String> {
    let id = word.trim_matches(|c: char| !c.is_ascii_alphanumeric()).to_ascii_uppercase();
    let letters = id.trim_end_matches(|c: char| c.is_ascii_digit());
    // A group's letters alone (`PA`, `CA`; not one letter, which reads as a word).
    let group_only = letters.len() == id.len() && id.len() >= 2;
    if letters.is_empty() || (letters.len() == id.len() && !group_only) || ruling(&id).is_some() {
        return None;
    }
    let group: Vec<&Ruling> =
        RULINGS.iter().filter(|r| r.id.trim_end_matches(|c: char| c.is_ascii_digit()) == letters).collect();
    let (first, last) = (group.first()?, group.last()?);
    let whose = match first.game {
        "every game" => "The rulings for every game".to_string(),
        game => format!("The rulings of {}", game_name(game)),
    };
    let range = format!("{whose} are {}-{}: /help {} explains one.", first.id, last.id, first.id);
    Some(if group_only { range } else { format!("No ruling is called {id}. {range}") })
}

/// A game's name (`Clash of the Armies`), or `every game`.
fn game_name(game: &str) -> &str {
    kibitz_rules::Variant::by_id(game).map_or(game, |v| v.name)
}

/// `/help CA4`: the ruling as a reply.
pub(crate) fn explain(r: &Ruling) -> String {
    format!("{}, {} ({}): {}", r.id, r.title, game_name(r.game), r.says)
}

/// The rulings of one game, as `/rules VARIANT` lists them: a game
/// played as another with an option (Balanced Alapawn, split
/// Construction) has that game's rulings too.
pub(crate) fn of_game(game: &str) -> Vec<&'static str> {
    let base = match game {
        "alapawn-balanced" => "alapawn",
        "construction-split" => "construction",
        other => other,
    };
    RULINGS.iter().filter(|r| r.game == game || r.game == base).map(|r| r.id).collect()
}

/// `ids` as ranges of their groups: `A1-A6`, `C1-C7 and CS1-CS5`.
pub(crate) fn ranges(ids: &[&str]) -> String {
    let group = |id: &str| id.trim_end_matches(|c: char| c.is_ascii_digit()).to_string();
    let mut spans: Vec<(String, &str, &str)> = Vec::new();
    for id in ids {
        match spans.last_mut() {
            Some((g, _, last)) if *g == group(id) => *last = id,
            _ => spans.push((group(id), id, id)),
        }
    }
    let parts: Vec<String> =
        spans.iter().map(|(_, a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
    match parts.as_slice() {
        [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_ruling_is_there_once_in_order_of_its_game() {
        let ids: BTreeSet<&str> = RULINGS.iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), RULINGS.len(), "an id twice");
        // The rulings document's numbering: every group counts from 1 with no gaps.
        for (group, last) in [("G", 5), ("O", 6), ("A", 6), ("PA", 7), ("C", 7), ("CS", 5), ("CA", 14)] {
            for n in 1..=last {
                assert!(ids.contains(format!("{group}{n}").as_str()), "{group}{n} is missing");
            }
        }
        assert_eq!(RULINGS.len(), 5 + 6 + 6 + 7 + 7 + 5 + 14);
        for r in RULINGS {
            assert!(r.game == "every game" || kibitz_rules::Variant::by_id(r.game).is_some(), "{}: {}", r.id, r.game);
            assert!(r.says.ends_with('.') && !r.says.contains("  "), "{}", r.id);
        }
    }

    #[test]
    fn a_ruling_is_found_however_it_is_written() {
        assert_eq!(ruling("ca4").map(|r| r.id), Some("CA4"));
        assert_eq!(ruling("(C6)").map(|r| r.id), Some("C6"));
        assert_eq!(ruling("CA4:").map(|r| r.id), Some("CA4"));
        assert!(ruling("CA15").is_none() && ruling("move").is_none() && ruling("").is_none());
        assert_eq!(
            no_such("ca15").as_deref(),
            Some("No ruling is called CA15. The rulings of Clash of the Armies are CA1-CA14: /help CA1 explains one.")
        );
        assert!(no_such("CA4").is_none() && no_such("move").is_none() && no_such("X1").is_none());
        assert_eq!(
            no_such("pa").as_deref(),
            Some("The rulings of Power Absorption Chess are PA1-PA7: /help PA1 explains one.")
        );
        assert!(no_such("c").is_none() && no_such("board").is_none());
        assert_eq!(of_game("construction"), ["C1", "C2", "C3", "C4", "C5", "C6", "C7"]);
        assert_eq!(ranges(&of_game("alapawn-balanced")), "A1-A6");
        assert_eq!(ranges(&of_game("alapawn")), "A1-A5");
        assert_eq!(ranges(&of_game("construction-split")), "C1-C7 and CS1-CS5");
    }

    /// Every ruling id that a message of the bot or of the rules' explanations
    /// names, in parentheses as they cite them, can be asked about: the ids
    /// are read from the source of those messages.
    #[test]
    fn every_ruling_a_message_cites_is_explained() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut cited = BTreeSet::new();
        for dir in ["bot/src", "rules/src"] {
            let mut stack = vec![root.join(dir)];
            while let Some(d) = stack.pop() {
                for entry in std::fs::read_dir(&d).unwrap() {
                    let path = entry.unwrap().path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if path.extension().is_some_and(|e| e == "rs") {
                        let text = std::fs::read_to_string(&path).unwrap();
                        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                            // Only string literals: the text between quotes.
                            for literal in line.split('"').skip(1).step_by(2) {
                                for piece in literal.split('(').skip(1) {
                                    let id: String = piece.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
                                    let letters = id.trim_end_matches(|c: char| c.is_ascii_digit());
                                    if !letters.is_empty()
                                        && letters.len() < id.len()
                                        && letters.chars().all(|c| c.is_ascii_uppercase())
                                    {
                                        cited.insert(id);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(cited.contains("CA4") && cited.contains("C6") && cited.len() > 10, "{cited:?}");
        let unexplained: Vec<&String> = cited.iter().filter(|id| ruling(id).is_none()).collect();
        assert!(unexplained.is_empty(), "cited but not explained: {unexplained:?}");
    }
}
