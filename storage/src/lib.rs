//! Durable storage of games, challenges, ratings and settings.
//!
//! Nothing is stored yet: this crate is reserved for the sled-backed store.
//! It deliberately exports nothing, so that no caller can mistake it for a
//! working store.
