//! A sealed bid typed in public (CA14 wants it secret). It is not counted:
//! the player is told that everyone has seen the number and how to reach the
//! bot in private, and the adapter is asked to delete the message, which it
//! does where the platform lets the bot. The decision is in
//! `rules/CLASH.md`.

use super::*;

impl Core {
    /// The answer to `/bid` in a channel that is not a private chat, from a
    /// player in a match.
    pub(super) fn public_bid(&self, msg: &Incoming) -> Vec<Reply> {
        self.act(
            Self::channel(msg),
            Action::Delete { message_id: msg.message_id.clone(), author: msg.sender.id.clone() },
        );
        vec![Reply::text(format!(
            "{}, that bid was typed in public, so it does not count: everyone here has seen the number. I remove \
             your message where I am allowed to. Sealed bids come to me in private. {} Then send /bid AMOUNT there \
             (the same amount or another).",
            mention(&msg.sender.id),
            private_route(&msg.platform)
        ))]
    }
}

/// How a player reaches the bot in private on `platform`.
pub fn private_route(platform: &str) -> &'static str {
    match platform {
        "discord" => "On Discord, click my name and choose Message: that opens a direct message with me.",
        "telegram" => "On Telegram, tap my name and choose Send Message: that opens a private chat with me.",
        "console" => "On the console, /in @kibitz takes you to your private chat with me.",
        _ => "Write to me in a private chat.",
    }
}
