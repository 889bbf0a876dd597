//! Several `kibitz run` processes on one store: each has a directory of its
//! own with its configuration and its log, and is started, killed (SIGKILL)
//! and started again as a test needs. A fake load balancer posts Telegram
//! updates to the webhook of one process or another.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Duration;

use serde_json::Value;

use super::crash::Bot;
use super::telegram_api::WebhookSender;

/// One `kibitz run` process and its directory.
pub struct Proc {
    pub name: String,
    dir: tempfile::TempDir,
    pub config: PathBuf,
    bot: Option<Bot>,
    /// How many times it was started.
    pub starts: usize,
}

impl Proc {
    /// A process whose configuration `config` writes, given the directory.
    pub fn new(name: &str, config: impl FnOnce(&Path) -> String) -> Proc {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, config(dir.path())).expect("the configuration is written");
        Proc { name: name.to_string(), dir, config: path, bot: None, starts: 0 }
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Starts the process (its output appended to its log); the store and
    /// tokens are those of its configuration only.
    pub fn start(&mut self) {
        assert!(self.bot.is_none(), "{} is running already", self.name);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("bot.log"))
            .expect("a log file");
        let child = Command::new(env!("CARGO_BIN_EXE_kibitz"))
            .args(["run", "--config"])
            .arg(&self.config)
            .env("RUST_LOG", "info,serenity=warn")
            .env_remove("KIBITZ_TELEGRAM_TOKEN")
            .env_remove("KIBITZ_TELEGRAM_SECRET_TOKEN")
            .env_remove("KIBITZ_DISCORD_TOKEN")
            .env_remove("KIBITZ_DISCORD_GUILD")
            .env_remove("KIBITZ_POSTGRES_URL")
            .stdout(log.try_clone().expect("a log file"))
            .stderr(log)
            .spawn()
            .expect("kibitz starts");
        self.bot = Some(Bot(child));
        self.starts += 1;
    }

    /// SIGKILL, and waits for the process to be gone.
    pub fn kill(&mut self) {
        if let Some(mut bot) = self.bot.take() {
            bot.0.kill().expect("SIGKILL");
            bot.0.wait().expect("the process ends");
        }
    }

    /// Whether it runs (it has not ended on its own).
    pub fn alive(&mut self) -> bool {
        self.bot.as_mut().is_some_and(|b| matches!(b.0.try_wait(), Ok(None)))
    }

    /// SIGTERM, and its exit status once it has stopped (within 40 s).
    pub async fn stop(&mut self) -> ExitStatus {
        let mut bot = self.bot.take().expect("a running process");
        super::crash::terminate(&mut bot.0);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(40);
        loop {
            if let Some(status) = bot.0.try_wait().expect("the process's status") {
                return status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{} did not stop after SIGTERM\n{}",
                self.name,
                self.tail()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Its whole log, over every start.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("bot.log")).unwrap_or_default()
    }

    /// The end of its log, for a failure's message.
    pub fn tail(&self) -> String {
        let log = self.log();
        let lines: Vec<&str> = log.lines().collect();
        format!("--- {} ---\n{}", self.name, lines[lines.len().saturating_sub(40)..].join("\n"))
    }
}

/// The ends of the logs of `procs`, and every warning in them.
pub fn tails(procs: &[Proc]) -> String {
    let warnings = procs.iter().map(|p| {
        let log = p.log();
        let lines: Vec<&str> = log.lines().filter(|l| l.contains("WARN") || l.contains("ERROR")).collect();
        format!("--- {}: warnings ---\n{}", p.name, lines.join("\n"))
    });
    procs.iter().map(Proc::tail).chain(warnings).collect::<Vec<_>>().join("\n")
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    probe.local_addr().expect("an address")
}

/// Waits up to `limit` for something to listen at `addr`.
pub async fn listening(addr: SocketAddr, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

/// A load balancer in front of the webhooks of several processes: each
/// delivery goes to one of them, and a request that fails or is not
/// answered 2xx is posted again at another, as Telegram posts again.
#[derive(Clone)]
pub struct Balancer {
    pub hooks: Vec<WebhookSender>,
}

/// How a delivery went.
#[derive(Debug, Clone)]
pub struct Delivered {
    /// The process whose answer was 2xx.
    pub by: usize,
    /// Every (process, status) tried, in order (`None`: the request failed).
    pub tries: Vec<(usize, Option<u16>)>,
}

impl Balancer {
    pub fn new(addrs: &[SocketAddr], path: &str, secret: &str) -> Balancer {
        let hooks = addrs
            .iter()
            .map(|&addr| WebhookSender { addr, path: path.to_string(), secret: Some(secret.to_string()) })
            .collect();
        Balancer { hooks }
    }

    /// Posts `update` to process `first`, then to the others in turn until
    /// one answers 2xx; gives up after `limit`.
    pub async fn deliver_from(&self, update: &Value, first: usize, limit: Duration) -> Result<Delivered, Delivered> {
        let body = serde_json::to_vec(update).expect("JSON");
        let deadline = tokio::time::Instant::now() + limit;
        let mut tries = Vec::new();
        let mut at = first % self.hooks.len();
        loop {
            let status = self.hooks[at].post(&body).await;
            tries.push((at, status));
            if status.is_some_and(|s| (200..300).contains(&s)) {
                return Ok(Delivered { by: at, tries });
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Delivered { by: at, tries });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            at = (at + 1) % self.hooks.len();
        }
    }

    /// Posts `update` to a process chosen at random, then as
    /// [`Balancer::deliver_from`].
    pub async fn deliver(&self, update: &Value, limit: Duration) -> Result<Delivered, Delivered> {
        let first = fastrand::usize(..self.hooks.len());
        self.deliver_from(update, first, limit).await
    }
}

/// Runs `f`, which may block (a PostgreSQL client's calls do), from a
/// multi-threaded runtime's task as well as from outside any runtime.
pub fn blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// A test's own store on a test schema: its connections are closed (which
/// blocks) outside the async context, and the schema dropped after them.
pub struct SharedStore {
    store: Option<kibitz_storage::Store>,
    schema: Option<kibitz_storage::testing::TestSchema>,
}

impl SharedStore {
    /// A fresh schema named after `label`, or `None` (the test is skipped)
    /// without a server outside CI.
    pub fn new(label: &str) -> Option<SharedStore> {
        let schema = kibitz_storage::testing::TestSchema::new(label)?;
        let store = schema.store().expect("the test's store");
        Some(SharedStore { store: Some(store), schema: Some(schema) })
    }

    /// The URL a process's configuration names.
    pub fn url(&self) -> String {
        self.schema.as_ref().expect("the schema").url()
    }
}

impl std::ops::Deref for SharedStore {
    type Target = kibitz_storage::Store;
    fn deref(&self) -> &kibitz_storage::Store {
        self.store.as_ref().expect("the store")
    }
}

impl Drop for SharedStore {
    fn drop(&mut self) {
        let (store, schema) = (self.store.take(), self.schema.take());
        blocking(move || {
            drop(store);
            drop(schema);
        });
    }
}
