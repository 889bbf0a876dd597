//! The bot as an opponent: its turns, its catching up after a restart.

use super::*;

impl Core {
    /// Whether player `id` on `platform` is the bot: by its user id, never
    /// by a name (which a human could take).
    pub(super) fn is_bot(&self, platform: &str, id: &str) -> bool {
        id == self.bot_id(platform)
    }

    /// A game against the bot starts at once; if the bot has White, it moves.
    /// `bot` is the id the player named the bot by, so that mentions of it
    /// work on the player's platform.
    pub(super) fn play_the_bot(
        &self,
        msg: &Incoming,
        v: &'static Variant,
        colour: ColourChoice,
        settings: GameSettings,
        bot: String,
    ) -> Answer {
        let me = msg.sender.id.clone();
        let me_white = match colour {
            ColourChoice::White => true,
            ColourChoice::Black => false,
            ColourChoice::Random => fastrand::bool(),
        };
        let (white, black) = if me_white { (me, bot) } else { (bot, me) };
        let level = settings.bot_level.unwrap_or(5);
        let clash = v.id == kibitz_rules::CLASH.id;
        let start_fen = challenges::start_fen(v, settings.handicap.as_deref())?;
        let new = NewGame {
            variant: v.id.to_string(),
            white,
            black,
            settings,
            start_fen,
            at: msg.at,
            clash: clash.then(kibitz_storage::ClashMatch::default),
            // The bot plays a game with each player who asks, in any channel.
            bot: Some(if me_white { Colour::Black } else { Colour::White }),
        };
        let channel = Self::channel(msg);
        // A challenge of the player's still open here goes: they play me now.
        let open = self.store.challenge(&channel, &msg.sender.id)?;
        let record = self.store.create_game(&channel, &new)?;
        let withdrawn = match open {
            Some(old) => {
                self.store.withdraw_challenge(&channel, &msg.sender.id)?;
                challenges::withdrawn_words("Your", old.challenged.as_deref())
            }
            None => String::new(),
        };
        let mut loaded = self.load(record)?;
        let r = &loaded.record;
        let what = if clash { format!("a match of {}", v.name) } else { v.name.to_string() };
        let odds = challenges::handicap_of(&loaded).map(|h| format!(", handicap {h} (not rated)")).unwrap_or_default();
        let mut text = format!(
            "Game {}: {} (White) vs {} (Black), {what}{odds}{}, me at level {level} (about {}).",
            r.key.id.as_str(),
            mention(&r.white),
            mention(&r.black),
            r.settings.clock.map(|c| format!(", {c}")).unwrap_or_default(),
            search::level_rating(level)
        );
        if clash {
            text.pop();
            let _ = write!(text, ": {}", clash::match_rules_line());
        } else if me_white {
            let _ = write!(text, " {} moves first.", mention(&loaded.record.white));
        }
        loaded = self.with_bot(msg, loaded, &mut text);
        if clash && me_white {
            let _ = write!(text, " {}, you set up first: {}", mention(&loaded.record.white), clash::ARMY_HELP);
        }
        text.push_str(&withdrawn);
        let view = if me_white { Color::White } else { Color::Black };
        Ok(vec![self.shown(&loaded, view, text)])
    }

    /// Whether a game against the bot plainly waits for the player: a
    /// board (not a Clash match) whose position has the player to move.
    /// Read from the position alone, without replaying the game, so that
    /// the clock tick passes over such games cheaply.
    pub(super) fn waits_for_player(&self, r: &GameRecord, bot: Color) -> bool {
        r.clash.is_none()
            && Variant::by_id(&r.variant)
                .and_then(|v| Position::from_fen(v, &r.fen).ok())
                .is_some_and(|p| p.turn() != bot)
    }

    /// The colour the bot plays in `r`, if it plays there.
    pub(super) fn bot_color(&self, r: &GameRecord) -> Option<Color> {
        if r.settings.bot_level.is_none() {
            None
        } else if self.is_bot(&r.key.channel.platform, &r.white) {
            Some(Color::White)
        } else if self.is_bot(&r.key.channel.platform, &r.black) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The bot's part in a game against it, for as long as the game waits
    /// for it: its move, and in a Clash match its army phases, its sealed
    /// bid and its raises (and the moves that start the rounds it opens).
    /// Returns the game after it and what it did, one sentence each.
    /// `message_id` is the message that set it going.
    ///
    /// A step that fails (the game changed meanwhile) ends the bot's turns
    /// with a sentence saying so; the clock tick tries again later.
    pub(super) fn bot_turns(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        mut loaded: Loaded,
    ) -> (Loaded, Vec<String>) {
        let mut said = Vec::new();
        // Each step moves the game on; one message sets off a handful at most.
        for step in 0..64 {
            let Some(bot) = self.bot_color(&loaded.record) else { break };
            if loaded.record.result.is_some() {
                break;
            }
            let id = message_id.map(|m| if step == 0 { format!("{m}:bot") } else { format!("{m}:bot{step}") });
            let next = if clash::between_rounds(&loaded) {
                self.bot_between_rounds(at, &loaded, bot)
            } else if loaded.game.position().turn() == bot && loaded.game.outcome().is_none() {
                self.bot_moves(at, id.as_deref(), &loaded)
            } else {
                Ok(None)
            };
            match next {
                Ok(Some((after, words))) => {
                    loaded = after;
                    said.push(words);
                }
                Ok(None) => break,
                Err(Refusal(why)) => {
                    said.push(format!("(I could not take my turn just now: {why} I will try again shortly.)"));
                    break;
                }
            }
        }
        (loaded, said)
    }

    /// The bot plays its move in `loaded` (its turn); returns the game after
    /// it and what to say, `None` if it has no move.
    pub(super) fn bot_moves(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        loaded: &Loaded,
    ) -> Result<Option<(Loaded, String)>, Refusal> {
        let pos = loaded.game.position();
        let bot = loaded.record.player(colour_of(pos.turn())).to_string();
        let level = loaded.record.settings.bot_level.unwrap_or(5);
        let mut engine = search::Engine::new(8);
        engine.set_draw_odds(clash::draw_odds(loaded));
        // Returning to an earlier position of the game counts as a repetition.
        engine.set_history(&loaded.game.earlier_visits());
        let seed = pos.hash() ^ loaded.record.moves.len() as u64;
        let Some(m) = search::level_move(&mut engine, pos, level, self.config.hint_time, seed) else {
            return Ok(None);
        };
        let mut game = loaded.game.clone();
        let played = game.play(m).map_err(|e| Refusal(format!("{e}.")))?;
        let record = MoveRecord {
            text: played.canonical.clone(),
            by: bot.clone(),
            at,
            message_id: message_id.map(str::to_string),
        };
        if loaded.clash.is_some()
            && let Some(outcome) = played.outcome
        {
            // The bot's move ends a round of the match.
            return self.round_ending_move(at, message_id, &bot, loaded, &game, record, &played, outcome);
        }
        let fen = game.position().fen();
        let clock = self.clock_after_move(&loaded.record, at);
        let r = &loaded.record;
        let Some(stored) = applied(self.store.apply_timed_move(&r.key, r.version, record, &fen, clock))? else {
            return Ok(None);
        };
        let mut after = Loaded { record: stored, game, clash: loaded.clash.clone() };
        let text = self.after_move(at, message_id, &mut after, &bot, &played, &loaded.record.offers);
        Ok(Some((after, text)))
    }

    /// The bot's turns in a game against it that has waited for it a
    /// minute or more, with what it did; `None` when it waits for the player
    /// (or was just changed: the bot is answering the message that changed it).
    pub(super) fn bot_catches_up(&self, now: Timestamp, record: GameRecord) -> Option<Reply> {
        if now.0.saturating_sub(record.updated_at.0) < 60_000 {
            return None;
        }
        let loaded = self.load(record).ok()?;
        let bot = self.bot_color(&loaded.record)?;
        let (after, words) = self.bot_turns(now, None, loaded);
        if words.is_empty() {
            return None;
        }
        let text = format!("Game {}: {}", after.record.key.id.as_str(), words.join(" "));
        Some(self.shown(&after, !bot, text))
    }

    /// [`Core::bot_turns`] after a player's message, with what the bot did
    /// added to `text`.
    pub(super) fn with_bot(&self, msg: &Incoming, loaded: Loaded, text: &mut String) -> Loaded {
        let (after, words) = self.bot_turns(msg.at, msg.message_id.as_deref(), loaded);
        for w in words {
            text.push(' ');
            text.push_str(&w);
        }
        after
    }
}
