//! The SQLite store: one writer connection and a few readers over one file in WAL mode,
//! versioned migrations, and a module per aggregate.
//!
//! Calls are synchronous and short (indexed lookups, small transactions), so they run on
//! the caller's thread; every multi-row write goes through [`Store::write`], which wraps it
//! in one `IMMEDIATE` transaction so a crash mid-write leaves nothing half-done.
//!
//! The seam: the service reaches storage only through [`Storage`], one trait per aggregate
//! ([`ProjectStore`](projects::ProjectStore), [`RunStore`](runs::RunStore), …; bring them
//! into scope with [`prelude`]), which [`Store`] implements over SQLite. A second store (a
//! server database) implements the same traits; nothing outside this module names
//! `rusqlite` (a test checks).

pub mod artifacts;
pub mod authoring;
pub mod chat;
pub mod credits;
pub mod environments;
pub mod hosts;
pub mod idempotency;
pub mod identity;
pub mod ingest;
pub mod leases;
mod migrations;
pub mod projects;
pub mod runs;
pub mod schedules;
pub mod secrets;
pub mod seed;
pub mod servers;
pub mod suites;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::spec::page::{Page, PageRequest, Position};
use crate::spec::{Error, Result};

const READERS: usize = 4;

/// The aggregate traits, to call storage through `&dyn Storage`.
pub mod prelude {
    pub use super::Storage;
    pub use super::artifacts::ArtifactStore;
    pub use super::authoring::AuthoringStore;
    pub use super::chat::ChatStore;
    pub use super::credits::CreditStore;
    pub use super::environments::EnvironmentStore;
    pub use super::hosts::HostStore;
    pub use super::idempotency::IdempotencyStore;
    pub use super::identity::IdentityStore;
    pub use super::ingest::IngestStore;
    pub use super::leases::LeaseStore;
    pub use super::projects::ProjectStore;
    pub use super::runs::RunStore;
    pub use super::schedules::ScheduleStore;
    pub use super::seed::SeedStore;
    pub use super::servers::ServerStore;
    pub use super::suites::SuiteStore;
}
use prelude::*;

/// Everything the service stores: one trait per aggregate.
pub trait Storage:
    ArtifactStore
    + AuthoringStore
    + ChatStore
    + CreditStore
    + EnvironmentStore
    + HostStore
    + IdempotencyStore
    + IdentityStore
    + IngestStore
    + LeaseStore
    + ProjectStore
    + RunStore
    + ScheduleStore
    + SeedStore
    + ServerStore
    + SuiteStore
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// The store's file (the service keeps server snapshots beside it).
    fn path(&self) -> &Path;

    /// For tests that look under the seam (the SQLite store's connections).
    fn as_any(&self) -> &dyn std::any::Any;
}

impl Storage for Store {
    fn path(&self) -> &Path {
        &self.path
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl dyn Storage {
    /// The SQLite store behind the seam, if that is what it is.
    pub fn sqlite(&self) -> Option<&Store> {
        self.as_any().downcast_ref()
    }
}

pub struct Store {
    path: PathBuf,
    /// Seals and opens secret values (see [`secrets`]).
    pub(crate) sealer: secrets::Sealer,
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.set_prepared_statement_cache_capacity(64);
    // Keep each cached statement's plan: otherwise SQLite (3.53, STAT4) expires any
    // statement whose plan looked at a bound `LIMIT ?` and re-parses it on every call,
    // which cost every paginated list ~40 µs per request.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    Ok(())
}

impl Store {
    /// Opens (creating if needed) the database file and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::internal(format!(
                    "cannot create data directory {}: {e}",
                    dir.display()
                ))
            })?;
        }
        let open = |flags| {
            Connection::open_with_flags(path, flags).map_err(|e| {
                Error::internal(format!("cannot open database {}: {e}", path.display()))
            })
        };
        let mut writer = open(OpenFlags::default())?;
        writer.pragma_update(None, "journal_mode", "WAL")?;
        configure(&writer)?;
        // Deleted and overwritten content is zeroed, so a secret replaced by its sealed
        // form does not linger in free space.
        writer.pragma_update(None, "secure_delete", "ON")?;
        migrations::apply(&mut writer)?;
        let sealer = secrets::Sealer::for_store(path)?;
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let r = open(OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
            configure(&r)?;
            readers.push(Mutex::new(r));
        }
        let store = Store {
            path: path.to_path_buf(),
            sealer,
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
        };
        store.check_secret_key()?;
        store.seal_clear_secrets()?;
        Ok(store)
    }

    /// Refuses a key that is not the one this store's secrets were sealed with (recording
    /// a check value on first use).
    fn check_secret_key(&self) -> Result<()> {
        const CHECK: &str = "evaldeck secret key check";
        let stored: Option<String> = self.read(|c| {
            Ok(c.query_row(
                "SELECT value FROM store_meta WHERE name = 'secret_check'",
                [],
                |r| r.get(0),
            )
            .optional()?)
        })?;
        match stored {
            Some(v) if self.sealer.open(&v).ok().as_deref() == Some(CHECK) => Ok(()),
            Some(_) => Err(Error::internal(format!(
                "the secret key ({} or {}) is not the one this database's secrets were sealed with; restore the key file that belongs to it",
                secrets::key_path(&self.path).display(),
                secrets::KEY_ENV
            ))),
            None => self.write(|tx| {
                tx.execute(
                    "INSERT OR IGNORE INTO store_meta (name, value) VALUES ('secret_check', ?1)",
                    [self.sealer.seal(CHECK)],
                )?;
                Ok(())
            }),
        }
    }

    /// Seals secrets a store written before sealing holds in clear (see [`secrets`]).
    fn seal_clear_secrets(&self) -> Result<()> {
        let servers: Vec<(String, String)> = self.read(|c| {
            let mut st = c.prepare("SELECT id, config FROM servers")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })?;
        type TokenRow = (String, Option<String>, String, Option<String>);
        let tokens: Vec<TokenRow> = self.read(|c| {
            let mut st = c.prepare(
                "SELECT server_id, client_secret, access_token, refresh_token FROM oauth_tokens",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })?;
        let clear = |v: &Option<String>| {
            v.as_deref()
                .is_some_and(|v| !v.starts_with(secrets::SEALED))
        };
        let mut changed = 0;
        self.write(|tx| {
            for (id, json) in &servers {
                let Ok(config) = serde_json::from_str::<crate::spec::server::ServerConfig>(json) else {
                    continue;
                };
                if secrets::has_clear_secrets(&config) {
                    tx.execute(
                        "UPDATE servers SET config = ?2 WHERE id = ?1",
                        rusqlite::params![id, to_json(&self.sealer.seal_config(&config))],
                    )?;
                    changed += 1;
                }
            }
            for (id, secret, access, refresh) in &tokens {
                if clear(secret) || clear(&Some(access.clone())) || clear(refresh) {
                    let seal = |v: &Option<String>| {
                        v.as_deref().map(|v| {
                            if v.starts_with(secrets::SEALED) {
                                v.to_string()
                            } else {
                                self.sealer.seal(v)
                            }
                        })
                    };
                    tx.execute(
                        "UPDATE oauth_tokens SET client_secret = ?2, access_token = ?3, refresh_token = ?4 WHERE server_id = ?1",
                        rusqlite::params![id, seal(secret), seal(&Some(access.clone())), seal(refresh)],
                    )?;
                    changed += 1;
                }
            }
            Ok(())
        })?;
        if changed > 0 {
            tracing::info!(rows = changed, "sealed secrets stored in clear");
            let conn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(())
    }

    /// Runs a read on one of the reader connections (never blocked by the writer in WAL).
    pub fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        // One snapshot for the whole read: a view made of several queries (a schedule and
        // its firings) never mixes states from before and after a write.
        let snapshot = |conn: &Connection| -> Result<T> {
            let tx = conn.unchecked_transaction()?;
            f(&tx)
        };
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        for i in 0..self.readers.len() {
            if let Ok(conn) = self.readers[(start + i) % self.readers.len()].try_lock() {
                return snapshot(&conn);
            }
        }
        let conn = self.readers[start % self.readers.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        snapshot(&conn)
    }

    /// Runs `f` in one immediate transaction: committed when it returns `Ok`, rolled back
    /// otherwise (or if the process dies before the commit).
    pub fn write<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        idempotency::mark_committed(&tx)?;
        tx.commit()?;
        Ok(out)
    }
}

// `?` on a SQLite error gives `Error::internal("storage failure")`: the conversion lives
// with `Error` in the contract crate (its `sqlite` feature, which only this crate enables).

/// Whether a write failed on a UNIQUE constraint (a duplicate name, say).
pub fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

/// A new opaque id with a type prefix: `prj_0192…`.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

/// Epoch milliseconds.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Reads a JSON column into a typed value; a corrupt row is an internal error, not a panic.
pub fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| {
        tracing::error!(error = %e, "corrupt JSON column");
        Error::internal("corrupt stored record")
    })
}

pub fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("wire types serialize")
}

/// Keyset pagination over `(created_at, id)`: stable under inserts, no offsets.
pub struct Keyset {
    pub after_ts: i64,
    pub after_id: String,
    pub limit: usize,
}

impl Keyset {
    pub fn new(page: &PageRequest) -> Result<Keyset> {
        let limit = page.limit()?;
        let (after_ts, after_id) = match page.position()? {
            Some(p) => (
                p.key.parse().map_err(|_| {
                    Error::invalid("/cursor", "cursor", "not a cursor this service issued")
                })?,
                p.id,
            ),
            None => (i64::MIN, String::new()),
        };
        Ok(Keyset {
            after_ts,
            after_id,
            limit,
        })
    }

    /// Rows to fetch: one more than the page, to learn whether another page follows.
    pub fn fetch(&self) -> i64 {
        self.limit as i64 + 1
    }

    pub fn page<T>(&self, rows: Vec<T>, key: impl Fn(&T) -> (i64, String)) -> Page<T> {
        Page::from_rows(rows, self.limit, |r| {
            let (ts, id) = key(r);
            Position {
                key: ts.to_string(),
                id,
            }
        })
    }
}
