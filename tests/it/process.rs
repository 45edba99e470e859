//! `evaldeck serve` as a real process over a database that outlives it: started, killed
//! with SIGKILL or stopped with SIGTERM, and started again, for the recovery tests.
#![allow(dead_code)]

use evaldeck::service::store::prelude::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;

use evaldeck_testkit::served::Resp;

pub const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

/// A database directory with a key for the local owner, shared by successive processes.
pub struct Store {
    pub dir: tempfile::TempDir,
    pub key: String,
    pub project: String,
    pub org_id: String,
}

impl Store {
    pub fn new() -> Store {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("serve.sqlite3");
        // The store alone (no service, so nothing here sweeps or drives anything).
        let store = evaldeck::service::store::Store::open(&db).expect("open");
        let local = store.ensure_seeded(BIN).expect("seed");
        let key = store
            .create_key(&local.org_id, &local.user_id, "recovery")
            .expect("a key")
            .key;
        let project = store
            .default_project(&local.org_id)
            .expect("read")
            .expect("the Demo project");
        Store {
            dir,
            key,
            project,
            org_id: local.org_id,
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("serve.sqlite3")
    }
}

/// One `serve` process.
pub struct Serve {
    child: Child,
    pub base: String,
    pub http: reqwest::Client,
    key: String,
}

impl Serve {
    /// Starts `serve` on `127.0.0.1:0` over `store` with `extra` flags; waits for its address.
    pub fn start(store: &Store, extra: &[&str]) -> Serve {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(store.dir.path().join("serve.log"))
            .expect("a log file");
        let mut child = Command::new(BIN)
            .arg("--db")
            .arg(store.db())
            .args(["serve", "--listen", "127.0.0.1:0", "--no-rate-limit"])
            .args(extra)
            .env("EVALDECK_LOG", "info,rmcp=warn")
            .env_remove("EVALDECK_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("start serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            // Keep reading so the child never blocks on a full pipe.
            for _ in lines {}
        });
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("serve did not start: {}", read_log(store)));
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .expect("the served address")
            .to_string();
        Serve {
            child,
            base,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            key: store.key.clone(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: no shutdown path runs.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then waits for the process to end (what a supervisor does on a deploy).
    pub fn terminate(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        panic!("serve did not stop on SIGTERM");
    }

    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Resp {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.key);
        if let Some(b) = body {
            req = req.json(&b);
        }
        Resp::from(req.send().await.expect("a response")).await
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn read_log(store: &Store) -> String {
    std::fs::read_to_string(store.dir.path().join("serve.log")).unwrap_or_default()
}

pub fn db_path(dir: &Path) -> PathBuf {
    dir.join("serve.sqlite3")
}
