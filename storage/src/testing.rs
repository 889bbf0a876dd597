//! Support for tests against a real PostgreSQL server, for this crate's
//! tests and the bot's.
//!
//! The server is `KIBITZ_TEST_POSTGRES` when set, otherwise
//! `postgres://postgres@127.0.0.1:5432/test`. Each [`TestSchema`] is a schema
//! of its own, dropped when it goes. Without a server a test is skipped
//! (it says so on stderr), except under `CI=true`, where it fails.
//! Everything here may be called from a test's multi-threaded tokio
//! runtime too.

use crate::{Result, Store};

/// The server tests use.
pub fn server_url() -> String {
    std::env::var("KIBITZ_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// Whether tests run under CI, where a missing server is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A schema of its own on the test server, dropped (with everything in it) on drop.
#[derive(Debug)]
pub struct TestSchema {
    url: String,
    name: String,
}

impl TestSchema {
    /// A fresh schema named after `label`; `None` if there is no server and
    /// this is not CI (the test should then return: it is skipped).
    ///
    /// # Panics
    /// Under CI, if the server cannot be reached.
    pub fn new(label: &str) -> Option<TestSchema> {
        let url = server_url();
        let name = format!(
            "kibitz_test_{}_{}_{:08x}",
            label.chars().filter(char::is_ascii_alphanumeric).take(24).collect::<String>().to_lowercase(),
            std::process::id(),
            fastrand::u32(..)
        );
        let made = crate::pg::blocking(|| {
            postgres::Client::connect(&url, postgres::NoTls)
                .and_then(|mut c| c.batch_execute(&format!("CREATE SCHEMA {}", crate::pg::quote_ident(&name))))
        });
        match made {
            Ok(()) => Some(TestSchema { url, name }),
            Err(e) if in_ci() => {
                panic!("no PostgreSQL server for the tests at {}: {e}", crate::url_without_password(&url))
            }
            Err(e) => {
                eprintln!("skipped: no PostgreSQL server at {} ({e})", crate::url_without_password(&url));
                None
            }
        }
    }

    /// A fresh schema named after `label` on the server at `url` (for the bench).
    pub fn on(url: &str, label: &str) -> Result<TestSchema> {
        let name = format!("kibitz_{label}_{}_{:08x}", std::process::id(), fastrand::u32(..));
        crate::pg::blocking(|| {
            let mut client = postgres::Client::connect(url, postgres::NoTls)?;
            client.batch_execute(&format!("CREATE SCHEMA {}", crate::pg::quote_ident(&name)))
        })?;
        Ok(TestSchema { url: url.to_owned(), name })
    }

    /// The schema's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server's URL.
    pub fn server(&self) -> &str {
        &self.url
    }

    /// A URL that puts a connection in this schema (for a `kibitz` process).
    pub fn url(&self) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}options=-csearch_path%3D{}", self.url, self.name)
    }

    /// A store in this schema (a new connection pool each time: "reopening").
    pub fn store(&self) -> Result<Store> {
        crate::pg::blocking(|| Store::connect_in_schema(&self.url, &self.name))
    }

    /// The size on disk of the schema's tables with their indexes and
    /// TOAST, in bytes, and how many games (active and finished) and moves
    /// of active games it holds.
    pub fn size(&self) -> Result<(u64, u64, u64)> {
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls)?;
        let bytes: i64 = client
            .query_one(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                 JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
                &[&self.name],
            )?
            .get(0);
        let schema = crate::pg::quote_ident(&self.name);
        let counts = client.query_one(
            &format!(
                "SELECT (SELECT count(*) FROM {schema}.games) + (SELECT count(*) FROM {schema}.archive),
                        (SELECT coalesce(sum(jsonb_array_length(record->'record'->'moves')), 0)::bigint FROM {schema}.games)"
            ),
            &[],
        )?;
        let (games, moves): (i64, i64) = (counts.get(0), counts.get(1));
        Ok((bytes.max(0) as u64, games.max(0) as u64, moves.max(0) as u64))
    }

    /// Runs SQL in this schema directly (to damage a record on purpose, say).
    pub fn execute(&self, sql: &str) -> Result<()> {
        crate::pg::blocking(|| {
            let mut client = postgres::Client::connect(&self.url, postgres::NoTls)?;
            client.batch_execute(&format!("SET search_path TO {}; {sql}", crate::pg::quote_ident(&self.name)))?;
            Ok(())
        })
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        crate::pg::blocking(|| {
            if let Ok(mut c) = postgres::Client::connect(&self.url, postgres::NoTls) {
                let _ =
                    c.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", crate::pg::quote_ident(&self.name)));
            }
        });
    }
}
