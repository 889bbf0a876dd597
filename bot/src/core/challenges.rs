//! Challenges: open, accept, decline, cancel.

use super::*;
use kibitz_rules::Handicaps;

impl Core {
    pub(super) fn challenge(&self, msg: &Incoming, mut spec: ChallengeSpec) -> Answer {
        if let Some(name) = spec.named.take() {
            spec.opponent = Some(self.player_named(msg, &name)?);
        }
        let channel = Self::channel(msg);
        let me = &msg.sender.id;
        // Nobody else reads a private chat: a challenge there is to the bot,
        // and only the bot can take one.
        if msg.private {
            match &spec.opponent {
                None => spec.opponent = Some(self.bot_id(&msg.platform)),
                Some(o) if !self.is_bot(&msg.platform, o) => {
                    return refuse(
                        "Nobody else reads this private chat, so only I can take a challenge here: /challenge plays \
                         me. To play a friend, challenge them in a channel or group you share.",
                    );
                }
                Some(_) => {}
            }
        }
        if spec.opponent.as_ref() == Some(me) {
            return refuse(
                "You cannot challenge yourself. Challenge a friend, or leave out the name for an open challenge.",
            );
        }
        if let Some(level) = spec.level
            && !spec.opponent.as_deref().is_some_and(|o| self.is_bot(&msg.platform, o))
        {
            let me = mention(&self.bot_id(&msg.platform));
            return refuse(format!("A level is for games against me: /challenge {me} level {level}."));
        }
        if self.store.player_game_in_channel(&channel, me)?.is_some() {
            return refuse("You are already playing here. Finish that game first (/board shows it).");
        }
        let settings_here = self.store.channel_settings(&channel)?;
        let id = spec
            .variant
            .clone()
            .or(settings_here.default_variant.clone())
            .unwrap_or(self.config.default_variant.clone());
        let v = self.variant(&id)?;
        let handicap = spec.handicap.filter(|h| !h.is_none());
        if handicap.is_some() && !v.absorption {
            return refuse(format!(
                "Handicaps are for Power Absorption Chess, where captures absorb powers; {} has none. Try \
                 /challenge @friend absorption handicap white plain.",
                v.name
            ));
        }
        let colour = match spec.colour.unwrap_or(ColourWish::Random) {
            ColourWish::White => ColourChoice::White,
            ColourWish::Black => ColourChoice::Black,
            ColourWish::Random => ColourChoice::Random,
        };
        let clock = clock::chat_clock(spec.clock);
        // PA7: handicap games are not rated.
        let against_bot = spec.opponent.as_deref().is_some_and(|o| self.is_bot(&msg.platform, o));
        if spec.rated == Some(true) && handicap.is_some() {
            return refuse("Handicap games are never rated (PA7): leave out rated on, or the handicap.");
        }
        if spec.rated == Some(true) && against_bot {
            return refuse("Games against me are never rated: leave out rated on.");
        }
        let settings = GameSettings {
            rated: spec.rated.unwrap_or(settings_here.rated) && handicap.is_none(),
            hints_allowed: spec.hints.unwrap_or(settings_here.hints_allowed),
            // A chat clock, or days off, replaces the channel's days per move.
            days_per_move: if clock.is_some() || spec.days_off {
                None
            } else {
                spec.days.or(settings_here.days_per_move)
            },
            bot_level: None,
            clock,
            handicap: handicap.map(|h| h.to_string()),
            private: false,
        };
        let clash = v.id == kibitz_rules::CLASH.id;
        if clash && clock.is_some() {
            return refuse(
                "Clash of the Armies matches have no chat clock (their army phases and auctions take no moves); \
                 play one with days N, or without a clock.",
            );
        }
        if spec.opponent.as_deref().is_some_and(|o| self.is_bot(&msg.platform, o)) {
            if spec.days.is_some() {
                return refuse(
                    "Against me there are no days per move: I answer at once, and your move waits for you as long \
                     as you like. Leave out the days (a chat clock, 10+5, works against me).",
                );
            }
            let settings = GameSettings {
                rated: false,
                days_per_move: None,
                bot_level: Some(spec.level.unwrap_or(5)),
                private: msg.private,
                ..settings
            };
            let bot = spec.opponent.clone().unwrap_or_else(|| self.bot_id(&msg.platform));
            let colour = match handicap {
                Some(h) => bot_gives_odds(h, colour)?,
                None => colour,
            };
            return self.play_the_bot(msg, v, colour, settings, bot);
        }
        self.open_challenge(msg, spec.opponent.clone(), v, colour, settings)
    }

    /// Records the challenge of `msg`'s sender to `opponent` (anyone, if
    /// `None`) and says so, with its Accept and Decline buttons.
    pub(super) fn open_challenge(
        &self,
        msg: &Incoming,
        opponent: Option<String>,
        v: &'static Variant,
        colour: ColourChoice,
        settings: GameSettings,
    ) -> Answer {
        let channel = Self::channel(msg);
        let me = &msg.sender.id;
        let clash = v.id == kibitz_rules::CLASH.id;
        let challenge = Challenge {
            challenger: me.clone(),
            challenged: opponent.clone(),
            variant: v.id.to_string(),
            colour,
            settings: settings.clone(),
            clash,
            at: msg.at,
        };
        // One open challenge a player per channel: a new one replaces the old.
        let replaced = self.store.challenge(&channel, me)?.map(|old| match old.challenged {
            Some(o) => format!(" (This replaces your challenge to {}.)", mention(&o)),
            None => " (This replaces your open challenge.)".to_string(),
        });
        self.store.create_challenge(&channel, &challenge)?;
        let side = match colour {
            ColourChoice::White => "playing White",
            ColourChoice::Black => "playing Black",
            ColourChoice::Random => "colours by lot",
        };
        let extras = settings_words(&settings);
        let extras = if extras.is_empty() { String::new() } else { format!(", {extras}") };
        let what = if clash { format!("a match of {}", v.name) } else { v.name.to_string() };
        let (text, accept) = match &opponent {
            Some(o) => (
                format!(
                    "{} challenges {} to {what} ({side}{extras}). {}: /accept or /decline.",
                    mention(me),
                    mention(o),
                    mention(o)
                ),
                format!("/accept @{me}"),
            ),
            None => (
                format!(
                    "{} opens a challenge: {what} ({side}{extras}). Anyone may /accept {}.",
                    mention(me),
                    mention(me)
                ),
                format!("/accept @{me}"),
            ),
        };
        let text = text + replaced.as_deref().unwrap_or("");
        let mut buttons = vec![Button { label: "Accept".into(), command: accept }];
        if opponent.is_some() {
            buttons.push(Button { label: "Decline".into(), command: format!("/decline @{me}") });
        }
        Ok(vec![Reply { text, picture: None, buttons }])
    }

    /// The challenge a command means: the named challenger's, else the one
    /// addressed to the sender, else the only open one.
    pub(super) fn challenge_for(&self, msg: &Incoming, who: Option<&str>) -> Result<Challenge, Refusal> {
        let channel = Self::channel(msg);
        if let Some(who) = who {
            return match self.store.challenge(&channel, who)? {
                Some(c) if lapsed(&c, msg.at) => {
                    self.store.withdraw_challenge(&channel, &c.challenger)?;
                    refuse(lapse_words(&c))
                }
                Some(c) => Ok(c),
                None if who == msg.sender.id => refuse(
                    "That is you, and you have no challenge open here: name the player whose challenge you mean.",
                ),
                None => match self.store.player_game_in_channel(&channel, who)? {
                    Some(r) => refuse(format!(
                        "{} has no challenge open here: they are playing game {} now.",
                        mention(who),
                        r.key.id.as_str()
                    )),
                    None if msg.private => refuse(format!(
                        "{} has no challenge open in this private chat: a challenge is answered in the channel or \
                         group where it was made.",
                        mention(who)
                    )),
                    None => refuse(format!("{} has no challenge open here.", mention(who))),
                },
            };
        }
        // Challenges left unanswered too long lapse: they go, and one that
        // was for the sender is said to have lapsed.
        let (gone, all): (Vec<Challenge>, Vec<Challenge>) =
            self.store.challenges(&channel)?.into_iter().filter_map(|(_, c)| c.ok()).partition(|c| lapsed(c, msg.at));
        for c in &gone {
            self.store.withdraw_challenge(&channel, &c.challenger)?;
        }
        let for_sender = |c: &&Challenge| {
            c.challenged.as_deref() == Some(msg.sender.id.as_str())
                || (c.challenged.is_none() && c.challenger != msg.sender.id)
        };
        if !all.iter().any(|c| for_sender(&c))
            && let Some(c) = gone.iter().find(for_sender)
        {
            return refuse(lapse_words(c));
        }
        let mine: Vec<&Challenge> =
            all.iter().filter(|c| c.challenged.as_deref() == Some(msg.sender.id.as_str())).collect();
        let open: Vec<&Challenge> =
            all.iter().filter(|c| c.challenged.is_none() && c.challenger != msg.sender.id).collect();
        match (mine.as_slice(), open.as_slice()) {
            ([one], _) => Ok((*one).clone()),
            ([], [one]) => Ok((*one).clone()),
            // The sender's own challenge is all there is: say so, as for
            // `/accept @self`.
            ([], []) => match all.iter().find(|c| c.challenger == msg.sender.id) {
                Some(own) => refuse(own_challenge_words(own)),
                // In a game, `/accept` may have meant an offer: there is none.
                None if matches!(self.offers_to(msg), Ok(Some(_))) => refuse(
                    "There is nothing to accept: your opponent has made no draw offer or takeback request, and \
                     nobody challenges you here.",
                ),
                // A friend's challenge is answered where it was made.
                None if msg.private => refuse(
                    "Nobody else reads this private chat, so no challenge stands here: answer a friend's challenge \
                     in the channel or group where it was made, or /challenge to play me.",
                ),
                None => refuse("There is no challenge for you here. Start one with /challenge @friend."),
            },
            (list, _) if !list.is_empty() => refuse(format!(
                "Several players challenge you; name one: {}.",
                list.iter().map(|c| mention(&c.challenger)).collect::<Vec<_>>().join(", ")
            )),
            (_, list) => refuse(format!(
                "Several challenges are open; name one: {}.",
                list.iter().map(|c| mention(&c.challenger)).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    pub(super) fn accept(&self, msg: &Incoming, who: Option<&str>) -> Answer {
        let channel = Self::channel(msg);
        // Without a name, `/accept` from a player of a game here means the
        // opponent's standing offer (a player cannot take on a second game
        // here anyway), as `/draw` or `/takeback` would accept it.
        if who.is_none()
            && let Ok(Some((_, offers))) = self.offers_to(msg)
        {
            match offers.as_slice() {
                [] => {}
                [one] if one.kind == OfferKind::Draw => return self.draw(msg),
                [_] => return self.takeback(msg),
                _ => {
                    return refuse(
                        "Your opponent offers a draw and asks for a takeback; say which to accept: /draw or /takeback.",
                    );
                }
            }
        }
        let challenge = self.challenge_for(msg, who)?;
        if challenge.challenger == msg.sender.id {
            return refuse(own_challenge_words(&challenge));
        }
        if let Some(c) = &challenge.challenged
            && c != &msg.sender.id
        {
            return refuse(format!("That challenge is for {}, not for you.", mention(c)));
        }
        if self.store.player_game_in_channel(&channel, &msg.sender.id)?.is_some() {
            return refuse("You are already playing here. Finish that game first.");
        }
        let v = self.variant(&challenge.variant)?;
        let start = start_fen(v, challenge.settings.handicap.as_deref())?;
        // The accepter's own challenge here goes with the game (the store
        // removes it): said, so that whoever it was for knows.
        let own = self.store.challenge(&channel, &msg.sender.id)?;
        let record = self.store.accept_challenge(&channel, &challenge.challenger, &msg.sender.id, &start, msg.at)?;
        let owner = format!("{}'s", mention(&msg.sender.id));
        let withdrawn = own.map(|c| withdrawn_words(&owner, c.challenged.as_deref())).unwrap_or_default();
        let loaded = self.load(record)?;
        if loaded.clash.is_some() {
            return Ok(vec![Reply::text(clash::match_begins(&loaded.record) + &withdrawn)]);
        }
        let r = &loaded.record;
        let mut text = format!(
            "Game {}: {} (White) vs {} (Black), {}{}{}.",
            r.key.id.as_str(),
            mention(&r.white),
            mention(&r.black),
            v.name,
            r.settings.clock.map(|c| format!(", {c}")).unwrap_or_default(),
            if r.settings.hints_allowed { ", hints on" } else { "" }
        );
        if let Some(h) = handicap_of(&loaded) {
            text.pop();
            let _ = write!(text, ", handicap {h} (not rated).");
        } else if !r.settings.rated {
            text.pop();
            text.push_str(", not rated.");
        }
        let _ = write!(text, " {} moves first", mention(&r.white));
        // A correspondence game: the first move's deadline, as every later
        // move's announcement gives its own.
        match (r.settings.days_per_move, clock::deadline(r)) {
            (Some(days), Some(until)) => {
                let _ = write!(
                    text,
                    " and has until {} ({} a move).",
                    clock::deadline_words(until, msg.at),
                    count(days as usize, "day")
                );
            }
            _ => text.push('.'),
        }
        text.push_str(&withdrawn);
        let picture = self.picture(&loaded, Color::White, |_| {});
        Ok(vec![Reply { text, picture, buttons: self.game_buttons(&loaded) }])
    }

    pub(super) fn decline(&self, msg: &Incoming, who: Option<&str>) -> Answer {
        let channel = Self::channel(msg);
        // Without a name, `/decline` may mean an offer of the opponent in
        // the sender's game (a game that cannot be read offers nothing).
        if who.is_none()
            && let Ok(Some((loaded, offers))) = self.offers_to(msg)
        {
            let to_me: Vec<String> = self
                .store
                .challenges(&channel)?
                .into_iter()
                .filter_map(|(_, c)| c.ok())
                .filter(|c| c.challenged.as_deref() == Some(msg.sender.id.as_str()))
                .map(|c| c.challenger)
                .collect();
            let kinds: Vec<&str> = offers.iter().map(|o| o.kind.name()).collect();
            match (offers.as_slice(), to_me.is_empty()) {
                ([], true) => {
                    return refuse(
                        "There is nothing to decline: your opponent has made no draw offer or takeback request, \
                         and nobody challenges you here.",
                    );
                }
                // Only challenges: as below.
                ([], false) => {}
                (_, false) => {
                    let names: Vec<String> = to_me.iter().map(|c| format!("/decline {}", mention(c))).collect();
                    return refuse(format!(
                        "You have a challenge and your opponent's {} offer here; say which to decline: {} or \
                         /decline {}.",
                        kinds.join(" and "),
                        names.join(", "),
                        kinds.join(" or /decline ")
                    ));
                }
                ([one], true) => return self.decline_this(msg, &loaded, one),
                (_, true) => {
                    return refuse(format!(
                        "Your opponent offers a draw and asks for a takeback; say which to decline: /decline {}.",
                        kinds.join(" or /decline ")
                    ));
                }
            }
        }
        let challenge = self.challenge_for(msg, who)?;
        if challenge.challenger == msg.sender.id {
            return refuse(own_challenge_words(&challenge));
        }
        match challenge.challenged.as_deref() {
            Some(c) if c == msg.sender.id => {}
            Some(c) => {
                return refuse(format!(
                    "That challenge of {} is for {}, not for you: only they can decline it.",
                    mention(&challenge.challenger),
                    mention(c)
                ));
            }
            None => {
                return refuse(format!(
                    "{}'s challenge is open to anyone: there is nothing to decline, it simply waits for a taker \
                     (or lapses).",
                    mention(&challenge.challenger)
                ));
            }
        }
        self.store.withdraw_challenge(&channel, &challenge.challenger)?;
        Ok(vec![Reply::text(format!(
            "{} declines the challenge of {}.",
            mention(&msg.sender.id),
            mention(&challenge.challenger)
        ))])
    }

    pub(super) fn cancel(&self, msg: &Incoming) -> Answer {
        let channel = Self::channel(msg);
        if self.store.challenge(&channel, &msg.sender.id)?.is_none() {
            // In a game, the sender's own offer is what there is to cancel.
            if let Ok(Some(record)) = self.store.player_game_in_channel(&channel, &msg.sender.id) {
                if record.offers.iter().any(|o| o.by == msg.sender.id) {
                    return self.withdraw_offer(msg, None);
                }
                return refuse(
                    "There is nothing to withdraw: you have no draw offer, takeback request or challenge open here.",
                );
            }
            if msg.private {
                return refuse(
                    "You have no challenge open in this private chat: a challenge to a friend stands in the \
                     channel or group where you made it, and /cancel there withdraws it.",
                );
            }
            return refuse("You have no challenge open here.");
        }
        self.store.withdraw_challenge(&channel, &msg.sender.id)?;
        Ok(vec![Reply::text(format!("{} withdraws the challenge.", mention(&msg.sender.id)))])
    }

    /// The player a name without `@` stands for: the directory knows the
    /// usernames it has seen. On the console names are ids, and a name not
    /// seen yet is a friend still to speak, unless it is a slip of a game's
    /// id (`chesss`), which [`Core::player_named`] answers.
    pub(super) fn user_named(&self, msg: &Incoming, name: &str) -> Result<Option<String>, Refusal> {
        if msg.platform == "console" && name.eq_ignore_ascii_case(&self.config.bot_name) {
            return Ok(Some(self.bot_id(&msg.platform)));
        }
        let seen = self.store.user_by_username(&msg.platform, name)?;
        if msg.platform == "console"
            && seen.is_none()
            && meant::game(name).is_none()
            && meant::nearest(&name.to_ascii_lowercase(), crate::command::CHALLENGE_WORDS).is_none()
        {
            return Ok(Some(name.to_ascii_lowercase()));
        }
        Ok(seen)
    }

    /// The challenger `/accept alice` or `/decline alice` names without `@`.
    pub(super) fn named_challenger(&self, msg: &Incoming, name: &str, command: &str) -> Result<String, Refusal> {
        self.user_named(msg, name)?.ok_or_else(|| {
            let offers =
                if command == "decline" { "; /decline draw or /decline takeback declines an offer" } else { "" };
            Refusal(format!(
                "I don't know a player called '{}'. Mention them (/{command} @{}) so that I know who it is{offers}.",
                excerpt(name),
                excerpt(name)
            ))
        })
    }

    /// The player a challenge names without `@` ([`Core::user_named`]).
    fn player_named(&self, msg: &Incoming, name: &str) -> Result<String, Refusal> {
        if let Some(id) = self.user_named(msg, name)? {
            return Ok(id);
        }
        let ids: Vec<&str> = kibitz_rules::VARIANTS.iter().map(|v| v.id).collect();
        if let Some(word) = meant::nearest(&name.to_ascii_lowercase(), crate::command::CHALLENGE_WORDS) {
            return refuse(format!(
                "I don't understand '{}': did you mean {word}? To challenge a player of that name, mention them \
                 (/challenge @{}).",
                excerpt(name),
                excerpt(name)
            ));
        }
        if let Some(game) = meant::game(name) {
            return refuse(format!(
                "I don't know a player or a game called '{}'. Did you mean {game}? To challenge a player, mention \
                 them (/challenge @{}) so that I know who it is.",
                excerpt(name),
                excerpt(name)
            ));
        }
        refuse(format!(
            "I don't know a player or a game called '{}'. Mention the player (/challenge @{}) so that I know who \
             it is, or name a game: {}.",
            excerpt(name),
            excerpt(name),
            ids.join(", ")
        ))
    }
}

/// " (Your challenge to @bob is withdrawn: ...)": why a player's challenge
/// went when they began another game here; `owner` is `Your` or `@alice's`.
pub(super) fn withdrawn_words(owner: &str, challenged: Option<&str>) -> String {
    let what = match challenged {
        Some(o) => format!("challenge to {}", mention(o)),
        None => "open challenge".to_string(),
    };
    format!(" ({owner} {what} is withdrawn: a player plays one game at a time in a channel.)")
}

/// "hints on, 3 days per move" or "10+5": the settings a challenge shows
/// beside the variant and colours (empty for none).
pub(super) fn settings_words(settings: &GameSettings) -> String {
    let mut extras = Vec::new();
    if let Some(c) = settings.clock {
        extras.push(c.to_string());
    }
    if settings.hints_allowed {
        extras.push("hints on".to_string());
    }
    if let Some(d) = settings.days_per_move {
        extras.push(format!("{} per move", count(d as usize, "day")));
    }
    match &settings.handicap {
        Some(h) => extras.push(format!("handicap {h}, not rated")),
        None if !settings.rated && settings.bot_level.is_none() => extras.push("not rated".to_string()),
        None => {}
    }
    extras.join(", ")
}

/// The start position of a game of `v` with the handicaps a challenge gave
/// in words (PA7), as FEN.
pub(super) fn start_fen(v: &'static Variant, handicap: Option<&str>) -> Result<String, Refusal> {
    let Some(words) = handicap else { return Ok(v.start_fen.to_string()) };
    let unreadable = |_| Refusal(format!("That challenge's handicap ({}) cannot be read.", excerpt(words)));
    let handicaps = Handicaps::parse(words).map_err(unreadable)?;
    let pos = Position::new(v).with_handicaps(handicaps).map_err(|e| Refusal(e.to_string()))?;
    Ok(pos.fen())
}

/// The handicaps of a game in words (`White plain`), read from its start
/// position, which holds them; `None` without.
pub(super) fn handicap_of(loaded: &Loaded) -> Option<String> {
    let h = loaded.game.start().handicaps();
    (!h.is_none()).then(|| h.to_string())
}

/// PA7 against the bot: the stronger side, the bot, gives the odds. With a
/// handicap on one colour the bot plays that colour and the challenger the
/// other (a wish for the handicapped colour is refused); with handicaps on
/// both, colours go as the challenger asked.
fn bot_gives_odds(h: Handicaps, wish: ColourChoice) -> Result<ColourChoice, Refusal> {
    let (mine, bots) = match (h.white.is_none(), h.black.is_none()) {
        (false, true) => (ColourChoice::Black, "White"),
        (true, false) => (ColourChoice::White, "Black"),
        _ => return Ok(wish),
    };
    if wish != ColourChoice::Random && wish != mine {
        return refuse(format!(
            "I give the odds: with the handicap on {bots} I play {bots} and you the other colour. Leave out the \
             colour, or put the handicap on your opponent's side."
        ));
    }
    Ok(mine)
}

/// How long a challenge waits for its answer: an hour for a game on a chat
/// clock (its challenger is waiting at the board), a day for any other.
/// The answer to a player's `/accept` or `/decline` of their own challenge.
fn own_challenge_words(c: &Challenge) -> String {
    match &c.challenged {
        Some(o) => format!("That is your own challenge to {}; wait for them to accept it, or /cancel it.", mention(o)),
        None => "That is your own open challenge; wait for someone to accept it, or /cancel it.".to_string(),
    }
}

pub(super) fn challenge_lifetime(c: &Challenge) -> u64 {
    const HOUR: u64 = 3_600_000;
    if c.settings.clock.is_some() { HOUR } else { 24 * HOUR }
}

/// Whether challenge `c` went unanswered for longer than it waits.
pub(super) fn lapsed(c: &Challenge, now: Timestamp) -> bool {
    now.0.saturating_sub(c.at.0) > challenge_lifetime(c)
}

fn lapse_words(c: &Challenge) -> String {
    let waits = if c.settings.clock.is_some() { "an hour for a game on a chat clock" } else { "a day" };
    format!(
        "{}'s challenge has lapsed: it went unanswered longer than a challenge waits ({waits}). {} can challenge \
         again.",
        mention(&c.challenger),
        mention(&c.challenger)
    )
}
