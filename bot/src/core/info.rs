//! Information: rules, pieces, help, games, exports, ratings.

use super::*;

impl Core {
    pub(super) fn rules(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        // Without a variant: the game here (the sender's, else the only
        // one), else the chat's default game.
        let here = || -> Result<Option<String>, Refusal> {
            let channel = Self::channel(msg);
            if let Some(g) = self.store.player_game_in_channel(&channel, &msg.sender.id)? {
                return Ok(Some(g.variant));
            }
            let games: Vec<GameRecord> =
                self.store.games_in_channel(&channel)?.into_iter().filter_map(|(_, g)| g.ok()).collect();
            Ok(match games.as_slice() {
                [only] => Some(only.variant.clone()),
                _ => None,
            })
        };
        // `/rules CA4`: the ruling, as `/help CA4` gives it.
        if let Some(r) = id.and_then(rulings::ruling) {
            return Ok(vec![Reply::text(rulings::explain(r))]);
        }
        if let Some(text) = id.filter(|id| Variant::by_id(id).is_none()).and_then(rulings::no_such) {
            return refuse(text);
        }
        let (id, chosen) = match id {
            Some(id) => (id.to_string(), true),
            None => match here()? {
                Some(v) => (v, true),
                None => (
                    self.store
                        .channel_settings(&Self::channel(msg))?
                        .default_variant
                        .unwrap_or(self.config.default_variant.clone()),
                    false,
                ),
            },
        };
        let v = self.variant(&id)?;
        let legend =
            self.renderer.legend_png(v).ok().map(|png| Picture { name: format!("legend-{}.png", v.id), bytes: png });
        let mut text = format!("{}: {}", v.name, summary(v));
        if v.armies {
            text.push('\n');
            text.push_str(&prices());
        }
        let ids = rulings::of_game(v.id);
        if let Some(first) = ids.first() {
            let ranges = rulings::ranges(&ids);
            let _ = write!(text, "\nRulings {ranges} settle the finer points: /help {first} explains one.");
        }
        if !chosen {
            // No game named or played here: the others are a word away.
            let others: Vec<&str> = kibitz_rules::VARIANTS.iter().map(|v| v.id).filter(|o| *o != v.id).collect();
            let _ = write!(text, "\nThe other games: {} (/rules GAME for one).", others.join(", "));
        }
        Ok(vec![Reply { text, picture: legend, buttons: Vec::new() }])
    }

    pub(super) fn piece(&self, msg: &Incoming, text: &str) -> Answer {
        // `piece [VARIANT] NAME`; without a variant, the game's here, then
        // every variant that has such a piece.
        let words: Vec<&str> = text.split_whitespace().collect();
        let name = match words.as_slice() {
            [v, rest @ ..] if !rest.is_empty() && Variant::by_id(v).is_some() => {
                let v = Variant::by_id(v).unwrap_or(&kibitz_rules::CHESS);
                let name = rest.join(" ");
                return match self.piece_of(v, &name) {
                    Some(reply) => Ok(vec![reply]),
                    None if let Some(near) = pieces::nearest_name(v, &name) => refuse(format!(
                        "{} has no piece called '{}'. Did you mean {near}? /piece {} {} describes it.",
                        v.name,
                        excerpt(&name),
                        v.id,
                        near.to_lowercase()
                    )),
                    None => refuse(format!(
                        "{} has no piece called '{}'. /rules {} shows its pieces.",
                        v.name,
                        excerpt(&name),
                        v.id
                    )),
                };
            }
            [v] if Variant::by_id(v).is_some() => {
                let v = Variant::by_id(v).unwrap_or(&kibitz_rules::CHESS);
                return refuse(format!(
                    "Which piece of {}? /rules {} shows them all; then /piece {} NAME.",
                    v.name, v.id, v.id
                ));
            }
            _ => text.trim().to_string(),
        };
        if let Some(v) = self.variant_here(msg)
            && let Some(reply) = self.piece_of(v, &name)
        {
            return Ok(vec![reply]);
        }
        let found = pieces::everywhere(&name);
        let compounds: Vec<&'static Variant> =
            kibitz_rules::VARIANTS.iter().copied().filter(|v| pieces::compound(v, &name).is_some()).collect();
        // One description for every variant that has the piece: that one.
        let mut texts: Vec<&str> = found.iter().map(|(_, p)| p.text).collect();
        texts.sort_unstable();
        texts.dedup();
        match (found.first(), compounds.first()) {
            (Some((v, _)), _) if texts.len() == 1 => {
                let mut reply = self.piece_of(v, &name).unwrap_or_default();
                if found.len() > 1 {
                    let names: Vec<&str> = found.iter().map(|(v, _)| v.name).collect();
                    let _ = write!(reply.text, "\nThe same in {}.", names.join(", "));
                }
                Ok(vec![reply])
            }
            (None, Some(v)) if compounds.len() == 1 => Ok(self.piece_of(v, &name).into_iter().collect()),
            (None, None) => {
                // The game here first, then every game, for a slip of the keys.
                let here = self.variant_here(msg);
                let near = here
                    .into_iter()
                    .chain(kibitz_rules::VARIANTS.iter().copied())
                    .find_map(|v| pieces::nearest_name(v, &name));
                match near {
                    Some(near) => refuse(format!(
                        "I know no piece called '{}'. Did you mean {near}? /piece {} describes it.",
                        excerpt(&name),
                        near.to_lowercase()
                    )),
                    None => refuse(format!(
                        "I know no piece called '{}'. /rules VARIANT shows a game's pieces; /piece VARIANT NAME \
                         describes one.",
                        excerpt(&name)
                    )),
                }
            }
            _ => {
                // Each game, with what the name is there (`S`: Silver, Static piece, Shielderer).
                // Games whose piece of this name is the same are one line.
                let mut games: Vec<(&str, String, Vec<&str>)> = Vec::new();
                let mut kinds: Vec<(&str, &str)> = Vec::new();
                for (v, p) in &found {
                    match kinds.iter().position(|&kind| kind == (p.name, p.text)) {
                        Some(i) => games[i].2.push(v.name),
                        None => {
                            kinds.push((p.name, p.text));
                            games.push((v.id, format!("{} in {}", p.name, v.name), Vec::new()));
                        }
                    }
                }
                for v in &compounds {
                    if let Some((_, _, title)) = pieces::compound(v, &name) {
                        games.push((v.id, format!("{title} in {}", v.name), Vec::new()));
                    }
                }
                let mut names: Vec<&str> = found.iter().map(|(_, p)| p.name).collect();
                names.sort_unstable();
                names.dedup();
                let same = names.len() == 1 && compounds.is_empty();
                let mut s = match names.as_slice() {
                    [one] if same && games.len() == found.len() => {
                        format!("The {one} differs from game to game. Say which:")
                    }
                    [one] if same => format!("The {one} is not the same in every game. Say which:"),
                    _ => format!("'{}' names a piece in several games. Say which:", excerpt(&name)),
                };
                for (id, what, also) in games {
                    let _ = write!(s, "\n/piece {id} {}", name.trim());
                    let mut notes = Vec::new();
                    if !same {
                        notes.push(what);
                    }
                    if !also.is_empty() {
                        notes.push(format!("the same in {}", also.join(", ")));
                    }
                    if !notes.is_empty() {
                        let _ = write!(s, " ({})", notes.join("; "));
                    }
                }
                Ok(vec![Reply::text(s)])
            }
        }
    }

    /// The variant of the sender's game here, or of the only game here.
    fn variant_here(&self, msg: &Incoming) -> Option<&'static Variant> {
        let channel = Self::channel(msg);
        if let Ok(Some(r)) = self.store.player_game_in_channel(&channel, &msg.sender.id) {
            return Variant::by_id(&r.variant);
        }
        let here = self.store.games_in_channel(&channel).ok()?;
        match here.as_slice() {
            [(_, Ok(r))] => Variant::by_id(&r.variant),
            _ => None,
        }
    }

    /// The description of `name` in `variant`, with its diagram (and in
    /// Clash its price).
    fn piece_of(&self, v: &'static Variant, name: &str) -> Option<Reply> {
        if let Some(d) = pieces::find(v, name) {
            let png = pieces::index_of(v, d).and_then(|i| self.renderer.diagram_png(v, i)).and_then(Result::ok);
            let picture =
                png.map(|png| Picture { name: format!("piece-{}-{}.png", v.id, pieces::slug(d.name)), bytes: png });
            let mut text = format!("{} ({}), {}: {}", d.name, d.letter, v.name, sentence(d.text));
            if v.armies
                && let Some(price) = pieces::clash_price(d.letter)
            {
                let _ = write!(text, "\n{price}.");
            }
            return Some(Reply { text, picture, buttons: Vec::new() });
        }
        let (powers, royal, title) = pieces::compound(v, name)?;
        let group = compound_group(v, powers, royal);
        let png = self.renderer.powers_diagram_png(v, powers, royal, &title).and_then(Result::ok);
        let picture =
            png.map(|png| Picture { name: format!("piece-{}-{}.png", v.id, pieces::slug(&title)), bytes: png });
        let text = format!("{title} {group}, {}: {}", v.name, sentence(&pieces::compound_text(v, powers, royal)));
        Some(Reply { text, picture, buttons: Vec::new() })
    }

    pub(super) fn pgn(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        if loaded.clash.is_some() {
            return self.match_pgn(&loaded);
        }
        let r = &loaded.record;
        let date = date_of(r.started_at);
        let site = format!("Kibitz {}", r.key.channel.platform);
        let result = r.result.as_ref().map_or("*", |x| x.outcome.pgn_result());
        // Players by the names they go by, not their platform ids.
        let (white, black) =
            (self.name(&r.key.channel.platform, &r.white), self.name(&r.key.channel.platform, &r.black));
        let time_control = time_control(&r.settings);
        let mut tags = vec![
            ("Result", result),
            ("Event", "Kibitz game"),
            ("Site", site.as_str()),
            ("Date", date.as_str()),
            ("White", white.as_str()),
            ("Black", black.as_str()),
            ("TimeControl", time_control.as_str()),
        ];
        if let Some(end) = &r.result {
            tags.push(("Termination", termination(end)));
        }
        let hint_plies: Vec<(usize, &str)> = r.hints.iter().map(|&p| (p as usize, "hint")).collect();
        // The comment follows the move the hint was asked for.
        let comments: Vec<(usize, &str)> = hint_plies.into_iter().filter(|(p, _)| *p < r.moves.len()).collect();
        // A reviewed game carries its evaluations and judgements.
        let pgn = match self.review_for_pgn(r) {
            Some(review) => loaded.game.pgn_reviewed(&tags, &comments, &review),
            None => loaded.game.pgn(&tags, &comments),
        };
        Ok(vec![pgn_reply(pgn, &format!("game-{}.pgn", r.key.id.as_str()), "game")])
    }

    pub(super) fn fen(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        clash::check_shown(&loaded)?;
        Ok(vec![Reply::text(loaded.game.position().fen())])
    }

    pub(super) fn stats(&self, msg: &Incoming, who: Option<&str>) -> Answer {
        let who = who.unwrap_or(&msg.sender.id);
        let ratings = self.store.ratings_of(&msg.platform, who)?;
        let mut text = format!("{}:", mention(who));
        let mut any = false;
        for (variant, rating) in ratings {
            if let Ok(r) = rating {
                any = true;
                let name = Variant::by_id(&variant).map_or(variant.as_str(), |v| v.name);
                let _ = write!(text, "\n{name}: {r} ({})", count(r.games as usize, "game"));
            }
        }
        if !any {
            text.push_str(" no rated games yet.");
        }
        Ok(vec![Reply::text(text)])
    }

    /// `/stats NAME`: the player found by name as for a challenge.
    pub(super) fn stats_named(&self, msg: &Incoming, name: &str) -> Answer {
        match self.user_named(msg, name)? {
            Some(who) => self.stats(msg, Some(&who)),
            None => refuse(format!(
                "I don't know a player called '{}'. Mention them (/stats @{}) so that I know who it is.",
                excerpt(name),
                excerpt(name)
            )),
        }
    }

    pub(super) fn leaderboard(&self, msg: &Incoming, variant: Option<&str>) -> Answer {
        let id = variant.unwrap_or(&self.config.default_variant).to_string();
        let v = self.variant(&id)?;
        let top = self.store.leaderboard(&msg.platform, v.id, 10)?;
        if top.is_empty() {
            return Ok(vec![Reply::text(format!("No rated {} games yet.", v.name))]);
        }
        let mut text = format!("{} leaderboard:", v.name);
        for (i, (player, r)) in top.iter().enumerate() {
            let _ = write!(text, "\n{}. {} {r} ({})", i + 1, mention(player), count(r.games as usize, "game"));
        }
        Ok(vec![Reply::text(text)])
    }
}

/// The UTC date of `t` as PGN's `Date` tag writes it: `2026.11.28`.
/// The `TimeControl` tag of a game's settings, as the PGN standard writes
/// it: `600+5` for a chat clock of 10+5, `1/259200` for three days a move
/// (one move in that many seconds), `-` for none.
pub(super) fn time_control(settings: &GameSettings) -> String {
    match (settings.clock, settings.days_per_move) {
        (Some(c), _) => format!("{}+{}", u64::from(c.minutes) * 60, c.increment),
        (None, Some(days)) => format!("1/{}", u64::from(days) * 86_400),
        (None, None) => "-".to_string(),
    }
}

/// The `Termination` tag of a finished game, in the PGN standard's words:
/// `time forfeit`, `abandoned` for a game called off, else `normal`
/// (mate, resignation, agreement and the rules' draws alike).
pub(super) fn termination(end: &kibitz_storage::GameResult) -> &'static str {
    if end.outcome == Outcome::Aborted {
        "abandoned"
    } else if end.reason == "time" {
        "time forfeit"
    } else {
        "normal"
    }
}

/// A PGN as its reply: the text itself where it fits one message, else a
/// file named `name` holding all of it (a PGN cut short is no PGN), with a
/// line that says why it comes as a file.
pub(super) fn pgn_reply(pgn: String, name: &str, what: &str) -> Reply {
    if bounds::units(&pgn) <= REPLY_LIMIT {
        return Reply::text(pgn);
    }
    let text = format!(
        "The {what}'s PGN is too long for one message ({} characters), so here it is as a file, {name}.",
        pgn.chars().count()
    );
    Reply { text, picture: Some(Picture { name: name.to_string(), bytes: pgn.into_bytes() }), buttons: Vec::new() }
}

pub(super) fn date_of(t: Timestamp) -> String {
    i64::try_from(t.0)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map_or_else(|| "????.??.??".to_string(), |d| d.format("%Y.%m.%d").to_string())
}

pub(super) fn help() -> String {
    let mut s = String::from("Kibitz plays chess variants with friends. Commands:");
    for (group, commands) in guide::GROUPS {
        let _ = write!(s, "\n{group}:");
        for name in *commands {
            let usage = command::USAGE.iter().find(|(c, _)| c == name).map_or(*name, |(_, u)| u);
            let _ = write!(s, " /{usage};");
        }
        s.pop();
    }
    s.push_str("\nIn a game you can also just type a move (e4, Nf3, e2e4). /help COMMAND explains one command, /help notation VARIANT how a game writes its moves, /help CA4 what a ruling I cite says.");
    s.push_str(" In a Clash match, send /bid to me in a private message: bids are sealed.");
    s
}

/// Clash of the Armies' price list, by class, with what an army may hold (CA11, CA12).
pub(super) fn prices() -> String {
    use kibitz_rules::army::{self, PieceClass, PieceKind};
    let mut s = String::from(
        "Clash of the Armies prices, in gold. Each player gets 40 gold before each round (and 10 per point before the ultimate one); unspent gold carries over, and pieces sell back at full price.",
    );
    for class in PieceClass::ALL {
        let list: Vec<String> = PieceKind::ALL
            .into_iter()
            .filter(|k| k.class() == class)
            .map(|k| match k.cost_quarters() {
                Some(q) => format!("{} ({}) {}", k.name(), k.letter(), army::gold_text(q)),
                None => format!("{} ({}) auctioned", k.name(), k.letter()),
            })
            .collect();
        let most = match class {
            PieceClass::Light => "at most 4, 2 of a kind".to_string(),
            PieceClass::Leader => "exactly 1".to_string(),
            c => format!("at most {}", c.limit()),
        };
        let _ = write!(s, "\n{} ({most}, {}): {}.", class.name(), pieces::placement(class), list.join(", "));
    }
    s.push_str("\n/buy PIECE [SQUARE] buys one; /piece clash NAME tells how it moves.");
    s
}

impl Core {
    /// `/help COMMAND`, `/help notation VARIANT`.
    pub(super) fn help_on(&self, topic: &str) -> Answer {
        let words: Vec<String> =
            topic.split_whitespace().map(|w| w.trim_start_matches(['/', '!']).to_ascii_lowercase()).collect();
        match words.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            // `/help moves e2`: help on the command, with its argument.
            ["moves", arg] if Variant::by_id(arg).is_none() => self.help_on("moves"),
            ["notation" | "moves" | "notations", id] => {
                let v = self.variant(id)?;
                Ok(vec![Reply::text(guide::notation_text(v))])
            }
            // The one short name a command has.
            ["m"] => {
                let mut answer = self.help_on("move")?;
                if let Some(Reply { text, .. }) = answer.first_mut() {
                    *text = format!("/m is short for /move.\n{text}");
                }
                Ok(answer)
            }
            ["notation" | "notations"] => {
                let ids: Vec<&str> = kibitz_rules::VARIANTS.iter().map(|v| v.id).collect();
                Ok(vec![Reply::text(format!("Which game? /help notation VARIANT, with one of: {}.", ids.join(", ")))])
            }
            // `/help CA4`: a ruling a message cited.
            [word] if let Some(r) = rulings::ruling(word) => Ok(vec![Reply::text(rulings::explain(r))]),
            [word] if let Some(text) = rulings::no_such(word) => refuse(text),
            [word] => match guide::COMMANDS.iter().find(|(c, _, _)| c == word) {
                Some((name, words, example)) => {
                    let usage = command::USAGE.iter().find(|(c, _)| c == name).map_or(*name, |(_, u)| u);
                    Ok(vec![Reply::text(format!("/{usage}: {words}\nFor example: {example}"))])
                }
                None if Variant::by_id(word).is_some() => self.help_on(&format!("notation {word}")),
                None => match meant::meant(word).filter(|ours| guide::COMMANDS.iter().any(|(c, _, _)| c == ours)) {
                    // `/help undo`: what it most likely meant, explained.
                    Some(ours) => {
                        let mut answer = self.help_on(ours)?;
                        if let Some(Reply { text, .. }) = answer.first_mut() {
                            *text = format!("I have no command /{}; here is /{ours}.\n{text}", excerpt(word));
                        }
                        Ok(answer)
                    }
                    None => refuse(format!("I have no command /{}. /help lists them all.", excerpt(word))),
                },
            },
            _ => refuse(
                "Ask about one command (/help move), a game's notation (/help notation clash) or a ruling (/help CA4).",
            ),
        }
    }
}

pub(super) fn variants() -> String {
    let mut s = String::from("Games I play:");
    for v in kibitz_rules::VARIANTS {
        let _ = write!(s, "\n{}: {}", v.id, v.name);
    }
    s.push_str("\n/rules VARIANT tells more.");
    s
}

pub(super) fn summary(v: &Variant) -> &'static str {
    match v.id {
        "chess" => {
            "standard chess by FIDE's Laws: checkmate wins; stalemate, threefold repetition, fifty moves and insufficient material draw."
        }
        "olympic" => {
            "5x5 board with King, Rook, Bishop, Silver, Gold and a Pawn each. Captured pieces change colour and go to your hand; instead of moving you may drop one on any empty square (a pawn not on its last rank). Pawns reaching the last rank become Gold; a Silver may. Checkmate wins, stalemate draws; a third repetition loses for White, unless Black gave check on every move since the previous one."
        }
        "alapawn" => {
            "chess pieces but no check: the King is an ordinary piece. Pawns step forward or diagonally forward and capture diagonally. The first pawn to reach the last rank wins, and so does capturing the last enemy pawn; a player with no move loses. On a third repetition or fifty quiet moves each side's last moved piece is removed."
        }
        "alapawn-balanced" => {
            "Alapawn where a turn may instead be two pawn steps without capturing: one pawn twice (the square it passes must not be attacked) or two pawns once each. White's first pawn turn is a single step."
        }
        "absorption" => {
            "chess, except that a capturing piece absorbs the powers of the piece it takes: a bishop taking a knight becomes a bishop-knight, a rook taking a bishop a queen. You may decline (write the capture with a trailing '-': Bxc6-). A piece holding the pawn's power also moves, captures, takes en passant and promotes like a pawn. The King absorbs too, may give check to the other King, and may not slide over squares the enemy attacks. Checkmate wins. Handicaps (for unequal players, not rated): a side playing nopawn never absorbs the pawn's power, noqueen absorbs nothing from a piece with a queen's powers, plain absorbs nothing at all; /challenge @friend absorption handicap white plain."
        }
        "construction" => {
            "each side starts with its King alone and a reserve of 15 static pieces, 3 rook, 3 bishop, 2 knight, 8 pawn and 2 castling powers. A turn is one of: drop a static piece on your first two ranks (S@d2), move a piece, or give a power from the reserve to one of your pieces (R>d2, or: give rook d2). A pawn power reaching the last rank is exchanged for a power or static piece of your choice (e8=R). A castling power swaps its piece with the King once. Checkmate wins."
        }
        "construction-split" => {
            "each rook, bishop, knight and pawn power comes as a moving half (onto empty squares only) and a capturing half (captures only, and only capturing halves check and pin). Each side starts with its King alone and a reserve of 15 static pieces, 3 and 3 rook halves (T moving, U capturing), 3 and 3 bishop (D, E), 2 and 2 knight (H, I), 8 and 8 pawn (F, G) and 2 castling powers. A turn is one of: drop a static piece on your first two ranks (S@d2), move a piece, or give one half to one of your pieces (T>d2). A move onto the last rank with a pawn half removes the piece's pawn halves and adds a static piece or any one half to your reserve (e8=U). Checkmate wins."
        }
        "clash" => {
            "a match of up to 3 rounds between armies of 21 kinds of piece (Rabbits that chain jumps, War Machines that shoot, Jesters, Rogues, Phoenixes, Shielderers...). Before each round each player gets 40 gold and buys an army (/buy, /sell, /place, then /ready; /army shows it), White first, then Black seeing White's. A round is won by checkmate; a win is 1 point, a draw 0.5, and 2 points win the match. Survivors return for the next round; the checkmated lose their Leader, whoever resigns the whole army. Before the ultimate round both bid for the Amazon by private message to me (/bid AMOUNT); the loser of the auction gets draw odds, and no draw may be agreed then."
        }
        _ => "see /help.",
    }
}

/// `text` as a sentence: its first letter in upper case.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A compound as FEN writes it (`POWERS.md`): its power letters in the
/// order K Q R B N P T U D E H I F G C, `Q` for the Rook and Bishop together,
/// both halves of a power (CS2) its full letter.
fn compound_group(v: &Variant, powers: kibitz_rules::Powers, royal: bool) -> String {
    use kibitz_rules::Powers;
    let mut s = String::from("(");
    let order = [
        ('K', Powers::KING),
        ('Q', Powers::QUEEN),
        ('R', Powers::ROOK),
        ('B', Powers::BISHOP),
        ('N', Powers::KNIGHT),
        ('P', Powers::PAWN),
        ('T', Powers::ROOK_MOVE),
        ('U', Powers::ROOK_TAKE),
        ('D', Powers::BISHOP_MOVE),
        ('E', Powers::BISHOP_TAKE),
        ('H', Powers::KNIGHT_MOVE),
        ('I', Powers::KNIGHT_TAKE),
        ('F', Powers::PAWN_MOVE),
        ('G', Powers::PAWN_TAKE),
        ('C', Powers::CASTLE),
    ];
    let mut left = powers.joined();
    for (letter, p) in order {
        if (letter != 'K' || royal) && left.contains(p) && (letter != 'C' || v.grants) {
            s.push(letter);
            left = left.without(p);
        }
    }
    s.push(')');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_as_pgn_writes_them() {
        assert_eq!(date_of(Timestamp(0)), "1970.01.01");
        // 2000-02-29T00:00:00Z and 2026-11-28T23:28:36Z.
        assert_eq!(date_of(Timestamp(951_782_400_000)), "2000.02.29");
        assert_eq!(date_of(Timestamp(1_795_908_516_000)), "2026.11.28");
        assert_eq!(date_of(Timestamp(u64::MAX)), "????.??.??");
    }
}
