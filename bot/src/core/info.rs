//! Information: rules, pieces, help, games, exports, ratings.

use super::*;

impl Core {
    pub(super) fn rules(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let id = match id {
            Some(id) => id.to_string(),
            None => self
                .store
                .channel_settings(&Self::channel(msg))?
                .default_variant
                .unwrap_or(self.config.default_variant.clone()),
        };
        let v = self.variant(&id)?;
        let legend = self.renderer.legend_png(v).ok().map(|png| Picture { name: format!("legend-{}.png", v.id), png });
        Ok(vec![Reply { text: format!("{}: {}", v.name, summary(v)), picture: legend, buttons: Vec::new() }])
    }

    pub(super) fn piece(&self, msg: &Incoming, text: &str) -> Answer {
        // `piece [VARIANT] NAME`; without a variant, the sender's game's, then any.
        let words: Vec<&str> = text.split_whitespace().collect();
        let (variants, name): (Vec<&'static Variant>, String) = match words.as_slice() {
            [v, rest @ ..] if !rest.is_empty() && Variant::by_id(v).is_some() => {
                (vec![Variant::by_id(v).unwrap_or(&kibitz_rules::CHESS)], rest.join(" "))
            }
            _ => {
                let mut list = Vec::new();
                if let Ok(Some(r)) = self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)
                    && let Some(v) = Variant::by_id(&r.variant)
                {
                    list.push(v);
                }
                list.extend(kibitz_rules::VARIANTS.iter().copied());
                (list, text.to_string())
            }
        };
        for v in variants {
            let found = v.pieces.iter().position(|p| {
                p.name.eq_ignore_ascii_case(&name)
                    || (name.len() == 1 && p.letter.to_string().eq_ignore_ascii_case(&name))
            });
            if let Some(i) = found {
                let pt = v.pieces[i];
                let png = self.renderer.diagram_png(v, i as u8).and_then(Result::ok);
                let picture =
                    png.map(|png| Picture { name: format!("piece-{}-{}.png", v.id, pt.name.to_lowercase()), png });
                return Ok(vec![Reply {
                    text: format!("{} ({}, {}): {}", pt.name, pt.letter, v.name, piece_words(v, pt.name)),
                    picture,
                    buttons: Vec::new(),
                }]);
            }
        }
        refuse(format!("I know no piece called '{}'. Try /rules VARIANT to see the pieces.", excerpt(&name)))
    }

    pub(super) fn pgn(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        if loaded.clash.is_some() {
            return self.match_pgn(&loaded);
        }
        let r = &loaded.record;
        let date = date_of(r.started_at);
        let site = format!("Kibitz {}", r.key.channel.platform);
        let result = match r.result.as_ref().map(|x| x.outcome) {
            Some(Outcome::WhiteWins) => "1-0",
            Some(Outcome::BlackWins) => "0-1",
            Some(Outcome::Draw) => "1/2-1/2",
            Some(Outcome::Aborted) | None => "*",
        };
        // Players by the names they go by, not their platform ids.
        let (white, black) =
            (self.name(&r.key.channel.platform, &r.white), self.name(&r.key.channel.platform, &r.black));
        let tags = [
            ("Result", result),
            ("Event", "Kibitz game"),
            ("Site", site.as_str()),
            ("Date", date.as_str()),
            ("White", white.as_str()),
            ("Black", black.as_str()),
        ];
        let hint_plies: Vec<(usize, &str)> = r.hints.iter().map(|&p| (p as usize, "hint")).collect();
        // The comment follows the move the hint was asked for.
        let comments: Vec<(usize, &str)> = hint_plies.into_iter().filter(|(p, _)| *p < r.moves.len()).collect();
        let pgn = loaded.game.pgn(&tags, &comments);
        let note = "… (the game is too long for one message; /fen gives the position)";
        Ok(vec![Reply::text(bounds::cut(&pgn, REPLY_LIMIT, note))])
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

pub(super) fn date_of(t: Timestamp) -> String {
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let days = (t.0 / 86_400_000) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

pub(super) fn help() -> String {
    let mut s = String::from("Kibitz plays chess variants with friends. Commands:");
    for (_, usage) in command::USAGE {
        let _ = write!(s, "\n/{usage}");
    }
    s.push_str("\nIn a game you can also just type a move (e4, Nf3, e2e4). /variants lists the games.");
    s.push_str("\n/army to /pass are for Clash of the Armies matches; send /bid to me in a private message.");
    s
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
            "chess, except that a capturing piece absorbs the powers of the piece it takes: a bishop taking a knight becomes a bishop-knight, a rook taking a bishop a queen. You may decline (write the capture with a trailing '-': Bxc6-). A piece holding the pawn's power also moves, captures, takes en passant and promotes like a pawn. The King absorbs too, may give check to the other King, and may not slide over squares the enemy attacks. Checkmate wins."
        }
        "construction" => {
            "each side starts with its King alone and a reserve of 15 static pieces, 3 rook, 3 bishop, 2 knight, 8 pawn and 2 castling powers. A turn is one of: drop a static piece on your first two ranks (S@d2), move a piece, or give a power from the reserve to one of your pieces (R>d2, or: give rook d2). A pawn power reaching the last rank is exchanged for a power or static piece of your choice (e8=R). A castling power swaps its piece with the King once. Checkmate wins."
        }
        "clash" => {
            "a match of up to 3 rounds between armies of 21 kinds of piece (Rabbits that chain jumps, War Machines that shoot, Jesters, Rogues, Phoenixes, Shielderers...). Before each round each player gets 40 gold and buys an army (/buy, /sell, /place, then /ready; /army shows it), White first, then Black seeing White's. A round is won by checkmate; a win is 1 point, a draw 0.5, and 2 points win the match. Survivors return for the next round; the checkmated lose their Leader, whoever resigns the whole army. Before the ultimate round both bid for the Amazon by private message to me (/bid AMOUNT); the loser of the auction gets draw odds, and no draw may be agreed then."
        }
        _ => "see /help.",
    }
}

pub(super) fn piece_words(v: &Variant, name: &str) -> &'static str {
    match (v.id, name) {
        (_, "King") if v.has_royal() => "one step in any direction; must not be left in check.",
        (_, "King") => "one step in any direction; an ordinary piece here, it can be captured.",
        (_, "Queen") => "any distance along ranks, files and diagonals.",
        (_, "Rook") => "any distance along ranks and files.",
        (_, "Bishop") => "any distance along diagonals.",
        (_, "Knight") => "jumps two squares one way and one square across.",
        ("olympic", "Silver") => "one step diagonally in any direction or straight forward.",
        ("olympic", "Gold") => "one step orthogonally or diagonally forward.",
        ("olympic", "Pawn") => "one step forward, captures one step diagonally forward; becomes Gold on the last rank.",
        ("chess", "Pawn") => {
            "one step forward (two from its first square), captures diagonally, en passant, promotes on the last rank."
        }
        ("absorption", "Pawn") => {
            "one step forward (two from its first square), captures diagonally, en passant, promotes on the last rank; any piece that absorbs a pawn gains all of this."
        }
        ("construction", "Pawn") => {
            "the pawn power: one step forward (two from the first rank), captures diagonally forward, no en passant; on the last rank it is exchanged for a power or static piece for the reserve."
        }
        ("construction", "Static piece") => {
            "has no power: it cannot move or capture, but blocks and can be captured. Give it powers from the reserve."
        }
        ("construction", "Castling") => {
            "the castling power: its piece may swap squares with its King once, when neither is attacked."
        }
        (_, "Pawn") => "one step forward or diagonally forward onto an empty square, captures diagonally forward.",
        _ => "",
    }
}
