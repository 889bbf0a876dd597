//! Configuration: `config.toml`, with tokens (and Telegram's webhook
//! secret) overridable from the environment.
//!
//! Every key is documented in `config.example.toml` at the project's root.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::core::CoreConfig;
use crate::secrets;
use crate::shards::Shards;

/// The environment variables that hold tokens: Discord's, Telegram's.
pub const TOKEN_VARS: [&str; 2] = ["KIBITZ_DISCORD_TOKEN", "KIBITZ_TELEGRAM_TOKEN"];

/// The environment variable that holds Telegram's webhook secret.
pub const SECRET_TOKEN_VAR: &str = "KIBITZ_TELEGRAM_SECRET_TOKEN";

/// A secret kept out of `Debug` output (and out of every log line: it is
/// registered with [`secrets`] when the configuration is loaded).
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Secret {
        Secret(secret.into())
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(secrets::REDACTED)
    }
}

/// Whether `secret` is one Telegram accepts as a webhook's `secret_token`:
/// 1 to 256 characters, each `A-Z`, `a-z`, `0-9`, `_` or `-`.
pub fn valid_secret_token(secret: &str) -> bool {
    (1..=256).contains(&secret.len()) && secret.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The `user:password` of a URL such as `http://user:password@host:port/`.
fn credentials_in(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    authority.rsplit_once('@').map(|(credentials, _)| credentials).filter(|c| !c.is_empty())
}

/// A TOML error as `line N: what is wrong`. toml's own rendering quotes the
/// line, and its message may quote a value: on a line that holds a token
/// only the gist of the message is kept (the words before any quotation).
fn describe(text: &str, e: &toml::de::Error) -> String {
    let line = e.span().and_then(|span| text.get(..span.start)).map(|before| before.matches('\n').count() + 1);
    let source = line.and_then(|n| text.lines().nth(n - 1)).unwrap_or("");
    let message = e.message().lines().next().unwrap_or("").trim();
    let where_ = line.map_or_else(|| "somewhere".to_string(), |n| format!("line {n}"));
    if line.is_some() && secrets::tokens_in(source).is_empty() && !source.contains("token") {
        return format!("{where_}: {message}");
    }
    let gist = message.split([',', ':', '`', '"', '\'']).next().unwrap_or("").trim();
    let gist = if !gist.is_empty() && gist.chars().all(|c| c.is_ascii_alphabetic() || c == ' ') {
        format!(" ({gist})")
    } else {
        String::new()
    };
    format!("{where_}: the token's setting cannot be read{gist}. A token is written in double quotes: token = \"...\"")
}

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
    /// Where the store is, when it is not the sled folder of `[bot] database`.
    pub storage: StorageConfig,
}

/// The environment variable that chooses the shared store (wins over `[storage] postgres`).
pub const POSTGRES_VAR: &str = "KIBITZ_POSTGRES_URL";

/// `[storage]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    /// A PostgreSQL URL: the store shared by every process serving the bot,
    /// instead of the sled folder `[bot] database`.
    pub postgres: Option<String>,
    /// How long a process counts as alive after its heartbeat, in seconds
    /// (shared store only): the others take over its owed replies after it.
    pub worker_lease_seconds: Option<u64>,
}

/// Where the store is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// The sled folder.
    Embedded(PathBuf),
    /// The PostgreSQL database at this URL.
    Shared(String),
}

impl StoreLocation {
    /// `KIBITZ_POSTGRES_URL` if set, else the sled folder `db`.
    pub fn from_env_or(db: &Path) -> StoreLocation {
        match postgres_from_env() {
            Some(url) => StoreLocation::Shared(url),
            None => StoreLocation::Embedded(db.to_owned()),
        }
    }
}

/// The PostgreSQL URL in the environment, registered as a secret if it holds a password.
pub fn postgres_from_env() -> Option<String> {
    let url = std::env::var(POSTGRES_VAR).ok().map(|u| u.trim().to_owned()).filter(|u| !u.is_empty())?;
    register_credentials(&url);
    Some(url)
}

fn register_credentials(url: &str) {
    if let Some(credentials) = credentials_in(url) {
        secrets::register(credentials);
        // The password alone, too: a message may quote it without the user.
        if let Some((_, password)) = credentials.split_once(':')
            && !password.is_empty()
        {
            secrets::register(password);
        }
    }
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
    /// Whether every game that ends gets a review by itself (`/review` works either way).
    pub review_at_end: bool,
    /// How long a review searches each position of a game, in milliseconds.
    pub review_time_ms: u64,
    /// How deep a review may search each position (plies); the time usually comes first.
    pub review_depth: u32,
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
            review_at_end: true,
            review_time_ms: 300,
            review_depth: 64,
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
    /// Telegram: webhook mode, listening on this address (`IP:port`).
    pub webhook_listen: Option<String>,
    /// Telegram, webhook mode: the public URL Telegram posts updates to.
    pub webhook_url: Option<String>,
    /// Telegram, webhook mode: the secret Telegram sends with every update
    /// (the environment variable wins if set).
    pub secret_token: Option<Secret>,
    /// Discord: the shards this process runs, `"0-3"` or `"2"` (see
    /// [`Shards`]).
    pub shards: Option<String>,
    /// Discord: how many shards the whole bot has.
    pub total_shards: Option<i64>,
}

impl Config {
    /// Reads a file, then applies `KIBITZ_DISCORD_TOKEN` and `KIBITZ_TELEGRAM_TOKEN`.
    ///
    /// Every token, from the file (even one that cannot be read as TOML) and
    /// from the environment, is registered with [`secrets`] first, and an
    /// error in the file says which line and what is wrong without quoting
    /// the file.
    pub fn load(path: &Path) -> Result<Config, String> {
        for var in TOKEN_VARS.into_iter().chain([SECRET_TOKEN_VAR]) {
            if let Ok(token) = std::env::var(var) {
                secrets::register(&token);
            }
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for token in secrets::tokens_in(&text) {
            secrets::register(&token);
        }
        let mut config = Config::parse(&text).map_err(|e| format!("{}, {e}", path.display()))?;
        config.apply_env();
        for platform in [&config.discord, &config.telegram] {
            if let Some(token) = &platform.token {
                secrets::register(token);
            }
            if let Some(secret) = &platform.secret_token {
                secrets::register(secret.expose());
            }
            // A proxy's or server's `user:password@` is a secret too.
            for url in [&platform.proxy, &platform.api_url, &platform.webhook_url].into_iter().flatten() {
                if let Some(credentials) = credentials_in(url) {
                    secrets::register(credentials);
                }
            }
        }
        if let Some(url) = &config.storage.postgres {
            register_credentials(url);
        }
        config.validate()?;
        Ok(config)
    }

    /// Reads a configuration file's text. An error names the line and what is
    /// wrong there; it never quotes the file, and says nothing of the value
    /// on a line that holds a token.
    pub fn parse(text: &str) -> Result<Config, String> {
        toml::from_str(text).map_err(|e| describe(text, &e))
    }

    /// Environment variables override tokens (and the webhook's secret) from the file.
    pub fn apply_env(&mut self) {
        if let Ok(secret) = std::env::var(SECRET_TOKEN_VAR)
            && !secret.trim().is_empty()
        {
            self.telegram.secret_token = Some(Secret::new(secret.trim()));
        }
        let [discord, telegram] = TOKEN_VARS;
        for (var, platform) in [(discord, &mut self.discord), (telegram, &mut self.telegram)] {
            if let Ok(token) = std::env::var(var)
                && !token.trim().is_empty()
            {
                platform.token = Some(token.trim().to_string());
            }
        }
    }

    /// Where the store is: `KIBITZ_POSTGRES_URL`, else `[storage] postgres`, else `[bot] database`.
    pub fn store_location(&self) -> StoreLocation {
        match postgres_from_env().or_else(|| self.storage.postgres.clone().filter(|u| !u.trim().is_empty())) {
            Some(url) => StoreLocation::Shared(url),
            None => StoreLocation::Embedded(self.bot.database.clone()),
        }
    }

    fn validate(&self) -> Result<(), String> {
        if let Some(url) = &self.storage.postgres
            && !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
        {
            return Err("[storage] postgres must be a URL such as postgres://user@host:5432/kibitz".into());
        }
        if self.storage.worker_lease_seconds.is_some_and(|s| !(2..=3600).contains(&s)) {
            return Err("[storage] worker_lease_seconds must be between 2 and 3600".into());
        }
        if kibitz_rules::Variant::by_id(&self.bot.default_variant).is_none() {
            return Err(format!("[bot] default_variant: unknown variant '{}'", self.bot.default_variant));
        }
        if !(80..=2048).contains(&self.bot.board_size) {
            return Err("[bot] board_size must be between 80 and 2048".into());
        }
        if !(10..=60_000).contains(&self.bot.review_time_ms) {
            return Err("[bot] review_time_ms must be between 10 and 60000".into());
        }
        if !(1..=64).contains(&self.bot.review_depth) {
            return Err("[bot] review_depth must be between 1 and 64".into());
        }
        let d = &self.discord;
        for (key, set) in [
            ("webhook_listen", d.webhook_listen.is_some()),
            ("webhook_url", d.webhook_url.is_some()),
            ("secret_token", d.secret_token.is_some()),
        ] {
            if set {
                return Err(format!("[discord] {key}: webhooks are a Telegram setting; move it to [telegram]"));
            }
        }
        self.telegram_webhook()?;
        if self.telegram.shards.is_some() || self.telegram.total_shards.is_some() {
            return Err("[telegram] has no shards: shards and total_shards are settings of [discord]".into());
        }
        self.discord_shards()?;
        Ok(())
    }

    /// The Discord shards this process runs (`[discord] shards` and
    /// `total_shards`); one shard, the whole bot, when neither is set.
    pub fn discord_shards(&self) -> Result<Shards, String> {
        Shards::from_settings(self.discord.shards.as_deref(), self.discord.total_shards)
    }

    /// Telegram's webhook mode, if `[telegram] webhook_listen` is set; then
    /// `webhook_url` and `secret_token` must be set too. Errors never quote
    /// the secret.
    pub fn telegram_webhook(&self) -> Result<Option<crate::telegram::Webhook>, String> {
        let t = &self.telegram;
        let Some(listen) = t.webhook_listen.as_deref() else {
            if t.webhook_url.is_some() {
                return Err("[telegram] webhook_url is set but webhook_listen is not: set webhook_listen (the \
                    address to serve the webhook on, such as \"127.0.0.1:8443\") for webhook mode, or remove \
                    webhook_url for long polling"
                    .into());
            }
            return Ok(None);
        };
        let listen: std::net::SocketAddr = listen.trim().parse().map_err(|_| {
            format!("[telegram] webhook_listen '{listen}' is not an address with a port, such as \"127.0.0.1:8443\"")
        })?;
        let Some(url) = t.webhook_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) else {
            return Err("[telegram] webhook_listen is set, so webhook_url is needed too: the public https:// \
                address Telegram posts updates to"
                .into());
        };
        let parsed = url::Url::parse(url).map_err(|e| format!("[telegram] webhook_url '{url}' is not a URL: {e}"))?;
        // Telegram itself posts to HTTPS only; a self-hosted Bot API server may post to plain HTTP.
        let plain_allowed = t.api_url.is_some();
        if !(parsed.scheme() == "https" || plain_allowed && parsed.scheme() == "http") || !parsed.has_host() {
            return Err(format!(
                "[telegram] webhook_url '{url}' must be an https:// address (plain http:// only with a \
                 self-hosted Bot API server, api_url)"
            ));
        }
        let Some(secret) = t.secret_token.as_ref() else {
            return Err(format!(
                "[telegram] webhook_listen is set, so secret_token is needed too (or the environment variable \
                 {SECRET_TOKEN_VAR}): 1 to 256 letters, digits, _ or -, which Telegram sends with every update"
            ));
        };
        if !valid_secret_token(secret.expose()) {
            return Err("[telegram] secret_token must be 1 to 256 characters, each a letter (A-Z, a-z), a digit, \
                _ or -"
                .into());
        }
        Ok(Some(crate::telegram::Webhook { listen, url: url.to_string(), secret: secret.clone() }))
    }

    /// The core's settings.
    pub fn core(&self) -> CoreConfig {
        CoreConfig {
            bot_name: self.bot.name.clone(),
            hint_time: Duration::from_millis(self.bot.hint_time_ms.clamp(10, 60_000)),
            hint_depth: 64,
            default_variant: self.bot.default_variant.clone(),
            board_size: self.bot.board_size,
            review_at_end: self.bot.review_at_end,
            review_time: Duration::from_millis(self.bot.review_time_ms.clamp(10, 60_000)),
            review_depth: self.bot.review_depth.clamp(1, 64),
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
        // The default variant's comment names every variant there is.
        let comment = text.split("default_variant =").next().unwrap_or_default();
        let comment = comment.rsplit("pictures =").next().unwrap_or_default();
        for v in kibitz_rules::VARIANTS {
            let listed = comment.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).any(|w| w == v.id);
            assert!(listed, "config.example.toml does not list {}", v.id);
        }
    }

    #[test]
    fn the_store_is_sled_unless_postgres_is_named() {
        let c = Config::parse("[bot]\ndatabase = \"./here\"").unwrap();
        if std::env::var(POSTGRES_VAR).is_err() {
            assert_eq!(c.store_location(), StoreLocation::Embedded("./here".into()));
            let c = Config::parse("[storage]\npostgres = \"postgres://k:pw@db:5432/kibitz\"").unwrap();
            assert!(c.validate().is_ok());
            assert_eq!(c.store_location(), StoreLocation::Shared("postgres://k:pw@db:5432/kibitz".into()));
        }
        for bad in ["[storage]\npostgres = \"mysql://db/kibitz\"", "[storage]\nworker_lease_seconds = 1"] {
            let e = Config::parse(bad).unwrap().validate().unwrap_err();
            assert!(e.starts_with("[storage]"), "{e}");
            assert!(!e.contains("mysql://db"), "the URL is not repeated: {e}");
        }
        assert!(Config::parse("[storage]\npostgress = \"x\"").is_err(), "a misspelt key");
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert!(toml::from_str::<Config>("[bot]\nnmae = \"x\"").is_err());
        let e = Config::parse("[bot]\nname = \"k\"\nnmae = \"x\"").unwrap_err();
        assert!(e.starts_with("line 3: unknown field `nmae`, expected one of `name`, "), "{e}");
    }

    fn webhook_of(extra: &str) -> Result<Option<crate::telegram::Webhook>, String> {
        let c = Config::parse(&format!("[telegram]\ntoken = \"1:x\"\n{extra}")).unwrap();
        c.validate()?;
        c.telegram_webhook()
    }

    fn hook_with(listen: &str, url: &str, secret: &str) -> String {
        format!("webhook_listen = \"{listen}\"\nwebhook_url = \"{url}\"\nsecret_token = \"{secret}\"\n")
    }

    #[test]
    fn webhook_mode_needs_its_three_keys() {
        assert!(webhook_of("").unwrap().is_none(), "long polling");
        let hook =
            webhook_of(&hook_with("127.0.0.1:8443", "https://bot.example.org/tg", "Sec-ret_42")).unwrap().unwrap();
        assert_eq!(hook.listen, "127.0.0.1:8443".parse().unwrap());
        assert_eq!(hook.url, "https://bot.example.org/tg");
        assert_eq!(hook.secret.expose(), "Sec-ret_42");
        assert!(!format!("{hook:?}").contains("Sec-ret_42"), "the secret stays out of Debug");

        let e = webhook_of("webhook_listen = \"127.0.0.1:8443\"\nsecret_token = \"abc\"\n").unwrap_err();
        assert!(e.contains("webhook_url is needed"), "{e}");
        let e = webhook_of("webhook_listen = \"127.0.0.1:8443\"\nwebhook_url = \"https://a.example/\"\n").unwrap_err();
        assert!(e.contains("secret_token is needed") && e.contains(SECRET_TOKEN_VAR), "{e}");
        let e = webhook_of(&hook_with("localhost", "https://a.example/", "abc")).unwrap_err();
        assert!(e.contains("webhook_listen 'localhost' is not an address with a port"), "{e}");
        let e = webhook_of(&hook_with("127.0.0.1:1", "http://a.example/", "abc")).unwrap_err();
        assert!(e.contains("must be an https:// address"), "{e}");
        let e = webhook_of(&hook_with("127.0.0.1:1", "not a url", "abc")).unwrap_err();
        assert!(e.contains("is not a URL"), "{e}");
        // A self-hosted Bot API server may post to plain HTTP.
        let local =
            format!("api_url = \"http://127.0.0.1:8081\"\n{}", hook_with("127.0.0.1:1", "http://a.example/", "a"));
        assert!(webhook_of(&local).unwrap().is_some());
        let e = webhook_of("webhook_url = \"https://a.example/\"\n").unwrap_err();
        assert!(e.contains("webhook_listen is not"), "{e}");
        for bad in ["", "has space", "semi;colon", "tr\u{e8}s-bien", &"x".repeat(257)] {
            let e = webhook_of(&hook_with("127.0.0.1:1", "https://a.example/", bad)).unwrap_err();
            assert!(e.contains("secret_token must be 1 to 256 characters"), "{e}");
            assert!(bad.is_empty() || !e.contains(bad), "the secret is not quoted: {e}");
        }
        assert!(valid_secret_token(&"A-z_09".repeat(50)[..256]));
        // Webhooks are Telegram's only.
        let c = Config::parse("[discord]\nwebhook_listen = \"127.0.0.1:1\"\n").unwrap();
        assert!(c.validate().unwrap_err().contains("[discord] webhook_listen"));
    }

    #[test]
    fn discord_shards_are_read_and_checked() {
        let shards = |text: &str| Config::parse(text).and_then(|c| c.validate().and(c.discord_shards()));
        assert_eq!(shards(""), Ok(Shards::default()));
        assert_eq!(
            shards("[discord]\nshards = \"0-3\"\ntotal_shards = 8\n"),
            Ok(Shards { first: 0, last: 3, total: 8 })
        );
        assert_eq!(shards("[discord]\nshards = \"2\"\ntotal_shards = 8\n"), Ok(Shards { first: 2, last: 2, total: 8 }));
        assert_eq!(shards("[discord]\ntotal_shards = 4\n"), Ok(Shards { first: 0, last: 3, total: 4 }));
        let e = shards("[discord]\nshards = \"0-3\"\n").unwrap_err();
        assert!(e.starts_with("[discord] shards needs total_shards"), "{e}");
        let e = shards("[discord]\nshards = \"4-9\"\ntotal_shards = 8\n").unwrap_err();
        assert!(e.contains("beyond total_shards = 8"), "{e}");
        let e = shards("[discord]\nshards = \"3-1\"\ntotal_shards = 8\n").unwrap_err();
        assert!(e.contains("the first shard comes first"), "{e}");
        let e = shards("[discord]\ntotal_shards = 0\n").unwrap_err();
        assert!(e.contains("total_shards must be 1 or more"), "{e}");
        let e = shards("[discord]\nshards = 2\ntotal_shards = 8\n").unwrap_err();
        assert!(e.starts_with("line 2: invalid type"), "{e}");
        let e = shards("[telegram]\ntotal_shards = 2\n").unwrap_err();
        assert!(e.starts_with("[telegram] has no shards"), "{e}");
    }

    #[test]
    fn credentials_are_found_in_urls() {
        assert_eq!(credentials_in("http://user:hunter22@proxy:8080/x"), Some("user:hunter22"));
        assert_eq!(credentials_in("http://proxy:8080/a@b"), None);
        assert_eq!(credentials_in("proxy:8080"), None);
    }

    #[test]
    fn errors_on_a_token_line_never_show_the_value() {
        let token = "123456:AAHsecret_secret_secret_secret_42";
        for (text, line, gist) in [
            (format!("[telegram]\ntoken = \"{token}\nproxy = 1\n"), 2, "invalid basic string"),
            (format!("[telegram]\ntoken = {token}\n"), 2, "invalid time"),
            ("[telegram]\ntoken = 123456789012\n".to_string(), 2, "invalid type"),
            (format!("[telegram]\ntoken = \"{token}\" extra\n"), 2, "unexpected key or value"),
            (format!("telegram = {{ token = \"{token}\", x = 1 }}\n"), 1, "unknown field"),
        ] {
            let e = Config::parse(&text).unwrap_err();
            assert!(e.starts_with(&format!("line {line}: the token's setting cannot be read")), "{e}");
            assert!(e.contains(&format!("({gist})")), "{e}");
            assert!(!e.contains("123456") && !e.contains("secret"), "{e}");
        }
        // An unknown key beside the token names the key, not the token.
        let e = Config::parse(&format!("[telegram]\ntoken = \"{token}\"\ntokn = 5\n")).unwrap_err();
        assert!(e.starts_with("line 3: unknown field `tokn`"), "{e}");
        // (The key `secret_token` is named among the keys there are; the token's value is not.)
        assert!(!e.contains("AAHsecret") && !e.contains("secret_secret"), "{e}");
    }
}
