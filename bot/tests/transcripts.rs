//! Transcript tests: chat sessions in `tests/transcripts/*.txt`, played
//! through the console adapter and the core, compared line by line.
//!
//! A transcript is the console's input with the expected output below each
//! line:
//!
//! ```text
//! # a comment
//! alice: /challenge @bob white
//! < kibitz: <what the bot answers>
//! <   [picture: {*}]
//! !restart
//! ```
//!
//! `<` lines are the output expected from the input line above them, in
//! order; `{*}` in them matches anything. `!restart` closes the database and
//! opens it again, as a restart of the bot would. `!reviews` runs the
//! reviews owed (of the games that ended) to the end and shows them, so that
//! a transcript does not depend on when a background review ends; reviews
//! search to a fixed depth. Game ids and colours drawn
//! by lot come from a seeded generator, so they are the same on every run.
//!
//! Messages are sent at fixed times, from Friday 2 January 2026 12:00:00
//! UTC, each a millisecond after the one before, so that clocks and
//! deadlines read the same on every run. `!at MM:SS` (or `!at H:MM:SS`)
//! moves the console's clock to that long after 12:00:00 and runs the
//! clocks; what they say is expected below it.
//!
//! `KIBITZ_BLESS=1` rewrites the expected lines from what the bot answers
//! now; review the diff before committing it. `KIBITZ_TRANSCRIPT=NAME`
//! plays only the transcripts whose file names contain NAME.

use std::path::{Path, PathBuf};

use kibitz_bot::console::Console;
use kibitz_bot::core::{Core, CoreConfig};
use kibitz_storage::{Store, Timestamp};

fn matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split("{*}").collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else { return false };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(j) => rest = &rest[j + part.len()..],
                None => return false,
            }
        }
    }
    true
}

/// Friday 2 January 2026, 12:00:00 UTC: when transcripts are played.
const START: u64 = 1_767_355_200_000;

fn open(db: &Path, pictures: &Path, at: Timestamp) -> Console {
    let store = Store::open(db).expect("store opens");
    // Hints searched to a fixed depth, so that they are the same on every machine.
    // Reviews too, so that they read the same everywhere.
    let config = CoreConfig {
        hint_time: std::time::Duration::from_secs(60),
        hint_depth: 3,
        review_time: std::time::Duration::from_secs(60),
        review_depth: 4,
        ..CoreConfig::default()
    };
    let mut console = Console::new(Core::new(store, config), pictures);
    console.set_time(at);
    console
}

/// `MM:SS` or `H:MM:SS` after [`START`].
fn offset(text: &str) -> Option<Timestamp> {
    let parts: Vec<u64> = text.trim().split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let seconds = match parts.as_slice() {
        [m, s] if *s < 60 => m * 60 + s,
        [h, m, s] if *m < 60 && *s < 60 => h * 3600 + m * 60 + s,
        _ => return None,
    };
    Some(Timestamp(START + seconds * 1000))
}

/// Plays one transcript; returns the text it should have (for blessing) and
/// the mismatches.
fn play(path: &Path) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (db, pictures) = (dir.path().join("db"), dir.path().join("out"));
    fastrand::seed(2026);
    let mut now = Timestamp(START);
    let mut console = Some(open(&db, &pictures, now));
    let mut blessed = String::new();
    let mut errors = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.starts_with('<') {
            continue;
        }
        blessed.push_str(line);
        blessed.push('\n');
        if line.trim() == "!restart" {
            drop(console.take());
            console = Some(open(&db, &pictures, now));
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let out = match line.trim().strip_prefix("!at ") {
            _ if line.trim() == "!reviews" => console.as_mut().unwrap().reviews(),
            Some(when) => {
                now = offset(when).unwrap_or_else(|| panic!("{}: `{line}` is no time (MM:SS)", path.display()));
                let console = console.as_mut().unwrap();
                console.set_time(now);
                console.tick()
            }
            None => {
                let out = console.as_mut().unwrap().line(line);
                // Each message a moment after the one before (the archive
                // orders games that ended by when).
                now = Timestamp(now.0 + 1);
                console.as_mut().unwrap().set_time(now);
                out
            }
        };
        let mut expected = Vec::new();
        while i < lines.len() && lines[i].starts_with('<') {
            expected.push(lines[i].strip_prefix("< ").unwrap_or(&lines[i][1..]).to_string());
            i += 1;
        }
        for (n, actual) in out.iter().enumerate() {
            // Picture paths and the PGN's date change from run to run.
            let picture = actual.find("  [picture: ").filter(|&i| i == 0 || actual.starts_with("[#"));
            let shown = if let Some(i) = picture {
                // A replay is an animated GIF, and written as such.
                let kind = if actual.ends_with(".gif]") { ".gif" } else { "" };
                format!("{}  [picture: {{*}}{kind}]", &actual[..i])
            } else if actual.starts_with("  [file: ") {
                "  [file: {*}.pgn]".to_string()
            } else if actual.starts_with("kibitz: [Date \"") {
                "kibitz: [Date \"{*}\"]".to_string()
            } else {
                actual.clone()
            };
            let keep = expected.get(n).filter(|e| matches(e, actual)).cloned().unwrap_or(shown);
            blessed.push_str(&format!("< {keep}\n"));
        }
        if out.len() != expected.len() || out.iter().zip(&expected).any(|(a, e)| !matches(e, a)) {
            errors.push(format!(
                "{}:{i}: after `{line}`\n  expected:\n    {}\n  got:\n    {}",
                path.display(),
                expected.join("\n    "),
                out.join("\n    ")
            ));
        }
    }
    (blessed, errors)
}

#[test]
fn transcripts() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/transcripts");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    // `KIBITZ_TRANSCRIPT=NAME` plays the transcripts whose names contain NAME.
    if let Some(only) = std::env::var_os("KIBITZ_TRANSCRIPT") {
        let only = only.to_string_lossy().to_string();
        files.retain(|f| f.file_name().is_some_and(|n| n.to_string_lossy().contains(&only)));
    }
    files.sort();
    assert!(!files.is_empty(), "no transcripts in {}", dir.display());
    let bless = std::env::var_os("KIBITZ_BLESS").is_some();
    let mut failures = Vec::new();
    for f in &files {
        let (blessed, errors) = play(f);
        if bless {
            std::fs::write(f, blessed).unwrap();
        } else {
            failures.extend(errors);
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn wildcards() {
    assert!(matches("a{*}c", "abbbc"));
    assert!(matches("{*}", ""));
    assert!(matches("x{*}y{*}z", "x1y2z"));
    assert!(!matches("a{*}c", "abd"));
    assert!(matches("plain*", "plain*"));
    assert!(!matches("plain*", "plainx"));
}
