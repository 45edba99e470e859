//! Recorded responses of idempotent writes: a retry with the same key and the same request
//! gets the first answer again instead of doing the work twice.
//!
//! A key belongs to one principal (organization and member). While its request runs the
//! key is *claimed*: the claim has an owner process and a lease like a run, and every
//! write transaction the request commits also sets the claim's `committed` flag in that
//! same transaction ([`with_claim`]). So a claim whose request died — the process was
//! killed, or stopped — tells the truth: nothing committed, and the key is released for a
//! fresh execution; a write committed, and the key answers that the request was carried
//! out but its answer was lost ([`super::leases::outcome_lost_body`]).

use rusqlite::{OptionalExtension, Transaction, params};

use super::leases::{OUTCOME_LOST_STATUS, outcome_lost_body};
use super::{Store, now_ms};
use crate::spec::Result;

/// How long a key is remembered.
pub const KEY_TTL_MS: i64 = 24 * 60 * 60 * 1000;

/// A claimed key: `(org_id, user_id, key)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClaimKey {
    pub org_id: String,
    pub user_id: String,
    pub key: String,
}

tokio::task_local! {
    /// The claim whose request the current task runs, if any.
    static CLAIM: ClaimKey;
}

/// Runs `f` (a keyed request) so that every write it commits marks `claim` committed in
/// the same transaction.
pub async fn with_claim<F: std::future::Future>(claim: ClaimKey, f: F) -> F::Output {
    CLAIM.scope(claim, f).await
}

/// Inside [`Store::write`]: marks the running request's claim, if any, as having written.
pub(super) fn mark_committed(tx: &Transaction) -> rusqlite::Result<()> {
    let Ok(c) = CLAIM.try_with(|c| c.clone()) else {
        return Ok(());
    };
    tx.prepare_cached(
        "UPDATE idempotency_keys SET committed = 1
         WHERE org_id = ?1 AND user_id = ?2 AND key = ?3 AND committed = 0",
    )?
    .execute(params![c.org_id, c.user_id, c.key])?;
    Ok(())
}

/// A key's row: fingerprint, status, body, lease, committed, project, role.
type KeyRow = (
    String,
    Option<u16>,
    Option<Vec<u8>>,
    i64,
    i64,
    Option<String>,
    Option<String>,
);

/// What a key holds when a request arrives with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Begin {
    /// First use (or the first use died having written nothing): the caller runs the
    /// request and records its answer.
    New,
    /// Finished before: replay this status and body, if the caller's role in `project_id`
    /// is still at least `role`.
    Replay {
        status: u16,
        body: Vec<u8>,
        project_id: Option<String>,
        role: Option<String>,
    },
    /// A request with this key is still running.
    InProgress,
    /// The key was used for a different request.
    Mismatch,
}

/// The idempotency aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait IdempotencyStore {
    /// Claims `key` for a request with `fingerprint` on behalf of process `owner` until
    /// `lease_until`, or reports what it already holds. A claim whose lease ran out is
    /// settled here first, as the sweep would.
    fn idempotency_begin(
        &self,
        claim: &ClaimKey,
        fingerprint: &str,
        owner: &str,
        lease_until: i64,
    ) -> Result<Begin>;

    /// Records the answer to replay, with the caller's role in the path's project then.
    fn idempotency_finish(
        &self,
        claim: &ClaimKey,
        status: u16,
        body: &[u8],
        project_id: Option<&str>,
        role: Option<&str>,
    ) -> Result<()>;

    /// Forgets a claim whose request failed in a way worth retrying (5xx, 429), unless
    /// it wrote something first; `false` then (the caller records the answer instead).
    fn idempotency_release(&self, claim: &ClaimKey) -> Result<bool>;
}

impl IdempotencyStore for Store {
    fn idempotency_begin(
        &self,
        claim: &ClaimKey,
        fingerprint: &str,
        owner: &str,
        lease_until: i64,
    ) -> Result<Begin> {
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "DELETE FROM idempotency_keys WHERE created_at < ?1",
                [now - KEY_TTL_MS],
            )?;
            let row: Option<KeyRow> = tx
                .query_row(
                    "SELECT fingerprint, status, body, lease_until, committed, project_id, role FROM idempotency_keys
                     WHERE org_id = ?1 AND user_id = ?2 AND key = ?3",
                    params![claim.org_id, claim.user_id, claim.key],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)),
                )
                .optional()?;
            let fresh = |tx: &Transaction| -> rusqlite::Result<()> {
                tx.execute(
                    "INSERT OR REPLACE INTO idempotency_keys (org_id, user_id, key, fingerprint, created_at, owner, lease_until)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![claim.org_id, claim.user_id, claim.key, fingerprint, now, owner, lease_until],
                )?;
                Ok(())
            };
            Ok(match row {
                None => {
                    fresh(tx)?;
                    Begin::New
                }
                Some((fp, ..)) if fp != fingerprint => Begin::Mismatch,
                Some((_, Some(status), body, _, _, project_id, role)) => Begin::Replay {
                    status,
                    body: body.unwrap_or_default(),
                    project_id,
                    role,
                },
                Some((_, None, _, lease, committed, ..)) if lease < now => {
                    if committed == 0 {
                        // The first request died having written nothing: run it afresh.
                        fresh(tx)?;
                        Begin::New
                    } else {
                        let body = outcome_lost_body();
                        tx.execute(
                            "UPDATE idempotency_keys SET status = ?4, body = ?5
                             WHERE org_id = ?1 AND user_id = ?2 AND key = ?3",
                            params![claim.org_id, claim.user_id, claim.key, OUTCOME_LOST_STATUS, body],
                        )?;
                        Begin::Replay {
                            status: OUTCOME_LOST_STATUS,
                            body,
                            project_id: None,
                            role: None,
                        }
                    }
                }
                Some((_, None, ..)) => Begin::InProgress,
            })
        })
    }

    fn idempotency_finish(
        &self,
        claim: &ClaimKey,
        status: u16,
        body: &[u8],
        project_id: Option<&str>,
        role: Option<&str>,
    ) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE idempotency_keys SET status = ?4, body = ?5, project_id = ?6, role = ?7
                 WHERE org_id = ?1 AND user_id = ?2 AND key = ?3",
                params![
                    claim.org_id,
                    claim.user_id,
                    claim.key,
                    status,
                    body,
                    project_id,
                    role
                ],
            )?;
            Ok(())
        })
    }

    fn idempotency_release(&self, claim: &ClaimKey) -> Result<bool> {
        self.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM idempotency_keys WHERE org_id = ?1 AND user_id = ?2 AND key = ?3 AND committed = 0",
                params![claim.org_id, claim.user_id, claim.key],
            )? == 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::prelude::*;
    use super::*;

    fn claim(key: &str) -> ClaimKey {
        ClaimKey {
            org_id: "org".into(),
            user_id: "usr".into(),
            key: key.into(),
        }
    }

    /// A claim whose process died is settled from what its request committed: nothing →
    /// the retry runs afresh; a write → the retry learns it happened. Never "in progress"
    /// once the lease has run out.
    #[tokio::test]
    async fn a_dead_claim_is_settled_from_what_it_committed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.sqlite3")).unwrap();
        let soon = now_ms() + 30;
        let (quiet, wrote) = (claim("quiet"), claim("wrote"));
        assert_eq!(
            store.idempotency_begin(&quiet, "fp", "dead", soon).unwrap(),
            Begin::New
        );
        assert_eq!(
            store.idempotency_begin(&wrote, "fp", "dead", soon).unwrap(),
            Begin::New
        );
        with_claim(wrote.clone(), async {
            store
                .write(|tx| {
                    tx.execute("CREATE TABLE side_effect (x INTEGER)", [])?;
                    Ok(())
                })
                .unwrap();
        })
        .await;
        // While the lease holds, a retry waits.
        assert_eq!(
            store.idempotency_begin(&quiet, "fp", "live", soon).unwrap(),
            Begin::InProgress
        );
        tokio::time::sleep(std::time::Duration::from_millis(40)).await;
        let later = now_ms() + 10_000;
        assert_eq!(
            store
                .idempotency_begin(&quiet, "fp", "live", later)
                .unwrap(),
            Begin::New,
            "nothing was written: the retry runs afresh"
        );
        match store
            .idempotency_begin(&wrote, "fp", "live", later)
            .unwrap()
        {
            Begin::Replay { status, body, .. } => {
                assert_eq!(status, 409);
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
                assert_eq!(v["details"]["reason"], "IDEMPOTENT_REQUEST_COMMITTED");
            }
            other => panic!("{other:?}"),
        }
    }

    /// The sweep settles dead claims without waiting for a retry.
    #[tokio::test]
    async fn the_sweep_releases_or_resolves_dead_claims() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("k.sqlite3")).unwrap();
        let past = now_ms() - 1;
        for k in ["a", "b"] {
            store
                .idempotency_begin(&claim(k), "fp", "dead", past)
                .unwrap();
        }
        with_claim(claim("b"), async {
            store
                .write(|tx| {
                    tx.execute("CREATE TABLE side_effect (x INTEGER)", [])?;
                    Ok(())
                })
                .unwrap();
        })
        .await;
        let swept = store.sweep_claims(now_ms()).unwrap();
        assert_eq!((swept.released, swept.resolved), (1, 1));
        let claimed: i64 = store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT COUNT(*) FROM idempotency_keys WHERE status IS NULL",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        assert_eq!(claimed, 0, "no key left claimed");
    }
}
