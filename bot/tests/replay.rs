//! Replays in the chat core: a finished game posts its animated GIF, and
//! `/gif` draws one from the asker's side; the GIFs decoded with `image`.

use image::AnimationDecoder;
use image::codecs::gif::GifDecoder;
use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_storage::{Store, Timestamp};

fn core(dir: &std::path::Path) -> Core {
    Core::new(Store::open(dir).unwrap(), CoreConfig { board_size: 240, ..CoreConfig::default() })
}

fn say(core: &Core, who: &str, text: &str) -> Vec<Reply> {
    let msg = Incoming {
        platform: "test".into(),
        channel: "c1".into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: None,
        at: Timestamp(1),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn frames(gif: &[u8]) -> Vec<image::RgbaImage> {
    let decoder = GifDecoder::new(std::io::Cursor::new(gif)).expect("a GIF");
    decoder.into_frames().collect_frames().expect("frames decode").into_iter().map(|f| f.into_buffer()).collect()
}

/// Mean difference per channel.
fn mean_difference(a: &image::RgbaImage, b: &image::RgbaImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let sum: u64 =
        a.pixels().zip(b.pixels()).map(|(p, q)| (0..3).map(|i| u64::from(p[i].abs_diff(q[i]))).sum::<u64>()).sum();
    sum as f64 / (f64::from(a.width() * a.height()) * 3.0)
}

const MATE: [&str; 7] = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];

fn mated(core: &Core) -> Vec<Reply> {
    say(core, "alice", "/challenge @bob chess white");
    say(core, "bob", "/accept");
    let mut last = Vec::new();
    for (i, m) in MATE.iter().enumerate() {
        last = say(core, if i % 2 == 0 { "alice" } else { "bob" }, m);
    }
    last
}

#[test]
fn a_finished_game_posts_its_replay() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    // The mate's answer, then what follows a game's end (posted as notices
    // to the game's channel).
    let mut replies = mated(&core);
    replies.extend(core.take_notices("test").into_iter().map(|(_, r)| r));
    let gifs: Vec<&Reply> = replies.iter().filter(|r| r.picture.as_ref().is_some_and(|p| p.is_animation())).collect();
    assert_eq!(gifs.len(), 1, "one replay after the mate: {replies:?}");
    let picture = gifs[0].picture.as_ref().unwrap();
    assert!(picture.name.ends_with(".gif"), "{}", picture.name);
    let frames = frames(&picture.bytes);
    assert_eq!(frames.len(), MATE.len() + 1);
    // The last frame is the final board from White's side, as /board shows it.
    let board = say(&core, "alice", "/board");
    let png = board.iter().find_map(|r| r.picture.as_ref()).expect("a board picture");
    assert!(!png.is_animation());
    let final_board = image::load_from_memory(&png.bytes).unwrap().to_rgba8();
    let d = mean_difference(&frames[MATE.len()], &final_board);
    assert!(d < 2.5, "last frame against the final board: mean difference {d:.2}");
    let d = mean_difference(&frames[0], &final_board);
    assert!(d > 2.5, "the first frame is the start, not the end: {d:.2}");
}

#[test]
fn gif_replays_from_the_askers_side_and_refuses_unknown_games() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    mated(&core);
    let white = say(&core, "alice", "/gif");
    let black = say(&core, "bob", "/gif");
    let gif = |r: &[Reply]| frames(&r[0].picture.as_ref().expect("a replay").bytes);
    let (w, b) = (gif(&white), gif(&black));
    assert_eq!(w.len(), MATE.len() + 1);
    assert_eq!(b.len(), w.len());
    assert!(mean_difference(&w[0], &b[0]) > 2.5, "Black's replay is seen from Black's side");
    let unknown = say(&core, "alice", "/gif zzzz");
    assert!(unknown[0].picture.is_none() && unknown[0].text.contains("zzzz"), "{unknown:?}");
}
