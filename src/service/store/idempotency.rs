//! Recorded responses of idempotent writes: a retry with the same key and the same request
//! gets the first answer again instead of doing the work twice.

use rusqlite::{OptionalExtension, params};

use super::{Store, now_ms};
use crate::spec::Result;

/// How long a key is remembered.
pub const KEY_TTL_MS: i64 = 24 * 60 * 60 * 1000;

/// What a key holds when a request arrives with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Begin {
    /// First use: the caller runs the request and records its answer.
    New,
    /// Finished before: replay this status and body.
    Replay { status: u16, body: Vec<u8> },
    /// A request with this key is still running.
    InProgress,
    /// The key was used for a different request.
    Mismatch,
}

impl Store {
    /// Claims `key` for a request with `fingerprint`, or reports what it already holds.
    pub fn idempotency_begin(&self, org_id: &str, key: &str, fingerprint: &str) -> Result<Begin> {
        let now = now_ms();
        self.write(|tx| {
            tx.execute("DELETE FROM idempotency_keys WHERE created_at < ?1", [now - KEY_TTL_MS])?;
            let row: Option<(String, Option<u16>, Option<Vec<u8>>)> = tx
                .query_row(
                    "SELECT fingerprint, status, body FROM idempotency_keys WHERE org_id = ?1 AND key = ?2",
                    params![org_id, key],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            Ok(match row {
                None => {
                    tx.execute(
                        "INSERT INTO idempotency_keys (org_id, key, fingerprint, created_at) VALUES (?1, ?2, ?3, ?4)",
                        params![org_id, key, fingerprint, now],
                    )?;
                    Begin::New
                }
                Some((fp, _, _)) if fp != fingerprint => Begin::Mismatch,
                Some((_, Some(status), body)) => Begin::Replay { status, body: body.unwrap_or_default() },
                Some((_, None, _)) => Begin::InProgress,
            })
        })
    }

    /// Records the answer to replay.
    pub fn idempotency_finish(
        &self,
        org_id: &str,
        key: &str,
        status: u16,
        body: &[u8],
    ) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE idempotency_keys SET status = ?3, body = ?4 WHERE org_id = ?1 AND key = ?2",
                params![org_id, key, status, body],
            )?;
            Ok(())
        })
    }

    /// Forgets a claim whose request failed in a way worth retrying (5xx, 429).
    pub fn idempotency_release(&self, org_id: &str, key: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "DELETE FROM idempotency_keys WHERE org_id = ?1 AND key = ?2",
                params![org_id, key],
            )?;
            Ok(())
        })
    }
}
