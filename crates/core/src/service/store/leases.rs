//! Leases on runs, authoring jobs and idempotency claims (see `service::leases`): the
//! owner renews them, a sweep takes over what no live owner holds, a graceful shutdown
//! releases them. Every take-over is one `IMMEDIATE` transaction that re-checks the lease,
//! so two processes sweeping the same file never both take the same row.

use rusqlite::params;

use super::Store;
use super::runs::ACTIVE;
use crate::spec::Result;

/// What this process holds, to renew.
#[derive(Debug, Default, Clone)]
pub struct Held {
    pub runs: Vec<String>,
    pub jobs: Vec<String>,
    /// `(org_id, user_id, key)`.
    pub claims: Vec<(String, String, String)>,
}

/// What a sweep did with the idempotency claims whose request died.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ClaimsSwept {
    /// Nothing was written: the key is free again, and a retry runs afresh.
    pub released: usize,
    /// A write committed but the answer was lost: the key now answers that.
    pub resolved: usize,
}

/// The answer recorded for a key whose request committed a write and then died before its
/// answer was recorded (see `api::idempotency`).
pub const OUTCOME_LOST_STATUS: u16 = 409;

pub fn outcome_lost_body() -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "code": "CONFLICT",
        "message": "the first request with this idempotency key was carried out (its changes were saved), but the service stopped before its answer was recorded; read the resource to see the outcome instead of retrying",
        "details": {"reason": "IDEMPOTENT_REQUEST_COMMITTED"}
    }))
    .expect("serializes")
}

/// The leases aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait LeaseStore {
    /// Extends the leases of everything `owner` still drives to `until`.
    fn renew_leases(&self, owner: &str, held: &Held, until: i64) -> Result<()>;

    /// Takes over the active runs (not ingested ones: no runner drives those) whose lease
    /// ran out; their half-done iterations go back to `pending`. Returns their ids.
    fn claim_orphan_runs(&self, owner: &str, now: i64, until: i64) -> Result<Vec<String>>;

    /// Takes over the pending authoring jobs whose lease ran out. Returns their ids.
    fn claim_orphan_jobs(&self, owner: &str, now: i64, until: i64) -> Result<Vec<String>>;

    /// Settles the idempotency claims whose request died (lease ran out, no answer): a
    /// claim that wrote nothing is released; one whose write committed answers
    /// [`outcome_lost_body`] from now on.
    fn sweep_claims(&self, now: i64) -> Result<ClaimsSwept>;

    /// Gives up at once every lease `owner` holds (a graceful shutdown), so the next
    /// process takes over without waiting for them to run out.
    fn release_leases(&self, owner: &str) -> Result<()>;
}

impl LeaseStore for Store {
    fn renew_leases(&self, owner: &str, held: &Held, until: i64) -> Result<()> {
        if held.runs.is_empty() && held.jobs.is_empty() && held.claims.is_empty() {
            return Ok(());
        }
        self.write(|tx| {
            let mut run = tx.prepare_cached(&format!(
                "UPDATE eval_runs SET lease_until = ?3 WHERE id = ?1 AND owner = ?2 AND status IN {ACTIVE}"
            ))?;
            for id in &held.runs {
                run.execute(params![id, owner, until])?;
            }
            let mut job = tx.prepare_cached(
                "UPDATE authoring_jobs SET lease_until = ?3 WHERE id = ?1 AND owner = ?2 AND status = 'pending'",
            )?;
            for id in &held.jobs {
                job.execute(params![id, owner, until])?;
            }
            let mut claim = tx.prepare_cached(
                "UPDATE idempotency_keys SET lease_until = ?5
                 WHERE org_id = ?1 AND user_id = ?2 AND key = ?3 AND owner = ?4 AND status IS NULL",
            )?;
            for (org, user, key) in &held.claims {
                claim.execute(params![org, user, key, owner, until])?;
            }
            Ok(())
        })
    }

    fn claim_orphan_runs(&self, owner: &str, now: i64, until: i64) -> Result<Vec<String>> {
        self.write(|tx| {
            let ids: Vec<String> = tx
                .prepare_cached(&format!(
                    "SELECT id FROM eval_runs WHERE status IN {ACTIVE} AND source != 'sdk'
                     AND COALESCE(lease_until, 0) < ?1 ORDER BY created_at"
                ))?
                .query_map([now], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            for id in &ids {
                tx.execute(
                    "UPDATE eval_runs SET owner = ?2, lease_until = ?3, heartbeat_at = ?4 WHERE id = ?1",
                    params![id, owner, until, now],
                )?;
                tx.execute(
                    "UPDATE eval_iterations SET status = 'pending' WHERE run_id = ?1 AND status = 'running'",
                    [id],
                )?;
            }
            Ok(ids)
        })
    }

    fn claim_orphan_jobs(&self, owner: &str, now: i64, until: i64) -> Result<Vec<String>> {
        self.write(|tx| {
            let ids: Vec<String> = tx
                .prepare_cached(
                    "SELECT id FROM authoring_jobs WHERE status = 'pending'
                     AND COALESCE(lease_until, 0) < ?1 ORDER BY created_at",
                )?
                .query_map([now], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            for id in &ids {
                tx.execute(
                    "UPDATE authoring_jobs SET owner = ?2, lease_until = ?3 WHERE id = ?1",
                    params![id, owner, until],
                )?;
            }
            Ok(ids)
        })
    }

    fn sweep_claims(&self, now: i64) -> Result<ClaimsSwept> {
        self.write(|tx| {
            let released = tx.execute(
                "DELETE FROM idempotency_keys WHERE status IS NULL AND lease_until < ?1 AND committed = 0",
                [now],
            )?;
            let resolved = tx.execute(
                "UPDATE idempotency_keys SET status = ?2, body = ?3
                 WHERE status IS NULL AND lease_until < ?1 AND committed != 0",
                params![now, OUTCOME_LOST_STATUS, outcome_lost_body()],
            )?;
            Ok(ClaimsSwept { released, resolved })
        })
    }

    fn release_leases(&self, owner: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                &format!(
                    "UPDATE eval_runs SET lease_until = 0 WHERE owner = ?1 AND status IN {ACTIVE}"
                ),
                [owner],
            )?;
            tx.execute(
                "UPDATE authoring_jobs SET lease_until = 0 WHERE owner = ?1 AND status = 'pending'",
                [owner],
            )?;
            tx.execute(
                "UPDATE idempotency_keys SET lease_until = 0 WHERE owner = ?1 AND status IS NULL",
                [owner],
            )?;
            Ok(())
        })
    }
}
