//! PGN export.

use std::fmt::Write;

use crate::game::Game;
use crate::review::{GameReview, PlyReview};
use crate::types::Color;

impl Game {
    /// The game as PGN: the seven-tag roster from `tags` (missing ones are
    /// `?`), a `Variant` tag outside chess, a `Handicap` tag for Power
    /// Absorption's handicaps (PA7), `SetUp`/`FEN` when the game did
    /// not start from the variant's start position, the moves in SAN and the
    /// result (from a `Result` tag if given, else the rules). `comments` are `(ply, text)` pairs written after that ply's
    /// move (the bot marks hints this way).
    pub fn pgn(&self, tags: &[(&str, &str)], comments: &[(usize, &str)]) -> String {
        self.write_pgn(tags, comments, None)
    }

    /// The game as PGN with its review, as lichess writes an analysed game:
    /// after each move its evaluation as `{ [%eval 0.35] }` (pawns, White's
    /// side; `#3` / `#-2` for mates; none after the move that ends the
    /// game), the symbol of a flagged move after its SAN (`Qg5??`), and for
    /// a flagged move a comment such as `{ Blunder. Nc6 was best. }` with
    /// the expected line as a variation. Tags and `comments` as in
    /// [`Game::pgn`]. A review of another game is ignored where its moves
    /// differ.
    pub fn pgn_reviewed(&self, tags: &[(&str, &str)], comments: &[(usize, &str)], review: &GameReview) -> String {
        self.write_pgn(tags, comments, Some(review))
    }

    fn write_pgn(&self, tags: &[(&str, &str)], comments: &[(usize, &str)], review: Option<&GameReview>) -> String {
        let start = self.start();
        let variant = start.variant();
        // A result decided outside the rules (resignation, agreement, time)
        // comes as a `Result` tag.
        let given = tags.iter().find(|(n, _)| *n == "Result").map(|(_, v)| *v).filter(|v| *v != "*");
        let result = given.or(self.outcome().map(|o| o.score())).unwrap_or("*");
        let mut out = String::new();
        let tag = |out: &mut String, name: &str, value: &str| {
            let value = value.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(out, "[{name} \"{value}\"]");
        };
        for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
            let value = tags.iter().find(|(n, _)| *n == name).map_or("?", |(_, v)| v);
            tag(&mut out, name, value);
        }
        tag(&mut out, "Result", result);
        for (name, value) in tags {
            if !["Event", "Site", "Date", "Round", "White", "Black", "Result", "Variant", "FEN", "SetUp"].contains(name)
            {
                tag(&mut out, name, value);
            }
        }
        if variant.id != "chess" {
            tag(&mut out, "Variant", variant.name);
        }
        // PA7: the handicaps have a tag of their own (`White plain`), and the
        // FEN tag is written without them, as other programs read it.
        let handicaps = start.handicaps();
        if !handicaps.is_none() {
            tag(&mut out, "Handicap", &handicaps.to_string());
        }
        let fen = match start.clone().with_handicaps(crate::Handicaps::NONE) {
            Ok(bare) => bare.fen(),
            Err(_) => start.fen(),
        };
        if fen != variant.start_fen {
            tag(&mut out, "SetUp", "1");
            tag(&mut out, "FEN", &fen);
        }
        out.push('\n');

        let mut tokens: Vec<String> = Vec::new();
        let mut pos = start.clone();
        // Black's move after a comment or a variation takes its number again.
        let mut interrupted = false;
        for (ply, m) in self.moves().iter().enumerate() {
            let number = pos.fullmoves();
            let san = pos.san(m);
            if pos.turn() == Color::White {
                tokens.push(format!("{number}."));
            } else if ply == 0 || (review.is_some() && interrupted) {
                tokens.push(format!("{number}..."));
            }
            let judged = review.and_then(|r| r.plies.get(ply)).filter(|p| p.san == san);
            match judged.and_then(|p| p.judgement) {
                Some(j) => tokens.push(format!("{san}{}", j.nag())),
                None => tokens.push(san),
            }
            interrupted = false;
            for (_, text) in comments.iter().filter(|(p, _)| *p == ply) {
                tokens.push(format!("{{{}}}", text.replace(['{', '}'], "")));
                interrupted = true;
            }
            if let Some(p) = judged {
                interrupted |= annotate(&mut tokens, p);
            }
            pos.play_unchecked(*m);
        }
        tokens.push(result.to_string());

        // Lines of at most 80 characters.
        let mut line = String::new();
        for t in tokens {
            if !line.is_empty() && line.len() + 1 + t.len() > 80 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&t);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }
}

/// The review's tokens after a move; whether there were any.
fn annotate(tokens: &mut Vec<String>, p: &PlyReview) -> bool {
    let before = tokens.len();
    if !matches!(p.after, crate::review::Score::Won(_)) {
        tokens.push(format!("{{ [%eval {}] }}", p.after.eval_text()));
    }
    let Some(j) = p.judgement else { return tokens.len() > before };
    match &p.best_san {
        Some(best) => tokens.push(format!("{{ {}. {best} was best. }}", j.name())),
        None => tokens.push(format!("{{ {}. }}", j.name())),
    }
    if !p.best_line.is_empty() {
        let mut number = p.number;
        let mut white = p.mover == Color::White;
        let mut line = Vec::new();
        for (i, san) in p.best_line.iter().enumerate() {
            if white {
                line.push(format!("{number}."));
            } else if i == 0 {
                line.push(format!("{number}..."));
            }
            line.push(san.clone());
            if !white {
                number += 1;
            }
            white = !white;
        }
        line[0].insert(0, '(');
        if let Some(last) = line.last_mut() {
            last.push(')');
        }
        tokens.extend(line);
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::{Game, Variant};

    #[test]
    fn fools_mate() {
        let mut g = Game::new(Variant::by_id("chess").unwrap());
        for m in ["f3", "e5", "g4", "Qh4#"] {
            g.play_text(m).unwrap();
        }
        let pgn = g.pgn(&[("White", "alice"), ("Black", "bob"), ("Event", "Kibitz")], &[(1, "hint")]);
        assert!(pgn.starts_with("[Event \"Kibitz\"]\n[Site \"?\"]\n"), "{pgn}");
        assert!(pgn.contains("[White \"alice\"]\n[Black \"bob\"]\n[Result \"0-1\"]\n"), "{pgn}");
        assert!(!pgn.contains("Variant"));
        assert!(pgn.ends_with("\n1. f3 e5 {hint} 2. g4 Qh4# 0-1\n"), "{pgn}");
    }

    #[test]
    fn variant_and_setup() {
        let v = Variant::by_id("olympic").unwrap();
        let fen = "r1s1k/2g1p/B1P2/5/K1G1R[Sb] b - - 1 1";
        let mut g = Game::from_position(crate::Position::from_fen(v, fen).unwrap());
        g.play_text("B@b4").unwrap();
        let pgn = g.pgn(&[], &[]);
        assert!(pgn.contains("[Variant \"Olympic Chess\"]"), "{pgn}");
        assert!(pgn.contains(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]")), "{pgn}");
        assert!(pgn.ends_with("\n1... B@b4 *\n"), "{pgn}");
    }

    #[test]
    fn reviewed_as_lichess_writes_it() {
        use crate::review::{GameReview, Judgement, PlyReview, Score};
        use crate::types::Color;
        let mut g = Game::new(Variant::by_id("chess").unwrap());
        let sans = ["e4", "e5", "Nf3", "Qg5", "Nxg5"];
        for m in sans {
            g.play_text(m).unwrap();
        }
        let scores = [Score::Cp(20), Score::Cp(35), Score::Cp(-5), Score::Cp(30), Score::Cp(927), Score::Mate(4)];
        let plies = sans
            .iter()
            .enumerate()
            .map(|(i, san)| PlyReview {
                ply: i,
                mover: if i % 2 == 0 { Color::White } else { Color::Black },
                san: san.to_string(),
                before: scores[i],
                after: scores[i + 1],
                best_san: Some(if i == 3 { "Nc6" } else { san }.to_string()),
                best_line: if i == 3 { vec!["Nc6".into(), "d4".into()] } else { vec![san.to_string()] },
                judgement: (i == 3).then_some(Judgement::Blunder),
                loss: 0.0,
                number: 1 + i as u32 / 2,
            })
            .collect();
        let review = GameReview::from_plies(plies);
        let pgn = g.pgn_reviewed(&[], &[(0, "hint")], &review);
        let moves = pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            moves.trim_end(),
            "1. e4 {hint} { [%eval 0.35] } 1... e5 { [%eval -0.05] } 2. Nf3 { [%eval 0.30] } 2... Qg5?? \
             { [%eval 9.27] } { Blunder. Nc6 was best. } (2... Nc6 3. d4) 3. Nxg5 { [%eval #4] } *"
        );
        // The plain export is untouched by a review's existence.
        assert!(g.pgn(&[], &[]).ends_with("\n1. e4 e5 2. Nf3 Qg5 3. Nxg5 *\n"));
    }

    #[test]
    fn pa7_handicap_tag() {
        let v = Variant::by_id("absorption").unwrap();
        let start = format!("{} h:W=plain,B=nopawn+noqueen", v.start_fen);
        let g = Game::from_position(crate::Position::from_fen(v, &start).unwrap());
        let pgn = g.pgn(&[], &[]);
        assert!(pgn.contains("[Handicap \"White plain, Black nopawn noqueen\"]\n"), "{pgn}");
        assert!(!pgn.contains("FEN"), "{pgn}");
    }
}
