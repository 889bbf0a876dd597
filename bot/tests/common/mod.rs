#![allow(dead_code)] // each test file uses a part of what is shared

pub mod telegram_api;
