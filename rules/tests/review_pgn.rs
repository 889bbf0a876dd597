//! The reviewed PGN read back by an independent PGN reader: the moves are
//! the game's and legal, the symbols sit on the flagged moves, every eval
//! comment carries the review's score, and each variation starts with the
//! better move and is legal where it branches off.

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kibitz_rules::review::{Judgement, ReviewOptions, review_game};
use kibitz_rules::{Game, Variant};
use pgn_reader::{Nag, RawComment, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Chess, Position as _};

/// One move of the main line, with what follows it.
#[derive(Debug, Default)]
struct Read {
    san: String,
    position_before: Chess,
    nags: Vec<u8>,
    comments: Vec<String>,
    /// The variations that follow, each as its SANs.
    variations: Vec<Vec<String>>,
}

#[derive(Default)]
struct Moves {
    main: Vec<Read>,
    board: Chess,
    depth: usize,
}

struct Collect;

impl Visitor for Collect {
    type Tags = ();
    type Movetext = Moves;
    type Output = Moves;

    fn begin_tags(&mut self) -> ControlFlow<Moves, ()> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<Moves, Moves> {
        ControlFlow::Continue(Moves::default())
    }

    fn san(&mut self, m: &mut Moves, san_plus: SanPlus) -> ControlFlow<Moves> {
        let text = san_plus.to_string();
        if m.depth == 0 {
            let mv = san_plus.san.to_move(&m.board).expect("a legal move of the main line");
            m.main.push(Read { san: text, position_before: m.board.clone(), ..Read::default() });
            m.board = m.board.clone().play(mv).unwrap();
        } else if let Some(last) = m.main.last_mut() {
            last.variations.last_mut().unwrap().push(text);
        }
        ControlFlow::Continue(())
    }

    fn nag(&mut self, m: &mut Moves, nag: Nag) -> ControlFlow<Moves> {
        if m.depth == 0 {
            m.main.last_mut().unwrap().nags.push(nag.0);
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, m: &mut Moves, comment: RawComment<'_>) -> ControlFlow<Moves> {
        if m.depth == 0 {
            let text = String::from_utf8(comment.as_bytes().to_vec()).unwrap();
            m.main.last_mut().unwrap().comments.push(text.trim().to_string());
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, m: &mut Moves) -> ControlFlow<Moves, Skip> {
        m.depth += 1;
        m.main.last_mut().unwrap().variations.push(Vec::new());
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, m: &mut Moves) -> ControlFlow<Moves> {
        m.depth -= 1;
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: Moves) -> Moves {
        m
    }
}

#[test]
fn reviewed_pgn_reads_back() {
    let mut game = Game::new(Variant::by_id("chess").unwrap());
    for m in ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qf3", "Nd4", "Qd3", "d5", "Bxd5", "Nxd5", "exd5", "Qxd5"] {
        game.play_text(m).unwrap();
    }
    let options = ReviewOptions { time_per_position: Duration::from_secs(120), max_depth: 5, draw_odds: None };
    let review = review_game(game.start(), game.moves(), &options, &AtomicBool::new(false), &mut |_, _| {}).unwrap();
    assert!(review.plies.iter().any(|p| p.judgement == Some(Judgement::Blunder)));
    let pgn = game.pgn_reviewed(&[("White", "alice"), ("Black", "bob")], &[(2, "a hint")], &review);

    let read = Reader::new(pgn.as_bytes()).read_game(&mut Collect).unwrap().expect("one game");
    assert_eq!(read.main.len(), review.plies.len(), "{pgn}");
    for (p, r) in review.plies.iter().zip(&read.main) {
        assert_eq!(r.san, p.san, "{pgn}");
        let nags: Vec<u8> = p.judgement.map(|j| j.nag_number()).into_iter().collect();
        assert_eq!(r.nags, nags, "{} in {pgn}", p.san);
        let eval = format!("[%eval {}]", p.after.eval_text());
        assert!(r.comments.contains(&eval), "{eval} after {} in {pgn}", p.san);
        // The eval in pawns, as another tool reads it.
        let shown = eval.trim_start_matches("[%eval ").trim_end_matches(']');
        if let Some(cp) = p.after.cp_of(kibitz_rules::Color::White) {
            let pawns: f64 = shown.parse().unwrap();
            assert!((pawns * 100.0 - f64::from(cp)).abs() < 0.5, "{shown} for {cp}");
        } else {
            assert!(shown.starts_with('#'), "{shown}");
        }
        match p.judgement {
            Some(j) => {
                let best = p.best_san.as_deref().unwrap();
                assert!(r.comments.contains(&format!("{}. {best} was best.", j.name())), "{pgn}");
                assert_eq!(r.variations.len(), 1, "{pgn}");
                let line = &r.variations[0];
                assert_eq!(line, &p.best_line, "{pgn}");
                let mut board = r.position_before.clone();
                for san in line {
                    let mv = san.parse::<shakmaty::san::San>().unwrap().to_move(&board).expect("legal line");
                    board = board.play(mv).unwrap();
                }
            }
            None => assert!(r.variations.is_empty(), "{pgn}"),
        }
    }
    assert!(read.main[2].comments.contains(&"a hint".to_string()));
    assert_eq!(["?!", "?", "??"].map(|s| s.parse::<Nag>().unwrap().0), [6, 2, 4]);
    assert_eq!(
        [Judgement::Inaccuracy, Judgement::Mistake, Judgement::Blunder].map(|j| j.nag().parse::<Nag>().unwrap().0),
        [6, 2, 4]
    );
}
