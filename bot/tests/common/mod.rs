pub mod telegram_api;
