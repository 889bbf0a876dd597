//! A Clash of the Armies match brought straight to the sealed bids.

use kibitz_bot::core::Core;
use kibitz_rules::army::{Match, Phase, ULTIMATE_ROUND};
use kibitz_storage::ChannelKey;

/// The match that `player` plays in `channel` of `platform`, brought to the
/// sealed bids before the ultimate round (CA14).
pub fn to_the_auction(core: &Core, platform: &str, channel: &str, player: &str) {
    let key = ChannelKey::new(platform, channel);
    let r = core.store().player_game_in_channel(&key, player).unwrap().expect("a match here");
    let mut m = Match::new();
    m.round = ULTIMATE_ROUND;
    m.phase = Phase::Bidding;
    m.auction = Some(Default::default());
    core.store()
        .update_game(&r.key, r.version, None, |g| {
            g.clash.as_mut().unwrap().state = Some(serde_json::to_value(&m).unwrap());
            Ok(())
        })
        .unwrap();
}
