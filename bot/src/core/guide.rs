//! Help as data: each command with what it does and an example, the groups
//! `/help` shows them in, and how each variant writes its moves
//! (`/help notation VARIANT`), with examples tested against positions where
//! they are legal.

use kibitz_rules::{Variant, or_list};

/// The groups of `/help`, in order, with their commands.
pub(crate) const GROUPS: &[(&str, &[&str])] = &[
    ("Starting a game", &["challenge", "accept", "decline", "cancel", "rematch"]),
    ("Playing", &["move", "board", "moves", "hint"]),
    ("Offers and endings", &["draw", "takeback", "abort", "resign"]),
    (
        "Information",
        &["help", "variants", "rules", "piece", "games", "pgn", "fen", "gif", "review", "stats", "leaderboard"],
    ),
    ("The channel", &["settings"]),
    ("Clash of the Armies match", &["prices", "army", "buy", "sell", "place", "ready", "bid", "raise", "pass"]),
];

/// Each command: what it does, and an example.
pub(crate) const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "help",
        "what I can do; /help COMMAND explains one command, /help notation VARIANT how a game writes its moves, /help RULING (CA4, O6...) what a ruling I cite says.",
        "/help notation clash",
    ),
    ("variants", "the games I play, with their ids.", "/variants"),
    (
        "rules",
        "a game's rules in short and a picture of its pieces (the channel's default game without a name).",
        "/rules olympic",
    ),
    (
        "piece",
        "how a piece moves and captures, with a diagram; name the game first when several have the piece.",
        "/piece clash rabbit",
    ),
    (
        "challenge",
        "challenge a player (a @mention; on the console just the name), or anyone if you name nobody. Add the game, your colour, hints on or off, rated on or off (the channel's /settings decide what you leave out), and either days per move for a slow game (days off for none) or a chat clock M+S (minutes for the game, 1-180, plus seconds added per move, 0-180: 10+5); or challenge me with a level from 1 to 8. A chat clock runs from the start for White; a move counts when it was sent, and one sent after your time ran out loses. You are reminded once under a tenth of your time. My own clock stands when you play me. In Power Absorption a handicap limits what one side absorbs: handicap white plain (nothing), handicap black nopawn noqueen (no pawn power, nothing from queens), or one for each side; such games are not rated, and against me I give the odds and play the handicapped colour.",
        "/challenge @bob olympic white days 3",
    ),
    (
        "accept",
        "accept the challenge made to you here (name the challenger if there are several; a challenge waits a day for its answer, an hour on a chat clock); in a game, accept your opponent's draw offer or takeback request (/accept draw, /accept takeback).",
        "/accept @alice",
    ),
    (
        "decline",
        "decline a challenge made to you here, or in a game your opponent's draw offer or takeback request (name which when both stand).",
        "/decline @alice",
    ),
    (
        "cancel",
        "withdraw your own open challenge, or in a game your own draw offer or takeback request (/cancel draw, /cancel takeback).",
        "/cancel",
    ),
    (
        "rematch",
        "after a game, the same game again with colours swapped (the same variant and settings; a new match after a Clash match): a challenge to your opponent, or an /accept if they asked first. Against me it starts at once. Name the game to replay an earlier one here.",
        "/rematch",
    ),
    ("move", "play a move in SAN or as a canonical token; in a game you can also just type the move.", "/move Nf3"),
    (
        "board",
        "show the board of your game here, or of the game with this id; /board black (or white, or flip) shows it from that side.",
        "/board",
    ),
    (
        "moves",
        "the legal moves, those of the piece on one square or of one kind (/moves knights), or which piece makes a move (/moves Nf3); a long list goes on with /moves next (or /moves 2 for its second page).",
        "/moves e2",
    ),
    ("hint", "a suggested move, if the game allows hints.", "/hint"),
    (
        "resign",
        "give up the game (in a Clash match: the round, and your army). I ask first: confirm with /resign yes, or /resign again within 2 minutes; /resign no, or any move, plays on.",
        "/resign",
    ),
    (
        "draw",
        "offer a draw, or accept the one offered to you; /draw decline declines it and /draw cancel withdraws yours.",
        "/draw",
    ),
    (
        "takeback",
        "ask to take back your last move, or accept the request; /takeback decline declines it and /takeback cancel withdraws yours.",
        "/takeback",
    ),
    ("abort", "end a game without a result before both sides have moved.", "/abort"),
    ("games", "your running games, here and elsewhere.", "/games"),
    ("pgn", "the game as PGN, to study elsewhere.", "/pgn"),
    ("fen", "the position as FEN.", "/fen"),
    (
        "gif",
        "the game's replay, an animated picture of every move, seen from your side (also posted when a game ends).",
        "/gif",
    ),
    (
        "review",
        "my analysis of a finished game: an evaluation graph, each player's inaccuracies, mistakes, blunders and accuracy, and the biggest mistakes with better moves. Games that end get one by themselves; live games get none.",
        "/review k3x9",
    ),
    ("stats", "a player's ratings and number of games.", "/stats @bob"),
    ("leaderboard", "the best rated players of a game.", "/leaderboard chess"),
    (
        "settings",
        "the channel's defaults for new challenges: the game, rated or not, hints, days per move. Anyone sees them; those who manage the channel (its admins) change them, on Discord with the /settings slash command. In our private chat they are yours.",
        "/settings game olympic hints on",
    ),
    ("prices", "Clash of the Armies: what each piece costs, by class, and what an army may hold.", "/prices"),
    ("army", "Clash of the Armies: your army, your gold and the match.", "/army"),
    ("buy", "Clash of the Armies: buy a piece, on a square of its class or the first free one.", "/buy rabbit b1"),
    (
        "sell",
        "Clash of the Armies: sell a piece of your army at full price, named by its square or its name.",
        "/sell b1",
    ),
    ("place", "Clash of the Armies: move a piece of your army to another square of its class.", "/place knight g1"),
    ("ready", "Clash of the Armies: confirm your army (it needs a Leader).", "/ready"),
    (
        "bid",
        "Clash of the Armies: your sealed bid for the Amazon before the ultimate round, a multiple of 0.5; send it to me in a private message.",
        "/bid 6.5",
    ),
    ("raise", "Clash of the Armies: after equal bids, raise by 0.5 (White raises first).", "/raise"),
    (
        "pass",
        "Clash of the Armies: after equal bids and White's first raise, pass and lose the auction (you get draw odds). \
         Who cannot afford a raise passes at once.",
        "/pass",
    ),
];

/// One point of a variant's notation: what it is, in words, with examples
/// that are legal in `fen`.
pub(crate) struct Notation {
    pub words: &'static str,
    /// A position where every example is legal (the tests play them there).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fen: &'static str,
    pub examples: &'static [&'static str],
}

const fn n(words: &'static str, fen: &'static str, examples: &'static [&'static str]) -> Notation {
    Notation { words, fen, examples }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

const MOVES: Notation = n(
    "Moves: the piece's letter and its square, a pawn by its square alone; x for a capture (it may be left out). The token from square to square works too.",
    START,
    &["e4", "Nf3", "e2e4", "g1f3"],
);
const CASTLING: Notation = n(
    "Castling: O-O (king side), O-O-O (queen side); 0-0 too.",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    &["O-O", "O-O-O", "0-0", "e1g1"],
);
const PROMOTION: Notation = n(
    "Promotion: the pawn's square, = and the new piece's letter.",
    "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
    &["a8=Q", "a8=N", "a7a8q"],
);
const EN_PASSANT: Notation = n(
    "En passant: the capture as the pawn makes it, onto the square passed.",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    &["exd6", "e5d6"],
);

const CHESS: &[Notation] = &[MOVES, CASTLING, PROMOTION, EN_PASSANT];

const OLYMPIC: &[Notation] = &[
    n(
        "Moves: the piece's letter (K, R, B, G for Gold, S for Silver) and its square, a pawn by its square; x for a capture.",
        "rbsgk/4p/5/P4/KGSBR[] w - - 0 1",
        &["a3", "Sc2", "c1c2"],
    ),
    n(
        "Drops: a piece from your hand onto an empty square, its letter @ the square (a Pawn not on your last rank).",
        "rbsgk/4p/5/P4/KGSBR[S] w - - 0 1",
        &["S@c3", "S@d4"],
    ),
    n(
        "Promotion to Gold: a Pawn on the last rank must (a5=G, or just a5); a Silver whose move starts or ends there may (Sc5=G or c4c5+), or stays a Silver (Sc5=S, or c4c5); a bare Sc5 asks which.",
        "4k/P1S2/5/5/K4[] w - - 0 1",
        &["a5=G", "a5", "Sc5=G", "c4c5+", "Sc5=S", "c4c5"],
    ),
    n(
        "A promoted piece moves as a Gold and is written with + before its letter: +Pc4 for a promoted Pawn, +Sd4 for a promoted Silver (its squares work too: c3c4).",
        "4k/5/1+P+S2/5/K4[] w - - 0 1",
        &["+Pc4", "+Sd4", "b3c4", "c3d4"],
    ),
];

const ALAPAWN_MOVES: Notation = n(
    "Moves: the piece's letter and its square, a pawn by its square alone; x for a capture (it may be left out). The token from square to square works too.",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    &["e3", "Nf3", "e2e3", "g1f3"],
);

const ALAPAWN: &[Notation] = &[
    ALAPAWN_MOVES,
    n(
        "A pawn's quiet diagonal step is written with its file: ed5 (e4d5); exd5 would be a capture and is refused onto an empty square. There is no castling and no promotion.",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 1",
        &["ed5", "e4d5"],
    ),
];

const ALAPAWN_BALANCED: &[Notation] = &[
    ALAPAWN_MOVES,
    n(
        "A pawn's quiet diagonal step is written with its file: ed5 (e4d5).",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 1",
        &["ed5", "e4d5"],
    ),
    n(
        "Two pawn steps in one turn, without capturing: two pawns once each (a6,b6), or one pawn twice (h6,h5) if the square it passes is not attacked. Tokens: every square in order (a7a6b7b6, h7h6h5). White's first pawn turn is one step of one pawn.",
        "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1",
        &["a6,b6", "h6,h5", "a7a6b7b6", "h7h6h5"],
    ),
];

const ABSORPTION: &[Notation] = &[
    MOVES,
    n(
        "Declining: a capture that would absorb, written with a trailing - (or keep) takes without absorbing.",
        "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4",
        &["Bxc6", "Bxc6-", "Bxc6 keep", "b5c6-"],
    ),
    n(
        "A piece of several powers is written by its group in parentheses: (BN)d4 for a Bishop+Knight.",
        "4k3/8/8/8/8/8/8/(BN)3K3 w - - 0 1",
        &["(BN)c3", "(BN)b3"],
    ),
    CASTLING,
    PROMOTION,
    EN_PASSANT,
];

const CONSTRUCTION: &[Notation] = &[
    n(
        "Drops: a static piece from your reserve onto an empty square of your first two ranks: S@d2 (or drop d2).",
        "4k3/8/8/8/8/8/8/4K3[S15R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1",
        &["S@d2", "drop d2"],
    ),
    n(
        "Grants: a power from your reserve given to one of your pieces but the King: R>e2 (or give rook e2).",
        "4k3/8/8/8/8/8/4S3/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1",
        &["R>e2", "give rook e2", "give R e2"],
    ),
    n(
        "Moves: the piece by its letter, as a chess piece: R for a piece holding the Rook power, S for a static one (it cannot move).",
        "4k3/8/8/8/8/8/R7/4K3[] w - - 0 1",
        &["Ra5", "a2a5"],
    ),
    n(
        "Promotion: a pawn move onto the last rank trades the Pawn power for a power or a static piece for your reserve: a8=R, a8=S.",
        "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1",
        &["a8=R", "a8=S", "a7a8n"],
    ),
    n(
        "Swaps: a piece with the Castling power swaps squares with its King: swap a1 (token: the piece's square, then the King's: a1e1).",
        "4k3/8/8/8/8/8/8/C3K3[] w - - 0 1",
        &["swap a1", "a1e1"],
    ),
];

const CONSTRUCTION_SPLIT: &[Notation] = &[
    n(
        "Halves: Rook T moving, U capturing; Bishop D, E; Knight H, I; Pawn F, G. Both halves of a power are its letter (R, B, N, P; Q all four Rook and Bishop halves).",
        "4k3/8/8/8/8/8/4S3/4K3[S14T3U3D3E3H2I2F8G8C2s15t3u3d3e3h2i2f8g8c2] w - - 0 1",
        &["T>e2", "give T e2", "give rook moving half e2"],
    ),
    n(
        "Drops: a static piece from your reserve onto an empty square of your first two ranks: S@d2 (or drop d2).",
        "4k3/8/8/8/8/8/8/4K3[S15T3U3D3E3H2I2F8G8C2s15t3u3d3e3h2i2f8g8c2] w - - 0 1",
        &["S@d2", "drop d2"],
    ),
    n(
        "Moves: a piece of several powers by its group, as in the FEN: (TE)c4 moves like a rook and captures like a bishop.",
        "4k3/8/8/8/8/8/8/2(TE)1K3[] w - - 0 1",
        &["(TE)c4", "c1c4"],
    ),
    n(
        "Promotion: a Pawn half's move onto the last rank trades every Pawn half for a static piece or any one half for your reserve: a8=U, a8=S.",
        "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1",
        &["a8=U", "a8=S", "a7a8h"],
    ),
    n(
        "Swaps: a piece with the Castling power swaps squares with its King: swap a1 (token a1e1).",
        "4k3/8/8/8/8/8/8/C3K3[] w - - 0 1",
        &["swap a1", "a1e1"],
    ),
];

const CLASH: &[Notation] = &[
    n(
        "Moves: the piece's letter (as in /prices: T Rabbit, M War Machine, J Jester...) and its square.",
        "4k3/8/8/8/8/8/8/1T2K1J1 w - - 0 1",
        &["Tb3", "Jg4", "b1b3"],
    ),
    n(
        "Rabbit chains: every landing square in order (Tb3d3; token b1b3d3). A chain that leaves the board with an edge piece ends in x (Tb8x).",
        "1n2k3/8/1T6/8/8/8/8/4K3 w - - 0 1",
        &["Tb8x", "b6b8x"],
    ),
    n(
        "A chain may jump its own pieces too; only enemies are captured: here over its pawn on b2, then the enemy's on c3.",
        "4k3/8/8/8/8/2p5/1P6/1T2K3 w - - 0 1",
        &["Tb3d3", "b1b3d3"],
    ),
    n(
        "Shots: the War Machine removes a piece without moving: M^e5 (token e3^e5).",
        "4k3/8/8/4p3/8/4M3/8/4K3 w - - 0 1",
        &["M^e5", "e3^e5"],
    ),
    n(
        "The shield: D raises the Shielderer's shield, once a game, as a whole turn.",
        "4k3/8/8/8/8/8/8/4S3 w D - 0 1",
        &["D"],
    ),
    n(
        "Promotion: a peasant on the last rank becomes any Light, Heavy or Jewel piece but the Amazon: a8=T.",
        "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        &["a8=T", "a8=Q", "a7a8m"],
    ),
];

/// How `variant` writes its moves.
pub(crate) fn notation(variant: &Variant) -> &'static [Notation] {
    match variant.id {
        "chess" => CHESS,
        "olympic" => OLYMPIC,
        "alapawn" => ALAPAWN,
        "alapawn-balanced" => ALAPAWN_BALANCED,
        "absorption" => ABSORPTION,
        "construction" => CONSTRUCTION,
        "construction-split" => CONSTRUCTION_SPLIT,
        "clash" => CLASH,
        _ => &[],
    }
}

/// What a move looks like in `variant`, for someone whose move could not be
/// read at all: the examples of its plain moves, and where to look.
pub(crate) fn how_moves_look(variant: &Variant) -> String {
    let points = notation(variant);
    let moves = points.iter().find(|p| p.words.starts_with("Moves")).or(points.first());
    let examples: Vec<String> = moves.map_or(&[][..], |p| p.examples).iter().take(3).map(|e| e.to_string()).collect();
    let shape = if examples.is_empty() { String::new() } else { format!("Moves look like {}; ", or_list(&examples)) };
    format!("{shape}/moves lists yours, and /help notation {} explains the notation.", variant.id)
}

/// `/help notation VARIANT`'s text.
pub(crate) fn notation_text(variant: &Variant) -> String {
    let mut s = format!("How {} writes moves (type them in a game, or after /move):", variant.name);
    for point in notation(variant) {
        s.push_str("\n• ");
        s.push_str(point.words);
        s.push_str(" Examples: ");
        s.push_str(&point.examples.join(", "));
        s.push('.');
    }
    s.push_str("\nI answer with the move's token (e2e4) as well; other tools read those.");
    s
}

#[cfg(test)]
mod tests {
    use kibitz_rules::Position;

    use super::*;
    use crate::command::{self, ParseError};

    #[test]
    fn every_command_is_explained_with_an_example_that_reads() {
        for (name, _) in command::USAGE {
            let (_, words, example) =
                COMMANDS.iter().find(|(c, _, _)| c == name).unwrap_or_else(|| panic!("/{name} has no help"));
            assert!(words.len() > 10, "/{name}");
            let read = command::parse(example, "kibitz");
            assert!(!matches!(read, Err(ParseError::Unknown { .. }) | Err(ParseError::NotACommand)), "{example}");
            assert!(read.is_ok(), "{example}: {read:?}");
            assert!(example.starts_with(&format!("/{name}")), "{example}");
            let groups = GROUPS.iter().filter(|(_, list)| list.contains(name)).count();
            assert_eq!(groups, 1, "/{name} is in {groups} groups");
        }
        assert_eq!(COMMANDS.len(), command::USAGE.len());
    }

    #[test]
    fn an_unreadable_move_is_answered_with_the_shape_of_the_games_moves() {
        let chess = Variant::by_id("chess").unwrap();
        assert_eq!(
            how_moves_look(chess),
            "Moves look like e4, Nf3 or e2e4; /moves lists yours, and /help notation chess explains the notation."
        );
        let construction = Variant::by_id("construction").unwrap();
        assert!(how_moves_look(construction).starts_with("Moves look like Ra5 or a2a5;"));
        for v in kibitz_rules::VARIANTS {
            let text = how_moves_look(v);
            assert!(text.starts_with("Moves look like "), "{}: {text}", v.id);
            assert!(text.ends_with(&format!("/help notation {} explains the notation.", v.id)));
        }
    }

    #[test]
    fn every_notation_example_is_legal_where_it_is_shown() {
        for v in kibitz_rules::VARIANTS {
            assert!(!notation(v).is_empty(), "{}", v.id);
            for point in notation(v) {
                let pos = Position::from_fen(v, point.fen).unwrap_or_else(|e| panic!("{}: {}: {e}", v.id, point.fen));
                for ex in point.examples {
                    assert!(pos.parse_move(ex).is_ok(), "{}: {ex} in {}: {:?}", v.id, point.fen, pos.parse_move(ex));
                }
            }
        }
    }
}
