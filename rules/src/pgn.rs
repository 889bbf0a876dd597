//! PGN export.

use std::fmt::Write;

use crate::game::Game;
use crate::types::Color;

impl Game {
    /// The game as PGN: the seven-tag roster from `tags` (missing ones are
    /// `?`), a `Variant` tag outside chess, a `Handicap` tag for Power
    /// Absorption's handicaps (PA7), `SetUp`/`FEN` when the game did
    /// not start from the variant's start position, the moves in SAN and the
    /// result (from a `Result` tag if given, else the rules). `comments` are `(ply, text)` pairs written after that ply's
    /// move (the bot marks hints this way).
    pub fn pgn(&self, tags: &[(&str, &str)], comments: &[(usize, &str)]) -> String {
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
        for (ply, m) in self.moves().iter().enumerate() {
            let number = pos.fullmoves();
            if pos.turn() == Color::White {
                tokens.push(format!("{number}."));
            } else if ply == 0 {
                tokens.push(format!("{number}..."));
            }
            tokens.push(pos.san(m));
            for (_, text) in comments.iter().filter(|(p, _)| *p == ply) {
                tokens.push(format!("{{{}}}", text.replace(['{', '}'], "")));
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
    fn pa7_handicap_tag() {
        let v = Variant::by_id("absorption").unwrap();
        let start = format!("{} h:W=plain,B=nopawn+noqueen", v.start_fen);
        let g = Game::from_position(crate::Position::from_fen(v, &start).unwrap());
        let pgn = g.pgn(&[], &[]);
        assert!(pgn.contains("[Handicap \"White plain, Black nopawn noqueen\"]\n"), "{pgn}");
        assert!(!pgn.contains("FEN"), "{pgn}");
    }
}
