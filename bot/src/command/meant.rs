//! What a word that names nothing most likely meant: for an unknown command,
//! a word other bots and chess sites use for one of ours (`/undo` for
//! `/takeback`) or one of ours mistyped (`/chalenge`, `/mvoe`); for a game
//! or a piece, the name it is a slip of the keys away from. Only ever
//! suggested, never acted on: a guess that resigned a game or played a move
//! would be worse than none.

use super::USAGE;

/// Words people bring from elsewhere, and the command that does that here.
const OTHER_NAMES: &[(&str, &str)] = &[
    ("undo", "takeback"),
    ("back", "takeback"),
    ("rating", "stats"),
    ("ratings", "stats"),
    ("elo", "stats"),
    ("profile", "stats"),
    ("score", "stats"),
    ("top", "leaderboard"),
    ("ranking", "leaderboard"),
    ("rankings", "leaderboard"),
    ("ladder", "leaderboard"),
    ("leaders", "leaderboard"),
    ("forfeit", "resign"),
    ("surrender", "resign"),
    ("giveup", "resign"),
    ("quit", "resign"),
    ("legal", "moves"),
    ("show", "board"),
    ("position", "board"),
    ("status", "board"),
    ("new", "challenge"),
    ("newgame", "challenge"),
    ("invite", "challenge"),
    ("duel", "challenge"),
    ("suggest", "hint"),
    ("tip", "hint"),
    ("bestmove", "hint"),
    ("abandon", "abort"),
    ("variant", "variants"),
    ("mygames", "games"),
    ("list", "games"),
    ("rule", "rules"),
    ("pieces", "piece"),
    ("replay", "gif"),
    ("animation", "gif"),
    ("analyse", "review"),
    ("analyze", "review"),
    ("analysis", "review"),
    ("again", "rematch"),
    ("export", "pgn"),
    ("commands", "help"),
    ("offer", "draw"),
    ("clock", "board"),
    ("time", "board"),
    ("timer", "board"),
    ("withdraw", "cancel"),
    ("retract", "cancel"),
    ("concede", "resign"),
    ("offerdraw", "draw"),
    ("history", "pgn"),
    ("movelist", "pgn"),
    ("flip", "board"),
];

/// The command an unknown command word (lower case, not one of ours) most
/// likely meant:
/// another name for it, else the one it is a slip of the keys away from
/// (one letter wrong, missing, extra, or two swapped; two slips in a longer
/// word), the nearest if several are.
pub fn meant(word: &str) -> Option<&'static str> {
    if let Some((_, ours)) = OTHER_NAMES.iter().find(|(other, _)| *other == word) {
        return Some(ours);
    }
    nearest(word, USAGE.iter().map(|(command, _)| *command))
}

/// The one of `names` that `word` is a slip of the keys away from (one
/// slip in a word of four letters or fewer, two in a longer one), the
/// first of the nearest if several are. Neither is lower-cased here.
pub fn nearest<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let names: Vec<&str> = names.into_iter().collect();
    nearest_index(word, &names).map(|i| names[i])
}

/// [`nearest`], as the place of the name in `names`.
pub fn nearest_index<S: AsRef<str>>(word: &str, names: &[S]) -> Option<usize> {
    let allowed = if word.chars().count() <= 4 { 1 } else { 2 };
    names
        .iter()
        .enumerate()
        .map(|(i, name)| (slips(word, name.as_ref()), i, name.as_ref().len()))
        .filter(|&(d, _, len)| d <= allowed && d < len)
        .min_by_key(|&(d, _, _)| d)
        .map(|(_, i, _)| i)
}

/// The game whose id `word` (any case) is a slip of the keys away from
/// (`olympc` for `olympic`).
pub fn game(word: &str) -> Option<&'static str> {
    nearest(&word.to_ascii_lowercase(), kibitz_rules::VARIANTS.iter().map(|v| v.id))
}

/// A game named in words at the start of `words` (`alapawn balanced`,
/// `power absorption`, `Clash of the Armies`, `construction chess with
/// split powers`), with how many words it took; two words at least (one
/// word is an id, or a slip of one).
pub fn spoken_game(words: &[&str]) -> Option<(&'static str, usize)> {
    for n in (2..=words.len().min(6)).rev() {
        let phrase = words[..n].join(" ").to_lowercase();
        for v in kibitz_rules::VARIANTS {
            let name = v.name.to_lowercase();
            let forms =
                [Some(v.id.replace('-', " ")), Some(name.clone()), name.strip_suffix(" chess").map(str::to_string)];
            if forms.iter().flatten().any(|f| *f == phrase) {
                return Some((v.id, n));
            }
        }
    }
    None
}

/// Whether a command word reads as a move (`e4`, `Nf3`, `exd5`, `e2e4`,
/// `e8=Q`): a square at its end or before a promotion, and nothing but what
/// moves are written with.
pub(super) fn a_move(word: &str) -> bool {
    let body = word.trim_end_matches(['+', '#', '!', '?']);
    let body = match body.rsplit_once('=') {
        Some((before, piece)) if piece.len() == 1 && piece.chars().all(|c| c.is_ascii_alphabetic()) => before,
        _ => body,
    };
    let b = body.as_bytes();
    (2..=7).contains(&b.len())
        && b[b.len() - 1].is_ascii_digit()
        && b[b.len() - 1] != b'0'
        && (b'a'..=b'h').contains(&b[b.len() - 2])
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
}

/// The fewest slips that turn `a` into `b`: a letter changed, left out or
/// added, or two neighbours swapped (optimal string alignment distance).
fn slips(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the table of distances between prefixes.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let change = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + change);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut last, row);
    }
    last[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips_count_changes_gaps_extras_and_swaps() {
        assert_eq!(slips("move", "move"), 0);
        assert_eq!(slips("mvoe", "move"), 1);
        assert_eq!(slips("mov", "move"), 1);
        assert_eq!(slips("moove", "move"), 1);
        assert_eq!(slips("nove", "move"), 1);
        assert_eq!(slips("chalenge", "challenge"), 1);
        assert_eq!(slips("chalenga", "challenge"), 2);
        assert_eq!(slips("", "draw"), 4);
        assert_eq!(slips("draw", ""), 4);
    }

    #[test]
    fn other_names_and_slips_find_our_commands() {
        for (word, ours) in [
            ("undo", "takeback"),
            ("rating", "stats"),
            ("forfeit", "resign"),
            ("chalenge", "challenge"),
            ("challange", "challenge"),
            ("mvoe", "move"),
            ("hlep", "help"),
            ("boadr", "board"),
            ("leaderbord", "leaderboard"),
            ("resing", "resign"),
            ("takback", "takeback"),
            ("varients", "variants"),
        ] {
            assert_eq!(meant(word), Some(ours), "{word}");
        }
    }

    #[test]
    fn words_far_from_every_command_get_no_guess() {
        for word in ["fly", "xyzzy", "weather", "k", "ab", "preferences"] {
            assert_eq!(meant(word), None, "{word}");
        }
    }

    #[test]
    fn moves_typed_as_commands_are_told_apart() {
        for word in ["e4", "Nf3", "exd5", "e2e4", "e8=Q", "Qxf7#", "Rae1"] {
            assert!(a_move(word), "{word}");
        }
        for word in ["help", "move", "p", "e", "4", "e0", "k2k4k5k6", "fen2", "ab12"] {
            assert!(!a_move(word), "{word}");
        }
    }

    #[test]
    fn every_other_name_leads_to_a_command_of_ours() {
        for (other, ours) in OTHER_NAMES {
            assert!(USAGE.iter().any(|(c, _)| c == ours), "{other} -> {ours}");
            assert!(!USAGE.iter().any(|(c, _)| c == other), "{other} is ours already");
        }
    }
}
