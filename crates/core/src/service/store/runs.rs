//! Eval runs and their iterations. A run row holds its immutable launch snapshot (`body`),
//! its status and counters, and who runs it (`owner` + `heartbeat_at`) so a restart can
//! tell an abandoned run from one another process is still running. Launch is one
//! transaction: the concurrency cap, the environment revision pin and the inserts.

use rusqlite::{OptionalExtension, Row, params};
use serde_json::Value;

use super::{Keyset, Store, from_json, now_ms, to_json};
use crate::spec::page::{Page, PageRequest};
use crate::spec::{Error, Result};

/// Statuses that hold a concurrency slot (ingested runs, `source = 'sdk'`, never do: no
/// runner drives them, and the cap does not apply to ingestion).
pub const ACTIVE: &str = "('pending', 'running')";

/// What a runner learns when it looks at its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunSignal {
    Continue,
    Cancel,
    /// Another process owns the run now.
    Lost,
}

/// A run row.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub id: String,
    pub suite_id: String,
    pub project_id: String,
    pub org_id: Option<String>,
    pub run_number: i64,
    pub status: String,
    pub result: Option<String>,
    pub passed: i64,
    pub failed: i64,
    pub total: i64,
    pub source: String,
    pub body: Value,
    pub created_at: i64,
    pub completed_at: Option<i64>,
    pub environment: Option<Value>,
    pub error: Option<String>,
    pub owner: Option<String>,
    pub heartbeat_at: Option<i64>,
    pub cancel_requested: bool,
    /// When the owner's lease runs out (epoch ms); see `service::leases`.
    pub lease_until: Option<i64>,
}

/// An iteration row.
#[derive(Debug, Clone)]
pub struct StoredIteration {
    pub id: String,
    pub run_id: String,
    pub seq: i64,
    pub case_id: String,
    pub status: String,
    pub result: Option<String>,
    pub body: Value,
    pub transcript: Option<Value>,
    pub grade: Option<Value>,
}

/// Which runs a list holds (each has its index: `eval_runs_suite`, `eval_runs_project`).
#[derive(Clone, Copy)]
enum Scope {
    Suite,
    Project,
}

/// What launch writes.
pub struct NewRun<'a> {
    pub id: &'a str,
    pub suite_id: &'a str,
    pub project_id: &'a str,
    pub org_id: &'a str,
    pub source: &'a str,
    pub body: &'a Value,
    pub environment: Option<&'a Value>,
    pub owner: &'a str,
    /// When the owner's first lease runs out (epoch ms).
    pub lease_until: i64,
    /// `(limit, retry_after_secs)`: refuse when the organization has this many active runs.
    pub cap: (usize, u64),
    /// `(environment id, revision)` the launch resolved; another current revision is 409.
    pub pin: Option<(&'a str, i64)>,
}

const RUN_COLS: &str = "id, suite_id, project_id, org_id, run_number, status, result, passed, failed, total, source, body, created_at, completed_at, environment, error, owner, heartbeat_at, cancel_requested, lease_until";
const IT_COLS: &str = "id, run_id, seq, case_id, status, result, body, transcript, grade";

fn run_row(r: &Row) -> rusqlite::Result<(StoredRun, String, Option<String>)> {
    Ok((
        StoredRun {
            id: r.get(0)?,
            suite_id: r.get(1)?,
            project_id: r.get(2)?,
            org_id: r.get(3)?,
            run_number: r.get(4)?,
            status: r.get(5)?,
            result: r.get(6)?,
            passed: r.get(7)?,
            failed: r.get(8)?,
            total: r.get(9)?,
            source: r.get(10)?,
            body: Value::Null,
            created_at: r.get(12)?,
            completed_at: r.get(13)?,
            environment: None,
            error: r.get(15)?,
            owner: r.get(16)?,
            heartbeat_at: r.get(17)?,
            cancel_requested: r.get::<_, i64>(18)? != 0,
            lease_until: r.get(19)?,
        },
        r.get(11)?,
        r.get(14)?,
    ))
}

fn finish_run((mut run, body, env): (StoredRun, String, Option<String>)) -> Result<StoredRun> {
    run.body = from_json(&body)?;
    run.environment = env.map(|e| from_json(&e)).transpose()?;
    Ok(run)
}

type ItRow = (StoredIteration, String, Option<String>, Option<String>);

fn it_row(r: &Row) -> rusqlite::Result<ItRow> {
    Ok((
        StoredIteration {
            id: r.get(0)?,
            run_id: r.get(1)?,
            seq: r.get(2)?,
            case_id: r.get(3)?,
            status: r.get(4)?,
            result: r.get(5)?,
            body: Value::Null,
            transcript: None,
            grade: None,
        },
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
    ))
}

fn finish_it((mut it, body, tr, grade): ItRow) -> Result<StoredIteration> {
    it.body = from_json(&body)?;
    it.transcript = tr.map(|t| from_json(&t)).transpose()?;
    it.grade = grade.map(|g| from_json(&g)).transpose()?;
    Ok(it)
}

/// The runs aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait RunStore {
    /// The organization's runs in progress that evaldeck drives (ingested ones aside).
    fn active_runs(&self, org_id: &str) -> Result<i64>;

    /// Inserts a run and its pending iterations `(id, case_id, body)` in one transaction,
    /// after the concurrency cap and the environment pin.
    fn insert_run(&self, new: &NewRun<'_>, iterations: &[(String, String, Value)]) -> Result<i64>;

    fn run(&self, project_id: Option<&str>, run_id: &str) -> Result<StoredRun>;

    /// A suite's runs, newest first (keyset over `created_at DESC, id DESC`).
    fn suite_runs(&self, suite_id: &str, page: &PageRequest) -> Result<Page<StoredRun>>;

    /// A project's runs, every suite and source, newest first.
    fn project_runs(&self, project_id: &str, page: &PageRequest) -> Result<Page<StoredRun>>;

    /// A run's iterations in plan order (keyset over `seq`), without transcripts' weight
    /// mattering: they are read but callers may drop them.
    fn iterations(&self, run_id: &str, page: &PageRequest) -> Result<Page<StoredIteration>>;

    /// Every iteration of a run with transcripts and grades, in plan order.
    fn all_iterations(&self, run_id: &str) -> Result<Vec<StoredIteration>>;

    fn iteration(&self, run_id: &str, id: &str) -> Result<StoredIteration>;

    /// Records a finished (or cancelled) iteration and refreshes the run's counters and
    /// heartbeat in one transaction, with the credits it spent (`debit`: organization, cost,
    /// ledger note), so a restart never charges an iteration twice. With `owner`, only while
    /// that process still owns the run: `Ok(false)` (nothing written) once another took it
    /// over.
    fn save_iteration(
        &self,
        run_id: &str,
        it: &StoredIteration,
        owner: Option<&str>,
        debit: Option<(&str, i64, &str)>,
    ) -> Result<bool>;

    /// Sets a run's status (and `error`), and on a terminal status its result, body and
    /// completion time.
    fn set_run_state(
        &self,
        run_id: &str,
        status: &str,
        result: Option<&str>,
        error: Option<&str>,
        body: Option<&Value>,
    ) -> Result<()>;

    fn set_run_body(&self, run_id: &str, body: &Value) -> Result<()>;

    /// What the runner of `run_id` in process `owner` should do next: go on, stop for a
    /// cancel, or stop because another process took the run over (its lease ran out).
    fn run_signal(&self, run_id: &str, owner: &str) -> Result<RunSignal>;

    fn request_cancel(&self, run_id: &str) -> Result<()>;
}

impl RunStore for Store {
    fn active_runs(&self, org_id: &str) -> Result<i64> {
        self.read(|c| {
            Ok(c.query_row(
                &format!(
                    "SELECT COUNT(*) FROM eval_runs WHERE org_id = ?1 AND status IN {ACTIVE} AND source != 'sdk'"
                ),
                [org_id],
                |r| r.get::<_, i64>(0),
            )?)
        })
    }

    fn insert_run(&self, new: &NewRun<'_>, iterations: &[(String, String, Value)]) -> Result<i64> {
        let now = now_ms();
        self.write(|tx| {
            let active: i64 = tx.query_row(
                &format!("SELECT COUNT(*) FROM eval_runs WHERE org_id = ?1 AND status IN {ACTIVE} AND source != 'sdk'"),
                [new.org_id],
                |r| r.get(0),
            )?;
            if active as usize >= new.cap.0 {
                return Err(Error::rate_limited(new.cap.1, Some("CONCURRENT_RUN_LIMIT")).with_message(format!(
                    "the organization already has {active} eval run(s) in progress (the limit is {}); retry when one finishes",
                    new.cap.0
                )));
            }
            if let Some((env, rev)) = new.pin {
                let current: Option<(i64, Option<i64>)> = tx
                    .query_row(
                        "SELECT revision, archived_at FROM environments WHERE id = ?1",
                        [env],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                match current {
                    Some((r, None)) if r == rev => {}
                    Some((r, _)) => {
                        return Err(Error::conflict(format!(
                            "the environment changed since the run was resolved (revision {rev}, now {r}); launch again"
                        ))
                        .with_details(serde_json::json!({"environmentId": env, "expectedRevision": rev, "revision": r})));
                    }
                    None => return Err(Error::conflict("the environment no longer exists")),
                }
            }
            let number: i64 = tx.query_row(
                "SELECT COALESCE(MAX(run_number), 0) + 1 FROM eval_runs WHERE suite_id = ?1",
                [new.suite_id],
                |r| r.get(0),
            )?;
            tx.execute(
                "INSERT INTO eval_runs (id, suite_id, project_id, org_id, run_number, status, total, source, body, created_at, environment, owner, heartbeat_at, lease_until)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?7, ?8, ?9, ?10, ?11, ?9, ?12)",
                params![
                    new.id, new.suite_id, new.project_id, new.org_id, number, iterations.len() as i64,
                    new.source, to_json(new.body), now, new.environment.map(to_json), new.owner, new.lease_until
                ],
            )?;
            let mut st = tx.prepare_cached(
                "INSERT INTO eval_iterations (id, run_id, seq, case_id, status, body) VALUES (?1, ?2, ?3, ?4, 'pending', ?5)",
            )?;
            for (i, (id, case_id, body)) in iterations.iter().enumerate() {
                st.execute(params![id, new.id, i as i64, case_id, to_json(body)])?;
            }
            Ok(number)
        })
    }

    fn run(&self, project_id: Option<&str>, run_id: &str) -> Result<StoredRun> {
        let row = self.read(|c| {
            Ok(c.prepare_cached(&format!(
                "SELECT {RUN_COLS} FROM eval_runs WHERE id = ?1 AND (?2 IS NULL OR project_id = ?2)"
            ))?
            .query_row(params![run_id, project_id], run_row)
            .optional()?)
        })?;
        finish_run(row.ok_or_else(|| Error::not_found("eval run", run_id))?)
    }

    fn suite_runs(&self, suite_id: &str, page: &PageRequest) -> Result<Page<StoredRun>> {
        self.runs_by(Scope::Suite, suite_id, page)
    }

    fn project_runs(&self, project_id: &str, page: &PageRequest) -> Result<Page<StoredRun>> {
        self.runs_by(Scope::Project, project_id, page)
    }

    fn iterations(&self, run_id: &str, page: &PageRequest) -> Result<Page<StoredIteration>> {
        let ks = Keyset::new(page)?;
        let rows = self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT id, run_id, seq, case_id, status, result, body, NULL, NULL FROM eval_iterations
                 WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            )?;
            let rows = st
                .query_map(params![run_id, ks.after_ts.max(-1), ks.fetch()], it_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        let rows = rows
            .into_iter()
            .map(finish_it)
            .collect::<Result<Vec<_>>>()?;
        Ok(ks.page(rows, |r| (r.seq, r.id.clone())))
    }

    fn all_iterations(&self, run_id: &str) -> Result<Vec<StoredIteration>> {
        let rows = self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {IT_COLS} FROM eval_iterations WHERE run_id = ?1 ORDER BY seq"
            ))?;
            let rows = st
                .query_map([run_id], it_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        rows.into_iter().map(finish_it).collect()
    }

    fn iteration(&self, run_id: &str, id: &str) -> Result<StoredIteration> {
        let row = self.read(|c| {
            Ok(c.prepare_cached(&format!(
                "SELECT {IT_COLS} FROM eval_iterations WHERE run_id = ?1 AND id = ?2"
            ))?
            .query_row(params![run_id, id], it_row)
            .optional()?)
        })?;
        finish_it(row.ok_or_else(|| Error::not_found("iteration", id))?)
    }

    fn save_iteration(
        &self,
        run_id: &str,
        it: &StoredIteration,
        owner: Option<&str>,
        debit: Option<(&str, i64, &str)>,
    ) -> Result<bool> {
        let now = now_ms();
        self.write(|tx| {
            if let Some(owner) = owner {
                let current: Option<String> = tx
                    .query_row("SELECT owner FROM eval_runs WHERE id = ?1", [run_id], |r| r.get(0))
                    .optional()?
                    .flatten();
                if current.as_deref() != Some(owner) {
                    return Ok(false);
                }
            }
            tx.execute(
                "UPDATE eval_iterations SET status = ?3, result = ?4, body = ?5, transcript = ?6, grade = ?7 WHERE run_id = ?1 AND id = ?2",
                params![
                    run_id, it.id, it.status, it.result, to_json(&it.body),
                    it.transcript.as_ref().map(to_json), it.grade.as_ref().map(to_json)
                ],
            )?;
            tx.execute(
                "UPDATE eval_runs SET
                   passed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'passed'),
                   failed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'failed'),
                   heartbeat_at = ?2
                 WHERE id = ?1",
                params![run_id, now],
            )?;
            if let Some((org, cost, note)) = debit {
                super::credits::debit_in(tx, org, cost, "run", Some(run_id), note)?;
            }
            Ok(true)
        })
    }

    fn set_run_state(
        &self,
        run_id: &str,
        status: &str,
        result: Option<&str>,
        error: Option<&str>,
        body: Option<&Value>,
    ) -> Result<()> {
        let terminal = matches!(status, "completed" | "failed" | "cancelled");
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "UPDATE eval_runs SET status = ?2, result = ?3, error = COALESCE(?4, error),
                   body = COALESCE(?5, body), completed_at = CASE WHEN ?6 THEN ?7 ELSE completed_at END,
                   heartbeat_at = ?7,
                   passed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'passed'),
                   failed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'failed')
                 WHERE id = ?1",
                params![run_id, status, result, error, body.map(to_json), terminal, now],
            )?;
            if terminal {
                tx.execute(
                    "UPDATE eval_iterations SET status = 'cancelled' WHERE run_id = ?1 AND status IN ('pending', 'running')",
                    [run_id],
                )?;
            }
            Ok(())
        })
    }

    fn set_run_body(&self, run_id: &str, body: &Value) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE eval_runs SET body = ?2 WHERE id = ?1",
                params![run_id, to_json(body)],
            )?;
            Ok(())
        })
    }

    fn run_signal(&self, run_id: &str, owner: &str) -> Result<RunSignal> {
        let row: Option<(Option<String>, i64)> = self.read(|c| {
            Ok(
                c.prepare_cached("SELECT owner, cancel_requested FROM eval_runs WHERE id = ?1")?
                    .query_row([run_id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()?,
            )
        })?;
        Ok(match row {
            Some((o, _)) if o.as_deref() != Some(owner) => RunSignal::Lost,
            Some((_, c)) if c != 0 => RunSignal::Cancel,
            Some(_) => RunSignal::Continue,
            None => RunSignal::Lost,
        })
    }

    fn request_cancel(&self, run_id: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE eval_runs SET cancel_requested = 1 WHERE id = ?1",
                [run_id],
            )?;
            Ok(())
        })
    }
}

impl Store {
    fn runs_by(&self, scope: Scope, id: &str, page: &PageRequest) -> Result<Page<StoredRun>> {
        let ks = Keyset::new(page)?;
        let first = page.cursor.is_none();
        let column = match scope {
            Scope::Suite => "suite_id",
            Scope::Project => "project_id",
        };
        let rows = self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {RUN_COLS} FROM eval_runs WHERE {column} = ?1
                 AND (?2 OR (created_at, id) < (?3, ?4))
                 ORDER BY created_at DESC, id DESC LIMIT ?5"
            ))?;
            let rows = st
                .query_map(
                    params![id, first, ks.after_ts, ks.after_id, ks.fetch()],
                    run_row,
                )?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        let rows = rows
            .into_iter()
            .map(finish_run)
            .collect::<Result<Vec<_>>>()?;
        Ok(ks.page(rows, |r| (r.created_at, r.id.clone())))
    }
}

trait WithMessage {
    fn with_message(self, m: String) -> Self;
}

impl WithMessage for Error {
    fn with_message(mut self, m: String) -> Self {
        self.message = m;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::prelude::*;
    use super::*;
    use crate::spec::Code;

    /// Rule 7: the launch resolved an environment revision; if another write moved it before
    /// the run is inserted, the insert is refused in the same transaction and nothing is
    /// written.
    #[test]
    fn a_pin_to_a_revision_that_moved_is_a_conflict_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let local = store.ensure_seeded("evaldeck").unwrap();
        let project = store.default_project(&local.org_id).unwrap().unwrap();
        let env = &store
            .environments(&project, &Default::default())
            .unwrap()
            .items[0];
        let suite = &store
            .suite_summaries(&project, &PageRequest::default())
            .unwrap()
            .items[0];
        let body = serde_json::json!({});
        let insert = |id: &str, rev: i64| {
            store.insert_run(
                &NewRun {
                    id,
                    suite_id: &suite.id,
                    project_id: &project,
                    org_id: &local.org_id,
                    source: "api",
                    body: &body,
                    environment: None,
                    owner: "test",
                    lease_until: i64::MAX,
                    cap: (10, 1),
                    pin: Some((&env.id, rev)),
                },
                &[("it_1".into(), "case_1".into(), serde_json::json!({}))],
            )
        };
        let stale = insert("run_stale", env.revision + 1).unwrap_err();
        assert_eq!(stale.code, Code::Conflict);
        assert_eq!(
            stale.details.as_ref().unwrap()["revision"],
            serde_json::json!(env.revision)
        );
        assert_eq!(
            store.run(None, "run_stale").unwrap_err().code,
            Code::NotFound
        );
        assert_eq!(insert("run_ok", env.revision).unwrap(), 1);
    }
}
