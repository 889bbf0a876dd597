//! Replies as Telegram messages: mentions written out (as links for users
//! without a username), text cut to Telegram's limits, a picture's text as
//! its caption, buttons as inline keyboards whose callback data maps back
//! only to the commands sent, and the pace Telegram asks for in a chat.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity, UserId};

use crate::command::{self, Command};
use crate::core::Button;

/// Telegram's caption limit, in UTF-16 units.
const CAPTION_LIMIT: usize = 1024;
/// Telegram's message limit, in UTF-16 units.
const MESSAGE_LIMIT: usize = 4096;
/// Telegram's callback data limit, in bytes.
const CALLBACK_DATA_LIMIT: usize = 64;
/// Buttons with long commands remembered, at most.
pub(super) const KEYBOARD_MEMORY: usize = 4096;

/// Callback data for the buttons sent, and the commands they stand for.
///
/// A command that fits in Telegram's 64 bytes is its own data; a longer one
/// gets a random key, remembered here. Callback data comes from the client
/// and is not trusted: only data of buttons sent is run, and, for buttons of
/// messages sent before a restart, short data that reads as one of the
/// commands buttons carry.
pub struct Keyboards {
    commands: HashMap<String, String>,
    order: VecDeque<String>,
    limit: usize,
}

impl Keyboards {
    /// Remembers up to `limit` buttons.
    pub fn new(limit: usize) -> Keyboards {
        Keyboards { commands: HashMap::new(), order: VecDeque::new(), limit: limit.max(1) }
    }

    /// The callback data for a button's command.
    pub fn data_for(&mut self, command: &str) -> String {
        let data = if command.len() <= CALLBACK_DATA_LIMIT {
            command.to_string()
        } else {
            let key: String = std::iter::repeat_with(fastrand::alphanumeric).take(16).collect();
            format!("k:{key}")
        };
        if !self.commands.contains_key(&data) {
            if self.order.len() >= self.limit
                && let Some(old) = self.order.pop_front()
            {
                self.commands.remove(&old);
            }
            self.order.push_back(data.clone());
            self.commands.insert(data.clone(), command.to_string());
        }
        data
    }

    /// The command a pressed button stands for, if it is one of ours.
    pub fn command_for(&self, data: &str) -> Option<String> {
        if let Some(command) = self.commands.get(data) {
            return Some(command.clone());
        }
        let button_like = matches!(
            command::parse(data, ""),
            Ok(Command::Accept(_)
                | Command::Decline(_)
                | Command::DeclineOffer(_)
                | Command::Resign
                | Command::ResignConfirm(_)
                | Command::Draw
                | Command::Hint
                | Command::Takeback)
        );
        (data.starts_with('/') && data.len() <= CALLBACK_DATA_LIMIT && button_like).then(|| data.to_string())
    }

    /// An inline keyboard of one row.
    pub(super) fn markup(&mut self, buttons: &[Button]) -> Option<InlineKeyboardMarkup> {
        if buttons.is_empty() {
            return None;
        }
        let row: Vec<InlineKeyboardButton> = buttons
            .iter()
            .map(|b| InlineKeyboardButton::callback(b.label.clone(), self.data_for(&b.command)))
            .collect();
        Some(InlineKeyboardMarkup::new([row]))
    }
}

/// A text ready to send: `<@ID>` mentions written out, and the mentions of
/// users without a username as links to them (offsets in UTF-16 units, as
/// Telegram counts).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// Text mentions: offset, length, user id.
    pub links: Vec<(usize, usize, u64)>,
}

impl Rendered {
    pub(super) fn entities(&self) -> Vec<MessageEntity> {
        self.links.iter().map(|&(at, len, id)| MessageEntity::text_mention_id(UserId(id), at, len)).collect()
    }
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// How a user is mentioned in a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// By their username, `@bob` (Telegram links it).
    Username(String),
    /// By name, linked to the user (a user without a username).
    Name(String),
}

/// Writes `<@ID>` for a numeric id as `@username` when `shown` knows one,
/// else as the user's name (or the id) linked to them; a `<@name>` that is
/// no id (a record older than ids) as `@name`.
pub fn render(text: &str, shown: impl Fn(&str) -> Option<Shown>) -> Rendered {
    let mut out = Rendered::default();
    let mut rest = text;
    while let Some(i) = rest.find("<@") {
        let Some(j) = rest[i..].find('>') else { break };
        out.text.push_str(&rest[..i]);
        let id = &rest[i + 2..i + j];
        match id.parse::<u64>() {
            Ok(_) if let Some(Shown::Username(username)) = shown(id) => {
                out.text.push('@');
                out.text.push_str(&username);
            }
            Ok(n) => {
                let name = match shown(id) {
                    Some(Shown::Name(name)) if !name.is_empty() => name,
                    _ => id.to_string(),
                };
                out.links.push((utf16_len(&out.text), utf16_len(&name), n));
                out.text.push_str(&name);
            }
            Err(_) => {
                out.text.push('@');
                out.text.push_str(id);
            }
        }
        rest = &rest[i + j + 1..];
    }
    out.text.push_str(rest);
    out
}

/// A text within `limit` UTF-16 units: as it is if it fits, else cut at a
/// line break (or a space) with a note at the end. Links in what is kept
/// stay; one cut through is dropped. The core keeps its replies within the
/// limits already: this is the safety net, never a second message.
pub fn cut(r: &Rendered, limit: usize) -> Rendered {
    if utf16_len(&r.text) <= limit {
        return r.clone();
    }
    let room = limit.saturating_sub(utf16_len(crate::core::CUT_NOTE) + 1);
    // The longest prefix within the room, in bytes.
    let mut units = 0;
    let mut fit = 0;
    for (i, c) in r.text.char_indices() {
        if units + c.len_utf16() > room {
            break;
        }
        units += c.len_utf16();
        fit = i + c.len_utf8();
    }
    let head = &r.text[..fit];
    let at = head.rfind('\n').or_else(|| head.rfind(' ')).filter(|&c| c > fit / 2).unwrap_or(fit);
    let kept = piece_of(r, head[..at].trim_end(), 0);
    if kept.text.is_empty() {
        return Rendered { text: crate::core::CUT_NOTE.chars().take(limit).collect(), links: Vec::new() };
    }
    Rendered { text: format!("{}\n{}", kept.text, crate::core::CUT_NOTE), links: kept.links }
}

fn piece_of(r: &Rendered, text: &str, base: usize) -> Rendered {
    let end = base + utf16_len(text);
    let links = r
        .links
        .iter()
        .filter(|&&(at, len, _)| at >= base && at + len <= end)
        .map(|&(at, len, id)| (at - base, len, id));
    Rendered { text: text.to_string(), links: links.collect() }
}

/// One message to send for a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A text message.
    Text(Rendered),
    /// The reply's picture, with this caption.
    Photo(Option<Rendered>),
}

/// The message a reply becomes, one at most: the photo with the text as its
/// caption, or the text alone, cut to Telegram's limit (see [`cut`]). The
/// keyboard goes on it.
pub fn plan(text: &Rendered, picture: bool) -> Vec<Out> {
    let empty = text.text.trim().is_empty();
    if picture {
        return vec![Out::Photo((!empty).then(|| cut(text, CAPTION_LIMIT)))];
    }
    if empty { Vec::new() } else { vec![Out::Text(cut(text, MESSAGE_LIMIT))] }
}

/// The pace Telegram asks for in one chat: a message a second, and in
/// groups no more than twenty a minute. The store keeps it (see
/// [`kibitz_storage::Store::reserve_send_slot`]).
pub struct Pace;

impl Pace {
    /// The gap between two messages to one chat.
    pub const GAP: Duration = Duration::from_secs(1);
    /// Messages a minute in a group.
    pub const GROUP_PER_MINUTE: usize = 20;

    /// The limit a minute of a chat, 0 for none: groups (whose ids are
    /// negative) have one, private chats only the gap.
    pub fn per_minute(chat: i64) -> usize {
        if chat < 0 { Self::GROUP_PER_MINUTE } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use kibitz_storage::Timestamp;

    use super::*;
    use crate::core::CUT_NOTE;
    use crate::telegram::PLATFORM;

    #[test]
    fn mentions_are_written_out() {
        let names = |id: &str| match id {
            "42" => Some(Shown::Name("Zoë".to_string())),
            "7" => Some(Shown::Username("Bob_T".to_string())),
            _ => None,
        };
        let r = render("<@alice> challenges <@bob>.", names);
        assert_eq!(r, Rendered { text: "@alice challenges @bob.".into(), links: vec![] });
        let r = render("Hi <@42>, <@43>!", names);
        assert_eq!(r.text, "Hi Zoë, 43!");
        assert_eq!(r.links, vec![(3, 3, 42), (8, 2, 43)]);
        // A user with a username is mentioned by it, unlinked (Telegram links it).
        let r = render("<@7> vs <@42>", names);
        assert_eq!(r, Rendered { text: "@Bob_T vs Zoë".into(), links: vec![(10, 3, 42)] });
        assert_eq!(render("a <@unclosed", names).text, "a <@unclosed");
        // Offsets count UTF-16 units, as Telegram does.
        let r = render("😀 <@42>", names);
        assert_eq!(r.links, vec![(3, 3, 42)]);
    }

    #[test]
    fn long_texts_are_cut_with_a_note() {
        let r =
            Rendered { text: format!("aaa bbb\n{}", "ccc ddd eee ".repeat(10)), links: vec![(0, 3, 5), (12, 3, 7)] };
        assert_eq!(cut(&r, 1000), r);
        let c = cut(&r, CUT_NOTE.encode_utf16().count() + 9);
        assert_eq!(c.text, format!("aaa bbb\n{CUT_NOTE}"));
        assert_eq!(c.links, vec![(0, 3, 5)], "a link in what is left out goes");
        let c = cut(&Rendered { text: "😀".repeat(5000), links: vec![] }, MESSAGE_LIMIT);
        assert!(utf16_len(&c.text) <= MESSAGE_LIMIT && c.text.ends_with(CUT_NOTE));
        assert_eq!(cut(&Rendered { text: "x".repeat(25), links: vec![] }, 10).text.chars().count(), 10);
    }

    #[test]
    fn a_reply_is_one_message_at_most() {
        let short = Rendered { text: "@alice played e4.".into(), links: vec![] };
        assert_eq!(plan(&short, true), vec![Out::Photo(Some(short.clone()))]);
        assert_eq!(plan(&short, false), vec![Out::Text(short.clone())]);
        let long = Rendered { text: "word ".repeat(300), links: vec![] };
        let p = plan(&long, true);
        assert!(matches!(&p[..], [Out::Photo(Some(t))] if utf16_len(&t.text) <= CAPTION_LIMIT), "{p:?}");
        let huge = Rendered { text: "line\n".repeat(2000), links: vec![] };
        let p = plan(&huge, false);
        assert!(matches!(&p[..], [Out::Text(t)] if utf16_len(&t.text) <= MESSAGE_LIMIT && t.text.ends_with(CUT_NOTE)));
        assert_eq!(plan(&Rendered::default(), true), vec![Out::Photo(None)]);
        assert!(plan(&Rendered::default(), false).is_empty());
    }

    #[test]
    fn callback_data_maps_back_only_to_our_commands() {
        let mut k = Keyboards::new(2);
        assert_eq!(k.data_for("/accept @alice"), "/accept @alice");
        let long = format!("/accept @{}", "x".repeat(70));
        let key = k.data_for(&long);
        assert!(key.len() <= CALLBACK_DATA_LIMIT && key.starts_with("k:"), "{key}");
        assert_eq!(k.command_for(&key), Some(long));
        assert_eq!(k.command_for("/accept @alice").as_deref(), Some("/accept @alice"));
        // Forged data: not a button's command.
        assert_eq!(k.command_for("/move e4"), None);
        assert_eq!(k.command_for("/challenge @bob"), None);
        assert_eq!(k.command_for("k:forged"), None);
        assert_eq!(k.command_for("resign"), None);
        // Buttons from before a restart still work.
        assert_eq!(k.command_for("/resign").as_deref(), Some("/resign"));
        assert_eq!(k.command_for("/resign yes").as_deref(), Some("/resign yes"));
        assert_eq!(k.command_for("/decline draw").as_deref(), Some("/decline draw"));
        assert_eq!(k.command_for("/resign maybe"), None);
        // Old long keys are forgotten beyond the limit.
        k.data_for("/draw");
        k.data_for("/hint");
        assert_eq!(k.command_for(&key), None);
    }

    #[test]
    fn pace_keeps_a_second_apart_and_twenty_a_minute_in_groups() {
        let dir = tempfile::tempdir().unwrap();
        let store = kibitz_storage::Store::open(dir.path()).unwrap();
        let gap = Pace::GAP.as_millis() as u64;
        let slot = |chat: i64, at: u64| {
            store.reserve_send_slot(PLATFORM, &chat.to_string(), Timestamp(at), gap, Pace::per_minute(chat)).unwrap().0
        };
        assert_eq!(slot(7, 0), 0);
        assert_eq!(slot(7, 0), 1_000);
        let group: Vec<u64> = (0..21).map(|i| slot(-5, i * 1_000)).collect();
        assert_eq!(group[19], 19_000);
        assert_eq!(group[20], 60_000, "the 21st message in a minute waits");
        let private: Vec<u64> = (0..21).map(|i| slot(8, i * 1_000)).collect();
        assert_eq!(private[20], 20_000, "a private chat has no limit a minute");
    }
}
