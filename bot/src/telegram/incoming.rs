//! What Telegram sends, as the core reads it: a player is their numeric
//! user id, with the name shown; commands addressed to another bot are not
//! ours; typed `@username`s become the ids of the users holding them, and
//! text mentions of users without a username the ids they link to.

use kibitz_rules::or_list;
use kibitz_storage::Timestamp;
use teloxide::prelude::*;
use teloxide::types::MessageEntityKind;

use super::PLATFORM;
use crate::core::{Core, Incoming, User};

/// The player id of a Telegram user: their numeric user id, which is
/// theirs for good (a username can be dropped and taken by someone else).
pub fn player_id(user: &teloxide::types::User) -> String {
    user.id.0.to_string()
}

/// A Telegram user's display name: first and last name.
fn display_name(user: &teloxide::types::User) -> String {
    match user.last_name.as_deref().filter(|l| !l.is_empty()) {
        Some(last) => format!("{} {last}", user.first_name),
        None => user.first_name.clone(),
    }
}

pub(super) fn player(user: &teloxide::types::User) -> User {
    User { id: player_id(user), name: display_name(user) }
}

/// Notes a user in the store's directory: their names now, and the move of
/// records their username keyed before ids did.
pub(super) fn note_user(core: &Core, user: &teloxide::types::User) {
    let id = player_id(user);
    let username = user.username.as_deref().filter(|u| !u.is_empty());
    match core.store().see_user(PLATFORM, &id, &display_name(user), username, Timestamp::now()) {
        Ok(moved) if !moved.is_empty() => {
            tracing::info!(user = %id, ?moved, "records kept under a username now belong to the user's id")
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(user = %id, "could not note a user in the directory: {e}"),
    }
}

/// Reads each typed `@username` of `text` (lower-cased by [`core_text`]) as
/// the `@ID` that `id_of` gives for it. Returns the text, and the usernames
/// `id_of` does not know (left as they were). An `@` followed by digits is
/// an id already (Telegram usernames start with a letter).
pub fn resolve_mentions(text: &str, id_of: impl Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut unknown = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        let Some(body) = word.strip_prefix('@') else {
            out.push_str(word);
            continue;
        };
        let name_end = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(body.len());
        let (name, tail) = body.split_at(name_end);
        if name.is_empty() || name.chars().all(|c| c.is_ascii_digit()) {
            out.push_str(word);
            continue;
        }
        match id_of(name) {
            Some(id) => {
                out.push('@');
                out.push_str(&id);
                out.push_str(tail);
            }
            None => {
                if !unknown.iter().any(|u| u == name) {
                    unknown.push(name.to_string());
                }
                out.push_str(word);
            }
        }
    }
    (out, unknown)
}

/// The answer to a command that names users the directory does not know.
pub(super) fn unknown_users(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("@{n}")).collect();
    format!(
        "I don't know {} yet: ask them to write something here, or pick them from the @-menu. Nothing was changed.",
        or_list(&names)
    )
}

/// The text of a message as the core reads it, or `None` when it is a command
/// for another bot. `/cmd@<bot username>` loses its suffix; `@mentions` are
/// lower-cased like the ids they name.
pub fn core_text(text: &str, bot_username: &str) -> Option<String> {
    let trimmed = text.trim_start();
    let mut out = String::with_capacity(text.len());
    let mut rest = trimmed;
    if trimmed.starts_with('/') {
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let word = &trimmed[..end];
        match word.split_once('@') {
            Some((cmd, target)) if target.eq_ignore_ascii_case(bot_username) || target.is_empty() => out.push_str(cmd),
            Some(_) => return None,
            None => out.push_str(word),
        }
        rest = &trimmed[end..];
    }
    // Whitespace kept as it is; each `@word` lower-cased.
    let mut at_word_start = true;
    let mut in_mention = false;
    for c in rest.chars() {
        if c.is_whitespace() {
            at_word_start = true;
            in_mention = false;
            out.push(c);
            continue;
        }
        if at_word_start && c == '@' {
            in_mention = true;
        }
        at_word_start = false;
        if in_mention {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// The byte index in `text` of the UTF-16 offset `units`, as Telegram counts
/// entity offsets; `None` past the end or inside a character.
fn byte_index(text: &str, units: usize) -> Option<usize> {
    let mut seen = 0;
    for (i, c) in text.char_indices() {
        if seen == units {
            return Some(i);
        }
        if seen > units {
            return None;
        }
        seen += c.len_utf16();
    }
    (seen == units).then_some(text.len())
}

/// Mentions of users without a username arrive as text mentions (a name
/// with the user attached): they become `@ID` like typed mentions. Entities
/// come from the client and are not trusted: one whose offsets do not fall
/// on characters of the text, or that overlaps an earlier one, is ignored.
fn with_text_mentions(msg: &Message, text: &str) -> String {
    let Some(entities) = msg.entities() else { return text.to_string() };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for e in entities {
        let MessageEntityKind::TextMention { user } = &e.kind else { continue };
        let Some(end_units) = e.offset.checked_add(e.length) else { continue };
        let (Some(start), Some(end)) = (byte_index(text, e.offset), byte_index(text, end_units)) else { continue };
        if start < last || end < start {
            continue;
        }
        out.push_str(&text[last..start]);
        out.push('@');
        out.push_str(&player_id(user));
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

/// A message for the core, or `None` if it is none of the bot's business.
pub(super) fn incoming(msg: &Message, bot_username: &str) -> Option<Incoming> {
    let from = msg.from.as_ref().filter(|u| !u.is_bot)?;
    if msg.sender_chat.is_some() {
        return None;
    }
    let text = with_text_mentions(msg, msg.text()?);
    let text = core_text(&text, bot_username)?;
    let millis = msg.date.timestamp_millis();
    Some(Incoming {
        platform: PLATFORM.into(),
        channel: msg.chat.id.0.to_string(),
        sender: player(from),
        text,
        message_id: Some(format!("{}:{}", msg.chat.id.0, msg.id.0)),
        at: if millis > 0 { Timestamp(millis as u64) } else { Timestamp::now() },
        private: msg.chat.is_private(),
        manages: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telegram::render;

    #[test]
    fn command_words_lose_this_bots_name_only() {
        let t = |s: &str| core_text(s, "KibitzBot");
        assert_eq!(t("/move@KibitzBot Nf3").as_deref(), Some("/move Nf3"));
        assert_eq!(t("/move@kibitzbot e4").as_deref(), Some("/move e4"));
        assert_eq!(t("/help@KibitzBot").as_deref(), Some("/help"));
        assert_eq!(t("/move@OtherBot e4"), None);
        assert_eq!(t("/move e4").as_deref(), Some("/move e4"));
        assert_eq!(t("/challenge @Bob Chess white").as_deref(), Some("/challenge @bob Chess white"));
        assert_eq!(t("Nf3").as_deref(), Some("Nf3"));
        assert_eq!(t("P@c3").as_deref(), Some("P@c3"));
        assert_eq!(t("hello @Carol and @Dave").as_deref(), Some("hello @carol and @dave"));
    }

    fn message(from: serde_json::Value, text: &str, entities: serde_json::Value) -> Message {
        serde_json::from_value(serde_json::json!({
            "message_id": 5, "date": 1_700_000_000, "chat": {"id": -5, "type": "group", "title": "club"},
            "from": from, "text": text, "entities": entities,
        }))
        .unwrap()
    }

    #[test]
    fn messages_become_incoming_with_text_mentions_as_ids() {
        let alice = serde_json::json!({"id": 11, "is_bot": false, "first_name": "Alice", "username": "Alice"});
        let entities = serde_json::json!([
            {"type": "bot_command", "offset": 0, "length": 10},
            {"type": "text_mention", "offset": 11, "length": 7, "user": {"id": 42, "is_bot": false, "first_name": "Zoë"}},
        ]);
        let msg = message(alice.clone(), "/challenge Zoë Ann chess", entities);
        let got = incoming(&msg, "KibitzBot").unwrap();
        assert_eq!(got.text, "/challenge @42 chess");
        assert_eq!(got.sender, User { id: "11".into(), name: "Alice".into() });
        assert_eq!((got.platform.as_str(), got.channel.as_str()), ("telegram", "-5"));
        assert_eq!(got.message_id.as_deref(), Some("-5:5"));
        assert_eq!(got.at, Timestamp(1_700_000_000_000));
        // Other bots and commands for them are not the bot's business.
        let other = serde_json::json!({"id": 12, "is_bot": true, "first_name": "B", "username": "OtherBot"});
        assert!(incoming(&message(other, "e4", serde_json::json!([])), "KibitzBot").is_none());
        assert!(incoming(&message(alice, "/board@OtherBot", serde_json::json!([])), "KibitzBot").is_none());
    }

    #[test]
    fn users_are_their_ids_and_names_only_show() {
        let user = |username: Option<&str>, last: Option<&str>| teloxide::types::User {
            id: UserId(7),
            is_bot: false,
            first_name: "Alice".into(),
            last_name: last.map(str::to_string),
            username: username.map(str::to_string),
            language_code: None,
            is_premium: false,
            added_to_attachment_menu: false,
        };
        assert_eq!(player(&user(Some("AliceW"), None)), User { id: "7".into(), name: "Alice".into() });
        assert_eq!(player(&user(None, Some("W"))), User { id: "7".into(), name: "Alice W".into() });
    }

    #[test]
    fn typed_usernames_become_the_ids_of_their_holders() {
        let ids = |name: &str| match name {
            "bob_t" => Some("22".to_string()),
            "kibitzbot" => Some("999".to_string()),
            _ => None,
        };
        let (text, unknown) = resolve_mentions("/challenge @bob_t chess  white", ids);
        assert_eq!((text.as_str(), unknown.len()), ("/challenge @22 chess  white", 0));
        let (text, unknown) = resolve_mentions("/challenge @kibitzbot, level 2", ids);
        assert_eq!((text.as_str(), unknown.len()), ("/challenge @999, level 2", 0));
        // Ids stay ids, moves with `@` are no mentions, unknown names are listed once.
        let (text, unknown) = resolve_mentions("/stats @42 P@c3 @carol @carol @", ids);
        assert_eq!(text, "/stats @42 P@c3 @carol @carol @");
        assert_eq!(unknown, ["carol"]);
        assert!(unknown_users(&unknown).starts_with("I don't know @carol yet"));
        assert!(unknown_users(&["a".into(), "b".into(), "c".into()]).starts_with("I don't know @a, @b or @c yet"));
    }

    #[test]
    fn malformed_entities_are_ignored_not_fatal() {
        let alice = serde_json::json!({"id": 11, "is_bot": false, "first_name": "Alice", "username": "Alice"});
        // A bold entity that starts inside the emoji's surrogate pair.
        let split = message(alice.clone(), "😀 hello", serde_json::json!([{"type": "bold", "offset": 1, "length": 2}]));
        assert_eq!(incoming(&split, "KibitzBot").unwrap().text, "😀 hello");
        // A text mention far longer than the text.
        let zoe = serde_json::json!({"id": 42, "is_bot": false, "first_name": "Zoë"});
        let long = serde_json::json!([{"type": "text_mention", "offset": 0, "length": 50, "user": zoe}]);
        assert_eq!(incoming(&message(alice.clone(), "hi", long), "KibitzBot").unwrap().text, "hi");
        // One inside a character, one overlapping another, one sound.
        let odd = serde_json::json!([
            {"type": "text_mention", "offset": 1, "length": 1, "user": zoe},
            {"type": "text_mention", "offset": 3, "length": 3, "user": zoe},
            {"type": "text_mention", "offset": 4, "length": 3, "user": zoe},
        ]);
        assert_eq!(incoming(&message(alice, "😀 Zoë!", odd), "KibitzBot").unwrap().text, "😀 @42!");
        assert_eq!(byte_index("😀a", 1), None);
        assert_eq!(byte_index("😀a", 2), Some(4));
        assert_eq!(byte_index("😀a", 3), Some(5));
        assert_eq!(byte_index("😀a", 4), None);
    }

    fn entity() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let kind = prop_oneof![
            Just("bold"),
            Just("mention"),
            Just("bot_command"),
            Just("text_mention"),
            Just("text_link"),
            Just("custom_emoji"),
            Just("pre")
        ];
        (kind, 0u32..80, 0u32..80).prop_map(|(kind, offset, length)| {
            let mut e = serde_json::json!({"type": kind, "offset": offset, "length": length});
            match kind {
                "text_mention" => e["user"] = serde_json::json!({"id": 42, "is_bot": false, "first_name": "Zoë"}),
                "text_link" => e["url"] = serde_json::json!("https://example.org/"),
                "custom_emoji" => e["custom_emoji_id"] = serde_json::json!("5"),
                "pre" => e["language"] = serde_json::json!("rust"),
                _ => {}
            }
            e
        })
    }

    proptest::proptest! {
        /// Whatever text and entities a message carries, reading it never
        /// panics, and whatever the user directory says, neither does
        /// reading its mentions.
        #[test]
        fn any_message_is_read_without_panic(
            text in "(\\PC|😀|👨‍👩‍👧|@[a-zA-Z_]{0,40}|/[a-z@]{0,20}| ){0,40}",
            entities in proptest::collection::vec(entity(), 0..6),
            username in proptest::option::of("[A-Za-z0-9_]{0,40}"),
        ) {
            let mut from = serde_json::json!({"id": 11, "is_bot": false, "first_name": "Alice"});
            if let Some(name) = &username {
                from["username"] = serde_json::json!(name);
            }
            let raw = serde_json::json!({
                "message_id": 5, "date": 1_700_000_000, "chat": {"id": -5, "type": "group", "title": "club"},
                "from": from, "text": text, "entities": entities,
            });
            if let Ok(msg) = serde_json::from_value::<Message>(raw)
                && let Some(msg) = incoming(&msg, "KibitzBot")
            {
                let _ = resolve_mentions(&msg.text, |name| (name.len() % 2 == 0).then(|| "7".to_string()));
            }
            let _ = core_text(&text, "KibitzBot");
            let _ = render(&text, |_| None);
        }
    }
}
