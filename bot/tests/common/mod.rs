pub mod discord_api;
pub mod telegram_api;
