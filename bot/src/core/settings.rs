//! A channel's settings (`/settings`): the defaults of new challenges there
//! (the game, rated or not, hints, days per move), shown to anyone and
//! changed by those who manage the channel, as the platform tells
//! ([`Incoming::manages`]). A private chat with the bot is its user's own.

use kibitz_storage::ChannelSettings;

use super::*;
use crate::command::SettingsChange;

impl Core {
    /// `/settings`, and `/settings KEY VALUE...` to change them.
    pub(super) fn settings(&self, msg: &Incoming, change: SettingsChange) -> Answer {
        let channel = Self::channel(msg);
        let mut settings = self.store.channel_settings(&channel)?;
        if change.is_empty() {
            return Ok(vec![Reply::text(self.settings_shown(msg, &settings))]);
        }
        if !msg.private && msg.manages != Some(true) {
            return refuse(match (msg.manages, msg.platform.as_str()) {
                (None, "discord") => {
                    "From a typed message I cannot tell who manages this channel: change its settings with the \
                     /settings slash command, with which Discord tells me."
                }
                (None, "telegram") => "I could not ask Telegram whether you are an admin here; try again in a moment.",
                _ => "Only those who manage this channel (its admins) can change its settings; /settings shows them.",
            });
        }
        if msg.private {
            // Against the bot, the only opponent here, games are never rated
            // and have no days per move.
            if change.rated.is_some() {
                return refuse(
                    "Games against me are never rated, so there is no rated setting here; nothing was changed.",
                );
            }
            if change.days.is_some() {
                return refuse("I answer at once: there are no days per move here; nothing was changed.");
            }
        }
        let mut said = Vec::new();
        if let Some(id) = &change.game {
            let v = self.variant(id)?;
            settings.default_variant = Some(v.id.to_string());
            said.push(format!("game {}", v.name));
        }
        if let Some(rated) = change.rated {
            settings.rated = rated;
            said.push(format!("rated {}", on_off(rated)));
        }
        if let Some(hints) = change.hints {
            settings.hints_allowed = hints;
            said.push(format!("hints {}", on_off(hints)));
        }
        if let Some(days) = change.days {
            settings.days_per_move = days;
            said.push(days_words(days));
        }
        self.store.set_channel_settings(&channel, &settings)?;
        let line = self.settings_line(msg, &settings);
        if msg.private {
            return Ok(vec![Reply::text(format!("Done: {}. {line}", said.join(", ")))]);
        }
        Ok(vec![Reply::text(format!(
            "{} changes this channel's settings: {}. {line}",
            mention(&msg.sender.id),
            said.join(", ")
        ))])
    }

    /// The settings in a sentence, with how to change them.
    fn settings_shown(&self, msg: &Incoming, settings: &ChannelSettings) -> String {
        let mut text = self.settings_line(msg, settings);
        if msg.private {
            text.push_str(" Change them with /settings game VARIANT or /settings hints on|off.");
        } else {
            text.push_str(
                " Those who manage the channel change them: /settings game VARIANT, /settings rated on|off, \
                 /settings hints on|off, /settings days N|off.",
            );
        }
        text
    }

    /// "New challenges here: Chess, rated, no hints, no days per move."
    fn settings_line(&self, msg: &Incoming, settings: &ChannelSettings) -> String {
        let id = settings.default_variant.clone().unwrap_or(self.config.default_variant.clone());
        let game = Variant::by_id(&id).map_or(id.clone(), |v| v.name.to_string());
        if msg.private {
            return format!(
                "Our games here, unless a challenge says otherwise: {game}, hints {}.",
                on_off(settings.hints_allowed)
            );
        }
        format!(
            "New challenges here, unless they say otherwise: {game}, rated {}, hints {}, {}.",
            on_off(settings.rated),
            on_off(settings.hints_allowed),
            days_words(settings.days_per_move)
        )
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

fn days_words(days: Option<u32>) -> String {
    match days {
        None => "no days per move".to_string(),
        Some(n) => format!("{} per move", count(n as usize, "day")),
    }
}
