//! How long the core's answers may be: every reply fits one message on every
//! platform, and a player's own text is quoted only as a short excerpt.
//!
//! Lengths are counted in UTF-16 units, as Telegram counts them; that is
//! never less than Discord's count of characters.

use super::Reply;

/// The longest reply text: within one Discord message (2,000) and one
/// Telegram message (4,096), with room for mentions that adapters write out
/// longer than the core does.
pub const REPLY_LIMIT: usize = 1_900;

/// The longest text of a reply with a picture: within Telegram's caption
/// limit (1,024), with the same room.
pub const CAPTION_LIMIT: usize = 900;

/// How much of a player's text a reply quotes, in characters.
pub const EXCERPT: usize = 40;

/// The note that ends a text cut short.
pub const CUT_NOTE: &str = "… (cut short: too long for one message)";

/// A text's length as the limits count it (UTF-16 units).
pub fn units(text: &str) -> usize {
    text.encode_utf16().count()
}

/// A player's text as a reply quotes it: at most [`EXCERPT`] characters, on
/// one line, with an ellipsis when something was left out.
pub fn excerpt(text: &str) -> String {
    let one_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let one_line = one_line.trim();
    if one_line.chars().count() <= EXCERPT {
        return one_line.to_string();
    }
    let mut short: String = one_line.chars().take(EXCERPT - 1).collect();
    short.truncate(short.trim_end().len());
    short.push('…');
    short
}

/// `text` ended as a sentence: with a full stop unless it ends in one, a
/// question mark or an exclamation mark already ("did you mean e4?").
pub fn sentence_end(text: &str) -> &'static str {
    if text.ends_with(['.', '?', '!']) { "" } else { "." }
}

/// A message that quotes `input` (a rules error that names what was typed),
/// with the quotation shortened to an excerpt.
pub fn quoting(message: &str, input: &str) -> String {
    let input = input.trim();
    if input.chars().count() <= EXCERPT {
        return message.to_string();
    }
    message.replace(input, &excerpt(input))
}

/// The longest start of `text` within `limit` units, cut at a line break
/// where there is one, else at a space, else anywhere.
fn head(text: &str, limit: usize) -> &str {
    if units(text) <= limit {
        return text;
    }
    let mut used = 0;
    let mut fit = 0;
    for (i, c) in text.char_indices() {
        if used + c.len_utf16() > limit {
            break;
        }
        used += c.len_utf16();
        fit = i + c.len_utf8();
    }
    let start = &text[..fit];
    let cut = start.rfind('\n').or_else(|| start.rfind(' ')).filter(|&c| c > fit / 2).unwrap_or(fit);
    text[..cut].trim_end()
}

/// `text` within `limit` units: as it is if it fits, else its start and
/// `note` (on a line of its own if the text has lines).
pub fn cut(text: &str, limit: usize, note: &str) -> String {
    if units(text) <= limit {
        return text.to_string();
    }
    let gap = if text.contains('\n') { "\n" } else { " " };
    let room = limit.saturating_sub(units(note) + 1);
    let start = head(text, room);
    if start.is_empty() { head(note, limit).to_string() } else { format!("{start}{gap}{note}") }
}

/// Lines under a heading, as many as fit in `limit` units; the lines left
/// out are counted in `more(n)`, a note such as "… (37 more)".
pub fn listing(heading: &str, lines: &[String], limit: usize, more: impl Fn(usize) -> String) -> String {
    let mut text = heading.to_string();
    for (i, line) in lines.iter().enumerate() {
        let note = more(lines.len() - i - 1);
        let last = i + 1 == lines.len();
        // Room for this line, and for the note if lines still follow it.
        let needed = units(&text) + 1 + units(line) + if last { 0 } else { 1 + units(&note) };
        if needed > limit {
            let note = more(lines.len() - i);
            return cut(&format!("{text}\n{note}"), limit, CUT_NOTE);
        }
        text.push('\n');
        text.push_str(line);
    }
    cut(&text, limit, CUT_NOTE)
}

/// A reply within the bounds: its text cut to [`REPLY_LIMIT`], or with a
/// picture to [`CAPTION_LIMIT`]. A text too long to be a caption but short
/// enough for a message goes first, alone, and the picture after it with the
/// buttons: two messages at most.
pub fn bounded(reply: Reply) -> Vec<Reply> {
    if reply.picture.is_none() || units(&reply.text) <= CAPTION_LIMIT {
        let limit = if reply.picture.is_some() { CAPTION_LIMIT } else { REPLY_LIMIT };
        return vec![Reply { text: cut(&reply.text, limit, CUT_NOTE), ..reply }];
    }
    let text = Reply { text: cut(&reply.text, REPLY_LIMIT, CUT_NOTE), picture: None, buttons: Vec::new() };
    vec![text, Reply { text: String::new(), ..reply }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_one_line() {
        assert_eq!(excerpt("knight"), "knight");
        assert_eq!(excerpt(" two\nlines "), "two lines");
        let long = excerpt(&"é".repeat(100));
        assert_eq!(long.chars().count(), EXCERPT);
        assert!(long.ends_with('…'));
        assert_eq!(quoting("'x' is no move", "x"), "'x' is no move");
        let typed = "y".repeat(500);
        let quoted = quoting(&format!("'{typed}' is not a move I can read"), &typed);
        assert_eq!(quoted, format!("'{}…' is not a move I can read", "y".repeat(EXCERPT - 1)));
    }

    #[test]
    fn cuts_keep_within_the_limit_at_line_ends() {
        assert_eq!(cut("short", 10, "…"), "short");
        let text = (0..100).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n");
        let c = cut(&text, 50, "… (more)");
        assert!(units(&c) <= 50, "{c}");
        assert!(c.starts_with("line 0\nline 1\n") && c.ends_with("\n… (more)"), "{c}");
        let words = "word ".repeat(100);
        let c = cut(&words, 30, "…");
        assert_eq!(c, "word word word word word …");
        // Characters beyond the basic plane count twice, as Telegram counts them.
        let c = cut(&"😀".repeat(100), 21, "…");
        assert!(units(&c) <= 21 && c.ends_with('…'), "{c}");
        assert_eq!(cut("abcdef", 3, "(too long)"), "(to");
    }

    #[test]
    fn listings_say_how_many_are_left_out() {
        let lines: Vec<String> = (0..50).map(|i| format!("item {i:02}")).collect();
        let all = listing("Items:", &lines[..3], 100, |n| format!("… ({n} more)"));
        assert_eq!(all, "Items:\nitem 00\nitem 01\nitem 02");
        let some = listing("Items:", &lines, 60, |n| format!("… ({n} more)"));
        assert!(units(&some) <= 60, "{some}");
        let shown = some.lines().filter(|l| l.starts_with("item")).count();
        assert!(some.ends_with(&format!("… ({} more)", 50 - shown)), "{some}");
        assert!(shown >= 5, "{some}");
    }

    #[test]
    fn long_captions_go_first_as_text() {
        use crate::core::{Button, Picture};
        let picture = Some(Picture { name: "p.png".into(), bytes: vec![1] });
        let buttons = vec![Button { label: "Resign".into(), command: "/resign".into() }];
        let short = Reply { text: "ok".into(), picture: picture.clone(), buttons: buttons.clone() };
        assert_eq!(bounded(short.clone()), vec![short]);
        let long = Reply { text: "x ".repeat(600), picture: picture.clone(), buttons: buttons.clone() };
        let two = bounded(long.clone());
        assert_eq!(two.len(), 2);
        assert_eq!((two[0].text.as_str(), two[0].picture.is_none()), (long.text.as_str(), true));
        assert_eq!((two[1].text.as_str(), &two[1].picture, &two[1].buttons), ("", &picture, &buttons));
        let huge = bounded(Reply { text: "y".repeat(10_000), ..Reply::default() });
        assert_eq!(huge.len(), 1);
        assert!(units(&huge[0].text) <= REPLY_LIMIT && huge[0].text.ends_with(CUT_NOTE));
    }
}
