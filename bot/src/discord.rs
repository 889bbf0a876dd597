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
//! Nothing Discord-specific leaves this module (`discord.rs` and `discord/`:
//! `commands` reads what players send, `outgoing` writes the replies,
//! `history` reads back what came while the bot was away and puts live
//! messages in order, `guilds` knows which shard serves each channel).
//!
//! Nothing is lost (see [`crate::relay`]). Each channel's messages and
//! interactions are handled one after another, and what they owe is stored
//! in the outbox with the channel's reading position (its last message
//! handled) before anything is sent. A second queue per channel sends the
//! outbox in order; an entry leaves it once Discord accepted it. Channel
//! messages carry a nonce made from the entry's number, which Discord
//! enforces, so an entry sent again after a crash shows once. The answer to
//! an interaction is routed to it (`CHANNEL/ID/TOKEN` as the entry's channel)
//! and edits its deferred response, or is posted in the channel once the
//! token is refused. A message the core asks to delete (a sealed bid typed
//! in a server channel) is deleted in its turn in the channel's queue; that
//! needs Manage Messages, and a refusal (403) is logged and ignored.
//!
//! Discord does not deliver again what was posted while the bot was away.
//! On every READY each channel with a reading position or a running game is
//! read from its history, oldest first, after the last message handled;
//! live messages wait for that to be queued, and the clocks for it to be
//! done (a move sent in time is not lost on time). Serenity hands every
//! event to its own task, so a live message too is read from the history,
//! with whatever came before it and was not read yet: a channel is handled
//! in Discord's order. Replies owed at a restart are sent first.
//!
//! Shards (see [`crate::shards`]): a process runs the range of shards its
//! configuration gives (`[discord] shards`, `total_shards`), and several
//! processes with ranges that do not overlap serve one bot. Discord sends a
//! guild's events to shard `(guild_id >> 22) % total` only, and direct
//! messages (private bids among them) to shard 0 only; the process holding
//! shard 0 serves them. What the adapter does on its own initiative keeps to
//! its shards too: each shard's READY reads back only the channels of that
//! shard, and its live messages wait for that. A channel's guild is noted
//! from its messages and interactions (in the store, as the reading position
//! `guild/CHANNEL`, so that a restart knows it), or asked of Discord for a
//! channel not seen yet (`GET /channels/ID`); a channel whose guild cannot
//! be told is not read back then, and is read when its next message comes.
//! The clocks start once every shard of the process is caught up, and run
//! for the games of its shards' channels (and of channels whose guild is
//! not known, games of the process's own store from before). The slash
//! commands are the bot's, not a shard's: the process holding shard 0
//! registers them. Replies owed are sent by the process whose outbox holds
//! them (Discord accepts a post in any channel from any process, and the
//! nonce shows it once). Processes with a store each keep the games of the
//! guilds they serve; a private bid reaches a match only when the process
//! holding shard 0 has it in its store.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use kibitz_storage::{ChannelKey, Completion, Store, Timestamp};
use serenity::all::{
    ChannelId, ClientBuilder, CommandInteraction, ComponentInteraction, ComponentInteractionDataKind, Context,
    EventHandler, GatewayIntents, GetMessages, GuildId, HttpBuilder, Interaction, InteractionId, Message, MessageId,
    Nonce, Permissions, Ready, User as DiscordUser,
};
use serenity::builder::{
    AutocompleteChoice, Builder, CreateAutocompleteResponse, CreateInteractionResponse,
    CreateInteractionResponseMessage,
};
use serenity::http::{Http, HttpError, LightMethod, Request, Route as ApiRoute};
use tokio::sync::{mpsc, watch};

use crate::adapter::{self, Backoff, Lanes, Shutdown};
use crate::core::{Core, Incoming, User};
use crate::relay::{Delivery, Relay};
use crate::shards::Shards;

mod commands;
mod guilds;
mod history;
mod outgoing;

use commands::{
    Arg, arg_of, button_command, mentions_to_core, slash_commands, slash_text, suggest_moves, worth_asking,
};
use guilds::known_guilds;
use outgoing::{edit_of, message_of, parts};

/// The platform name in the store and in [`Incoming`].
pub const PLATFORM: &str = "discord";

/// The store keeps each channel's guild beside the reading positions, as
/// the position `guild/CHANNEL` whose value is the guild's id, or
/// [`DIRECT`] for a direct message.
const GUILD_CURSOR: &str = "guild/";
const DIRECT: &str = "dm";

/// The environment variable naming a development guild, where the commands
/// are registered too (guild commands appear at once; global ones can take a
/// while to reach every client).
pub const GUILD_VAR: &str = "KIBITZ_DISCORD_GUILD";

/// How often the clocks are checked: chat clocks (`10+5`) need seconds.
const CLOCK_EVERY: Duration = Duration::from_secs(5);
/// How long shutdown waits for each of the channels' queues to empty.
const DRAIN: Duration = Duration::from_secs(10);
/// A channel's worker ends after this long without work.
const WORKER_IDLE: Duration = Duration::from_secs(300);
/// Messages asked for at a time when reading a channel's history.
const HISTORY_PAGE: u8 = 100;
/// A message of a channel not read before is read with the messages of
/// this many milliseconds before it.
const RECENT_MS: u64 = 10_000;
/// Attempts at reading a page of history through network errors.
const HISTORY_ATTEMPTS: u32 = 4;
/// Attempts after a 429 (Too Many Requests), with doubling pauses.
const RETRIES: u32 = 4;
const FIRST_PAUSE: Duration = Duration::from_millis(250);

/// Runs the Discord adapter, one shard (the whole bot), until `shutdown`
/// becomes true; see [`run_shards`].
pub async fn run(core: Arc<Core>, token: String, proxy: Option<String>, shutdown: Shutdown) -> Result<(), String> {
    run_shards(core, token, proxy, Shards::default(), shutdown).await
}

/// Runs the Discord adapter with the shards `shards` until `shutdown`
/// becomes true.
///
/// `proxy` (`http://host:port`) sends every REST request there instead of to
/// `https://discord.com`, with serenity's own rate limiter off (the proxy
/// limits); the gateway address is asked of the same endpoint. The token is
/// never logged.
pub async fn run_shards(
    core: Arc<Core>,
    token: String,
    proxy: Option<String>,
    shards: Shards,
    shutdown: Shutdown,
) -> Result<(), String> {
    if *shutdown.borrow() {
        return Ok(());
    }
    let mut http = HttpBuilder::new(&token);
    if let Some(proxy) = &proxy {
        tracing::info!("discord: REST requests go through {}", without_credentials(proxy));
        http = http.proxy(proxy.clone()).ratelimiter_disabled(true);
    }
    let relay = Arc::new(Relay::new(core.clone(), PLATFORM));
    relay.forget_old();
    let guilds = known_guilds(core.store());
    let (queued, _) = watch::channel(BTreeSet::new());
    let (backlog, _) = watch::channel(false);
    let shared = Arc::new(Shared {
        relay: relay.clone(),
        http: OnceLock::new(),
        handlers: Arc::new(Lanes::new(WORKER_IDLE)),
        senders: Arc::new(Lanes::new(WORKER_IDLE)),
        shutdown: shutdown.clone(),
        guild: dev_guild(),
        me: AtomicU64::new(0),
        registered: AtomicBool::new(false),
        read_to: Mutex::default(),
        shards,
        guilds: Mutex::new(guilds),
        unknown: Mutex::default(),
        caught_up: Mutex::default(),
        queued,
        backlog,
    });
    let handler = Handler(shared.clone());
    let intents = GatewayIntents::GUILD_MESSAGES | GatewayIntents::MESSAGE_CONTENT | GatewayIntents::DIRECT_MESSAGES;
    let mut client = ClientBuilder::new_with_http(http.build(), intents)
        .event_handler(handler)
        .await
        .map_err(|e| format!("discord: cannot start the client: {e}"))?;
    let _ = shared.http.set(client.http.clone());

    // Replies owed from before a restart go first.
    for owed in relay.owed() {
        shared.deliver(owed);
    }

    // The clocks wait until what came while the bot was away is handled: a
    // move sent in time is not lost on time.
    let clock = {
        let shared = shared.clone();
        let (relay, backlog) = (shared.relay.clone(), shared.backlog.subscribe());
        // On a shared store every process may run any game's clock (each
        // due game is claimed by one); an embedded store's process runs its shards'.
        let serves: crate::relay::Serves = if relay.core().store().worker_lease().is_some() {
            Arc::new(|_: &ChannelKey| true)
        } else {
            let shared = shared.clone();
            Arc::new(move |channel: &ChannelKey| shared.runs_clocks_of(channel))
        };
        let deliver = move |n| shared.deliver(n);
        tokio::spawn(adapter::clock_loop_where(relay, CLOCK_EVERY, backlog, shutdown.clone(), serves, deliver))
    };

    let manager = client.shard_manager.clone();
    let mut stop = shutdown.clone();
    let stopper = tokio::spawn(async move {
        // A dropped sender means the program is ending too.
        let _ = stop.wait_for(|stop| *stop).await;
        tracing::info!("discord: shutting down");
        manager.shutdown_all().await;
    });

    if shards.total > 1 {
        check_shards(&client.http, shards).await;
    }
    tracing::info!("discord: connecting ({shards})");
    // Serenity's range is first..last with the last shard included.
    let result = if shards.runs_all() {
        client.start_shards(shards.total).await
    } else {
        client.start_shard_range(shards.first..shards.last, shards.total).await
    };
    let result = result.map_err(|e| format!("discord: {e}"));
    stopper.abort();
    if *shutdown.borrow() {
        let _ = clock.await;
    } else {
        clock.abort();
    }
    // What was received is handled: its moves stored, its replies owed.
    if !shared.handlers.drain(DRAIN).await {
        tracing::warn!("discord: stopped with messages still being handled");
    }
    // Replies still owed stay in the outbox for the next start.
    if !shared.senders.drain(DRAIN).await {
        tracing::info!("discord: replies still owed at shutdown are sent at the next start");
    }
    tracing::info!("discord: stopped");
    result
}

/// Compares the shards configured with what Discord says (`GET
/// /gateway/bot`): too few shards for the bot's guilds, or fewer session
/// starts left than shards to start, are logged. Discord has the last word:
/// it closes a session that has too few shards with "sharding required".
async fn check_shards(http: &Http, shards: Shards) {
    match with_retry(|| http.get_bot_gateway()).await {
        Ok(gateway) => {
            if gateway.shards > shards.total {
                tracing::warn!(
                    "discord: Discord recommends {} shards for this bot; total_shards is {}",
                    gateway.shards,
                    shards.total
                );
            }
            let limit = gateway.session_start_limit;
            if limit.remaining < u64::from(shards.count()) {
                tracing::warn!(
                    "discord: Discord allows {} more session starts for now ({} s until more), fewer than the {} \
                     shards here",
                    limit.remaining,
                    limit.reset_after / 1000,
                    shards.count()
                );
            }
        }
        Err(e) => tracing::warn!("discord: cannot ask Discord how many shards it recommends: {e}"),
    }
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

/// What the event handler, the channels' lanes and the clock share.
struct Shared {
    relay: Arc<Relay>,
    /// The client's REST client, set before the gateway starts.
    http: OnceLock<Arc<Http>>,
    /// Each channel's messages and interactions, handled in order.
    handlers: Arc<Lanes<Job>>,
    /// Each channel's owed replies, sent in order.
    senders: Arc<Lanes<(Route, Delivery)>>,
    shutdown: Shutdown,
    guild: Option<GuildId>,
    /// The bot's own user id, once ready (0 before).
    me: AtomicU64,
    registered: AtomicBool,
    /// Each channel's last message read from its history.
    read_to: Mutex<HashMap<u64, u64>>,
    /// The shards this process runs.
    shards: Shards,
    /// Each channel's guild (`None`: a direct message), as far as known.
    guilds: Mutex<HashMap<u64, Option<u64>>>,
    /// The channels Discord would not describe (gone, or out of reach), not
    /// asked about again in this run.
    unknown: Mutex<BTreeSet<u64>>,
    /// The shards whose first catch-up is done.
    caught_up: Mutex<BTreeSet<u32>>,
    /// The shards whose first catch-up is queued: a shard's live messages
    /// wait for it, so that a channel's older messages are handled first.
    queued: watch::Sender<BTreeSet<u32>>,
    /// Becomes true once the first catch-up of every shard here is done:
    /// the clocks wait for it.
    backlog: watch::Sender<bool>,
}

struct Handler(Arc<Shared>);

/// A job of a channel's lane.
enum Job {
    /// An interaction to handle.
    Handle(Box<Handling>),
    /// A message from the gateway (see [`Shared::live`]).
    Live { channel: ChannelId, id: MessageId, job: Box<Handling> },
    /// The messages of `channel` after `after`, fetched and handled in order;
    /// `_done` is dropped when it is over.
    CatchUp { channel: ChannelId, after: MessageId, _done: mpsc::Sender<()> },
}

/// A message or interaction for the core, and where its answer goes.
struct Handling {
    msg: Incoming,
    /// The reading position it reaches (channel, message id).
    cursor: Option<(String, String)>,
    /// For an interaction: its route (see [`Route`]) and its token.
    interaction: Option<(String, String)>,
}

/// Where an owed reply goes, written into the outbox entry's channel:
/// `CHANNEL` for a channel message, `CHANNEL/INTERACTION/TOKEN` for the
/// answer to an interaction, which edits its deferred response (or, once
/// the token is no longer accepted, is posted in the channel).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Route {
    channel: ChannelId,
    token: Option<String>,
}

impl Route {
    fn read(text: &str) -> Option<Route> {
        let mut words = text.splitn(3, '/');
        let channel = words.next()?.parse::<u64>().ok().filter(|&c| c != 0).map(ChannelId::new)?;
        match (words.next(), words.next()) {
            (None, _) => Some(Route { channel, token: None }),
            (Some(id), Some(token)) if id.parse::<u64>().is_ok() && !token.is_empty() => {
                Some(Route { channel, token: Some(token.to_string()) })
            }
            _ => None,
        }
    }

    fn interaction(channel: ChannelId, id: InteractionId, token: &str) -> String {
        format!("{channel}/{id}/{token}")
    }
}

/// The nonce of an outbox entry: Discord creates one message per nonce
/// (with `enforce_nonce`), so a reply sent again after a crash is not shown
/// twice.
fn nonce_of(seq: u64) -> String {
    format!("kbz{seq}")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn lane_of(channel: ChannelId) -> i64 {
    channel.get() as i64
}

#[serenity::async_trait]
impl EventHandler for Handler {
    async fn ready(&self, ctx: Context, ready: Ready) {
        let shared = &self.0;
        let shard = ready.shard.map_or(ctx.shard_id.0, |s| s.id.0);
        tracing::info!("discord: ready as {} ({}), shard {shard}", ready.user.name, ready.user.id);
        shared.me.store(ready.user.id.get(), Ordering::Relaxed);
        // `/challenge @Kibitz` names the bot by its user id: a game against it.
        shared.relay.core().set_bot_id(PLATFORM, &ready.user.id.get().to_string());
        // Discord does not deliver again what came while the bot was away:
        // every channel of this shard with a game or a reading position is
        // read from where it was left, before the clocks run.
        let first = !shared.queued.borrow().contains(&shard);
        shared.catch_up(shard, first).await;
        // The commands are the bot's, not a shard's: the process holding
        // shard 0 registers them, once per run (a reconnect brings another
        // READY, the commands stay).
        if shard != 0 || shared.registered.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Err(e) = register(&ctx.http, shared.guild).await {
            tracing::error!("discord: registering the slash commands failed: {e}");
            shared.registered.store(false, Ordering::SeqCst);
        }
    }

    async fn message(&self, ctx: Context, msg: Message) {
        let shared = &self.0;
        let shard = ctx.shard_id.0;
        let mut queued = shared.queued.subscribe();
        let mut shutdown = shared.shutdown.clone();
        tokio::select! {
            _ = queued.wait_for(|q| q.contains(&shard)) => {}
            _ = shutdown.wait_for(|stop| *stop) => return,
        }
        shared.learn_guild(msg.channel_id, msg.guild_id);
        let me = shared.me.load(Ordering::Relaxed);
        if !msg.author.bot && msg.webhook_id.is_none() && msg.author.id.get() != me {
            let nick = msg.member.as_ref().and_then(|m| m.nick.clone());
            shared.note_user(&msg.author, nick);
        }
        let read = std::panic::catch_unwind(AssertUnwindSafe(|| read_message(&msg, me)));
        match read {
            Ok(Some(job)) => {
                shared.push(msg.channel_id, Job::Live { channel: msg.channel_id, id: msg.id, job: Box::new(job) })
            }
            Ok(None) => {}
            Err(_) => {
                tracing::warn!(channel = %msg.channel_id, "discord: a message that could not be read was skipped")
            }
        }
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        let shared = &self.0;
        match interaction {
            Interaction::Command(cmd) => shared.slash(&ctx, cmd).await,
            Interaction::Autocomplete(cmd) => shared.autocomplete(&ctx, cmd).await,
            Interaction::Component(press) => shared.button(&ctx, press).await,
            _ => {}
        }
    }
}

/// A channel message as a job, or `None` when it is none of the bot's
/// business (a bot's, a webhook's, chat).
fn read_message(msg: &Message, me: u64) -> Option<Handling> {
    if msg.author.bot || msg.webhook_id.is_some() || msg.author.id.get() == me {
        return None;
    }
    let text = mentions_to_core(&msg.content);
    // In a direct message every word is to the bot; in a channel only what
    // may be a command or a move is read.
    if msg.guild_id.is_some() && !worth_asking(&text) {
        return None;
    }
    let nick = msg.member.as_ref().and_then(|m| m.nick.clone());
    let at = dated(msg.timestamp.unix_timestamp(), msg.timestamp.nanosecond());
    // A message says nothing of its author's permissions: the slash
    // command does (`Incoming::manages`).
    let msg_in = incoming(msg.channel_id, msg.guild_id.is_none(), &msg.author, nick, text, msg.id.to_string(), at);
    Some(Handling { msg: msg_in, cursor: Some((msg.channel_id.to_string(), msg.id.to_string())), interaction: None })
}

/// When a message was posted, as the core counts time: never later than
/// now (a clock can be wrong), and now for a date that makes no sense.
fn dated(seconds: i64, nanos: u32) -> Timestamp {
    let now = Timestamp::now();
    let Ok(seconds) = u64::try_from(seconds) else { return now };
    match seconds.checked_mul(1000).and_then(|ms| ms.checked_add(u64::from(nanos / 1_000_000))) {
        Some(ms) if ms > 0 && ms <= now.0 => Timestamp(ms),
        _ => now,
    }
}

impl Shared {
    /// Notes who wrote, with their username, in the store's directory, so
    /// that `/challenge bob` finds the user whose username is `bob` now.
    /// Moves no records ([`Store::note_user`]): Discord players were always
    /// keyed by id. Written in the background; a failure only means the
    /// name is not known yet.
    ///
    /// [`Store::note_user`]: kibitz_storage::Store::note_user
    fn note_user(&self, user: &DiscordUser, nick: Option<String>) {
        let core = self.relay.core().clone();
        let id = user.id.to_string();
        let username = user.name.clone();
        let name = nick.or_else(|| user.global_name.clone()).unwrap_or_else(|| user.name.clone());
        tokio::task::spawn_blocking(move || {
            if let Err(e) = core.store().note_user(PLATFORM, &id, &name, Some(&username), Timestamp::now()) {
                tracing::warn!(user = %id, "discord: could not note a user in the directory: {e}");
            }
        });
    }

    fn http(&self) -> Option<&Arc<Http>> {
        self.http.get()
    }

    fn push(self: &Arc<Self>, channel: ChannelId, job: Job) {
        let shared = self.clone();
        self.handlers.push(lane_of(channel), job, move |job| {
            let shared = shared.clone();
            async move {
                match job {
                    Job::Handle(h) => {
                        shared.handle(*h).await;
                    }
                    Job::Live { channel, id, job } => shared.live(channel, id, *job).await,
                    Job::CatchUp { channel, after, _done } => {
                        shared.read_history(channel, after, None).await;
                    }
                }
            }
        });
    }

    /// Handles one message or interaction and stores what it owes; until that
    /// is stored it is tried again. Then its replies go out.
    async fn handle(self: &Arc<Self>, job: Handling) -> bool {
        let mut backoff = Backoff::default();
        let route = job.interaction.as_ref().map(|(route, _)| route.clone());
        let owed = loop {
            match self.relay.handle_routed(job.msg.clone(), job.cursor.clone(), route.clone()).await {
                Ok(owed) => break owed,
                Err(e) => {
                    let wait = backoff.next_wait();
                    tracing::warn!(
                        channel = %job.msg.channel,
                        "discord: could not keep the answer to a message ({e}); trying again in {}s",
                        wait.as_secs()
                    );
                    let mut shutdown = self.shutdown.clone();
                    if *shutdown.borrow() {
                        return false;
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = shutdown.changed() => return false,
                    }
                }
            }
        };
        if let (Some((route, token)), Some(http)) = (&job.interaction, self.http())
            && !owed.iter().any(|d| &d.channel == route)
        {
            // Nothing to say here (a retried delivery): take the "thinking" away.
            if let Err(e) = with_retry(|| http.delete_original_interaction_response(token)).await {
                tracing::warn!(channel = %job.msg.channel, "discord: cannot remove a deferred response: {e}");
            }
        }
        owed.into_iter().for_each(|d| self.deliver(d));
        true
    }

    /// Queues an owed reply on its channel's sender.
    fn deliver(self: &Arc<Self>, owed: Delivery) {
        let Some(route) = Route::read(&owed.channel) else {
            tracing::warn!("discord: a reply for a channel that is no Discord channel is dropped");
            let relay = self.relay.clone();
            tokio::spawn(async move { relay.delivered(owed.seq).await });
            return;
        };
        let shared = self.clone();
        // The work of a lane is the one its worker started with: everything
        // a job needs travels in the job.
        self.senders.push(lane_of(route.channel), (route, owed), move |(route, owed)| {
            let shared = shared.clone();
            async move { shared.send(route, owed).await }
        });
    }

    /// Sends one owed reply; it leaves the outbox once Discord has it (or
    /// refused it for good). A channel message carries the entry's nonce, so
    /// Discord shows it once however often it is sent.
    async fn send(&self, route: Route, owed: Delivery) {
        let Some(http) = self.http() else { return };
        if let Some(action) = &owed.action {
            act(http, route.channel, action).await;
            self.relay.delivered(owed.seq).await;
            return;
        }
        let parts = parts(&owed.reply);
        let mut token = route.token.clone();
        let mut backoff = Backoff::default();
        for part in &parts {
            loop {
                let sent = match &token {
                    Some(token) => {
                        let edit = edit_of(part);
                        with_retry(|| edit.clone().execute(http, token)).await.map(drop)
                    }
                    None => {
                        let builder = message_of(part).nonce(Nonce::String(nonce_of(owed.seq))).enforce_nonce(true);
                        with_retry(|| route.channel.send_message(http, builder.clone())).await.map(drop)
                    }
                };
                match sent {
                    Ok(()) => break,
                    Err(e) if refused(&e) && token.is_some() => {
                        // The interaction's token expired (a restart came between):
                        // the answer is posted in the channel instead.
                        tracing::info!(channel = %route.channel, "discord: an interaction's answer goes to its channel: {e}");
                        token = None;
                    }
                    Err(e) if refused(&e) => {
                        tracing::warn!(channel = %route.channel, "discord: Discord refused a reply, which is dropped: {e}");
                        break;
                    }
                    Err(e) => {
                        let wait = backoff.next_wait();
                        tracing::warn!(
                            channel = %route.channel,
                            "discord: could not send a reply ({e}); trying again in {}s",
                            wait.as_secs()
                        );
                        let mut shutdown = self.shutdown.clone();
                        if *shutdown.borrow() {
                            return;
                        }
                        tokio::select! {
                            _ = tokio::time::sleep(wait) => {}
                            _ = shutdown.changed() => return,
                        }
                    }
                }
            }
        }
        if parts.is_empty()
            && let Some(token) = &token
            && let Err(e) = with_retry(|| http.delete_original_interaction_response(token)).await
        {
            tracing::warn!(channel = %route.channel, "discord: cannot remove a deferred response: {e}");
        }
        self.relay.delivered(owed.seq).await;
    }

    async fn slash(self: &Arc<Self>, ctx: &Context, cmd: CommandInteraction) {
        let read = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let args: Vec<(String, Arg)> =
                cmd.data.options.iter().filter_map(|o| Some((o.name.clone(), arg_of(&o.value)?))).collect();
            slash_text(&cmd.data.name, &args)
        }));
        let text = match read {
            Ok(Some(text)) => text,
            Ok(None) => {
                tracing::warn!("discord: unknown slash command /{}", cmd.data.name);
                let sorry = CreateInteractionResponse::Message(
                    CreateInteractionResponseMessage::new()
                        .content("I don't know that command. Try /help.")
                        .ephemeral(true),
                );
                let _ = with_retry(|| sorry.clone().execute(&ctx.http, (cmd.id, &cmd.token))).await;
                return;
            }
            Err(_) => {
                tracing::warn!("discord: a slash command that could not be read was skipped");
                return;
            }
        };
        self.learn_guild(cmd.channel_id, cmd.guild_id);
        let nick = cmd.member.as_ref().and_then(|m| m.nick.clone());
        self.note_user(&cmd.user, nick.clone());
        let private = cmd.guild_id.is_none();
        // Discord computes the member's permissions in the channel for an
        // interaction: managing it is managing the channel, the server, or
        // being its administrator.
        let manages = cmd.member.as_ref().and_then(|m| m.permissions).map(manages_channel);
        let mut msg = incoming(cmd.channel_id, private, &cmd.user, nick, text, cmd.id.to_string(), Timestamp::now());
        msg.manages = manages;
        self.answer(ctx, cmd.channel_id, cmd.id, &cmd.token, msg).await;
    }

    async fn button(self: &Arc<Self>, ctx: &Context, press: ComponentInteraction) {
        let read = std::panic::catch_unwind(AssertUnwindSafe(|| match press.data.kind {
            ComponentInteractionDataKind::Button => button_command(&press.data.custom_id),
            _ => None,
        }));
        let command = read.unwrap_or_else(|_| {
            tracing::warn!("discord: a button press that could not be read was skipped");
            None
        });
        let Some(text) = command else {
            tracing::warn!("discord: ignoring a component that is none of ours");
            let ack = CreateInteractionResponse::Acknowledge;
            let _ = with_retry(|| ack.clone().execute(&ctx.http, (press.id, &press.token))).await;
            return;
        };
        self.learn_guild(press.channel_id, press.guild_id);
        let nick = press.member.as_ref().and_then(|m| m.nick.clone());
        self.note_user(&press.user, nick.clone());
        let private = press.guild_id.is_none();
        let manages = press.member.as_ref().and_then(|m| m.permissions).map(manages_channel);
        let mut msg =
            incoming(press.channel_id, private, &press.user, nick, text, press.id.to_string(), Timestamp::now());
        msg.manages = manages;
        self.answer(ctx, press.channel_id, press.id, &press.token, msg).await;
    }

    /// Defers at once, then queues the interaction on its channel: its answer
    /// edits the deferred response.
    async fn answer(
        self: &Arc<Self>,
        ctx: &Context,
        channel: ChannelId,
        id: InteractionId,
        token: &str,
        msg: Incoming,
    ) {
        let defer = CreateInteractionResponse::Defer(CreateInteractionResponseMessage::new());
        if let Err(e) = with_retry(|| defer.clone().execute(&ctx.http, (id, token))).await {
            // Not acknowledged: Discord tells the user it failed; nothing is done.
            tracing::warn!("discord: cannot defer interaction {id}: {e}");
            return;
        }
        let route = Route::interaction(channel, id, token);
        let job = Handling { msg, cursor: None, interaction: Some((route, token.to_string())) };
        self.push(channel, Job::Handle(Box::new(job)));
    }

    async fn autocomplete(&self, ctx: &Context, cmd: CommandInteraction) {
        let typed = cmd.data.autocomplete().filter(|o| o.name == "move").map(|o| o.value.to_string());
        let choices = match typed {
            Some(typed) if cmd.data.name == "move" => {
                let core = self.relay.core().clone();
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

/// A Discord id (a snowflake: a non-zero number).
fn snowflake(text: &str) -> Option<u64> {
    text.parse::<u64>().ok().filter(|&n| n != 0)
}

/// Discord refused the request for good (a 4xx other than 429): sending it
/// again cannot help.
fn refused(e: &serenity::Error) -> bool {
    matches!(e, serenity::Error::Http(HttpError::UnsuccessfulRequest(r))
        if r.status_code.is_client_error() && r.status_code.as_u16() != 429)
}

/// Takes an action of the core in `channel`. Deleting another's message
/// needs Manage Messages: a refusal is logged and ignored (the player was
/// told already).
async fn act(http: &Http, channel: ChannelId, action: &crate::core::Action) {
    let crate::core::Action::Delete { message_id, author } = action;
    let Some(id) = message_id.as_deref().and_then(|m| m.parse::<u64>().ok()).filter(|&id| id != 0) else {
        tracing::info!(%channel, "discord: no message of {author} to delete");
        return;
    };
    match with_retry(|| channel.delete_message(http, MessageId::new(id))).await {
        Ok(()) => tracing::info!(%channel, "discord: deleted a message of {author} (a sealed bid typed in public)"),
        Err(e) => tracing::warn!(
            %channel,
            "discord: could not delete a message of {author} (the bot needs Manage Messages there): {e}"
        ),
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
    at: Timestamp,
) -> Incoming {
    let name = nick.or_else(|| user.global_name.clone()).unwrap_or_else(|| user.name.clone());
    Incoming {
        platform: PLATFORM.into(),
        channel: channel.to_string(),
        sender: User { id: user.id.to_string(), name },
        text,
        message_id: Some(id),
        at,
        private,
        // Set by the caller where the platform says (an interaction).
        manages: None,
    }
}

/// Whether a member with `permissions` (in the channel) manages it: may
/// manage the channel or the server, or administers it.
fn manages_channel(permissions: Permissions) -> bool {
    permissions.administrator() || permissions.manage_channels() || permissions.manage_guild()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_credentials_stay_out_of_the_log() {
        assert_eq!(without_credentials("http://user:secret@proxy:3000/x"), "http://proxy:3000/x");
        assert_eq!(without_credentials("http://127.0.0.1:3000"), "http://127.0.0.1:3000");
        assert_eq!(without_credentials("http://proxy/"), "http://proxy/");
        assert_eq!(without_credentials("a:b@proxy"), "proxy");
    }

    mod fuzz {
        use proptest::prelude::*;
        use serde_json::{Value, json};

        use super::*;
        use crate::discord::commands::SLASH;
        use crate::discord::outgoing::MAX_CUSTOM_ID;

        /// Text with Discord's mention syntax in it, and anything else.
        fn texty() -> impl Strategy<Value = String> {
            prop_oneof![
                ".*",
                proptest::collection::vec(
                    prop_oneof![
                        Just("<@".to_string()),
                        Just("<@!".to_string()),
                        Just(">".to_string()),
                        Just("<@&".to_string()),
                        "[0-9]{1,25}",
                        "[ a-z!/@<>]{0,4}",
                        "\\PC{0,3}",
                    ],
                    0..12
                )
                .prop_map(|parts| parts.concat()),
            ]
        }

        fn arg() -> impl Strategy<Value = Arg> {
            prop_oneof![
                texty().prop_map(Arg::User),
                texty().prop_map(Arg::Text),
                any::<bool>().prop_map(Arg::Flag),
                any::<i64>().prop_map(Arg::Number),
            ]
        }

        fn id_value() -> impl Strategy<Value = Value> {
            prop_oneof![
                8 => (1..u64::MAX).prop_map(|n| json!(n.to_string())),
                1 => any::<u64>().prop_map(|n| json!(n.to_string())),
                1 => any::<u64>().prop_map(|n| json!(n)),
                1 => any::<i64>().prop_map(|n| json!(n)),
                1 => ".{0,8}".prop_map(|s| json!(s)),
                1 => Just(Value::Null),
            ]
        }

        /// A gateway MESSAGE_CREATE payload, of every shape serenity might meet.
        fn message_json() -> impl Strategy<Value = Value> {
            (
                id_value(),
                id_value(),
                id_value(),
                texty(),
                ".{0,20}",
                proptest::option::of(".{0,20}"),
                any::<bool>(),
                proptest::option::of(id_value()),
                proptest::option::of(proptest::option::of(".{0,20}")),
                prop_oneof![
                    6 => Just(json!("2024-05-01T12:00:00.000000+00:00")),
                    1 => Just(json!("2999-01-01T00:00:00+00:00")),
                    1 => ".{0,30}".prop_map(|s| json!(s)),
                    1 => any::<i64>().prop_map(|n| json!(n)),
                ],
                any::<u8>(),
            )
                .prop_map(
                    |(id, channel, author, content, name, global, bot, guild, nick, timestamp, kind)| {
                        let mut m = json!({
                            "id": id, "channel_id": channel, "content": content, "timestamp": timestamp,
                            "author": {"id": author, "username": name, "discriminator": "0", "global_name": global,
                                "avatar": null, "bot": bot},
                            "edited_timestamp": null, "tts": false, "mention_everyone": false, "mentions": [],
                            "mention_roles": [], "attachments": [], "embeds": [], "pinned": false, "type": kind,
                        });
                        if let Some(guild) = guild {
                            m["guild_id"] = guild;
                        }
                        if let Some(nick) = nick {
                            m["member"] = json!({"nick": nick, "roles": [], "joined_at": null, "deaf": false,
                            "mute": false});
                        }
                        m
                    },
                )
        }

        /// Payloads read as messages for the core.
        static READ: AtomicU64 = AtomicU64::new(0);

        #[test]
        fn random_gateway_messages_reach_the_core() {
            gateway_messages_never_panic();
            assert!(READ.load(Ordering::Relaxed) > 0, "no random payload was read: the strategy misses");
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            #[test]
            fn mentions_never_panic(text in texty()) {
                let out = mentions_to_core(&text);
                if !text.contains("<@") {
                    prop_assert_eq!(out, text);
                } else {
                    prop_assert!(out.len() <= text.len());
                }
            }

            #[test]
            fn slash_commands_never_panic(
                pick in 0..SLASH.len() + 1,
                other in ".{0,12}",
                args in proptest::collection::vec(("[a-z]{1,10}|opponent|move|days|hints|side", arg()), 0..8),
            ) {
                let name = SLASH.get(pick).map_or(other.as_str(), |s| s.name);
                match slash_text(name, &args) {
                    Some(text) => {
                        let head = format!("/{name}");
                        prop_assert!(text.starts_with(&head));
                        // Whatever was typed into an option, it reads as one command.
                        prop_assert!(!text.contains('\n') || args.iter().any(|(_, a)| matches!(a, Arg::User(u) if u.contains('\n'))));
                    }
                    None => prop_assert!(SLASH.iter().all(|s| s.name != name)),
                }
            }

            #[test]
            fn buttons_never_panic(custom_id in texty()) {
                if let Some(command) = button_command(&custom_id) {
                    prop_assert!(command.starts_with('/') && command.len() <= MAX_CUSTOM_ID);
                    prop_assert_eq!(button_command(&command), Some(command.clone()));
                }
            }

            #[test]
            fn routes_never_panic(text in texty(), channel in 1..u64::MAX, id in any::<u64>(), token in "[A-Za-z0-9_.-]{1,80}") {
                let _ = Route::read(&text);
                let route = Route::interaction(ChannelId::new(channel), InteractionId::new(id.max(1)), &token);
                prop_assert_eq!(Route::read(&route), Some(Route { channel: ChannelId::new(channel), token: Some(token) }));
            }

            #[test]
            fn gateway_messages_never_panic(payload in message_json(), me in any::<u64>()) {
                let Ok(msg) = serde_json::from_value::<Message>(payload) else { return Ok(()) };
                let Some(job) = read_message(&msg, me) else { return Ok(()) };
                READ.fetch_add(1, Ordering::Relaxed);
                prop_assert!(!msg.author.bot && msg.author.id.get() != me);
                prop_assert_eq!(&job.msg.channel, &msg.channel_id.to_string());
                prop_assert_eq!(job.msg.message_id.clone(), Some(msg.id.to_string()));
                prop_assert_eq!(job.cursor, Some((msg.channel_id.to_string(), msg.id.to_string())));
                prop_assert!(job.msg.at <= Timestamp::now());
                // In a channel only what may be for the bot is read; in a
                // direct message, everything.
                prop_assert!(worth_asking(&job.msg.text) || msg.guild_id.is_none());
                prop_assert_eq!(job.msg.private, msg.guild_id.is_none());
            }

            #[test]
            fn incoming_keeps_who_and_what(id in 1..u64::MAX, name in ".{0,40}", nick in proptest::option::of(".{0,40}"), text in texty(), at in any::<u64>()) {
                let user: DiscordUser = serde_json::from_value(
                    json!({"id": id.to_string(), "username": name, "discriminator": "0", "avatar": null}),
                ).unwrap();
                let msg = incoming(ChannelId::new(id), false, &user, nick.clone(), text.clone(), "5".into(), Timestamp(at));
                prop_assert_eq!(msg.sender.id, id.to_string());
                prop_assert_eq!(msg.sender.name, nick.unwrap_or(name));
                prop_assert_eq!(msg.text, text);
            }

            #[test]
            fn dates_are_never_in_the_future(seconds in any::<i64>(), nanos in any::<u32>()) {
                prop_assert!(dated(seconds, nanos) <= Timestamp::now());
            }
        }
    }
}
