//! The animated replay of a game (a GIF), posted at its end and on `/gif`.
//!
//! At a game's end the replay is seen from White's side; on `/gif` from the
//! asker's (White's for someone who does not play in it). A Clash match is
//! replayed round by round: each round's replay follows its end, from the
//! round's start position, and `/gif` shows the round being played (or the
//! last one played, between rounds).

use kibitz_render::ReplayOptions;
use kibitz_storage::ClashRound;

use super::*;

impl Core {
    /// The replay posted when `finished` ends: none for a game without
    /// moves, nor for a Clash match, whose rounds were each replayed as they
    /// ended.
    pub(super) fn replay_of_game(&self, finished: &GameRecord) -> Option<Reply> {
        if finished.moves.is_empty() || Variant::by_id(&finished.variant).is_some_and(|v| v.armies) {
            return None;
        }
        let loaded = self.load(finished.clone()).ok()?;
        let picture = self.replay(&loaded.record, &loaded.game, Color::White, status_line(&loaded), String::new())?;
        Some(Reply { text: String::new(), picture: Some(picture), buttons: Vec::new() })
    }

    /// The replay posted when `round` of the Clash match `record` ends.
    pub(super) fn replay_of_round(&self, record: &GameRecord, round: &ClashRound) -> Option<Reply> {
        if round.moves.is_empty() || round.start_fen.is_empty() {
            return None;
        }
        let variant = Variant::by_id(&record.variant)?;
        let game = replayed(variant, &round.start_fen, &round.moves)?;
        let status =
            game.outcome().map_or_else(|| "round over".to_string(), |o| format!("{} ({})", o.score(), o.reason));
        let picture = self.replay(record, &game, Color::White, status, format!("Round {}", round.number))?;
        Some(Reply { text: String::new(), picture: Some(picture), buttons: Vec::new() })
    }

    /// `/gif [GAME]`: the replay of the asker's game here (or the named one,
    /// finished or running), from the asker's side.
    pub(super) fn gif(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        let r = &loaded.record;
        if loaded.game.moves().is_empty() {
            return refuse(format!("Game {} has no moves yet to replay.", r.key.id.as_str()));
        }
        let view = if r.black == msg.sender.id && r.white != msg.sender.id { Color::Black } else { Color::White };
        let note = match &loaded.clash {
            Some(m) => format!("Round {}", m.round),
            None => String::new(),
        };
        let picture = self
            .replay(r, &loaded.game, view, status_line(&loaded), note)
            .ok_or_else(|| Refusal(format!("The replay of game {} could not be drawn.", r.key.id.as_str())))?;
        let text =
            format!("Game {}: {}, replayed.", r.key.id.as_str(), super::count(loaded.game.moves().len(), "move"));
        Ok(vec![Reply { text, picture: Some(picture), buttons: Vec::new() }])
    }

    /// The replay of `game` (of `record`) as a picture, seen from `view`'s
    /// side, the caption naming the players with `status` and `note`.
    fn replay(&self, record: &GameRecord, game: &Game, view: Color, status: String, note: String) -> Option<Picture> {
        let platform = &record.key.channel.platform;
        let caption = Caption {
            white: self.name(platform, &record.white),
            black: self.name(platform, &record.black),
            status,
            note,
        };
        let opts =
            ReplayOptions { size: Some(self.config.board_size), flip: view == Color::Black, caption: Some(caption) };
        match self.renderer.replay_gif(game.start(), game.moves(), &opts) {
            Ok(bytes) => {
                Some(Picture { name: format!("replay-{}-{}.gif", record.key.id.as_str(), game.moves().len()), bytes })
            }
            Err(e) => {
                tracing::warn!(game = record.key.id.as_str(), "replay not drawn: {e}");
                None
            }
        }
    }
}

/// The game of `moves` (canonical) from `start_fen`; `None` if the position
/// or a move cannot be read back.
fn replayed(variant: &'static Variant, start_fen: &str, moves: &[String]) -> Option<Game> {
    let mut game = Game::from_position(Position::from_fen(variant, start_fen).ok()?);
    for text in moves {
        let mv = game.legal_moves().into_iter().find(|x| game.position().canonical(x) == *text)?;
        game.play(mv).ok()?;
    }
    Some(game)
}
