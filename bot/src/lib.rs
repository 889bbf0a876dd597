//! Kibitz, the chat bot: the chat core (commands in, replies out), the
//! console adapter and the configuration. The `kibitz` binary wires them up.

#![warn(missing_docs)]

pub mod adapter;
pub mod bench;
pub mod command;
pub mod config;
pub mod console;
pub mod core;
pub mod discord;
pub mod relay;
pub mod replay;
pub mod reviewer;
pub mod secrets;
pub mod shards;
pub mod telegram;
