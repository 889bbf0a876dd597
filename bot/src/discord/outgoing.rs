//! Replies as Discord messages: a reply is one message, its text cut to
//! Discord's limit with a note, its picture an attachment shown in an
//! embed (a document, a PGN file, an attachment under its own name), its
//! buttons components in rows whose custom id is the command
//! they send. Only users may be pinged.

use serenity::all::ButtonStyle;
use serenity::builder::{
    CreateActionRow, CreateAllowedMentions, CreateAttachment, CreateButton, CreateEmbed, CreateMessage,
    EditInteractionResponse,
};

use crate::core::{Button, Picture, Reply};

/// The file name of every picture; the embed points at it.
const PICTURE: &str = "board.png";

/// The file name of an animated replay (a GIF), shown the same way.
const ANIMATION: &str = "replay.gif";

/// The attachment's name for a picture: a GIF's, or a PNG's; a document
/// keeps its own (`game-k3x9.pgn`), as it is saved under it.
fn file_name(picture: &Picture) -> &str {
    if picture.is_document() {
        &picture.name
    } else if picture.is_animation() {
        ANIMATION
    } else {
        PICTURE
    }
}

/// The attachment, and the embed that shows it where it is a picture.
fn attachment(picture: &Picture) -> (CreateAttachment, Option<CreateEmbed>) {
    let file = file_name(picture);
    let shown = (!picture.is_document()).then(|| embed(file));
    (CreateAttachment::bytes(picture.bytes.clone(), file), shown)
}

/// Discord's limits on a message.
const MAX_CONTENT: usize = 2000;
pub(super) const MAX_CUSTOM_ID: usize = 100;
const MAX_LABEL: usize = 80;
const MAX_BUTTONS_PER_ROW: usize = 5;
const MAX_ROWS: usize = 5;

/// One Discord message: a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Part {
    content: String,
    picture: Option<Picture>,
    buttons: Vec<Button>,
}

/// A reply as a Discord message, one at most: the text (cut to 2000
/// characters with a note, which the core's bound makes a safety net only),
/// the picture and the buttons.
pub(super) fn parts(reply: &Reply) -> Vec<Part> {
    let content = cut_text(reply.text.trim_end(), MAX_CONTENT);
    if content.is_empty() && reply.picture.is_none() && reply.buttons.is_empty() {
        return Vec::new();
    }
    vec![Part { content, picture: reply.picture.clone(), buttons: reply.buttons.clone() }]
}

/// Text within `limit` (counted in UTF-16 units, never fewer than Discord's
/// characters): as it is, or cut at a line end with a note.
fn cut_text(text: &str, limit: usize) -> String {
    crate::core::cut(text, limit, crate::core::CUT_NOTE)
}

/// Only users may be pinged: the core echoes what players type, and
/// `@everyone` or a role must never go off because of it.
fn allowed_mentions() -> CreateAllowedMentions {
    CreateAllowedMentions::new().all_users(true)
}

fn embed(file: &str) -> CreateEmbed {
    CreateEmbed::new().image(format!("attachment://{file}"))
}

fn style_of(command: &str) -> ButtonStyle {
    let mut words = command.trim_start_matches('/').split_whitespace();
    match words.next().unwrap_or("") {
        // "No, play on" is the safe answer to a resignation's question.
        "resign" if words.next() == Some("no") => ButtonStyle::Secondary,
        "accept" => ButtonStyle::Success,
        "decline" | "resign" => ButtonStyle::Danger,
        "hint" => ButtonStyle::Primary,
        _ => ButtonStyle::Secondary,
    }
}

/// Buttons in rows of five; a button Discord would refuse is left out.
fn rows(buttons: &[Button]) -> Vec<CreateActionRow> {
    let usable: Vec<CreateButton> = buttons
        .iter()
        .filter(|b| !b.command.is_empty() && b.command.len() <= MAX_CUSTOM_ID)
        .map(|b| {
            let label: String = b.label.chars().take(MAX_LABEL).collect();
            CreateButton::new(b.command.clone()).label(label).style(style_of(&b.command))
        })
        .collect();
    usable.chunks(MAX_BUTTONS_PER_ROW).take(MAX_ROWS).map(|row| CreateActionRow::Buttons(row.to_vec())).collect()
}

pub(super) fn message_of(part: &Part) -> CreateMessage {
    let mut m = CreateMessage::new().allowed_mentions(allowed_mentions()).components(rows(&part.buttons));
    if !part.content.is_empty() {
        m = m.content(part.content.clone());
    }
    if let Some(picture) = &part.picture {
        let (file, shown) = attachment(picture);
        m = m.add_file(file);
        if let Some(e) = shown {
            m = m.embed(e);
        }
    }
    m
}

pub(super) fn edit_of(part: &Part) -> EditInteractionResponse {
    let mut m = EditInteractionResponse::new()
        .content(part.content.clone())
        .allowed_mentions(allowed_mentions())
        .components(rows(&part.buttons));
    if let Some(picture) = &part.picture {
        let (file, shown) = attachment(picture);
        m = m.new_attachment(file);
        if let Some(e) = shown {
            m = m.embed(e);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{CUT_NOTE, Picture};

    #[test]
    fn long_text_is_cut_at_a_line_with_a_note() {
        assert_eq!(cut_text("short", 2000), "short");
        assert_eq!(cut_text("", 2000), "");
        let text = (0..300).map(|i| format!("line {i:03}")).collect::<Vec<_>>().join("\n");
        let cut = cut_text(&text, 2000);
        assert!(cut.chars().count() <= 2000);
        assert!(cut.starts_with("line 000\nline 001\n") && cut.ends_with(&format!("\n{CUT_NOTE}")), "{cut}");
        let kept = cut.lines().filter(|l| l.starts_with("line")).count();
        assert!(kept > 150, "{kept}");
        assert!(cut_text(&"é".repeat(4500), 2000).chars().count() <= 2000);
    }

    #[test]
    fn a_reply_is_one_message_with_its_picture_and_buttons() {
        let reply = Reply {
            text: "x".repeat(2500),
            picture: Some(Picture { name: "board-a-0.png".into(), bytes: vec![1, 2, 3] }),
            buttons: vec![Button { label: "Resign".into(), command: "/resign".into() }],
        };
        let p = parts(&reply);
        assert_eq!(p.len(), 1);
        assert!(p[0].content.chars().count() <= MAX_CONTENT && p[0].content.ends_with(CUT_NOTE));
        assert_eq!(p[0].picture.as_ref().map(|p| &p.bytes[..]), Some(&[1u8, 2, 3][..]));
        assert_eq!(p[0].buttons.len(), 1);
        assert!(parts(&Reply::default()).is_empty());
        let only_picture = Reply { picture: reply.picture.clone(), ..Reply::default() };
        assert_eq!(parts(&only_picture).len(), 1);
    }

    #[test]
    fn a_document_keeps_its_name_and_is_not_shown_as_an_image() {
        let board = Picture { name: "board-a-0.png".into(), bytes: vec![0x89, b'P'] };
        let replay = Picture { name: "replay-a-9.gif".into(), bytes: b"GIF89a".to_vec() };
        let pgn = Picture { name: "game-a.pgn".into(), bytes: b"[Result \"*\"]".to_vec() };
        assert_eq!(file_name(&board), PICTURE);
        assert_eq!(file_name(&replay), ANIMATION);
        assert_eq!(file_name(&pgn), "game-a.pgn");
        assert!(attachment(&board).1.is_some() && attachment(&pgn).1.is_none());
    }

    #[test]
    fn oversized_buttons_are_left_out() {
        let mut buttons: Vec<Button> =
            (0..30).map(|i| Button { label: format!("b{i}"), command: format!("/c{i}") }).collect();
        buttons.push(Button { label: "long".into(), command: format!("/{}", "x".repeat(120)) });
        let r = rows(&buttons);
        assert_eq!(r.len(), MAX_ROWS);
    }

    #[test]
    fn buttons_are_coloured_by_what_they_do() {
        assert_eq!(style_of("/accept @5"), ButtonStyle::Success);
        assert_eq!(style_of("/decline draw"), ButtonStyle::Danger);
        assert_eq!(style_of("/resign"), ButtonStyle::Danger);
        // "No, play on" is the safe answer to a resignation's question.
        assert_eq!(style_of("/resign yes"), ButtonStyle::Danger);
        assert_eq!(style_of("/resign no"), ButtonStyle::Secondary);
        assert_eq!(style_of("/hint"), ButtonStyle::Primary);
        assert_eq!(style_of("/takeback"), ButtonStyle::Secondary);
    }
}
