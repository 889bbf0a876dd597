//! Secrets kept out of every output: the bot tokens are registered once at
//! startup (from the configuration file, even one that cannot be read, and
//! from the environment), and every log line and error the `kibitz` binary
//! prints passes through [`redact`] first.
//!
//! Besides the registered tokens, anything shaped like a Telegram token
//! (`123456:` and 30 or more letters, digits, `_` or `-`) is redacted too,
//! wherever it comes from.

use std::io::{self, Write};
use std::sync::RwLock;

use tracing_subscriber::fmt::MakeWriter;

/// What a secret becomes.
pub const REDACTED: &str = "[redacted]";

/// Shorter texts are not taken for secrets (no real token is that short;
/// redacting them would mangle every line).
const SHORTEST: usize = 6;

/// The shortest tail of a Telegram token after its `digits:`.
const TELEGRAM_TAIL: usize = 30;

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Adds a secret to redact from now on.
pub fn register(secret: &str) {
    let secret = secret.trim();
    if secret.chars().count() < SHORTEST {
        return;
    }
    let mut all = SECRETS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    if !all.iter().any(|s| s == secret) {
        all.push(secret.to_string());
        // The longest first, so that a secret containing another goes whole.
        all.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// `text` with every registered secret and every Telegram-shaped token
/// replaced by [`REDACTED`].
pub fn redact(text: &str) -> String {
    let mut out = text.to_string();
    {
        let all = SECRETS.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        for secret in all.iter() {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
    }
    redact_telegram_shaped(&out)
}

fn tail_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Replaces `DIGITS:TAIL` (TAIL of 30 or more token characters) with [`REDACTED`].
fn redact_telegram_shaped(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        // The start of a run of digits.
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit()) {
            let digits_end = i + bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            if bytes.get(digits_end) == Some(&b':') {
                let tail = bytes[digits_end + 1..].iter().take_while(|&&b| tail_byte(b)).count();
                if tail >= TELEGRAM_TAIL {
                    // Every byte matched is ASCII: the cuts fall on character boundaries.
                    out.push_str(&text[copied..i]);
                    out.push_str(REDACTED);
                    i = digits_end + 1 + tail;
                    copied = i;
                    continue;
                }
            }
            i = digits_end;
            continue;
        }
        i += 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// The values given to `token` keys in a configuration file's text, read
/// loosely, so that even a file with a syntax error has its tokens
/// registered before anything about it is printed.
pub fn tokens_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find("token") {
            let after = rest[at + "token".len()..].trim_start_matches(['"', '\'']).trim_start();
            rest = &rest[at + "token".len()..];
            let Some(value) = after.strip_prefix('=') else { continue };
            let value = value.trim_start();
            let taken = match value.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let inner = value.trim_start_matches(q);
                    inner.split(q).next().unwrap_or(inner)
                }
                _ => value.split(|c: char| c.is_whitespace() || c == ',' || c == '}' || c == '#').next().unwrap_or(""),
            };
            if !taken.is_empty() {
                found.push(taken.to_string());
            }
            // The whole rest of the line too: a broken quote may hide where the value ends.
            found.push(value.trim_end().to_string());
        }
    }
    found
}

/// A [`MakeWriter`] for `tracing_subscriber` whose lines pass through
/// [`redact`] before they reach `inner`.
pub struct Redacting<M>(pub M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Redacting<M> {
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter { buffer: Vec::new(), inner: self.0.make_writer() }
    }
}

/// One event's output, held until it is complete, then redacted and written.
pub struct RedactingWriter<W: Write> {
    buffer: Vec<u8>,
    inner: W,
}

impl<W: Write> RedactingWriter<W> {
    fn pass_on(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let text = redact(&String::from_utf8_lossy(&self.buffer));
        self.buffer.clear();
        self.inner.write_all(text.as_bytes())?;
        self.inner.flush()
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // A partial line could split a secret: lines go out whole.
        match self.buffer.iter().rposition(|&b| b == b'\n') {
            Some(end) => {
                let rest = self.buffer.split_off(end + 1);
                let result = self.pass_on();
                self.buffer = rest;
                result
            }
            None => Ok(()),
        }
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        let _ = self.pass_on();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_secrets_and_telegram_shaped_tokens_are_redacted() {
        register("discord-secret-abc.def");
        register("abc");
        let line =
            "GET /bot123456789:AAHfake_token-with-enough-characters-0123/getMe failed; Bot discord-secret-abc.def";
        assert_eq!(redact(line), "GET /bot[redacted]/getMe failed; Bot [redacted]");
        assert_eq!(redact("abc 12:34 game 1:ab"), "abc 12:34 game 1:ab", "short texts are no secrets");
        assert_eq!(redact("é 42:ééé"), "é 42:ééé");
    }

    #[test]
    fn tokens_are_found_in_broken_files() {
        let text = "[telegram]\ntoken = \"123:abc\" # mine\n[discord]\ntoken = 'xyz\nproxy = 5\ntelegram.token=bare,\n";
        let found = tokens_in(text);
        for t in ["123:abc", "xyz", "bare"] {
            assert!(found.iter().any(|f| f == t), "{t} not in {found:?}");
        }
        assert!(tokens_in("[bot]\nname = \"token\"\n").is_empty());
    }

    #[test]
    fn the_writer_redacts_whole_lines() {
        register("writer-secret-1234");
        let make = Redacting(Vec::<u8>::new);
        let mut w = make.make_writer();
        w.write_all(b"one writer-sec").unwrap();
        w.flush().unwrap();
        assert!(w.inner.is_empty(), "half a line is held back");
        w.write_all(b"ret-1234 two\nthree").unwrap();
        w.flush().unwrap();
        assert_eq!(String::from_utf8_lossy(&w.inner), "one [redacted] two\n");
        w.pass_on().unwrap();
        assert_eq!(String::from_utf8_lossy(&w.inner), "one [redacted] two\nthree");
    }
}
