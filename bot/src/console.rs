//! The console adapter: a local chat in the terminal.
//!
//! Each input line is `NAME: MESSAGE`, or just a message after `/as NAME`;
//! `/in CHANNEL` moves to another channel, and `/in @kibitz` to the private
//! chats with the bot: each speaker then writes in their own private chat
//! (`dm-NAME`), as on Telegram, where a private chat's id is the user's.
//! Replies print as text, pictures are written to the output folder and
//! their paths printed; answers for another channel (an auction announced
//! in its match's channel) print with that channel's name first; a message
//! the bot would delete (a sealed bid typed in public) is noted. Piped
//! input works the same, so transcripts can be scripted.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kibitz_storage::Timestamp;

use crate::core::{Action, Core, Incoming, LOCAL_BOT_ID, Reply, User};

/// The console's state: who speaks, where, and where pictures go.
pub struct Console {
    core: Arc<Core>,
    out: PathBuf,
    speaker: Option<String>,
    channel: String,
    /// In the private chats with the bot (`/in @kibitz`) rather than `channel`.
    private: bool,
    pictures: usize,
    /// The time messages are sent at, when set ([`Console::set_time`]);
    /// otherwise the system clock's.
    time: Option<Timestamp>,
}

/// The answer to a line that is not UTF-8 text.
pub const UNREADABLE: &str = "I could not read that line: it is not UTF-8 text. Nothing was done; go on.";

/// The platform name the console uses in the store.
pub const PLATFORM: &str = "console";

impl Console {
    /// A console over a core, writing pictures to `out`.
    pub fn new(core: Core, out: &Path) -> Console {
        // The console's bot has a fixed id, which no speaker may take.
        core.set_bot_id(PLATFORM, LOCAL_BOT_ID);
        Console {
            core: Arc::new(core),
            out: out.to_path_buf(),
            speaker: None,
            channel: "local".into(),
            private: false,
            pictures: 0,
            time: None,
        }
    }

    /// Sets the console's clock: every message from now on is sent at
    /// `at`, until the next call (scripted sessions and their chat clocks).
    pub fn set_time(&mut self, at: Timestamp) {
        self.time = Some(at);
    }

    /// Runs the clocks now, as before each line; returns what they said.
    pub fn tick(&mut self) -> Vec<String> {
        let at = self.time.unwrap_or_else(Timestamp::now);
        let mut lines = Vec::new();
        for (channel, notice) in self.core.tick(at, PLATFORM) {
            let shown = self.show(&notice);
            lines.extend(shown.into_iter().map(|l| format!("[#{}] {l}", channel.channel)));
        }
        lines
    }

    /// Reads lines until the input ends, answering each.
    pub fn run(&mut self, input: impl BufRead, mut output: impl Write, interactive: bool) -> io::Result<()> {
        if interactive {
            writeln!(
                output,
                "Kibitz console. Type `NAME: MESSAGE` (alice: /challenge @bob), or /as NAME first. /help lists commands; Ctrl-D quits."
            )?;
            write!(output, "> ")?;
            output.flush()?;
        }
        let mut input = input;
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            if input.read_until(b'\n', &mut bytes)? == 0 {
                break;
            }
            // A line that is not text is refused; the session goes on.
            let answer = match std::str::from_utf8(&bytes) {
                Ok(line) => self.line(line),
                Err(_) => vec![UNREADABLE.to_string()],
            };
            for l in answer {
                writeln!(output, "{l}")?;
            }
            if interactive {
                write!(output, "{}> ", self.speaker.as_deref().unwrap_or(""))?;
                output.flush()?;
            }
        }
        Ok(())
    }

    /// Answers one input line; returns the lines to print.
    pub fn line(&mut self, line: &str) -> Vec<String> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Vec::new();
        }
        if let Some(name) = line.strip_prefix("/as ") {
            let name = name.trim().trim_start_matches('@');
            if !valid_name(name) {
                return vec!["A name is letters, digits, '-' and '_' (up to 32).".into()];
            }
            if is_the_bot(name) {
                return vec![format!("{name} is my name here; speak as someone else.")];
            }
            self.speaker = Some(name.to_string());
            return vec![format!("(now speaking as {name})")];
        }
        if let Some(channel) = line.strip_prefix("/in ") {
            if let Some(bot) = channel.trim().strip_prefix('@') {
                if !valid_name(bot) {
                    return vec!["A name is letters, digits, '-' and '_' (up to 32).".into()];
                }
                self.private = true;
                return vec![format!("(now in private chats with @{bot})")];
            }
            let channel = channel.trim().trim_start_matches('#');
            if !valid_name(channel) {
                return vec!["A channel name is letters, digits, '-' and '_' (up to 32).".into()];
            }
            self.channel = channel.to_string();
            self.private = false;
            return vec![format!("(now in #{channel})")];
        }
        let (speaker, text) = match line.split_once(':') {
            Some((name, text)) if valid_name(name.trim()) && !name.contains(' ') => {
                (name.trim().to_string(), text.trim())
            }
            _ => match &self.speaker {
                Some(s) => (s.clone(), line),
                None => return vec!["Who is speaking? Write `NAME: MESSAGE`, or /as NAME first.".into()],
            },
        };
        if is_the_bot(&speaker) {
            return vec![format!("{speaker} is my name here; speak as someone else.")];
        }
        // `alice: /in @kibitz`: the console's own command, said by a speaker.
        if text.starts_with("/in ") {
            let text = text.to_string();
            return self.line(&text);
        }
        // Names are people whatever their case, as usernames are on the
        // platforms: the id is the name in lower case, and so are mentions.
        let id = speaker.to_ascii_lowercase();
        let channel = if self.private { format!("dm-{id}") } else { self.channel.clone() };
        let msg = Incoming {
            platform: PLATFORM.into(),
            channel,
            sender: User { id, name: speaker },
            text: lower_mentions(text),
            message_id: None,
            at: self.time.unwrap_or_else(Timestamp::now),
            private: self.private,
            // The console is its host's own: whoever types there manages it.
            manages: Some(true),
        };
        // The directory knows every name that spoke, as a platform's knows
        // its users, so that a challenge can tell a player from a slip.
        if let Err(e) =
            self.core.store().note_user(PLATFORM, &msg.sender.id, &msg.sender.name, Some(&msg.sender.id), msg.at)
        {
            tracing::warn!("could not note {}: {e}", msg.sender.id);
        }
        // The clocks of correspondence games run before each line is read.
        let mut lines = Vec::new();
        for (channel, notice) in self.core.tick(msg.at, PLATFORM) {
            let shown = self.show(&notice);
            lines.extend(shown.into_iter().map(|l| format!("[#{}] {l}", channel.channel)));
        }
        let replies = self.core.handle(&msg);
        lines.extend(replies.iter().flat_map(|r| self.show(r)));
        lines.extend(self.notices());
        // The console has no messages to delete: it says what a chat would do.
        for (_, action) in self.core.take_actions(PLATFORM) {
            match action {
                Action::Delete { author, .. } => lines.push(format!("  [deleted: the message of {author}]")),
            }
        }
        lines
    }

    /// The notices waiting for the console's channels, shown (a finished
    /// review comes this way).
    fn notices(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        for (channel, notice) in self.core.take_notices(PLATFORM) {
            let shown = self.show(&notice);
            lines.extend(shown.into_iter().map(|l| format!("[#{}] {l}", channel.channel)));
        }
        // Shown is as good as posted: the reviews among them are done.
        self.core.notices_kept(PLATFORM);
        lines
    }

    /// Runs every review owed now, here, and shows them: for transcripts,
    /// which must not depend on when a background review ends.
    pub fn reviews(&mut self) -> Vec<String> {
        self.core.run_reviews(PLATFORM);
        self.notices()
    }

    /// The core.
    pub fn core(&self) -> &Arc<Core> {
        &self.core
    }

    fn show(&mut self, reply: &Reply) -> Vec<String> {
        let mut lines: Vec<String> = render_mentions(&reply.text).lines().map(|l| format!("kibitz: {l}")).collect();
        if let Some(p) = &reply.picture {
            self.pictures += 1;
            let path = self.out.join(format!("{:04}-{}", self.pictures, p.name));
            let written = std::fs::create_dir_all(&self.out).and_then(|_| std::fs::write(&path, &p.bytes));
            let kind = if p.is_document() { "file" } else { "picture" };
            lines.push(match written {
                Ok(()) => format!("  [{kind}: {}]", path.display()),
                Err(e) => format!("  [{kind} not written to {}: {e}]", path.display()),
            });
        }
        if !reply.buttons.is_empty() {
            let b: Vec<String> = reply.buttons.iter().map(|b| format!("[{}: {}]", b.label, b.command)).collect();
            lines.push(format!("  {}", b.join(" ")));
        }
        lines
    }
}

/// Whether a speaker's name is the bot's id on the console (letter case ignored).
fn is_the_bot(name: &str) -> bool {
    name.eq_ignore_ascii_case(LOCAL_BOT_ID)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 32 && name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
}

/// `@Bob` becomes `@bob`: a mention names the person whatever its case.
fn lower_mentions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_mention = false;
    for c in text.chars() {
        if c == '@' {
            in_mention = true;
            out.push(c);
        } else if in_mention && (c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            out.push(c.to_ascii_lowercase());
        } else {
            in_mention = false;
            out.push(c);
        }
    }
    out
}

/// `<@ID>` becomes `@ID`.
pub fn render_mentions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("<@") {
        out.push_str(&rest[..i]);
        match rest[i..].find('>') {
            Some(j) => {
                out.push('@');
                out.push_str(&rest[i + 2..i + j]);
                rest = &rest[i + j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs the console on standard input and output.
pub fn run_stdio(core: Core, out: &Path) -> io::Result<()> {
    let stdin = io::stdin();
    let interactive = stdin.is_terminal();
    let mut console = Console::new(core, out);
    // Reviews run in the background; each shows after the line that follows its end.
    let reviewer = crate::reviewer::Reviewer::start(console.core().clone(), &[PLATFORM]);
    let done = console.run(stdin.lock(), io::stdout().lock(), interactive);
    reviewer.stop();
    done?;
    console.finish(io::stdout().lock())
}

impl Console {
    /// At the end of the input: the reviews still owed (asked for last, or
    /// left unfinished by the background reviewer) are worked out here and
    /// shown with the notices waiting, so that a session read from a file
    /// gets every answer it asked for.
    pub fn finish(&mut self, mut output: impl Write) -> io::Result<()> {
        let owed = self.core.store().reviews_owed(PLATFORM).map(|jobs| jobs.len()).unwrap_or(0);
        if owed > 0 {
            let what = if owed == 1 {
                "the game review still owed".to_string()
            } else {
                format!("the {owed} game reviews still owed")
            };
            writeln!(output, "(finishing {what} before closing)")?;
            output.flush()?;
        }
        for l in self.reviews() {
            writeln!(output, "{l}")?;
        }
        Ok(())
    }
}
