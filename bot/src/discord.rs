//! The Discord adapter: the gateway's messages and interactions in, the
//! core's replies out, through serenity.
//!
//! Slash commands mirror the core's commands one for one; their options are
//! written back into the command text the core reads (`/challenge @ID olympic
//! white hints on`). Message commands (`!move e4`, `/move e4` as text) and bare
//! moves go to the core as typed, with Discord's mentions (`<@ID>`, `<@!ID>`)
//! turned into the core's `@ID`. Replies keep the core's `<@ID>`, which is
//! Discord's own mention syntax; pictures go as an attachment shown in an
//! embed, buttons as components whose custom id is the command they send.
//!
//! Interactions are deferred at once and answered by editing the deferred
//! response, so a slow hint or picture never misses Discord's three seconds.
//! Nothing Discord-specific leaves this file.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use kibitz_rules::{Color, Game, Position, Variant};
use kibitz_storage::{ChannelKey, Colour, GameRecord, Store, Timestamp};
use serenity::all::{
    ButtonStyle, ChannelId, ClientBuilder, CommandDataOptionValue, CommandInteraction, CommandOptionType,
    ComponentInteraction, ComponentInteractionDataKind, Context, EventHandler, GatewayIntents, GuildId, HttpBuilder,
    Interaction, InteractionContext, InteractionId, Message, Ready, User as DiscordUser,
};
use serenity::builder::{
    AutocompleteChoice, Builder, CreateActionRow, CreateAllowedMentions, CreateAttachment, CreateAutocompleteResponse,
    CreateButton, CreateCommand, CreateCommandOption, CreateEmbed, CreateInteractionResponse,
    CreateInteractionResponseFollowup, CreateInteractionResponseMessage, CreateMessage, EditInteractionResponse,
};
use serenity::http::{Http, HttpError};
use tokio::sync::Semaphore;

use crate::adapter::{self, Shutdown};
use crate::core::{Button, Core, Incoming, Reply, User};

/// The platform name in the store and in [`Incoming`].
const PLATFORM: &str = "discord";

/// The environment variable naming a development guild, where the commands
/// are registered too (guild commands appear at once; global ones can take a
/// while to reach every client).
pub const GUILD_VAR: &str = "KIBITZ_DISCORD_GUILD";

/// The file name of every picture; the embed points at it.
const PICTURE: &str = "board.png";

/// Discord's limits.
const MAX_CONTENT: usize = 2000;
const MAX_CHOICES: usize = 25;
const MAX_CUSTOM_ID: usize = 100;
const MAX_LABEL: usize = 80;
const MAX_BUTTONS_PER_ROW: usize = 5;
const MAX_ROWS: usize = 5;

/// How often the correspondence clocks are checked.
const CLOCK_EVERY: Duration = Duration::from_secs(60);
/// How long shutdown waits for answers under way.
const DRAIN: Duration = Duration::from_secs(10);
/// Answers handled at once, at most (and what shutdown waits for).
const WORKERS: u32 = 256;
/// Attempts after a 429 (Too Many Requests), with doubling pauses.
const RETRIES: u32 = 4;
const FIRST_PAUSE: Duration = Duration::from_millis(250);

/// Runs the Discord adapter until `shutdown` becomes true.
///
/// `proxy` (`http://host:port`) sends every REST request there instead of to
/// `https://discord.com`, with serenity's own rate limiter off (the proxy
/// limits); the gateway address is asked of the same endpoint. The token is
/// never logged.
pub async fn run(core: Arc<Core>, token: String, proxy: Option<String>, shutdown: Shutdown) -> Result<(), String> {
    if *shutdown.borrow() {
        return Ok(());
    }
    let mut http = HttpBuilder::new(&token);
    if let Some(proxy) = &proxy {
        tracing::info!("discord: REST requests go through {}", without_credentials(proxy));
        http = http.proxy(proxy.clone()).ratelimiter_disabled(true);
    }
    let guild = dev_guild();
    let work = Arc::new(Semaphore::new(WORKERS as usize));
    let handler = Handler {
        core: core.clone(),
        guild,
        me: AtomicU64::new(0),
        registered: AtomicBool::new(false),
        work: work.clone(),
    };
    let intents = GatewayIntents::GUILD_MESSAGES | GatewayIntents::MESSAGE_CONTENT | GatewayIntents::DIRECT_MESSAGES;
    let mut client = ClientBuilder::new_with_http(http.build(), intents)
        .event_handler(handler)
        .await
        .map_err(|e| format!("discord: cannot start the client: {e}"))?;

    let http = client.http.clone();
    let mut clock =
        tokio::spawn(adapter::clock_loop(core, PLATFORM, CLOCK_EVERY, shutdown.clone(), move |key, reply| {
            let http = http.clone();
            async move { post_notice(&http, &key, &reply).await }
        }));

    let manager = client.shard_manager.clone();
    let mut stop = shutdown.clone();
    let stopper = tokio::spawn(async move {
        // A dropped sender means the program is ending too.
        let _ = stop.wait_for(|stop| *stop).await;
        tracing::info!("discord: shutting down");
        manager.shutdown_all().await;
    });

    tracing::info!("discord: connecting");
    let result = client.start().await.map_err(|e| format!("discord: {e}"));
    stopper.abort();
    // Let answers under way finish: their moves are stored, their replies owed.
    match tokio::time::timeout(DRAIN, work.acquire_many(WORKERS)).await {
        Ok(_) => {}
        Err(_) => tracing::warn!("discord: stopped with answers still under way"),
    }
    if *shutdown.borrow() {
        // The clock loop ends by itself on shutdown; let it post what it has.
        if tokio::time::timeout(DRAIN, &mut clock).await.is_err() {
            clock.abort();
        }
    } else {
        clock.abort();
    }
    tracing::info!("discord: stopped");
    result
}

/// A URL fit for the log: any `user:password@` is left out.
fn without_credentials(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let mut out = if scheme.is_empty() { host.to_string() } else { format!("{scheme}://{host}") };
    if !path.is_empty() || rest.contains('/') {
        out.push('/');
        out.push_str(path);
    }
    out
}

/// The development guild from the environment, if set and readable.
fn dev_guild() -> Option<GuildId> {
    let text = std::env::var(GUILD_VAR).ok()?;
    match text.trim().parse::<u64>() {
        Ok(id) if id != 0 => Some(GuildId::new(id)),
        _ => {
            tracing::warn!("discord: {GUILD_VAR} is not a guild id; commands are registered globally only");
            None
        }
    }
}

struct Handler {
    core: Arc<Core>,
    guild: Option<GuildId>,
    /// The bot's own user id, once ready (0 before).
    me: AtomicU64,
    registered: AtomicBool,
    work: Arc<Semaphore>,
}

#[serenity::async_trait]
impl EventHandler for Handler {
    async fn ready(&self, ctx: Context, ready: Ready) {
        tracing::info!("discord: ready as {} ({})", ready.user.name, ready.user.id);
        self.me.store(ready.user.id.get(), Ordering::Relaxed);
        // `/challenge @Kibitz` names the bot by its user id: a game against it.
        self.core.set_bot_id(PLATFORM, &ready.user.id.get().to_string());
        // Once per run: a reconnect brings another READY, the commands stay.
        if self.registered.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Err(e) = register(&ctx.http, self.guild).await {
            tracing::error!("discord: registering the slash commands failed: {e}");
            self.registered.store(false, Ordering::SeqCst);
        }
    }

    async fn message(&self, ctx: Context, msg: Message) {
        let Ok(_permit) = self.work.acquire().await else { return };
        if msg.author.bot || msg.webhook_id.is_some() || msg.author.id.get() == self.me.load(Ordering::Relaxed) {
            return;
        }
        let text = mentions_to_core(&msg.content);
        if !worth_asking(&text) {
            return;
        }
        let nick = msg.member.as_ref().and_then(|m| m.nick.clone());
        let incoming = incoming(msg.channel_id, msg.guild_id.is_none(), &msg.author, nick, text, msg.id.to_string());
        let replies = adapter::handle(&self.core, incoming).await;
        for part in replies.iter().flat_map(parts) {
            let builder = message_of(&part);
            let sent = with_retry(|| msg.channel_id.send_message(&ctx.http, builder.clone())).await;
            if let Err(e) = sent {
                tracing::warn!("discord: cannot answer in channel {}: {e}", msg.channel_id);
                break;
            }
        }
        self.post_notices(&ctx).await;
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        let Ok(_permit) = self.work.acquire().await else { return };
        match interaction {
            Interaction::Command(cmd) => self.slash(&ctx, cmd).await,
            Interaction::Autocomplete(cmd) => self.autocomplete(&ctx, cmd).await,
            Interaction::Component(press) => self.button(&ctx, press).await,
            _ => {}
        }
    }
}

impl Handler {
    /// Posts the core's answers for other channels than the message's (a
    /// sealed bid sent in a DM is announced in its match's channel).
    async fn post_notices(&self, ctx: &Context) {
        for (key, reply) in self.core.take_notices(PLATFORM) {
            post_notice(&ctx.http, &key, &reply).await;
        }
    }

    async fn slash(&self, ctx: &Context, cmd: CommandInteraction) {
        let args: Vec<(String, Arg)> =
            cmd.data.options.iter().filter_map(|o| Some((o.name.clone(), arg_of(&o.value)?))).collect();
        let Some(text) = slash_text(&cmd.data.name, &args) else {
            tracing::warn!("discord: unknown slash command /{}", cmd.data.name);
            let sorry = CreateInteractionResponse::Message(
                CreateInteractionResponseMessage::new()
                    .content("I don't know that command. Try /help.")
                    .ephemeral(true),
            );
            let _ = with_retry(|| sorry.clone().execute(&ctx.http, (cmd.id, &cmd.token))).await;
            return;
        };
        let nick = cmd.member.as_ref().and_then(|m| m.nick.clone());
        let incoming = incoming(cmd.channel_id, cmd.guild_id.is_none(), &cmd.user, nick, text, cmd.id.to_string());
        self.answer(ctx, cmd.id, &cmd.token, incoming).await;
    }

    async fn button(&self, ctx: &Context, press: ComponentInteraction) {
        let command = match press.data.kind {
            ComponentInteractionDataKind::Button => button_command(&press.data.custom_id),
            _ => None,
        };
        let Some(text) = command else {
            tracing::warn!("discord: ignoring a component that is none of ours");
            let ack = CreateInteractionResponse::Acknowledge;
            let _ = with_retry(|| ack.clone().execute(&ctx.http, (press.id, &press.token))).await;
            return;
        };
        let nick = press.member.as_ref().and_then(|m| m.nick.clone());
        let incoming =
            incoming(press.channel_id, press.guild_id.is_none(), &press.user, nick, text, press.id.to_string());
        self.answer(ctx, press.id, &press.token, incoming).await;
    }

    /// Defers, asks the core, then edits the deferred response with the first
    /// reply and follows up with the rest.
    async fn answer(&self, ctx: &Context, id: InteractionId, token: &str, incoming: Incoming) {
        let defer = CreateInteractionResponse::Defer(CreateInteractionResponseMessage::new());
        if let Err(e) = with_retry(|| defer.clone().execute(&ctx.http, (id, token))).await {
            // Not acknowledged: Discord tells the user it failed; nothing is done.
            tracing::warn!("discord: cannot defer interaction {id}: {e}");
            return;
        }
        let replies = adapter::handle(&self.core, incoming).await;
        self.post_notices(ctx).await;
        let parts: Vec<Part> = replies.iter().flat_map(parts).collect();
        if parts.is_empty() {
            // Nothing to say (a retried delivery): take the "thinking" away.
            if let Err(e) = with_retry(|| ctx.http.delete_original_interaction_response(token)).await {
                tracing::warn!("discord: cannot remove the deferred response of {id}: {e}");
            }
            return;
        }
        for (i, part) in parts.iter().enumerate() {
            let sent = if i == 0 {
                let edit = edit_of(part);
                with_retry(|| edit.clone().execute(&ctx.http, token)).await
            } else {
                let follow = followup_of(part);
                with_retry(|| follow.clone().execute(&ctx.http, (None, token))).await
            };
            if let Err(e) = sent {
                tracing::warn!("discord: cannot answer interaction {id}: {e}");
                break;
            }
        }
    }

    async fn autocomplete(&self, ctx: &Context, cmd: CommandInteraction) {
        let typed = cmd.data.autocomplete().filter(|o| o.name == "move").map(|o| o.value.to_string());
        let choices = match typed {
            Some(typed) if cmd.data.name == "move" => {
                let core = self.core.clone();
                let channel = cmd.channel_id.to_string();
                let player = cmd.user.id.to_string();
                tokio::task::spawn_blocking(move || suggest_moves(core.store(), &channel, &player, &typed))
                    .await
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        };
        let choices: Vec<AutocompleteChoice> =
            choices.into_iter().map(|(name, value)| AutocompleteChoice::new(name, value)).collect();
        // Wrapped as a whole interaction response (type 8): serenity's
        // `CreateAutocompleteResponse::execute` sends the choices bare.
        let response = CreateInteractionResponse::Autocomplete(CreateAutocompleteResponse::new().set_choices(choices));
        if let Err(e) = with_retry(|| response.clone().execute(&ctx.http, (cmd.id, &cmd.token))).await {
            tracing::warn!("discord: cannot answer autocomplete {}: {e}", cmd.id);
        }
    }
}

/// A clock notice, posted to its channel.
async fn post_notice(http: &Arc<Http>, key: &ChannelKey, reply: &Reply) {
    let Some(channel) = key.channel.parse::<u64>().ok().filter(|&c| c != 0).map(ChannelId::new) else {
        tracing::warn!("discord: a clock notice for a channel that is no Discord channel");
        return;
    };
    for part in parts(reply) {
        let builder = message_of(&part);
        if let Err(e) = with_retry(|| channel.send_message(http, builder.clone())).await {
            tracing::warn!("discord: cannot post a clock notice in {channel}: {e}");
            return;
        }
    }
}

/// The message the core reads.
/// `private` for a DM with the bot (no guild).
fn incoming(
    channel: ChannelId,
    private: bool,
    user: &DiscordUser,
    nick: Option<String>,
    text: String,
    id: String,
) -> Incoming {
    let name = nick.or_else(|| user.global_name.clone()).unwrap_or_else(|| user.name.clone());
    Incoming {
        platform: PLATFORM.into(),
        channel: channel.to_string(),
        sender: User { id: user.id.to_string(), name },
        text,
        message_id: Some(id),
        at: Timestamp::now(),
        private,
    }
}

/// Registers the slash commands globally, and in the development guild.
async fn register(http: &Http, guild: Option<GuildId>) -> serenity::Result<()> {
    let commands = slash_commands();
    with_retry(|| serenity::all::Command::set_global_commands(http, commands.clone())).await?;
    tracing::info!("discord: {} slash commands registered globally", commands.len());
    if let Some(guild) = guild {
        with_retry(|| guild.set_commands(http, commands.clone())).await?;
        tracing::info!("discord: slash commands registered in guild {guild}");
    }
    Ok(())
}

/// Runs a request again after a 429, pausing longer each time. (With a
/// proxy, serenity's rate limiter is off and a 429 comes back as an error.)
async fn with_retry<T, F, Fut>(mut attempt: F) -> serenity::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = serenity::Result<T>>,
{
    let mut pause = FIRST_PAUSE;
    for _ in 0..RETRIES {
        match attempt().await {
            Err(e) if rate_limited(&e) => {
                tracing::warn!("discord: rate limited; trying again in {} ms", pause.as_millis());
                tokio::time::sleep(pause).await;
                pause *= 2;
            }
            other => return other,
        }
    }
    attempt().await
}

fn rate_limited(e: &serenity::Error) -> bool {
    matches!(e, serenity::Error::Http(HttpError::UnsuccessfulRequest(r)) if r.status_code.as_u16() == 429)
}

// ---- messages out ----

/// One Discord message: a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Part {
    content: String,
    picture: Option<Vec<u8>>,
    buttons: Vec<Button>,
}

/// A reply as a Discord message, one at most: the text (cut to 2000
/// characters with a note, which the core's bound makes a safety net only),
/// the picture and the buttons.
fn parts(reply: &Reply) -> Vec<Part> {
    let content = cut_text(reply.text.trim_end(), MAX_CONTENT);
    if content.is_empty() && reply.picture.is_none() && reply.buttons.is_empty() {
        return Vec::new();
    }
    vec![Part { content, picture: reply.picture.as_ref().map(|p| p.png.clone()), buttons: reply.buttons.clone() }]
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

fn embed() -> CreateEmbed {
    CreateEmbed::new().image(format!("attachment://{PICTURE}"))
}

fn style_of(command: &str) -> ButtonStyle {
    match command.trim_start_matches('/').split_whitespace().next().unwrap_or("") {
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

fn message_of(part: &Part) -> CreateMessage {
    let mut m = CreateMessage::new().allowed_mentions(allowed_mentions()).components(rows(&part.buttons));
    if !part.content.is_empty() {
        m = m.content(part.content.clone());
    }
    if let Some(png) = &part.picture {
        m = m.add_file(CreateAttachment::bytes(png.clone(), PICTURE)).embed(embed());
    }
    m
}

fn edit_of(part: &Part) -> EditInteractionResponse {
    let mut m = EditInteractionResponse::new()
        .content(part.content.clone())
        .allowed_mentions(allowed_mentions())
        .components(rows(&part.buttons));
    if let Some(png) = &part.picture {
        m = m.new_attachment(CreateAttachment::bytes(png.clone(), PICTURE)).embed(embed());
    }
    m
}

fn followup_of(part: &Part) -> CreateInteractionResponseFollowup {
    let mut m =
        CreateInteractionResponseFollowup::new().allowed_mentions(allowed_mentions()).components(rows(&part.buttons));
    if !part.content.is_empty() {
        m = m.content(part.content.clone());
    }
    if let Some(png) = &part.picture {
        m = m.add_file(CreateAttachment::bytes(png.clone(), PICTURE)).embed(embed());
    }
    m
}

// ---- messages in ----

/// Discord's user mentions (`<@123>`, `<@!123>`) as the core's `@123`.
/// Role and channel mentions stay as they are.
fn mentions_to_core(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("<@") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let digits = after.strip_prefix('!').unwrap_or(after);
        let len = digits.bytes().take_while(u8::is_ascii_digit).count();
        if len > 0 && digits[len..].starts_with('>') {
            out.push('@');
            out.push_str(&digits[..len]);
            rest = &digits[len + 1..];
        } else {
            out.push_str("<@");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Whether a channel message may be for the bot: a command, or one word that
/// could be a move. Everything else is conversation and is not even read.
fn worth_asking(text: &str) -> bool {
    let text = text.trim();
    text.starts_with('/')
        || text.starts_with('!')
        || (!text.is_empty() && text.chars().count() <= 12 && !text.contains(char::is_whitespace))
}

/// What the core's buttons send, and nothing else: a custom id comes back
/// from Discord and is treated as untrusted input.
fn button_command(custom_id: &str) -> Option<String> {
    if custom_id.len() > MAX_CUSTOM_ID {
        return None;
    }
    let body = custom_id.strip_prefix('/')?;
    let words: Vec<&str> = body.split_whitespace().collect();
    match words.as_slice() {
        [word] if ["accept", "decline", "resign", "draw", "hint", "takeback"].contains(word) => {
            Some(format!("/{word}"))
        }
        [word @ ("accept" | "decline"), who] => {
            let id = who.strip_prefix('@')?;
            let valid = !id.is_empty() && id.len() <= 20 && id.bytes().all(|b| b.is_ascii_digit());
            valid.then(|| format!("/{word} @{id}"))
        }
        _ => None,
    }
}

/// A slash command option's value, as the translation needs it.
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    User(String),
    Text(String),
    Flag(bool),
    Number(i64),
}

fn arg_of(value: &CommandDataOptionValue) -> Option<Arg> {
    Some(match value {
        CommandDataOptionValue::User(id) => Arg::User(id.to_string()),
        CommandDataOptionValue::String(s) => Arg::Text(s.clone()),
        CommandDataOptionValue::Autocomplete { value, .. } => Arg::Text(value.clone()),
        CommandDataOptionValue::Boolean(b) => Arg::Flag(*b),
        CommandDataOptionValue::Integer(n) => Arg::Number(*n),
        _ => return None,
    })
}

/// What an option holds, which decides how it is registered and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A player: `@ID`.
    Player,
    /// Free text, written as given.
    Text,
    /// A variant id, offered as choices.
    Variant,
    /// white, black or random.
    Side,
    /// A yes/no written `NAME on|off`.
    OnOff,
    /// A number of days, written `days N`.
    Days,
}

struct Opt {
    name: &'static str,
    description: &'static str,
    kind: Kind,
    required: bool,
    autocomplete: bool,
}

const fn opt(name: &'static str, kind: Kind, description: &'static str) -> Opt {
    Opt { name, description, kind, required: false, autocomplete: false }
}

struct Slash {
    name: &'static str,
    description: &'static str,
    options: &'static [Opt],
}

/// The slash commands: every command of the core, with the same words.
const SLASH: &[Slash] = &[
    Slash { name: "help", description: "What Kibitz can do", options: &[] },
    Slash { name: "variants", description: "The games Kibitz plays", options: &[] },
    Slash {
        name: "rules",
        description: "A variant's rules and its pieces",
        options: &[opt("variant", Kind::Variant, "Which game (the channel's default if left out)")],
    },
    Slash {
        name: "piece",
        description: "How a piece moves",
        options: &[Opt { required: true, ..opt("name", Kind::Text, "The piece's name or letter") }],
    },
    Slash {
        name: "challenge",
        description: "Challenge a player (or anyone) to a game",
        options: &[
            opt("opponent", Kind::Player, "Who (leave out for an open challenge)"),
            opt("variant", Kind::Variant, "Which game"),
            opt("side", Kind::Side, "Your side"),
            opt("hints", Kind::OnOff, "Allow hints"),
            opt("days", Kind::Days, "Days per move (correspondence)"),
        ],
    },
    Slash {
        name: "accept",
        description: "Accept a challenge",
        options: &[opt("challenger", Kind::Player, "Whose challenge (if several)")],
    },
    Slash {
        name: "decline",
        description: "Decline a challenge",
        options: &[opt("challenger", Kind::Player, "Whose challenge (if several)")],
    },
    Slash { name: "cancel", description: "Withdraw your challenge", options: &[] },
    Slash {
        name: "move",
        description: "Play a move",
        options: &[Opt {
            required: true,
            autocomplete: true,
            ..opt("move", Kind::Text, "The move: e4, Nf3, e2e4, P@c3")
        }],
    },
    Slash {
        name: "board",
        description: "Show the board",
        options: &[opt("game", Kind::Text, "Game id (if several run here)")],
    },
    Slash {
        name: "moves",
        description: "The legal moves, or one piece's",
        options: &[opt("square", Kind::Text, "The piece's square, such as e2")],
    },
    Slash { name: "hint", description: "A hint for your move (if the game allows)", options: &[] },
    Slash { name: "resign", description: "Resign your game", options: &[] },
    Slash { name: "draw", description: "Offer a draw, or accept one", options: &[] },
    Slash { name: "takeback", description: "Ask to take back a move, or accept", options: &[] },
    Slash { name: "abort", description: "Abort a game before both sides have moved", options: &[] },
    Slash { name: "games", description: "Your games", options: &[] },
    Slash {
        name: "pgn",
        description: "The game as PGN",
        options: &[opt("game", Kind::Text, "Game id (if several run here)")],
    },
    Slash {
        name: "fen",
        description: "The position as FEN",
        options: &[opt("game", Kind::Text, "Game id (if several run here)")],
    },
    Slash {
        name: "stats",
        description: "A player's ratings and results",
        options: &[opt("player", Kind::Player, "Whose (yours if left out)")],
    },
    Slash {
        name: "leaderboard",
        description: "The best players",
        options: &[opt("variant", Kind::Variant, "Of which game")],
    },
    Slash { name: "army", description: "Clash of the Armies: your army, gold and match", options: &[] },
    Slash {
        name: "buy",
        description: "Clash of the Armies: buy a piece for your army",
        options: &[
            Opt { required: true, ..opt("piece", Kind::Text, "The piece's name or letter: Knight, war machine, N") },
            opt("square", Kind::Text, "Where it stands (the first free square of its class if left out)"),
        ],
    },
    Slash {
        name: "sell",
        description: "Clash of the Armies: sell a piece of your army at its price",
        options: &[Opt { required: true, ..opt("piece", Kind::Text, "Its square (b1) or its name") }],
    },
    Slash {
        name: "place",
        description: "Clash of the Armies: move a piece of your army to another square",
        options: &[
            Opt { required: true, ..opt("piece", Kind::Text, "Its square (b1) or its name") },
            Opt { required: true, ..opt("square", Kind::Text, "Where it goes") },
        ],
    },
    Slash { name: "ready", description: "Clash of the Armies: confirm your army", options: &[] },
    Slash {
        name: "bid",
        description: "Clash of the Armies: your sealed bid for the Amazon (in a DM with the bot)",
        options: &[
            Opt { required: true, ..opt("amount", Kind::Text, "Gold, a multiple of 0.5: 12 or 12.5") },
            opt("game", Kind::Text, "Game id (if several matches wait for a bid)"),
        ],
    },
    Slash { name: "raise", description: "Clash of the Armies: raise the bid by 0.5 after equal bids", options: &[] },
    Slash { name: "pass", description: "Clash of the Armies: pass, and lose the Amazon auction", options: &[] },
];

/// Commands only offered in a DM with the bot: a sealed bid typed in a
/// server channel would be seen there.
const DM_ONLY: &[&str] = &["bid"];

/// The slash commands as Discord registers them.
fn slash_commands() -> Vec<CreateCommand> {
    SLASH
        .iter()
        .map(|s| {
            let options = s.options.iter().map(|o| {
                let kind = match o.kind {
                    Kind::Player => CommandOptionType::User,
                    Kind::Text | Kind::Variant | Kind::Side => CommandOptionType::String,
                    Kind::OnOff => CommandOptionType::Boolean,
                    Kind::Days => CommandOptionType::Integer,
                };
                let mut option = CreateCommandOption::new(kind, o.name, o.description).required(o.required);
                if o.autocomplete {
                    option = option.set_autocomplete(true);
                }
                match o.kind {
                    Kind::Variant => {
                        for v in kibitz_rules::VARIANTS {
                            option = option.add_string_choice(v.name, v.id);
                        }
                    }
                    Kind::Side => {
                        for side in ["white", "black", "random"] {
                            option = option.add_string_choice(side, side);
                        }
                    }
                    Kind::Days => option = option.min_int_value(1).max_int_value(30),
                    _ => {}
                }
                option
            });
            let command = CreateCommand::new(s.name).description(s.description).set_options(options.collect());
            if DM_ONLY.contains(&s.name) { command.contexts(vec![InteractionContext::BotDm]) } else { command }
        })
        .collect()
}

/// A slash command as the command text the core reads, or `None` for a
/// command that is not ours.
fn slash_text(name: &str, args: &[(String, Arg)]) -> Option<String> {
    let slash = SLASH.iter().find(|s| s.name == name)?;
    let mut text = format!("/{}", slash.name);
    for o in slash.options {
        let Some((_, arg)) = args.iter().find(|(n, _)| n == o.name) else { continue };
        let word = match (o.kind, arg) {
            (Kind::Player, Arg::User(id)) => format!("@{id}"),
            (Kind::Player | Kind::Text | Kind::Variant | Kind::Side, Arg::Text(s)) => {
                mentions_to_core(s).split_whitespace().collect::<Vec<_>>().join(" ")
            }
            (Kind::OnOff, Arg::Flag(on)) => format!("{} {}", o.name, if *on { "on" } else { "off" }),
            (Kind::Days, Arg::Number(n)) => format!("days {n}"),
            _ => continue,
        };
        if !word.is_empty() {
            text.push(' ');
            text.push_str(&word);
        }
    }
    Some(text)
}

/// The legal moves of `player`'s game in `channel` that start with what was
/// typed (in SAN or canonical form, any case, `x`, `+`, `=`, `-`, `#` left
/// out), at most 25, as (what to show, what to send). None when it is not
/// the player's turn.
fn suggest_moves(store: &Store, channel: &str, player: &str, typed: &str) -> Vec<(String, String)> {
    let key = ChannelKey::new(PLATFORM, channel);
    let Ok(Some(record)) = store.player_game_in_channel(&key, player) else { return Vec::new() };
    if crate::core::clash_between_rounds(&record) {
        return Vec::new();
    }
    let Some(game) = replay(&record) else { return Vec::new() };
    let pos = game.position();
    let turn = match pos.turn() {
        Color::White => Colour::White,
        Color::Black => Colour::Black,
    };
    if record.player(turn) != player {
        return Vec::new();
    }
    let wanted = loose(typed);
    let mut found = Vec::new();
    for m in game.legal_moves() {
        let (san, canonical) = (pos.san(&m), pos.canonical(&m));
        if loose(&san).starts_with(&wanted) || loose(&canonical).starts_with(&wanted) {
            let shown = if san == canonical { san } else { format!("{san} ({canonical})") };
            found.push((shown, canonical));
            if found.len() == MAX_CHOICES {
                break;
            }
        }
    }
    found
}

fn loose(text: &str) -> String {
    text.chars().filter(|c| !"x+=-#!? ".contains(*c)).flat_map(char::to_lowercase).collect()
}

/// A stored game's rules state, its moves played again from the start (the
/// history decides some variants' moves, not only the position).
fn replay(record: &GameRecord) -> Option<Game> {
    let variant = Variant::by_id(&record.variant)?;
    let mut game = Game::from_position(Position::from_fen(variant, &record.start_fen).ok()?);
    for played in &record.moves {
        let m = game.legal_moves().into_iter().find(|m| game.position().canonical(m) == played.text)?;
        game.play(m).ok()?;
    }
    Some(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{CUT_NOTE, CoreConfig, Picture};

    #[test]
    fn mentions_become_the_cores() {
        assert_eq!(mentions_to_core("/challenge <@123> olympic"), "/challenge @123 olympic");
        assert_eq!(mentions_to_core("<@!42> and <@7>"), "@42 and @7");
        assert_eq!(mentions_to_core("role <@&9> chan <#5> <@x> <@ <@12"), "role <@&9> chan <#5> <@x> <@ <@12");
        assert_eq!(mentions_to_core("<@<@1>>"), "<@@1>");
        assert_eq!(mentions_to_core("plain e4 ♞"), "plain e4 ♞");
    }

    #[test]
    fn slash_commands_become_command_text() {
        let args = vec![
            ("days".to_string(), Arg::Number(3)),
            ("opponent".to_string(), Arg::User("55".into())),
            ("hints".to_string(), Arg::Flag(true)),
            ("variant".to_string(), Arg::Text("olympic".into())),
            ("side".to_string(), Arg::Text("black".into())),
        ];
        assert_eq!(slash_text("challenge", &args).unwrap(), "/challenge @55 olympic black hints on days 3");
        assert_eq!(slash_text("challenge", &[]).unwrap(), "/challenge");
        assert_eq!(slash_text("move", &[("move".into(), Arg::Text("  Nf3 ".into()))]).unwrap(), "/move Nf3");
        assert_eq!(slash_text("accept", &[("challenger".into(), Arg::User("9".into()))]).unwrap(), "/accept @9");
        assert_eq!(slash_text("stats", &[("player".into(), Arg::Text("<@!8>".into()))]).unwrap(), "/stats @8");
        assert_eq!(slash_text("hint", &[("x".into(), Arg::Text("y".into()))]).unwrap(), "/hint");
        // A value of the wrong kind is left out; an unknown command is not ours.
        assert_eq!(slash_text("challenge", &[("hints".into(), Arg::Text("on".into()))]).unwrap(), "/challenge");
        assert_eq!(slash_text("frobnicate", &[]), None);
    }

    #[test]
    fn every_core_command_is_a_slash_command() {
        let names: Vec<&str> = SLASH.iter().map(|s| s.name).collect();
        for (command, _) in crate::command::USAGE {
            assert!(names.contains(command), "/{command} has no slash command");
        }
        assert_eq!(names.len(), crate::command::USAGE.len());
        assert_eq!(slash_commands().len(), SLASH.len());
        for s in SLASH {
            assert!(s.description.len() <= 100 && s.options.iter().all(|o| o.description.len() <= 100));
        }
    }

    #[test]
    fn slash_text_is_read_by_the_core_grammar() {
        use crate::command::{ColourWish, Command, parse};
        let args = vec![
            ("opponent".to_string(), Arg::User("55".into())),
            ("side".to_string(), Arg::Text("white".into())),
            ("hints".to_string(), Arg::Flag(false)),
        ];
        match parse(&slash_text("challenge", &args).unwrap(), "kibitz") {
            Ok(Command::Challenge(spec)) => {
                assert_eq!(spec.opponent.as_deref(), Some("55"));
                assert_eq!(spec.colour, Some(ColourWish::White));
                assert_eq!(spec.hints, Some(false));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_our_buttons_are_pressed() {
        assert_eq!(button_command("/accept @123").as_deref(), Some("/accept @123"));
        assert_eq!(button_command("/decline @123").as_deref(), Some("/decline @123"));
        for plain in ["/accept", "/resign", "/draw", "/hint", "/takeback"] {
            assert_eq!(button_command(plain).as_deref(), Some(plain));
        }
        for bad in [
            "",
            "resign",
            "/resign now",
            "/challenge @1",
            "/move e4",
            "/accept alice",
            "/accept @12a",
            "/accept @1 @2",
            "/resign @1",
            "!resign",
            "/accept @",
            &format!("/accept @{}", "1".repeat(200)),
        ] {
            assert_eq!(button_command(bad), None, "{bad}");
        }
    }

    #[test]
    fn proxy_credentials_stay_out_of_the_log() {
        assert_eq!(without_credentials("http://user:secret@proxy:3000/x"), "http://proxy:3000/x");
        assert_eq!(without_credentials("http://127.0.0.1:3000"), "http://127.0.0.1:3000");
        assert_eq!(without_credentials("http://proxy/"), "http://proxy/");
        assert_eq!(without_credentials("a:b@proxy"), "proxy");
    }

    #[test]
    fn chat_is_not_read() {
        assert!(worth_asking("e4"));
        assert!(worth_asking("!move e4"));
        assert!(worth_asking("/board"));
        assert!(!worth_asking("good game everyone"));
        assert!(!worth_asking("   "));
        assert!(!worth_asking("abcdefghijklmnop"));
    }

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
            picture: Some(Picture { name: "board-a-0.png".into(), png: vec![1, 2, 3] }),
            buttons: vec![Button { label: "Resign".into(), command: "/resign".into() }],
        };
        let p = parts(&reply);
        assert_eq!(p.len(), 1);
        assert!(p[0].content.chars().count() <= MAX_CONTENT && p[0].content.ends_with(CUT_NOTE));
        assert_eq!(p[0].picture.as_deref(), Some(&[1u8, 2, 3][..]));
        assert_eq!(p[0].buttons.len(), 1);
        assert!(parts(&Reply::default()).is_empty());
        let only_picture = Reply { picture: reply.picture.clone(), ..Reply::default() };
        assert_eq!(parts(&only_picture).len(), 1);
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
    fn move_suggestions_follow_the_typing() {
        let dir = tempfile::tempdir().unwrap();
        let core = Core::new(Store::open(dir.path()).unwrap(), CoreConfig { board_size: 160, ..CoreConfig::default() });
        let say = |who: &str, text: &str| {
            core.handle(&Incoming {
                platform: PLATFORM.into(),
                channel: "77".into(),
                sender: User { id: who.into(), name: who.into() },
                text: text.into(),
                message_id: None,
                at: Timestamp(1),
                private: false,
            })
        };
        say("1", "/challenge @2 white");
        say("2", "/accept");
        let all = suggest_moves(core.store(), "77", "1", "");
        assert_eq!(all.len(), 20);
        assert!(all.contains(&("e4 (e2e4)".to_string(), "e2e4".to_string())));
        let knights = suggest_moves(core.store(), "77", "1", "n");
        assert_eq!(knights.len(), 4, "{knights:?}");
        let e = suggest_moves(core.store(), "77", "1", "E2");
        let mut sent: Vec<&str> = e.iter().map(|(_, v)| v.as_str()).collect();
        sent.sort();
        assert_eq!(sent, ["e2e3", "e2e4"]);
        assert!(suggest_moves(core.store(), "77", "2", "").is_empty(), "not Black's turn");
        assert!(suggest_moves(core.store(), "77", "3", "").is_empty(), "not a player");
        assert!(suggest_moves(core.store(), "78", "1", "").is_empty(), "another channel");
        say("1", "e4");
        let replies = suggest_moves(core.store(), "77", "2", "");
        assert_eq!(replies.len(), 20);
        assert!(suggest_moves(core.store(), "77", "2", "zz").is_empty());
    }
}
