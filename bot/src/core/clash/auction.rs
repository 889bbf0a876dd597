//! The Amazon's auction before the ultimate round (CA14): sealed bids by
//! private message, then, on equal bids, raises until one side passes.

use super::*;

impl Core {
    /// `/bid AMOUNT [GAME]`, privately: the sealed bid for the Amazon (CA14).
    pub(in crate::core) fn bid(&self, msg: &Incoming, amount: &str, game: Option<&str>) -> Answer {
        let mut all = self.matches_of(msg)?;
        if !msg.private {
            // A player in a match: the bid is not even checked, and nothing
            // of it is kept or shown. Anyone else has no bid to keep secret.
            if all.is_empty() {
                return refuse(
                    "You have no Clash of the Armies match: /bid is the sealed bid for the Amazon before a match's \
                     ultimate round, sent to me in private.",
                );
            }
            // Only a match waiting for sealed bids has one to keep secret;
            // otherwise the number is no bid, and the match says why.
            if all.iter().any(|(_, m)| m.phase == Phase::Bidding) {
                return Ok(self.public_bid(msg));
            }
            return match &all[..] {
                [(loaded, Match { phase: Phase::Raising { to_move }, .. })] => {
                    refuse(raising_now(&loaded.record, *to_move, &msg.sender.id, "with /raise or /pass"))
                }
                [(_, Match { phase: Phase::Over { .. }, .. })] => Err(army_refusal(ArmyError::MatchOver)),
                [(_, m)] if m.round == kibitz_rules::army::ULTIMATE_ROUND => Err(army_refusal(ArmyError::AuctionOver)),
                _ => Err(army_refusal(ArmyError::NotBidding)),
            };
        }
        if all.is_empty() {
            return refuse("You have no Clash of the Armies match.");
        }
        if let Some(id) = game {
            all.retain(|(l, _)| l.record.key.id.as_str().eq_ignore_ascii_case(id));
            if all.is_empty() {
                return refuse(format!("You have no match '{}'.", excerpt(id)));
            }
        }
        let bidding: Vec<usize> = (0..all.len()).filter(|&i| all[i].1.phase == Phase::Bidding).collect();
        let quarters = parse_bid(amount).map_err(|e| quoted_refusal(e, amount))?;
        let i = match bidding[..] {
            [i] => i,
            // The match says why it takes no bid now.
            [] => 0,
            _ => {
                let ids: Vec<&str> = bidding.iter().map(|&i| all[i].0.record.key.id.as_str()).collect();
                return refuse(format!(
                    "Several of your matches wait for a bid; add the game: /bid AMOUNT GAME ({}).",
                    ids.join(", ")
                ));
            }
        };
        let (loaded, mut m) = all.swap_remove(i);
        if seen(&loaded.record, msg) {
            return Ok(Vec::new());
        }
        if let Phase::Raising { to_move } = m.phase {
            return refuse(raising_now(
                &loaded.record,
                to_move,
                &msg.sender.id,
                "with /raise or /pass in the match's channel",
            ));
        }
        let color = if loaded.record.white == msg.sender.id { Color::White } else { Color::Black };
        let before = m.clone();
        m.bid(color, quarters).map_err(army_refusal)?;
        let sealed = SealedBid {
            player: msg.sender.id.clone(),
            round: u32::from(m.round),
            bid: gold_text(quarters),
            at: msg.at,
        };
        let Some(stored) = self.save_match(msg, &loaded, &m, |g| {
            if let Some(c) = g.clash.as_mut() {
                c.sealed_bids.push(sealed.clone());
            }
        })?
        else {
            return Ok(Vec::new());
        };
        let r = &stored;
        let id = r.key.id.as_str();
        let other = Self::player_name(r, !color);
        let channel = r.key.channel.clone();
        if m.phase == Phase::Bidding {
            self.notify(
                channel,
                Reply::text(format!(
                    "Game {id}: {} has sent a sealed bid for the Amazon; waiting for {other}'s (by private message \
                     to me: /bid AMOUNT).",
                    mention(&msg.sender.id)
                )),
            );
            return Ok(vec![Reply::text(format!(
                "Your sealed bid of {} gold for the Amazon is in (game {id}). I will announce both bids in the \
                 match's channel when {other}'s is in.",
                gold_text(quarters)
            ))]);
        }
        let words = format!("Game {id}: both {}", self.bids_words(r, &before, &m));
        let notice = if self.bot_color(r).is_some() {
            // Against the bot: it raises or passes, or sets up, in the match's channel.
            let after = Loaded { record: stored.clone(), game: loaded.game.clone(), clash: Some(m.clone()) };
            let mut words = words;
            let after = self.with_bot(msg, after, &mut words);
            self.shown(&after, color, words)
        } else {
            Reply::text(words)
        };
        let words = notice.text.clone();
        self.notify(channel, notice);
        Ok(vec![Reply::text(format!(
            "Your sealed bid of {} gold is in, and so is {other}'s. {words}",
            gold_text(quarters)
        ))])
    }

    /// "sealed bids for the Amazon are in: ..." with what the auction came to.
    pub(super) fn bids_words(&self, r: &GameRecord, before: &Match, m: &Match) -> String {
        let bids = m.auction.as_ref().map_or([None, None], |a| a.bids);
        let shown = |c: Color| bids[c.index()].map_or_else(|| "?".to_string(), gold_text);
        format!(
            "sealed bids for the Amazon are in: {} bid {}, {} bid {}. {}",
            Self::player_name(r, Color::White),
            shown(Color::White),
            Self::player_name(r, Color::Black),
            shown(Color::Black),
            self.auction_words(r, before, m)
        )
    }

    /// What the auction came to: the raising to begin, or who took the Amazon.
    pub(super) fn auction_words(&self, r: &GameRecord, before: &Match, m: &Match) -> String {
        let name = |c: Color| Self::player_name(r, c);
        let auction = m.auction.clone().unwrap_or_default();
        match (m.phase, auction.winner) {
            (Phase::Raising { to_move }, _) => {
                let standing = auction.standing.unwrap_or(0);
                format!(
                    "The bids are equal at {}: {} ({}) must raise first (CA14), to {} with /raise; then {} raises or \
                     passes, and whoever passes loses the auction.",
                    gold_text(standing),
                    name(to_move),
                    if to_move == Color::White { "White" } else { "Black" },
                    gold_text(standing + kibitz_rules::army::BID_STEP),
                    name(!to_move),
                )
            }
            (_, Some(winner)) => {
                let unaffordable = match auction.unaffordable {
                    Some(c) if before.auction.as_ref().is_none_or(|a| a.winner.is_none()) => format!(
                        "{} cannot afford to raise to {} gold and so passes. ",
                        name(c),
                        gold_text(auction.price + kibitz_rules::army::BID_STEP)
                    ),
                    _ => String::new(),
                };
                let refund = match before.army(winner).jewel().and_then(|j| Some((j, j.cost_quarters()?))) {
                    Some((jewel, cost)) => format!(" (the {jewel} is refunded: {} gold)", gold_text(cost)),
                    None => String::new(),
                };
                format!(
                    "{unaffordable}{} takes the Amazon for {} gold{refund}. {} has draw odds: a draw in the ultimate \
                     round counts as their win. {} (White) sets up first: /buy, /sell and /place, then /ready.",
                    name(winner),
                    gold_text(auction.price),
                    name(!winner),
                    name(Color::White)
                )
            }
            _ => String::new(),
        }
    }

    /// `/raise` after equal bids (CA14).
    pub(in crate::core) fn raise(&self, msg: &Incoming) -> Answer {
        let Some((loaded, mut m, color)) = self.own_match(msg)? else { return Ok(Vec::new()) };
        let before = m.clone();
        m.raise(color).map_err(|e| auction_refusal(&loaded.record, e))?;
        let Some(stored) = self.save_match(msg, &loaded, &m, |_| {})? else { return Ok(Vec::new()) };
        let mut text = raise_words(&loaded.record, &m, color);
        if m.auction.as_ref().is_some_and(|a| a.winner.is_some()) {
            // The other player cannot afford to raise again (CA14).
            let _ = write!(text, " {}", self.auction_words(&stored, &before, &m));
        }
        let after = Loaded { record: stored, game: loaded.game.clone(), clash: Some(m) };
        self.after_auction_step(msg, after, color, &mut text)
    }

    /// The answer to a raise or a pass; against the bot, with its part next.
    pub(super) fn after_auction_step(&self, msg: &Incoming, after: Loaded, color: Color, text: &mut String) -> Answer {
        if self.bot_color(&after.record).is_none() {
            return Ok(vec![Reply::text(std::mem::take(text))]);
        }
        let after = self.with_bot(msg, after, text);
        Ok(vec![self.shown(&after, color, std::mem::take(text))])
    }

    /// `/pass` after equal bids: the other player takes the Amazon (CA14).
    pub(in crate::core) fn pass(&self, msg: &Incoming) -> Answer {
        let Some((loaded, mut m, color)) = self.own_match(msg)? else { return Ok(Vec::new()) };
        let before = m.clone();
        m.pass(color).map_err(|e| auction_refusal(&loaded.record, e))?;
        let Some(stored) = self.save_match(msg, &loaded, &m, |_| {})? else { return Ok(Vec::new()) };
        let mut text = format!("{} passes. {}", mention(&msg.sender.id), self.auction_words(&stored, &before, &m));
        let after = Loaded { record: stored, game: loaded.game.clone(), clash: Some(m) };
        self.after_auction_step(msg, after, color, &mut text)
    }
}

/// A raise or a pass refused, with the players named beside their colours.
fn auction_refusal(r: &GameRecord, e: ArmyError) -> Refusal {
    match e {
        ArmyError::NotYourRaise { to_move } => {
            let side = if to_move == Color::White { "White" } else { "Black" };
            Refusal(format!(
                "It is {} ({side})'s turn to raise or pass; yours comes after.",
                Core::player_name(r, to_move)
            ))
        }
        ArmyError::MustRaiseFirst => Refusal(
            "After equal bids White, you, must raise first (CA14): /raise. Passing is possible from the next turn \
             on."
            .into(),
        ),
        e => army_refusal(e),
    }
}

/// "alice raises the bid to 6.00 gold. bob: /raise to 6.50, or /pass."
pub(super) fn raise_words(r: &GameRecord, m: &Match, by: Color) -> String {
    let standing = m.auction.as_ref().and_then(|a| a.standing).unwrap_or(0);
    if !matches!(m.phase, Phase::Raising { .. }) {
        return format!("{} raises the bid to {} gold.", mention(r.player(colour_of(by))), gold_text(standing));
    }
    format!(
        "{} raises the bid to {} gold. {}: /raise to {}, or /pass.",
        mention(r.player(colour_of(by))),
        gold_text(standing),
        mention(r.player(colour_of(!by))),
        gold_text(standing + kibitz_rules::army::BID_STEP)
    )
}

/// CA14: why no sealed bid is taken while the equal bids are raised: whose
/// turn it is to raise or pass, said to `sender` as "you" when it is theirs.
fn raising_now(r: &GameRecord, to_move: Color, sender: &str, how: &str) -> String {
    let player = r.player(colour_of(to_move));
    if player == sender {
        format!("The sealed bids are in, and equal: it is your turn to raise or pass, {how}.")
    } else {
        format!("The sealed bids are in, and equal: {} raises or passes now, {how}.", mention(player))
    }
}
