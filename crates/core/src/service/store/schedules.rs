//! Suite schedules and their firing log.
//!
//! A firing is claimed by a compare-and-set on `next_run_at` inside one transaction that
//! also writes the `pending` firing row, so two processes on one file (or a restart) can
//! never both launch the same due time: whoever moves `next_run_at` first owns it.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{Store, new_id};
use crate::spec::Result;
use crate::spec::schedule::{FiringOutcome, ScheduleFiring, SuiteSchedule};

/// Firing-log rows kept per suite; older ones are pruned when a new one is written.
pub const KEEP_FIRINGS: i64 = 100;

/// The stored schedule fields a PATCH writes.
#[derive(Debug, Clone)]
pub struct ScheduleWrite<'a> {
    pub suite_id: &'a str,
    pub project_id: &'a str,
    pub org_id: &'a str,
    /// The member whose access the firings use.
    pub user_id: &'a str,
    pub enabled: bool,
    pub interval_minutes: Option<i64>,
    pub environment_id: Option<&'a str>,
    pub next_run_at: Option<i64>,
    pub now: i64,
}

/// A schedule whose time has come, with what a firing needs to launch as its owner.
#[derive(Debug, Clone)]
pub struct DueSchedule {
    pub suite_id: String,
    pub project_id: String,
    pub org_id: String,
    pub user_id: String,
    pub interval_minutes: i64,
    pub environment_id: Option<String>,
    pub next_run_at: i64,
}

const COLS: &str = "suite_id, enabled, interval_minutes, environment_id, next_run_at, last_fired_at, last_run_id, updated_at, user_id";

fn schedule_row(r: &Row) -> rusqlite::Result<SuiteSchedule> {
    Ok(SuiteSchedule {
        suite_id: r.get(0)?,
        enabled: r.get::<_, i64>(1)? != 0,
        interval_minutes: r.get(2)?,
        environment_id: r.get(3)?,
        next_run_at: r.get(4)?,
        last_fired_at: r.get(5)?,
        last_run_id: r.get(6)?,
        updated_at: r.get(7)?,
        updated_by: r.get(8)?,
        recent_firings: Vec::new(),
    })
}

fn firings(c: &Connection, suite_id: &str, limit: usize) -> rusqlite::Result<Vec<ScheduleFiring>> {
    let mut st = c.prepare_cached(
        "SELECT id, due_at, fired_at, outcome, reason, message, run_id FROM eval_schedule_firings
         WHERE suite_id = ?1 ORDER BY fired_at DESC, id DESC LIMIT ?2",
    )?;
    let rows = st.query_map(params![suite_id, limit as i64], |r| {
        Ok(ScheduleFiring {
            id: r.get(0)?,
            due_at: r.get(1)?,
            fired_at: r.get(2)?,
            outcome: FiringOutcome::parse(&r.get::<_, String>(3)?),
            reason: r.get(4)?,
            message: r.get(5)?,
            run_id: r.get(6)?,
        })
    })?;
    rows.collect()
}

/// The schedules aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait ScheduleStore {
    /// A suite's schedule with its `recent` latest firings; `None` when never set.
    fn schedule(&self, suite_id: &str, recent: usize) -> Result<Option<SuiteSchedule>>;

    /// Creates or replaces a suite's schedule settings; the firing history is kept.
    fn put_schedule(&self, w: &ScheduleWrite<'_>) -> Result<()>;

    /// Enabled schedules due at `now`, most overdue first.
    fn due_schedules(&self, now: i64) -> Result<Vec<DueSchedule>>;

    /// Claims the firing due at `due.next_run_at`: moves `next_run_at` to `next` only if it
    /// still holds that value (and the schedule is still enabled), and writes the `pending`
    /// firing row, in one transaction. `None` when another claimant (or a PATCH) was first.
    fn claim_firing(&self, due: &DueSchedule, next: i64, now: i64) -> Result<Option<String>>;

    /// Records how a claimed firing ended; a launch also becomes the schedule's last run.
    fn finish_firing(
        &self,
        suite_id: &str,
        firing_id: &str,
        outcome: FiringOutcome,
        reason: Option<&str>,
        message: Option<&str>,
        run_id: Option<&str>,
    ) -> Result<()>;

    /// Firings a dead process claimed but never finished become `skipped` (`INTERRUPTED`):
    /// at most once means such a firing is not retried.
    fn interrupt_pending_firings(&self) -> Result<usize>;
}

impl ScheduleStore for Store {
    fn schedule(&self, suite_id: &str, recent: usize) -> Result<Option<SuiteSchedule>> {
        self.read(|c| {
            let s = c
                .prepare_cached(&format!(
                    "SELECT {COLS} FROM eval_schedules WHERE suite_id = ?1"
                ))?
                .query_row([suite_id], schedule_row)
                .optional()?;
            Ok(match s {
                Some(mut s) => {
                    s.recent_firings = firings(c, suite_id, recent)?;
                    Some(s)
                }
                None => None,
            })
        })
    }

    fn put_schedule(&self, w: &ScheduleWrite<'_>) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO eval_schedules (suite_id, project_id, org_id, user_id, enabled, interval_minutes, environment_id, next_run_at, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
                 ON CONFLICT (suite_id) DO UPDATE SET user_id = excluded.user_id, enabled = excluded.enabled,
                   interval_minutes = excluded.interval_minutes, environment_id = excluded.environment_id,
                   next_run_at = excluded.next_run_at, updated_at = excluded.updated_at",
                params![w.suite_id, w.project_id, w.org_id, w.user_id, w.enabled, w.interval_minutes, w.environment_id, w.next_run_at, w.now],
            )?;
            Ok(())
        })
    }

    fn due_schedules(&self, now: i64) -> Result<Vec<DueSchedule>> {
        self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT suite_id, project_id, org_id, user_id, interval_minutes, environment_id, next_run_at
                 FROM eval_schedules WHERE enabled = 1 AND next_run_at <= ?1 AND interval_minutes IS NOT NULL
                 ORDER BY next_run_at, suite_id",
            )?;
            let rows = st.query_map([now], |r| {
                Ok(DueSchedule {
                    suite_id: r.get(0)?,
                    project_id: r.get(1)?,
                    org_id: r.get(2)?,
                    user_id: r.get(3)?,
                    interval_minutes: r.get(4)?,
                    environment_id: r.get(5)?,
                    next_run_at: r.get(6)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn claim_firing(&self, due: &DueSchedule, next: i64, now: i64) -> Result<Option<String>> {
        self.write(|tx| {
            let n = tx.execute(
                "UPDATE eval_schedules SET next_run_at = ?3, last_fired_at = ?4
                 WHERE suite_id = ?1 AND enabled = 1 AND next_run_at = ?2",
                params![due.suite_id, due.next_run_at, next, now],
            )?;
            if n == 0 {
                return Ok(None);
            }
            let id = new_id("fir");
            tx.execute(
                "INSERT INTO eval_schedule_firings (id, suite_id, due_at, fired_at, outcome) VALUES (?1, ?2, ?3, ?4, 'pending')",
                params![id, due.suite_id, due.next_run_at, now],
            )?;
            tx.execute(
                "DELETE FROM eval_schedule_firings WHERE suite_id = ?1 AND id NOT IN
                   (SELECT id FROM eval_schedule_firings WHERE suite_id = ?1 ORDER BY fired_at DESC, id DESC LIMIT ?2)",
                params![due.suite_id, KEEP_FIRINGS],
            )?;
            Ok(Some(id))
        })
    }

    fn finish_firing(
        &self,
        suite_id: &str,
        firing_id: &str,
        outcome: FiringOutcome,
        reason: Option<&str>,
        message: Option<&str>,
        run_id: Option<&str>,
    ) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE eval_schedule_firings SET outcome = ?2, reason = ?3, message = ?4, run_id = ?5 WHERE id = ?1",
                params![firing_id, outcome.as_str(), reason, message, run_id],
            )?;
            if let Some(run) = run_id {
                tx.execute(
                    "UPDATE eval_schedules SET last_run_id = ?2 WHERE suite_id = ?1",
                    params![suite_id, run],
                )?;
            }
            Ok(())
        })
    }

    fn interrupt_pending_firings(&self) -> Result<usize> {
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE eval_schedule_firings SET outcome = 'skipped', reason = 'INTERRUPTED',
                   message = 'the process stopped between claiming the firing and launching its run'
                 WHERE outcome = 'pending'",
                [],
            )?)
        })
    }
}
