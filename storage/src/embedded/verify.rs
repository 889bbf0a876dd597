//! Checking the store whole: every record and index entry read back, and
//! what cannot be read or does not fit together listed.

use super::*;

impl SledStore {
    /// [`SledStore::verify`]: a process's own store is checked whole.
    pub fn verify_for_start(&self) -> Result<Vec<StoreError>> {
        self.verify()
    }

    /// Reads every record and index entry, and lists what cannot be read or
    /// does not fit together. An empty list means the store is whole.
    pub fn verify(&self) -> Result<Vec<StoreError>> {
        let open = self.db()?;
        let t = open.trees()?;
        let mut problems = Vec::new();
        let damaged = |record: String, reason: &str| StoreError::Corrupt { record, reason: reason.to_owned() };
        for (tree, archived) in [(&t.games, false), (&t.archive, true)] {
            for entry in tree.iter() {
                let (raw_key, raw) = entry?;
                let key = game_key_of(&raw_key);
                match decode_game(&key, &raw) {
                    Ok(game) if game.key != key => problems.push(damaged(key.describe(), "stored under another key")),
                    Ok(game) if !archived => {
                        if let Some(at) = due_of(&game)
                            && !t.due.contains_key(due_key(at, &raw_key))?
                        {
                            problems.push(damaged(key.describe(), "missing from the clock's index"));
                        }
                        for player in game.indexed_players() {
                            let pk = player_key(&key.channel.platform, player, &key.channel.channel)?;
                            if t.players.get(pk)?.is_none_or(|id| *id != *key.id.as_str().as_bytes()) {
                                problems.push(damaged(key.describe(), "missing from its player's index"));
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(e) => problems.push(e),
                }
            }
        }
        for entry in t.players.iter() {
            let (raw_key, id) = entry?;
            let parts = keys::split(&raw_key);
            if let [platform, _, channel] = parts[..] {
                let key = ChannelKey::new(keys::text(platform), keys::text(channel)).game(GameId::stored(&id));
                if !t.games.contains_key(key.encode()?)? {
                    problems.push(damaged(key.describe(), "in the player index but not among the active games"));
                }
            } else {
                problems.push(damaged(keys::text(&raw_key), "malformed player index key"));
            }
        }
        for entry in t.archive_index.iter() {
            let (raw_key, _) = entry?;
            let parts = keys::split(&raw_key);
            let whole = parts.len() >= 2 && raw_key.len() >= parts[0].len() + parts[1].len() + 2 + 8;
            let target = whole.then(|| {
                let rest = &raw_key[parts[0].len() + parts[1].len() + 2 + 8..];
                match keys::split(rest)[..] {
                    [channel, id] => {
                        Some(ChannelKey::new(keys::text(parts[0]), keys::text(channel)).game(GameId::stored(id)))
                    }
                    _ => None,
                }
            });
            match target.flatten() {
                Some(key) if !t.archive.contains_key(key.encode()?)? => {
                    problems.push(damaged(key.describe(), "in the archive index but not in the archive"));
                }
                Some(_) => {}
                None => problems.push(damaged(keys::text(&raw_key), "malformed archive index key")),
            }
        }
        for entry in t.due.iter() {
            let (raw_key, _) = entry?;
            let Some(game_key) = raw_key.get(8..) else {
                problems.push(damaged(keys::text(&raw_key), "malformed clock index key"));
                continue;
            };
            let key = game_key_of(game_key);
            let at = Timestamp(be_u64(&raw_key[..8]));
            match t.games.get(game_key)? {
                Some(raw) => match decode_game(&key, &raw) {
                    Ok(game) if due_of(&game) != Some(at) => {
                        problems.push(damaged(key.describe(), "in the clock's index at the wrong time"));
                    }
                    // A game that cannot be read is reported above.
                    _ => {}
                },
                None => problems.push(damaged(key.describe(), "in the clock's index but not among the active games")),
            }
        }
        for entry in t.challenges.iter() {
            let (key, raw) = entry?;
            let what = || match keys::split(&key)[..] {
                [platform, channel, challenger] => describe_challenge(
                    &ChannelKey::new(keys::text(platform), keys::text(channel)),
                    &keys::text(challenger),
                ),
                _ => format!("the challenge {}", key_text(&key)),
            };
            if let Err(e) = codec::decode::<Challenge>(what, &raw) {
                problems.push(e);
            }
        }
        for entry in t.ratings.iter() {
            let (key, raw) = entry?;
            let what = || match keys::split(&key)[..] {
                [platform, player, variant] => {
                    describe_rating(&keys::text(platform), &keys::text(player), &keys::text(variant))
                }
                _ => format!("the rating {}", key_text(&key)),
            };
            if let Err(e) = codec::decode::<Rating>(what, &raw) {
                problems.push(e);
            }
        }
        for entry in t.channels.iter() {
            let (key, raw) = entry?;
            let what = || format!("the settings of {}", key_text(&key));
            if let Err(e) = codec::decode::<ChannelSettings>(what, &raw) {
                problems.push(e);
            }
        }
        problems.extend(outbox::verify(t)?);
        for entry in t.tree(b"users")?.iter() {
            let (key, raw) = entry?;
            let what = || match keys::split(&key)[..] {
                [platform, id] => describe_user(&keys::text(platform), &keys::text(id)),
                _ => format!("the user {}", key_text(&key)),
            };
            if let Err(e) = codec::decode::<UserRecord>(what, &raw) {
                problems.push(e);
            }
        }
        Ok(problems)
    }
}

/// A raw key as text for a message: its parts joined by `/` (as a channel
/// is written), damaged bytes replaced.
fn key_text(raw: &[u8]) -> String {
    keys::split(raw).into_iter().map(keys::text).collect::<Vec<_>>().join("/")
}
