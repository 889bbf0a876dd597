//! The Telegram adapter: the Bot API through long polling (`getUpdates`),
//! or in webhook mode through updates Telegram posts (see [`webhook`]).
//!
//! It only translates (`incoming` reads what Telegram sends, `outgoing`
//! writes the replies). A text message becomes an [`Incoming`] for the core.
//! Players are their numeric Telegram user ids, which never change hands;
//! usernames are only names. Every user seen (a sender, a button's presser,
//! a replied-to author, a user picked from the @-menu) is noted in the
//! store's user directory, so that a typed `@bob` reaches the core as the
//! `@ID` of whoever holds that username now; a name the directory does not
//! know is answered here and never reaches the core. Records that older
//! versions keyed by username move to the id when its holder is first seen.
//! A group that becomes a supergroup takes its games to the new chat id.
//! A reply becomes a message, or a photo
//! with the text as its caption, with the buttons as an inline keyboard whose
//! callback data is the button's command. A pressed button runs that command
//! as its presser, in the chat of the message it sits under.
//!
//! Nothing is lost (see [`crate::relay`]): an update is confirmed to
//! Telegram (by the offset of a later `getUpdates`) only once it is handled
//! and its replies are stored in the outbox; until then Telegram hands it
//! out again after a crash. Each chat's updates are handled in order, apart
//! from its replies: a second queue per chat sends what the outbox holds at
//! Telegram's pace for the chat (a message a second, twenty a minute in
//! groups), waiting out 429s, so a slow pace never holds back handling, and
//! chats do not wait for one another. The pace is kept by the store
//! ([`kibitz_storage::Store::reserve_send_slot`]), so that processes that
//! share it (webhook mode behind a load balancer) keep one pace together.
//! Replies owed at a restart are sent first. The clocks start once the
//! updates that came while the bot was away are handled. On shutdown
//! polling stops (in webhook mode: no request is taken any more), every
//! update received is handled and confirmed, and replies still owed after
//! a while wait for the next start.

use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kibitz_storage::Timestamp;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{AllowedUpdate, BotCommand, InputFile, UpdateKind};
use tokio::sync::watch;

use crate::adapter::{self, Backoff, Lanes, Shutdown};
use crate::command;
use crate::core::{Action, Core, Incoming, Reply};
use crate::relay::{Delivery, Relay};

mod incoming;
mod outgoing;
pub mod webhook;

pub use incoming::{core_text, player_id, resolve_mentions};
use incoming::{incoming, note_user, player, unknown_users};
use outgoing::KEYBOARD_MEMORY;
pub use outgoing::{Keyboards, Out, Pace, Rendered, Shown, cut, plan, render};
pub use webhook::Webhook;

/// The platform name the adapter uses in the store.
pub const PLATFORM: &str = "telegram";

/// How long one `getUpdates` waits for news. Below teloxide's 17-second
/// request timeout, which it does not extend for long polling.
const POLL_SECONDS: u32 = 10;
/// A chat's worker ends after this long without work.
const WORKER_IDLE: Duration = Duration::from_secs(300);
/// How long the poll waits for an update in flight before asking again.
const IN_FLIGHT_PAUSE: Duration = Duration::from_millis(250);
/// How long shutdown waits for the chats' queues to empty.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);
/// How often the clocks are looked at: chat clocks (`10+5`) need seconds.
const CLOCK_EVERY: Duration = Duration::from_secs(5);

/// Runs the bot on Telegram until `shutdown` becomes true.
///
/// `api_url` points at a self-hosted Bot API server (or a test fake) instead
/// of `https://api.telegram.org`. Fails at once if Telegram refuses the token;
/// network errors are retried.
pub async fn run(core: Arc<Core>, token: String, api_url: Option<String>, shutdown: Shutdown) -> Result<(), String> {
    run_with(core, token, api_url, None, shutdown).await
}

/// [`run`], in webhook mode if `webhook` is given: Telegram then posts the
/// updates to its address (see [`webhook`]). Fails at once if the address
/// cannot be listened on or Telegram refuses the webhook.
pub async fn run_with(
    core: Arc<Core>,
    token: String,
    api_url: Option<String>,
    webhook: Option<Webhook>,
    shutdown: Shutdown,
) -> Result<(), String> {
    let mut bot = Bot::new(token);
    if let Some(url) = api_url {
        // `Url::join` would drop a last path segment without the slash.
        let url = if url.ends_with('/') { url } else { format!("{url}/") };
        bot = bot.set_api_url(url.parse().map_err(|e| format!("[telegram] api_url '{url}' is not a URL: {e}"))?);
    }
    let Some(me) = connect(&bot, shutdown.clone()).await? else { return Ok(()) };
    let username = me.user.username.clone().unwrap_or_default();
    tracing::info!(bot = %username, "connected to Telegram");
    // The bot is its user id; `/challenge @ThisBot` reads as that id.
    core.set_bot_id(PLATFORM, &player_id(&me.user));
    note_user(&core, &me.user);

    // Webhook mode listens before Telegram is told to post there.
    let listener = match &webhook {
        Some(hook) => {
            let listener = webhook::bind(hook).await?;
            webhook::register(&bot, hook).await?;
            Some(listener)
        }
        None => {
            if let Err(e) = retrying("deleteWebhook", || bot.delete_webhook().send()).await {
                tracing::warn!("could not remove a webhook, polling may fail: {e}");
            }
            None
        }
    };
    if let Err(e) = retrying("setMyCommands", || bot.set_my_commands(command_list()).send()).await {
        tracing::warn!("could not register the command list: {e}");
    }

    let relay = Arc::new(Relay::new(core, PLATFORM));
    relay.forget_old();
    let chats = Arc::new(Chats::new(bot.clone(), relay.clone(), shutdown.clone()));
    // Replies owed from before a restart go first.
    for owed in relay.owed() {
        chats.deliver(owed);
    }
    // The clocks wait until the updates that came while the bot was away
    // are handled: a move sent in time is not lost on time.
    let (backlog_done, backlog) = watch::channel(false);
    let clock = {
        let chats = chats.clone();
        tokio::spawn(adapter::clock_loop(relay, CLOCK_EVERY, backlog, shutdown.clone(), move |n| chats.deliver(n)))
    };

    match (listener, &webhook) {
        (Some(listener), Some(hook)) => {
            webhook::serve(listener, &bot, &chats, &username, hook, shutdown, backlog_done).await;
        }
        _ => poll(&bot, &chats, &username, shutdown, backlog_done).await,
    }

    let _ = clock.await;
    // Every update received is handled, then confirmed.
    if !chats.handlers.drain(DRAIN_LIMIT).await {
        tracing::warn!("updates still being handled at shutdown are left for the next start");
    }
    let offset = chats.updates.offset();
    if offset > 0 {
        let confirm = bot.get_updates().offset(offset as i32).limit(1).timeout(0).send();
        if let Err(e) = tokio::time::timeout(Duration::from_secs(5), confirm).await.unwrap_or(Ok(Vec::new())) {
            tracing::warn!("could not confirm the last updates: {e}");
        }
    }
    // Replies still owed stay in the outbox for the next start.
    if !chats.senders.drain(DRAIN_LIMIT).await {
        tracing::info!("replies still owed at shutdown are sent at the next start");
    }
    tracing::info!("Telegram adapter stopped");
    Ok(())
}

/// `getMe`, retried on network errors until it works or shutdown comes
/// (`None`). A refused token is an error.
async fn connect(bot: &Bot, mut shutdown: Shutdown) -> Result<Option<teloxide::types::Me>, String> {
    let mut backoff = Backoff::default();
    loop {
        if *shutdown.borrow() {
            return Ok(None);
        }
        let wait = tokio::select! {
            r = bot.get_me().send() => match r {
                Ok(me) => return Ok(Some(me)),
                Err(RequestError::Api(e)) => return Err(format!("Telegram refused to start the bot (getMe): {e}")),
                Err(RequestError::RetryAfter(s)) => s.duration(),
                Err(e) => {
                    let wait = backoff.next_wait();
                    tracing::warn!("cannot reach Telegram ({e}); trying again in {}s", wait.as_secs());
                    wait
                }
            },
            _ = shutdown.changed() => return Ok(None),
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = shutdown.changed() => return Ok(None),
        }
    }
}

/// The updates received and not yet handled, and so the offset that
/// confirms every update handled (and none other).
#[derive(Default)]
struct Updates {
    state: Mutex<UpdatesState>,
    progress: tokio::sync::Notify,
}

#[derive(Default)]
struct UpdatesState {
    /// Received, not yet handled.
    in_flight: BTreeSet<i64>,
    /// The highest update id received.
    newest: Option<i64>,
}

impl Updates {
    /// Takes an update in; `false` if it was received before.
    fn receive(&self, id: i64) -> bool {
        let mut s = lock(&self.state);
        if s.newest.is_some_and(|n| id <= n) {
            return false;
        }
        s.newest = Some(id);
        s.in_flight.insert(id);
        true
    }

    /// The update `id` is handled and its result stored.
    fn done(&self, id: i64) {
        lock(&self.state).in_flight.remove(&id);
        self.progress.notify_waiters();
    }

    fn idle(&self) -> bool {
        lock(&self.state).in_flight.is_empty()
    }

    /// The offset to confirm with: below the oldest update still in flight.
    fn offset(&self) -> i64 {
        let s = lock(&self.state);
        match (s.in_flight.first(), s.newest) {
            (Some(&oldest), _) => oldest,
            (None, Some(newest)) => newest + 1,
            (None, None) => 0,
        }
    }
}

/// Long polling until shutdown. An update is confirmed (by the offset of a
/// later `getUpdates`) only once it is handled and its result stored; until
/// then Telegram hands it out again, and it is recognised by its id.
async fn poll(bot: &Bot, chats: &Arc<Chats>, username: &str, mut shutdown: Shutdown, backlog: watch::Sender<bool>) {
    let mut backoff = Backoff::default();
    while !*shutdown.borrow() {
        // With updates in flight, Telegram answers at once with them again:
        // wait for one to be handled (or a moment) before asking.
        if !chats.updates.idle() {
            let progress = chats.updates.progress.notified();
            tokio::select! {
                _ = progress => {}
                _ = tokio::time::sleep(IN_FLIGHT_PAUSE) => {}
                _ = shutdown.changed() => break,
            }
        }
        let waiting = *backlog.borrow() && chats.updates.idle();
        let request = bot
            .get_updates()
            .offset(chats.updates.offset() as i32)
            .timeout(if waiting { POLL_SECONDS } else { 0 })
            .allowed_updates([AllowedUpdate::Message, AllowedUpdate::CallbackQuery])
            .send();
        let wait = tokio::select! {
            r = request => match r {
                Ok(updates) => {
                    backoff = Backoff::default();
                    let mut new = 0;
                    for update in updates {
                        let id = i64::from(update.id.0);
                        if chats.updates.receive(id) {
                            new += 1;
                            chats.dispatch(id, update, username);
                        }
                    }
                    if new == 0 && chats.updates.idle() && !*backlog.borrow() {
                        tracing::info!("the updates that came while the bot was away are handled");
                        let _ = backlog.send(true);
                    }
                    continue;
                }
                Err(RequestError::InvalidJson { raw, .. }) => {
                    // One update that cannot be read must not stop the others:
                    // each is read on its own, and one that cannot be is done.
                    let Some(salvaged) = salvage(&raw) else {
                        let wait = backoff.next_wait();
                        tracing::warn!("getUpdates answered what is not a list of updates; trying again in {}s", wait.as_secs());
                        tokio::select! {
                            _ = tokio::time::sleep(wait) => {}
                            _ = shutdown.changed() => break,
                        }
                        continue;
                    };
                    for (id, update) in salvaged {
                        if !chats.updates.receive(id) {
                            continue;
                        }
                        match update {
                            Some(update) => chats.dispatch(id, update, username),
                            None => {
                                tracing::warn!(update = id, "an update that could not be read was skipped");
                                chats.updates.done(id);
                            }
                        }
                    }
                    continue;
                }
                Err(RequestError::RetryAfter(s)) => s.duration(),
                Err(e) => {
                    let wait = backoff.next_wait();
                    tracing::warn!("getUpdates failed ({e}); trying again in {}s", wait.as_secs());
                    wait
                }
            },
            _ = shutdown.changed() => break,
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = shutdown.changed() => break,
        }
    }
}

/// The updates of a `getUpdates` answer that could not be read as a whole,
/// one by one: each id with its update, or `None` where it cannot be read.
/// `None` for an answer that is no list of updates at all.
fn salvage(raw: &str) -> Option<Vec<(i64, Option<Update>)>> {
    let answer: serde_json::Value = serde_json::from_str(raw).ok()?;
    let list = answer.get("result")?.as_array()?;
    let mut found = Vec::with_capacity(list.len());
    for item in list {
        let Some(id) = item.get("update_id").and_then(serde_json::Value::as_i64) else { continue };
        found.push((id, serde_json::from_str::<Update>(&item.to_string()).ok()));
    }
    Some(found)
}

/// Sends `picture` with the request builder `$method` (`send_photo`,
/// `send_animation`: they take the same caption, entities and keyboard),
/// retried as `$name`.
macro_rules! send_media {
    ($adapter:expr, $method:ident, $name:literal, $chat:expr, $picture:expr, $caption:expr, $markup:expr) => {
        retrying($name, || {
            let file = InputFile::memory($picture.bytes.clone()).file_name($picture.name.clone());
            let mut req = $adapter.bot.$method($chat, file);
            if let Some(c) = $caption {
                req = req.caption(c.text.clone());
                if !c.links.is_empty() {
                    req = req.caption_entities(c.entities());
                }
            }
            if let Some(m) = &$markup {
                req = req.reply_markup(m.clone());
            }
            req.send()
        })
        .await
        .map(drop)
    };
}

/// Sends a request, waiting out 429s and retrying network errors a few times.
async fn retrying<T, F, Fut>(what: &str, mut send: F) -> Result<T, RequestError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RequestError>>,
{
    let mut network_failures = 0;
    let mut rate_limited = 0;
    loop {
        match send().await {
            Err(RequestError::RetryAfter(s)) if rate_limited < 5 => {
                rate_limited += 1;
                tracing::info!("{what}: rate limited, waiting {}s", s.seconds());
                tokio::time::sleep(s.duration()).await;
            }
            Err(RequestError::Network(e)) if network_failures < 3 => {
                network_failures += 1;
                tracing::warn!("{what}: network error ({e}); retrying");
                tokio::time::sleep(Duration::from_secs(1 << network_failures)).await;
            }
            other => return other,
        }
    }
}

/// The command list shown by Telegram clients: every core command.
pub fn command_list() -> Vec<BotCommand> {
    command::USAGE
        .iter()
        .map(|(name, usage)| BotCommand { command: name.to_string(), description: describe(name, usage) })
        .collect()
}

fn describe(name: &str, usage: &str) -> String {
    let what = match name {
        "help" => "What I can do",
        "variants" => "The games I play",
        "rules" => "A game's rules and pieces",
        "piece" => "How a piece moves",
        "challenge" => "Challenge a player, or anyone",
        "accept" => "Accept a challenge",
        "decline" => "Decline a challenge, or a draw or takeback offer",
        "cancel" => "Withdraw your challenge",
        "rematch" => "Your last game here again, colours swapped",
        "move" => "Play a move (or just type it)",
        "board" => "Show the board",
        "moves" => "The legal moves, or one piece's",
        "hint" => "A hint, if the game allows them",
        "resign" => "Resign the game (asks you to confirm)",
        "draw" => "Offer or accept a draw",
        "takeback" => "Ask for or accept a takeback",
        "abort" => "Abort before both sides have moved",
        "games" => "Your running games",
        "pgn" => "The game as PGN",
        "fen" => "The position as FEN",
        "gif" => "The game's replay, animated",
        "review" => "The review of a finished game",
        "stats" => "Ratings and results",
        "leaderboard" => "The best players",
        "prices" => "Clash: what each piece costs",
        "army" => "Clash: your army, gold and match",
        "buy" => "Clash: buy a piece for your army",
        "sell" => "Clash: sell a piece of your army",
        "place" => "Clash: move a piece of your army",
        "ready" => "Clash: confirm your army",
        "bid" => "Clash: your sealed bid (in private chat)",
        "raise" => "Clash: raise the bid by 0.5",
        "pass" => "Clash: pass, losing the auction",
        "settings" => "The chat's defaults for new games (admins change them)",
        _ => return format!("/{usage}"),
    };
    match usage.split_once(' ') {
        Some((_, args)) => format!("{what}: {args}"),
        None => what.to_string(),
    }
}

// ---- the chats ----

/// An update to handle: its id, and the message for the core, or the
/// answer the adapter gives it itself (a name it cannot read).
struct Job {
    update: i64,
    msg: Incoming,
    answer: Option<Reply>,
    /// Webhook mode: told whether the update's result was stored; the
    /// update is then tried once (Telegram posts it again if not).
    stored: Option<tokio::sync::oneshot::Sender<bool>>,
}

/// The chats' workers and what they share.
struct Chats {
    bot: Bot,
    relay: Arc<Relay>,
    keyboards: Mutex<Keyboards>,
    /// The updates in flight.
    updates: Updates,
    /// Each chat's updates, handled in order.
    handlers: Arc<Lanes<Job>>,
    /// Each chat's owed replies, sent in order at the chat's pace.
    senders: Arc<Lanes<Delivery>>,
    shutdown: Shutdown,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Chats {
    fn new(bot: Bot, relay: Arc<Relay>, shutdown: Shutdown) -> Chats {
        Chats {
            bot,
            relay,
            keyboards: Mutex::new(Keyboards::new(KEYBOARD_MEMORY)),
            updates: Updates::default(),
            handlers: Arc::new(Lanes::new(WORKER_IDLE)),
            senders: Arc::new(Lanes::new(WORKER_IDLE)),
            shutdown,
        }
    }

    fn remember(&self, user: &teloxide::types::User) {
        note_user(self.relay.core(), user);
    }

    /// What a message tells besides its text: the users in it (its sender,
    /// the author it replies to, users picked from the @-menu), and a group
    /// that became a supergroup under a new chat id.
    fn seen(&self, msg: &Message) {
        let replied = msg.reply_to_message().and_then(|r| r.from.as_ref());
        for user in msg.from.iter().chain(replied).chain(msg.mentioned_users()) {
            if !user.is_bot {
                self.remember(user);
            }
        }
        let moved = match (msg.migrate_to_chat_id(), msg.migrate_from_chat_id()) {
            (Some(to), _) => Some((msg.chat.id, *to)),
            (None, Some(from)) => Some((*from, msg.chat.id)),
            (None, None) => None,
        };
        if let Some((from, to)) = moved {
            let old = kibitz_storage::ChannelKey::new(PLATFORM, from.0.to_string());
            match self.relay.core().store().move_channel(&old, &to.0.to_string()) {
                Ok(moved) => tracing::info!(from = from.0, to = to.0, ?moved, "the group moved to a new chat id"),
                Err(e) => tracing::error!(from = from.0, to = to.0, "could not move a group's games: {e}"),
            }
        }
    }

    /// The job for a message: the core's, with typed `@usernames` read as
    /// the ids of their holders; a command naming a username nobody here
    /// has used is answered at once, and changes nothing.
    fn resolved(&self, mut msg: Incoming) -> (Incoming, Option<Reply>) {
        let store = self.relay.core().store();
        let (text, unknown) = resolve_mentions(&msg.text, |name| store.user_by_username(PLATFORM, name).ok().flatten());
        let command = !matches!(command::parse(&msg.text, ""), Err(command::ParseError::NotACommand));
        if !unknown.is_empty() && command {
            return (msg, Some(Reply { text: unknown_users(&unknown), ..Reply::default() }));
        }
        msg.text = text;
        (msg, None)
    }

    /// How `<@ID>` shows: the holder's username, else their name, linked.
    fn shown(&self, id: &str) -> Option<Shown> {
        let user = self.relay.core().store().user(PLATFORM, id).ok().flatten()?;
        Some(match user.username {
            Some(username) => Shown::Username(username),
            None => Shown::Name(user.name),
        })
    }

    /// Routes an update to its chat's handler. An update that is none of the
    /// bot's business, or cannot be read, is done at once. Reading it never
    /// takes the adapter down: a panic is caught and the update skipped.
    fn dispatch(self: &Arc<Self>, id: i64, update: Update, username: &str) {
        self.route(id, update, username, None);
    }

    /// [`Chats::dispatch`], telling `stored` (if given) whether the update's
    /// result was stored; an update with nothing to handle counts as stored.
    fn route(
        self: &Arc<Self>,
        id: i64,
        update: Update,
        username: &str,
        stored: Option<tokio::sync::oneshot::Sender<bool>>,
    ) {
        let read = std::panic::catch_unwind(AssertUnwindSafe(|| self.read(id, update, username)));
        let skipped = match read {
            Ok(Some((chat, (msg, answer)))) => {
                let chats = self.clone();
                self.handlers.push(chat.0, Job { update: id, msg, answer, stored }, move |job| {
                    let chats = chats.clone();
                    async move { chats.handle(job).await }
                });
                return;
            }
            Ok(None) => stored,
            Err(_) => {
                tracing::warn!(update = id, "an update that could not be read was skipped");
                stored
            }
        };
        self.updates.done(id);
        if let Some(stored) = skipped {
            let _ = stored.send(true);
        }
    }

    /// The chat and the message an update brings, if any.
    fn read(self: &Arc<Self>, id: i64, update: Update, username: &str) -> Option<(ChatId, (Incoming, Option<Reply>))> {
        match update.kind {
            UpdateKind::Message(msg) => {
                self.seen(&msg);
                let incoming = incoming(&msg, username)?;
                tracing::debug!(chat = msg.chat.id.0, "message");
                Some((msg.chat.id, self.resolved(incoming)))
            }
            UpdateKind::CallbackQuery(query) => self.pressed(query),
            UpdateKind::Error(value) => {
                tracing::warn!(update = id, "an update that could not be read");
                tracing::debug!("unread update: {value}");
                None
            }
            _ => None,
        }
    }

    /// A pressed button: answered at once (the client shows a spinner until
    /// then), and its command run in the chat as its presser.
    fn pressed(self: &Arc<Self>, query: CallbackQuery) -> Option<(ChatId, (Incoming, Option<Reply>))> {
        self.remember(&query.from);
        let command = query.data.as_deref().and_then(|d| lock(&self.keyboards).command_for(d));
        let chat = query.message.as_ref().map(|m| m.chat().id);
        let known = command.is_some() && chat.is_some();
        let bot = self.bot.clone();
        let id = query.id.clone();
        tokio::spawn(async move {
            let answered = retrying("answerCallbackQuery", || {
                let answer = bot.answer_callback_query(id.clone());
                if known { answer } else { answer.text("That button no longer works; type the command instead.") }
                    .send()
            })
            .await;
            if let Err(e) = answered {
                tracing::warn!("could not answer a button press: {e}");
            }
        });
        let (Some(command), Some(chat)) = (command, chat) else {
            tracing::info!("ignored a button press with unknown data");
            return None;
        };
        let msg = Incoming {
            platform: PLATFORM.into(),
            channel: chat.0.to_string(),
            sender: player(&query.from),
            text: command,
            message_id: Some(format!("{}:button:{}", chat.0, query.id.0)),
            at: Timestamp::now(),
            // Private chats have positive ids, groups negative ones.
            private: chat.0 > 0,
            manages: None,
        };
        Some((chat, (msg, None)))
    }

    /// Handles one update and stores what it owes; until that is stored it
    /// is tried again (and stays unconfirmed). Then its replies go out. A
    /// posted update (webhook mode) is tried once: its request is answered
    /// with the outcome, and Telegram posts it again if it was not stored.
    async fn handle(self: &Arc<Self>, job: Job) {
        let Job { update, mut msg, answer, mut stored } = job;
        if msg.manages.is_none() && !msg.private && crate::command::changes_settings(&msg.text, "") {
            msg.manages = self.is_admin(&msg).await;
        }
        let mut backoff = Backoff::default();
        loop {
            let handled = match &answer {
                Some(answer) => self.relay.answer(msg.clone(), answer.clone()).await,
                None => self.relay.handle(msg.clone(), None).await,
            };
            match handled {
                Ok(owed) => {
                    owed.into_iter().for_each(|d| self.deliver(d));
                    if let Some(stored) = stored.take() {
                        let _ = stored.send(true);
                    }
                    break;
                }
                Err(e) if stored.is_some() => {
                    tracing::warn!(
                        update,
                        "could not keep the answer to a posted update ({e}); Telegram posts it again"
                    );
                    if let Some(stored) = stored.take() {
                        let _ = stored.send(false);
                    }
                    break;
                }
                Err(e) => {
                    let wait = backoff.next_wait();
                    tracing::warn!(
                        update,
                        "could not keep the answer to an update ({e}); trying again in {}s",
                        wait.as_secs()
                    );
                    if !self.pause(wait).await {
                        // Left unconfirmed: it comes again at the next start.
                        return;
                    }
                }
            }
        }
        self.updates.done(update);
    }

    /// Whether the sender of `msg` is an administrator (or the owner) of its
    /// group, as `getChatMember` says; `None` if Telegram could not be asked.
    async fn is_admin(&self, msg: &Incoming) -> Option<bool> {
        let chat = ChatId(msg.channel.parse().ok()?);
        let user = teloxide::types::UserId(msg.sender.id.parse().ok()?);
        match retrying("getChatMember", || self.bot.get_chat_member(chat, user).send()).await {
            Ok(member) => Some(member.is_privileged()),
            Err(e) => {
                tracing::warn!(chat = chat.0, "could not ask whether a user is an admin: {e}");
                None
            }
        }
    }

    /// Waits `wait`, unless shutdown comes first (`false`).
    async fn pause(&self, wait: Duration) -> bool {
        let mut shutdown = self.shutdown.clone();
        if *shutdown.borrow() {
            return false;
        }
        tokio::select! {
            _ = tokio::time::sleep(wait) => true,
            _ = shutdown.changed() => false,
        }
    }

    /// Queues an owed reply on its chat's sender.
    fn deliver(self: &Arc<Self>, owed: Delivery) {
        let Ok(chat) = owed.channel.parse::<i64>() else {
            tracing::warn!(channel = %owed.channel, "a reply for a chat that is no chat id is dropped");
            let relay = self.relay.clone();
            tokio::spawn(async move { relay.delivered(owed.seq).await });
            return;
        };
        let chats = self.clone();
        self.senders.push(chat, owed, move |owed| {
            let chats = chats.clone();
            async move { chats.send(ChatId(chat), owed).await }
        });
    }

    /// Takes an action of the core in `chat`. Telegram lets a bot delete
    /// others' messages only where it is an admin: a refusal is logged and
    /// ignored (the player was told already).
    async fn act(&self, chat: ChatId, action: &Action) {
        let Action::Delete { message_id, author } = action;
        // The core knows a message as `CHAT:MESSAGE`; a button press (`CHAT:button:ID`) is none.
        let id = message_id
            .as_deref()
            .and_then(|m| m.split_once(':'))
            .filter(|(c, _)| *c == chat.0.to_string())
            .and_then(|(_, m)| m.parse::<i32>().ok());
        let Some(id) = id else {
            tracing::info!(chat = chat.0, "no message of {author} to delete");
            return;
        };
        match retrying("deleteMessage", || self.bot.delete_message(chat, teloxide::types::MessageId(id)).send()).await {
            Ok(_) => tracing::info!(chat = chat.0, "deleted a message of {author} (a sealed bid typed in public)"),
            Err(e) => tracing::warn!(
                chat = chat.0,
                "could not delete a message of {author} (the bot deletes only where it is an admin): {e}"
            ),
        }
    }

    /// Waits for this process's turn to send to `chat`: the store gives each
    /// message its slot, so that every process sharing the store keeps
    /// Telegram's pace together. If the store cannot say, the message goes now.
    async fn wait_for_slot(&self, chat: ChatId) {
        let store = self.relay.core().store().clone();
        let reserve = move || {
            let now = Timestamp::now();
            let gap = Pace::GAP.as_millis() as u64;
            store
                .reserve_send_slot(PLATFORM, &chat.0.to_string(), now, gap, Pace::per_minute(chat.0))
                .map(|slot| Duration::from_millis(slot.0.saturating_sub(now.0)))
        };
        match tokio::task::spawn_blocking(reserve).await {
            Ok(Ok(wait)) => tokio::time::sleep(wait).await,
            Ok(Err(e)) => tracing::warn!(chat = chat.0, "could not ask the store for a send slot ({e}); sending now"),
            Err(e) => tracing::warn!(chat = chat.0, "could not ask the store for a send slot ({e}); sending now"),
        }
    }

    /// Sends one owed reply as its messages, at the chat's pace, noting each
    /// part the platform accepts; the reply leaves the outbox when all are.
    async fn send(&self, chat: ChatId, owed: Delivery) {
        if let Some(action) = &owed.action {
            self.act(chat, action).await;
            self.relay.delivered(owed.seq).await;
            return;
        }
        let reply = &owed.reply;
        let text = render(&reply.text, |id| self.shown(id));
        let plan = plan(&text, reply.picture.is_some());
        let last = plan.len().saturating_sub(1);
        let mut backoff = Backoff::default();
        let mut i = owed.progress as usize;
        while i < plan.len() {
            let out = &plan[i];
            let markup = if i == last { lock(&self.keyboards).markup(&reply.buttons) } else { None };
            self.wait_for_slot(chat).await;
            let began = std::time::Instant::now();
            let result = match (out, &reply.picture) {
                // A replay: an animation, which Telegram plays in place.
                // A PGN too long for a message: a file to save.
                (Out::Photo(caption), Some(picture)) if picture.is_document() => {
                    send_media!(self, send_document, "sendDocument", chat, picture, caption, markup)
                }
                (Out::Photo(caption), Some(picture)) if picture.is_animation() => {
                    send_media!(self, send_animation, "sendAnimation", chat, picture, caption, markup)
                }
                (Out::Photo(caption), Some(picture)) => {
                    send_media!(self, send_photo, "sendPhoto", chat, picture, caption, markup)
                }
                (Out::Text(t), _) | (Out::Photo(Some(t)), None) => retrying("sendMessage", || {
                    let mut req = self.bot.send_message(chat, t.text.clone());
                    if !t.links.is_empty() {
                        req = req.entities(t.entities());
                    }
                    if let Some(m) = &markup {
                        req = req.reply_markup(m.clone());
                    }
                    req.send()
                })
                .await
                .map(drop),
                (Out::Photo(None), None) => Ok(()),
            };
            match result {
                Ok(()) => {
                    if began.elapsed() >= Pace::GAP {
                        // Held back by Telegram (rate limited, or retried
                        // after a network error), it went later than its
                        // slot: it takes the slot of when it went, so that
                        // the next message keeps the pace after it.
                        self.wait_for_slot(chat).await;
                    }
                    i += 1;
                    if i < plan.len() {
                        self.relay.progress(owed.seq, i as u32).await;
                    }
                }
                // Telegram refused this message for good (the chat is gone, the
                // bot was blocked, the text is malformed): sending it again
                // cannot help.
                Err(RequestError::Api(e)) => {
                    tracing::warn!(chat = chat.0, "Telegram refused a reply, which is dropped: {e}");
                    i += 1;
                }
                Err(e) => {
                    // Telegram cannot be reached: the reply stays owed.
                    let wait = backoff.next_wait();
                    tracing::warn!(chat = chat.0, "could not send a reply ({e}); trying again in {}s", wait.as_secs());
                    if !self.pause(wait).await {
                        return;
                    }
                }
            }
        }
        self.relay.delivered(owed.seq).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_registered_with_a_description() {
        let list = command_list();
        assert_eq!(list.len(), command::USAGE.len());
        for c in &list {
            assert!(c.command.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'));
            assert!((3..=256).contains(&c.description.len()), "{c:?}");
        }
        assert!(list.iter().any(|c| c.command == "challenge" && c.description.contains("[@user]")));
    }

    #[test]
    fn an_answer_that_cannot_be_read_whole_is_read_update_by_update() {
        let raw = r#"{"ok":true,"result":[
            {"update_id":7,"message":{"message_id":1,"date":1700000000,"chat":{"id":-5,"type":"group","title":"c"},
             "from":{"id":11,"is_bot":false,"first_name":"A"},"text":"e4"}},
            {"update_id":8,"message":{"message_id":2,"date":"yesterday","chat":7}},
            {"update_id":9,"weird":[1,2,3]},
            {"no_id":true}
        ]}"#;
        let got = salvage(raw).unwrap();
        let ids: Vec<i64> = got.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [7, 8, 9]);
        assert!(matches!(&got[0].1, Some(u) if matches!(u.kind, UpdateKind::Message(_))));
        assert_eq!(salvage("<html>502</html>"), None);
        assert_eq!(salvage(r#"{"ok":false}"#), None);
    }
}
