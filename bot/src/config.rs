//! Configuration: `config.toml`, with tokens overridable from the environment.
//!
//! Every key is documented in `config.example.toml` at the project's root.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::core::CoreConfig;

/// The whole configuration file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Settings of the bot itself.
    pub bot: BotConfig,
    /// The Discord adapter.
    pub discord: PlatformConfig,
    /// The Telegram adapter.
    pub telegram: PlatformConfig,
}

/// `[bot]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BotConfig {
    /// The bot's name.
    pub name: String,
    /// Database folder.
    pub database: PathBuf,
    /// Where the console writes pictures.
    pub pictures: PathBuf,
    /// Variant of a challenge that names none.
    pub default_variant: String,
    /// How long a hint may think, in milliseconds.
    pub hint_time_ms: u64,
    /// Width of the board's squares together in pictures, in pixels.
    pub board_size: u32,
}

impl Default for BotConfig {
    fn default() -> BotConfig {
        BotConfig {
            name: "kibitz".into(),
            database: "./kibitz-data".into(),
            pictures: "./kibitz-out".into(),
            default_variant: "chess".into(),
            hint_time_ms: 1000,
            board_size: kibitz_render::DEFAULT_SIZE,
        }
    }
}

/// `[discord]` and `[telegram]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlatformConfig {
    /// The bot token (the environment variable wins if set).
    pub token: Option<String>,
    /// Telegram: a self-hosted Bot API server.
    pub api_url: Option<String>,
    /// Discord: an HTTP proxy.
    pub proxy: Option<String>,
}

impl Config {
    /// Reads a file, then applies `KIBITZ_DISCORD_TOKEN` and `KIBITZ_TELEGRAM_TOKEN`.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut config: Config = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        config.apply_env();
        config.validate()?;
        Ok(config)
    }

    /// Environment variables override tokens from the file.
    pub fn apply_env(&mut self) {
        for (var, platform) in
            [("KIBITZ_DISCORD_TOKEN", &mut self.discord), ("KIBITZ_TELEGRAM_TOKEN", &mut self.telegram)]
        {
            if let Ok(token) = std::env::var(var)
                && !token.trim().is_empty()
            {
                platform.token = Some(token.trim().to_string());
            }
        }
    }

    fn validate(&self) -> Result<(), String> {
        if kibitz_rules::Variant::by_id(&self.bot.default_variant).is_none() {
            return Err(format!("[bot] default_variant: unknown variant '{}'", self.bot.default_variant));
        }
        if !(80..=2048).contains(&self.bot.board_size) {
            return Err("[bot] board_size must be between 80 and 2048".into());
        }
        Ok(())
    }

    /// The core's settings.
    pub fn core(&self) -> CoreConfig {
        CoreConfig {
            bot_name: self.bot.name.clone(),
            hint_time: Duration::from_millis(self.bot.hint_time_ms.clamp(10, 60_000)),
            hint_depth: 64,
            default_variant: self.bot.default_variant.clone(),
            board_size: self.bot.board_size,
        }
    }

    /// The platforms that have a token.
    pub fn configured(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.discord.token.as_deref().is_some_and(|t| !t.is_empty()) {
            v.push("discord");
        }
        if self.telegram.token.as_deref().is_some_and(|t| !t.is_empty()) {
            v.push("telegram");
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_config_reads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config.example.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let c: Config = toml::from_str(&text).unwrap();
        assert_eq!(c.bot.name, "kibitz");
        assert!(c.validate().is_ok());
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert!(toml::from_str::<Config>("[bot]\nnmae = \"x\"").is_err());
    }
}
