//! Rematches: `/rematch` and the Rematch button under a finished game.
//!
//! A rematch is the same game again with colours swapped: the same variant
//! and settings (rated, hints, days per move or chat clock, the bot's
//! level; a Power Absorption handicap (PA7) stays with its player, so it
//! changes colour too), a new match for a Clash match. Against a player it is a
//! challenge like any other, which the opponent accepts; if the opponent
//! has already challenged the sender back, `/rematch` accepts that
//! challenge. Against the bot the game starts at once.

use kibitz_rules::Handicaps;

use super::*;

impl Core {
    /// Puts the Rematch button under what follows the end of `finished`.
    pub(super) fn offer_rematch(&self, finished: &GameRecord, replies: &mut Vec<Reply>) {
        // An aborted game was called off before it began: nothing to replay.
        if finished.result.as_ref().is_none_or(|r| r.outcome == Outcome::Aborted) {
            return;
        }
        let id = finished.key.id.as_str();
        replies.push(Reply {
            text: format!("Rematch, colours swapped? Press Rematch or say /rematch {id}."),
            picture: None,
            buttons: vec![Button { label: "Rematch".into(), command: format!("/rematch {id}") }],
        });
    }

    /// `/rematch [GAME]`: the named finished game of the sender here, or
    /// their last one here, again with colours swapped.
    pub(super) fn rematch(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let channel = Self::channel(msg);
        let me = &msg.sender.id;
        let record = match id {
            Some(id) => {
                let gid = GameId::parse(id).map_err(|_| not_a_game_id(id))?;
                match self.store.archived_game(&channel.game(gid.clone())) {
                    Ok(r) => r,
                    Err(StoreError::NoSuchGame(_)) => {
                        return match self.store.game(&channel.game(gid)) {
                            Ok(live) if live.colour_of(me).is_none() => Err(players_only(&live)),
                            Ok(_) => Err(still_played(&excerpt(id))),
                            Err(_) => refuse(format!("There is no finished game {} here.", excerpt(id))),
                        };
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            None => {
                let mine = self.store.archived_games_of(&msg.platform, me, 20)?;
                match mine.into_iter().find(|(k, _)| k.channel == channel) {
                    Some((_, record)) => record?,
                    None => {
                        if let Some(live) = self.store.player_game_in_channel(&channel, me)? {
                            return Err(still_played(live.key.id.as_str()));
                        }
                        return refuse(
                            "You have no finished game here to have a rematch of. Start one with /challenge @friend.",
                        );
                    }
                }
            }
        };
        let Some(my_colour) = record.colour_of(me) else { return Err(players_only(&record)) };
        let opponent = other_player(&record, me);
        // An aborted game was called off before it began: nothing to replay.
        if record.result.as_ref().is_some_and(|r| r.outcome == Outcome::Aborted) {
            return refuse(format!(
                "Game {} was aborted before it began, so there is no rematch of it: /challenge {} starts another.",
                record.key.id.as_str(),
                mention(&opponent)
            ));
        }
        if self.store.player_game_in_channel(&channel, me)?.is_some() {
            return refuse("You are already playing here. Finish that game first (/board shows it).");
        }
        let v = self.variant(&record.variant)?;
        // Colours swapped: White last time plays Black now.
        let colour = match my_colour {
            Colour::White => ColourChoice::Black,
            Colour::Black => ColourChoice::White,
        };
        // PA7: a handicap stays with its player, so it changes colour too.
        let mut settings = record.settings.clone();
        if let Some(words) = &settings.handicap
            && let Ok(h) = Handicaps::parse(words)
        {
            settings.handicap = Some(h.swapped().to_string());
        }
        if self.is_bot(&msg.platform, &opponent) {
            return self.play_the_bot(msg, v, colour, settings, opponent);
        }
        if let Some(back) = self.store.challenge(&channel, &opponent)?
            && back.challenged.as_deref() == Some(me.as_str())
            && !challenges::lapsed(&back, msg.at)
        {
            // The opponent asked first: the rematch is their challenge,
            // accepted, if it is for the same game.
            if back.variant == record.variant {
                return self.accept(msg, Some(&opponent));
            }
            let theirs = self.variant(&back.variant).map_or(back.variant.clone(), |v| v.name.to_string());
            return refuse(format!(
                "{who} has challenged you to {theirs} meanwhile: /accept {who} plays that; to have the rematch of \
                 game {id} ({name}) instead, /decline {who} and then /rematch {id}.",
                who = mention(&opponent),
                id = record.key.id.as_str(),
                name = v.name,
            ));
        }
        if let Some(mine) = self.store.challenge(&channel, me)?
            && mine.challenged.as_deref() == Some(opponent.as_str())
            && !challenges::lapsed(&mine, msg.at)
        {
            return refuse(format!(
                "Your challenge to {} is waiting for their answer; /cancel withdraws it.",
                mention(&opponent)
            ));
        }
        let mut replies = self.open_challenge(msg, Some(opponent), v, colour, settings)?;
        if let Some(first) = replies.first_mut() {
            first.text = format!("Rematch of game {}! {}", record.key.id.as_str(), first.text);
        }
        Ok(replies)
    }
}

/// The refusal of a rematch of game `id`, still being played.
fn still_played(id: &str) -> Refusal {
    Refusal(format!("Game {id} is still being played; a rematch follows its end."))
}

/// The refusal of a rematch asked for by someone who did not play the game.
fn players_only(record: &GameRecord) -> Refusal {
    Refusal(format!(
        "Only {} and {} can ask for a rematch of game {}.",
        mention(&record.white),
        mention(&record.black),
        record.key.id.as_str()
    ))
}
