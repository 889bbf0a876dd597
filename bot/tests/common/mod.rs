#![allow(dead_code)] // each test file uses a part of what is shared

pub mod auction;
pub mod crash;
pub mod discord_api;
pub mod multi;
pub mod telegram_api;
