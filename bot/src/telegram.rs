//! The Telegram adapter: the Bot API through long polling (`getUpdates`),
//! or in webhook mode through updates Telegram posts (see [`webhook`]).
//!
//! It only translates. A text message becomes an [`Incoming`] for the core.
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

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kibitz_storage::Timestamp;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{
    AllowedUpdate, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, MessageEntity, MessageEntityKind,
    UpdateKind,
};
use tokio::sync::watch;

use crate::adapter::{self, Backoff, Lanes, Shutdown};
use crate::command::{self, Command};
use crate::core::{Action, Button, Core, Incoming, Reply, User};
use crate::relay::{Delivery, Relay};

pub mod webhook;

pub use webhook::Webhook;

/// The platform name the adapter uses in the store.
pub const PLATFORM: &str = "telegram";

/// How long one `getUpdates` waits for news. Below teloxide's 17-second
/// request timeout, which it does not extend for long polling.
const POLL_SECONDS: u32 = 10;
/// Telegram's caption limit, in UTF-16 units.
const CAPTION_LIMIT: usize = 1024;
/// Telegram's message limit, in UTF-16 units.
const MESSAGE_LIMIT: usize = 4096;
/// Telegram's callback data limit, in bytes.
const CALLBACK_DATA_LIMIT: usize = 64;
/// Buttons with long commands remembered, at most.
const KEYBOARD_MEMORY: usize = 4096;
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
        _ => return format!("/{usage}"),
    };
    match usage.split_once(' ') {
        Some((_, args)) => format!("{what}: {args}"),
        None => what.to_string(),
    }
}

// ---- incoming ----

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

fn player(user: &teloxide::types::User) -> User {
    User { id: player_id(user), name: display_name(user) }
}

/// Notes a user in the store's directory: their names now, and the move of
/// records their username keyed before ids did.
fn note_user(core: &Core, user: &teloxide::types::User) {
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
fn unknown_users(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("@{n}")).collect();
    let list = match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    };
    format!(
        "I don't know {list} yet: ask them to write something here, or pick them from the @-menu. Nothing was changed."
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
fn incoming(msg: &Message, bot_username: &str) -> Option<Incoming> {
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
    })
}

// ---- buttons ----

/// Callback data for the buttons sent, and the commands they stand for.
///
/// A command that fits in Telegram's 64 bytes is its own data; a longer one
/// gets a random key, remembered here. Callback data comes from the client
/// and is not trusted: only data of buttons sent is run, and, for buttons of
/// messages sent before a restart, short data that reads as one of the
/// commands buttons carry.
pub struct Keyboards {
    commands: HashMap<String, String>,
    order: VecDeque<String>,
    limit: usize,
}

impl Keyboards {
    /// Remembers up to `limit` buttons.
    pub fn new(limit: usize) -> Keyboards {
        Keyboards { commands: HashMap::new(), order: VecDeque::new(), limit: limit.max(1) }
    }

    /// The callback data for a button's command.
    pub fn data_for(&mut self, command: &str) -> String {
        let data = if command.len() <= CALLBACK_DATA_LIMIT {
            command.to_string()
        } else {
            let key: String = std::iter::repeat_with(fastrand::alphanumeric).take(16).collect();
            format!("k:{key}")
        };
        if !self.commands.contains_key(&data) {
            if self.order.len() >= self.limit
                && let Some(old) = self.order.pop_front()
            {
                self.commands.remove(&old);
            }
            self.order.push_back(data.clone());
            self.commands.insert(data.clone(), command.to_string());
        }
        data
    }

    /// The command a pressed button stands for, if it is one of ours.
    pub fn command_for(&self, data: &str) -> Option<String> {
        if let Some(command) = self.commands.get(data) {
            return Some(command.clone());
        }
        let button_like = matches!(
            command::parse(data, ""),
            Ok(Command::Accept(_)
                | Command::Decline(_)
                | Command::DeclineOffer(_)
                | Command::Resign
                | Command::ResignConfirm(_)
                | Command::Draw
                | Command::Hint
                | Command::Takeback)
        );
        (data.starts_with('/') && data.len() <= CALLBACK_DATA_LIMIT && button_like).then(|| data.to_string())
    }

    /// An inline keyboard of one row.
    fn markup(&mut self, buttons: &[Button]) -> Option<InlineKeyboardMarkup> {
        if buttons.is_empty() {
            return None;
        }
        let row: Vec<InlineKeyboardButton> = buttons
            .iter()
            .map(|b| InlineKeyboardButton::callback(b.label.clone(), self.data_for(&b.command)))
            .collect();
        Some(InlineKeyboardMarkup::new([row]))
    }
}

// ---- outgoing ----

/// A text ready to send: `<@ID>` mentions written out, and the mentions of
/// users without a username as links to them (offsets in UTF-16 units, as
/// Telegram counts).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// Text mentions: offset, length, user id.
    pub links: Vec<(usize, usize, u64)>,
}

impl Rendered {
    fn entities(&self) -> Vec<MessageEntity> {
        self.links.iter().map(|&(at, len, id)| MessageEntity::text_mention_id(UserId(id), at, len)).collect()
    }
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// How a user is mentioned in a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// By their username, `@bob` (Telegram links it).
    Username(String),
    /// By name, linked to the user (a user without a username).
    Name(String),
}

/// Writes `<@ID>` for a numeric id as `@username` when `shown` knows one,
/// else as the user's name (or the id) linked to them; a `<@name>` that is
/// no id (a record older than ids) as `@name`.
pub fn render(text: &str, shown: impl Fn(&str) -> Option<Shown>) -> Rendered {
    let mut out = Rendered::default();
    let mut rest = text;
    while let Some(i) = rest.find("<@") {
        let Some(j) = rest[i..].find('>') else { break };
        out.text.push_str(&rest[..i]);
        let id = &rest[i + 2..i + j];
        match id.parse::<u64>() {
            Ok(_) if let Some(Shown::Username(username)) = shown(id) => {
                out.text.push('@');
                out.text.push_str(&username);
            }
            Ok(n) => {
                let name = match shown(id) {
                    Some(Shown::Name(name)) if !name.is_empty() => name,
                    _ => id.to_string(),
                };
                out.links.push((utf16_len(&out.text), utf16_len(&name), n));
                out.text.push_str(&name);
            }
            Err(_) => {
                out.text.push('@');
                out.text.push_str(id);
            }
        }
        rest = &rest[i + j + 1..];
    }
    out.text.push_str(rest);
    out
}

/// A text within `limit` UTF-16 units: as it is if it fits, else cut at a
/// line break (or a space) with a note at the end. Links in what is kept
/// stay; one cut through is dropped. The core keeps its replies within the
/// limits already: this is the safety net, never a second message.
pub fn cut(r: &Rendered, limit: usize) -> Rendered {
    if utf16_len(&r.text) <= limit {
        return r.clone();
    }
    let room = limit.saturating_sub(utf16_len(crate::core::CUT_NOTE) + 1);
    // The longest prefix within the room, in bytes.
    let mut units = 0;
    let mut fit = 0;
    for (i, c) in r.text.char_indices() {
        if units + c.len_utf16() > room {
            break;
        }
        units += c.len_utf16();
        fit = i + c.len_utf8();
    }
    let head = &r.text[..fit];
    let at = head.rfind('\n').or_else(|| head.rfind(' ')).filter(|&c| c > fit / 2).unwrap_or(fit);
    let kept = piece_of(r, head[..at].trim_end(), 0);
    if kept.text.is_empty() {
        return Rendered { text: crate::core::CUT_NOTE.chars().take(limit).collect(), links: Vec::new() };
    }
    Rendered { text: format!("{}\n{}", kept.text, crate::core::CUT_NOTE), links: kept.links }
}

fn piece_of(r: &Rendered, text: &str, base: usize) -> Rendered {
    let end = base + utf16_len(text);
    let links = r
        .links
        .iter()
        .filter(|&&(at, len, _)| at >= base && at + len <= end)
        .map(|&(at, len, id)| (at - base, len, id));
    Rendered { text: text.to_string(), links: links.collect() }
}

/// One message to send for a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A text message.
    Text(Rendered),
    /// The reply's picture, with this caption.
    Photo(Option<Rendered>),
}

/// The message a reply becomes, one at most: the photo with the text as its
/// caption, or the text alone, cut to Telegram's limit (see [`cut`]). The
/// keyboard goes on it.
pub fn plan(text: &Rendered, picture: bool) -> Vec<Out> {
    let empty = text.text.trim().is_empty();
    if picture {
        return vec![Out::Photo((!empty).then(|| cut(text, CAPTION_LIMIT)))];
    }
    if empty { Vec::new() } else { vec![Out::Text(cut(text, MESSAGE_LIMIT))] }
}

/// The pace Telegram asks for in one chat: a message a second, and in
/// groups no more than twenty a minute. The store keeps it (see
/// [`kibitz_storage::Store::reserve_send_slot`]).
pub struct Pace;

impl Pace {
    /// The gap between two messages to one chat.
    pub const GAP: Duration = Duration::from_secs(1);
    /// Messages a minute in a group.
    pub const GROUP_PER_MINUTE: usize = 20;

    /// The limit a minute of a chat, 0 for none: groups (whose ids are
    /// negative) have one, private chats only the gap.
    pub fn per_minute(chat: i64) -> usize {
        if chat < 0 { Self::GROUP_PER_MINUTE } else { 0 }
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
        };
        Some((chat, (msg, None)))
    }

    /// Handles one update and stores what it owes; until that is stored it
    /// is tried again (and stays unconfirmed). Then its replies go out. A
    /// posted update (webhook mode) is tried once: its request is answered
    /// with the outcome, and Telegram posts it again if it was not stored.
    async fn handle(self: &Arc<Self>, job: Job) {
        let Job { update, msg, answer, mut stored } = job;
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
    use crate::core::CUT_NOTE;

    #[test]
    fn mentions_are_written_out() {
        let names = |id: &str| match id {
            "42" => Some(Shown::Name("Zoë".to_string())),
            "7" => Some(Shown::Username("Bob_T".to_string())),
            _ => None,
        };
        let r = render("<@alice> challenges <@bob>.", names);
        assert_eq!(r, Rendered { text: "@alice challenges @bob.".into(), links: vec![] });
        let r = render("Hi <@42>, <@43>!", names);
        assert_eq!(r.text, "Hi Zoë, 43!");
        assert_eq!(r.links, vec![(3, 3, 42), (8, 2, 43)]);
        // A user with a username is mentioned by it, unlinked (Telegram links it).
        let r = render("<@7> vs <@42>", names);
        assert_eq!(r, Rendered { text: "@Bob_T vs Zoë".into(), links: vec![(10, 3, 42)] });
        assert_eq!(render("a <@unclosed", names).text, "a <@unclosed");
        // Offsets count UTF-16 units, as Telegram does.
        let r = render("😀 <@42>", names);
        assert_eq!(r.links, vec![(3, 3, 42)]);
    }

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
    fn long_texts_are_cut_with_a_note() {
        let r =
            Rendered { text: format!("aaa bbb\n{}", "ccc ddd eee ".repeat(10)), links: vec![(0, 3, 5), (12, 3, 7)] };
        assert_eq!(cut(&r, 1000), r);
        let c = cut(&r, CUT_NOTE.encode_utf16().count() + 9);
        assert_eq!(c.text, format!("aaa bbb\n{CUT_NOTE}"));
        assert_eq!(c.links, vec![(0, 3, 5)], "a link in what is left out goes");
        let c = cut(&Rendered { text: "😀".repeat(5000), links: vec![] }, MESSAGE_LIMIT);
        assert!(utf16_len(&c.text) <= MESSAGE_LIMIT && c.text.ends_with(CUT_NOTE));
        assert_eq!(cut(&Rendered { text: "x".repeat(25), links: vec![] }, 10).text.chars().count(), 10);
    }

    #[test]
    fn a_reply_is_one_message_at_most() {
        let short = Rendered { text: "@alice played e4.".into(), links: vec![] };
        assert_eq!(plan(&short, true), vec![Out::Photo(Some(short.clone()))]);
        assert_eq!(plan(&short, false), vec![Out::Text(short.clone())]);
        let long = Rendered { text: "word ".repeat(300), links: vec![] };
        let p = plan(&long, true);
        assert!(matches!(&p[..], [Out::Photo(Some(t))] if utf16_len(&t.text) <= CAPTION_LIMIT), "{p:?}");
        let huge = Rendered { text: "line\n".repeat(2000), links: vec![] };
        let p = plan(&huge, false);
        assert!(matches!(&p[..], [Out::Text(t)] if utf16_len(&t.text) <= MESSAGE_LIMIT && t.text.ends_with(CUT_NOTE)));
        assert_eq!(plan(&Rendered::default(), true), vec![Out::Photo(None)]);
        assert!(plan(&Rendered::default(), false).is_empty());
    }

    #[test]
    fn callback_data_maps_back_only_to_our_commands() {
        let mut k = Keyboards::new(2);
        assert_eq!(k.data_for("/accept @alice"), "/accept @alice");
        let long = format!("/accept @{}", "x".repeat(70));
        let key = k.data_for(&long);
        assert!(key.len() <= CALLBACK_DATA_LIMIT && key.starts_with("k:"), "{key}");
        assert_eq!(k.command_for(&key), Some(long));
        assert_eq!(k.command_for("/accept @alice").as_deref(), Some("/accept @alice"));
        // Forged data: not a button's command.
        assert_eq!(k.command_for("/move e4"), None);
        assert_eq!(k.command_for("/challenge @bob"), None);
        assert_eq!(k.command_for("k:forged"), None);
        assert_eq!(k.command_for("resign"), None);
        // Buttons from before a restart still work.
        assert_eq!(k.command_for("/resign").as_deref(), Some("/resign"));
        assert_eq!(k.command_for("/resign yes").as_deref(), Some("/resign yes"));
        assert_eq!(k.command_for("/decline draw").as_deref(), Some("/decline draw"));
        assert_eq!(k.command_for("/resign maybe"), None);
        // Old long keys are forgotten beyond the limit.
        k.data_for("/draw");
        k.data_for("/hint");
        assert_eq!(k.command_for(&key), None);
    }

    #[test]
    fn pace_keeps_a_second_apart_and_twenty_a_minute_in_groups() {
        let dir = tempfile::tempdir().unwrap();
        let store = kibitz_storage::Store::open(dir.path()).unwrap();
        let gap = Pace::GAP.as_millis() as u64;
        let slot = |chat: i64, at: u64| {
            store.reserve_send_slot(PLATFORM, &chat.to_string(), Timestamp(at), gap, Pace::per_minute(chat)).unwrap().0
        };
        assert_eq!(slot(7, 0), 0);
        assert_eq!(slot(7, 0), 1_000);
        let group: Vec<u64> = (0..21).map(|i| slot(-5, i * 1_000)).collect();
        assert_eq!(group[19], 19_000);
        assert_eq!(group[20], 60_000, "the 21st message in a minute waits");
        let private: Vec<u64> = (0..21).map(|i| slot(8, i * 1_000)).collect();
        assert_eq!(private[20], 20_000, "a private chat has no limit a minute");
    }

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
