//! Ingested runs and upload URLs. Ingested runs live in `eval_runs`/`eval_iterations` beside
//! native ones (`source = 'sdk'`, no owner: no runner drives them), keyed for idempotency by
//! `external_run_id` (per project) and `external_id` (per run). The functions taking a
//! transaction are composed by the service so `report` is one transaction.

use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::{Value, json};

use super::runs::StoredIteration;
use super::{Store, from_json, new_id, now_ms, to_json};
use crate::spec::suite::SuiteSettings;
use crate::spec::{Error, Result};

/// The `source` of ingested runs.
pub const SOURCE: &str = "sdk";

/// What `begin` needs to find or create the run.
pub struct NewIngestRun<'a> {
    pub project_id: &'a str,
    pub org_id: &'a str,
    pub suite_name: &'a str,
    pub suite_description: Option<&'a str>,
    pub suite_settings: SuiteSettings,
    pub external_run_id: &'a str,
    /// The run body (the runner's snapshot shape plus the `ingest` object).
    pub body: &'a Value,
}

/// A run found or created by `begin`.
#[derive(Debug, Clone, PartialEq)]
pub struct Begun {
    pub run_id: String,
    pub suite_id: String,
    pub reused: bool,
}

/// One iteration to append.
pub struct NewIngestIteration {
    pub id: String,
    pub case_id: String,
    pub external_id: String,
    pub status: String,
    pub result: Option<String>,
    pub body: Value,
    pub transcript: Option<Value>,
}

/// The run with `external_run_id` in the project, if any: `(run id, suite id)`.
pub fn by_external(
    tx: &Transaction,
    project_id: &str,
    external_run_id: &str,
) -> Result<Option<(String, String)>> {
    Ok(tx
        .query_row(
            "SELECT id, suite_id FROM eval_runs WHERE project_id = ?1 AND external_run_id = ?2",
            params![project_id, external_run_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// The project's suite named `name` (the oldest of that name).
pub fn suite_by_name(tx: &Transaction, project_id: &str, name: &str) -> Result<Option<String>> {
    Ok(tx
        .query_row(
            "SELECT id FROM eval_suites WHERE project_id = ?1 AND name = ?2 ORDER BY created_at, id LIMIT 1",
            params![project_id, name],
            |r| r.get(0),
        )
        .optional()?)
}

/// Finds the run by its external id, or creates it (and its suite, found or created by
/// name) as `running`.
pub fn begin(tx: &Transaction, new: &NewIngestRun<'_>) -> Result<Begun> {
    if let Some((run_id, suite_id)) = by_external(tx, new.project_id, new.external_run_id)? {
        return Ok(Begun {
            run_id,
            suite_id,
            reused: true,
        });
    }
    let now = now_ms();
    let suite_id = match suite_by_name(tx, new.project_id, new.suite_name)? {
        Some(id) => id,
        None => {
            let id = new_id("sut");
            tx.execute(
                "INSERT INTO eval_suites (id, project_id, name, description, settings, server_ids, environment_ids, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, '[]', '[]', ?6, ?6)",
                params![id, new.project_id, new.suite_name, new.suite_description, to_json(&new.suite_settings), now],
            )?;
            id
        }
    };
    let number: i64 = tx.query_row(
        "SELECT COALESCE(MAX(run_number), 0) + 1 FROM eval_runs WHERE suite_id = ?1",
        [&suite_id],
        |r| r.get(0),
    )?;
    let run_id = new_id("run");
    tx.execute(
        "INSERT INTO eval_runs (id, suite_id, project_id, org_id, run_number, status, total, source, body, created_at, heartbeat_at, external_run_id)
         VALUES (?1, ?2, ?3, ?4, ?5, 'running', 0, ?6, ?7, ?8, ?8, ?9)",
        params![run_id, suite_id, new.project_id, new.org_id, number, SOURCE, to_json(new.body), now, new.external_run_id],
    )?;
    Ok(Begun {
        run_id,
        suite_id,
        reused: false,
    })
}

/// Appends iterations in arrival order with dense sequence numbers (`iterationNumber` is
/// `seq + 1`); one whose external id the run already has is skipped. Returns
/// `(inserted, skipped)`. The run must still be `running`.
pub fn append(tx: &Transaction, run_id: &str, items: &[NewIngestIteration]) -> Result<(i64, i64)> {
    let status: String = tx
        .query_row(
            "SELECT status FROM eval_runs WHERE id = ?1",
            [run_id],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| Error::not_found("eval run", run_id))?;
    if status != "running" {
        return Err(Error::conflict(format!(
            "the run is already `{status}`: it accepts no more results"
        ))
        .with_reason("RUN_FINALIZED"));
    }
    let mut seq: i64 = tx.query_row(
        "SELECT COALESCE(MAX(seq), -1) + 1 FROM eval_iterations WHERE run_id = ?1",
        [run_id],
        |r| r.get(0),
    )?;
    let mut st = tx.prepare_cached(
        "INSERT OR IGNORE INTO eval_iterations (id, run_id, seq, case_id, status, result, body, transcript, external_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let (mut inserted, mut skipped) = (0, 0);
    for it in items {
        let mut body = it.body.clone();
        body["iterationNumber"] = json!(seq + 1);
        let n = st.execute(params![
            it.id,
            run_id,
            seq,
            it.case_id,
            it.status,
            it.result,
            to_json(&body),
            it.transcript.as_ref().map(to_json),
            it.external_id
        ])?;
        if n == 1 {
            inserted += 1;
            seq += 1;
        } else {
            skipped += 1;
        }
    }
    tx.execute(
        "UPDATE eval_runs SET
           total = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1),
           passed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'passed'),
           failed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'failed'),
           heartbeat_at = ?2
         WHERE id = ?1",
        params![run_id, now_ms()],
    )?;
    Ok((inserted, skipped))
}

/// Every iteration of a run in order (without transcripts).
pub fn iterations(tx: &Transaction, run_id: &str) -> Result<Vec<StoredIteration>> {
    let mut st = tx.prepare_cached(
        "SELECT id, seq, case_id, status, result, body FROM eval_iterations WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = st
        .query_map([run_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, String>(5)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(id, seq, case_id, status, result, body)| {
            Ok(StoredIteration {
                id,
                run_id: run_id.to_string(),
                seq,
                case_id,
                status,
                result,
                body: from_json(&body)?,
                transcript: None,
                grade: None,
            })
        })
        .collect()
}

/// `(status, body)` of a run, read inside the transaction.
pub fn run_state(tx: &Transaction, run_id: &str) -> Result<(String, Value)> {
    let (status, body): (String, String) = tx
        .query_row(
            "SELECT status, body FROM eval_runs WHERE id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?
        .ok_or_else(|| Error::not_found("eval run", run_id))?;
    Ok((status, from_json(&body)?))
}

/// Ends the run: its status, result and final body.
pub fn finish(
    tx: &Transaction,
    run_id: &str,
    status: &str,
    result: Option<&str>,
    body: &Value,
) -> Result<()> {
    let now = now_ms();
    tx.execute(
        "UPDATE eval_runs SET status = ?2, result = ?3, body = ?4, completed_at = ?5, heartbeat_at = ?5,
           total = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1),
           passed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'passed'),
           failed = (SELECT COUNT(*) FROM eval_iterations WHERE run_id = ?1 AND result = 'failed')
         WHERE id = ?1",
        params![run_id, status, result, to_json(body), now],
    )?;
    Ok(())
}

/// A minted upload URL (the token itself is never stored).
pub struct NewUpload<'a> {
    pub token_hash: &'a str,
    pub org_id: &'a str,
    pub project_id: &'a str,
    pub user_id: &'a str,
    pub org_role: &'a str,
    pub request: &'a Value,
    pub expires_at: i64,
}

/// An upload URL's row.
#[derive(Debug, Clone)]
pub struct StoredUpload {
    pub id: String,
    pub org_id: String,
    pub project_id: String,
    pub user_id: String,
    pub org_role: String,
    pub request: Value,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}

/// What the upload received.
pub struct UploadedArtifact<'a> {
    pub kind: &'a str,
    pub sha256: &'a str,
    pub content: &'a [u8],
    /// The run a report's results went to; none for a widget.
    pub run_id: Option<&'a str>,
}

/// The ingest aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait IngestStore {
    /// Records an upload URL; returns its storage id.
    fn create_upload(&self, new: &NewUpload<'_>) -> Result<String>;

    fn upload_by_hash(&self, token_hash: &str) -> Result<Option<StoredUpload>>;

    /// Runs `f` in one transaction (see [`IngestTx`]); [`ingest_write`] is the typed form.
    fn ingest_tx(&self, f: &mut dyn FnMut(&dyn IngestTx) -> Result<()>) -> Result<()>;
}

/// The steps of an ingestion, composed by the service inside one transaction (so `report`
/// creates the run, appends its results and finalizes it, or does nothing).
pub trait IngestTx {
    /// The run with `external_run_id` in the project, if any: `(run id, suite id)`.
    fn by_external(
        &self,
        project_id: &str,
        external_run_id: &str,
    ) -> Result<Option<(String, String)>>;
    /// The project's suite named `name` (the oldest of that name).
    fn suite_by_name(&self, project_id: &str, name: &str) -> Result<Option<String>>;
    /// Finds the run by its external id, or creates it (and its suite) as `running`.
    fn begin(&self, new: &NewIngestRun<'_>) -> Result<Begun>;
    /// Appends iterations; replays are skipped: `(inserted, skipped)`.
    fn append(&self, run_id: &str, items: &[NewIngestIteration]) -> Result<(i64, i64)>;
    /// The run's iterations in order.
    fn iterations(&self, run_id: &str) -> Result<Vec<StoredIteration>>;
    /// The run's status and body.
    fn run_state(&self, run_id: &str) -> Result<(String, Value)>;
    /// Ends the run: its status, result and final body.
    fn finish(&self, run_id: &str, status: &str, result: Option<&str>, body: &Value) -> Result<()>;
    /// Marks the upload used and keeps what it received; false if it was used already.
    fn consume_upload(&self, id: &str, a: &UploadedArtifact<'_>) -> Result<bool>;
}

impl IngestTx for Transaction<'_> {
    fn by_external(
        &self,
        project_id: &str,
        external_run_id: &str,
    ) -> Result<Option<(String, String)>> {
        by_external(self, project_id, external_run_id)
    }
    fn suite_by_name(&self, project_id: &str, name: &str) -> Result<Option<String>> {
        suite_by_name(self, project_id, name)
    }
    fn begin(&self, new: &NewIngestRun<'_>) -> Result<Begun> {
        begin(self, new)
    }
    fn append(&self, run_id: &str, items: &[NewIngestIteration]) -> Result<(i64, i64)> {
        append(self, run_id, items)
    }
    fn iterations(&self, run_id: &str) -> Result<Vec<StoredIteration>> {
        iterations(self, run_id)
    }
    fn run_state(&self, run_id: &str) -> Result<(String, Value)> {
        run_state(self, run_id)
    }
    fn finish(&self, run_id: &str, status: &str, result: Option<&str>, body: &Value) -> Result<()> {
        finish(self, run_id, status, result, body)
    }
    fn consume_upload(&self, id: &str, a: &UploadedArtifact<'_>) -> Result<bool> {
        consume_upload(self, id, a)
    }
}

/// Runs `f` in one ingestion transaction of `store`: committed when it returns `Ok`.
pub fn ingest_write<T>(
    store: &dyn IngestStore,
    f: impl FnOnce(&dyn IngestTx) -> Result<T>,
) -> Result<T> {
    let mut f = Some(f);
    let mut out = None;
    store.ingest_tx(&mut |tx| {
        let f = f.take().expect("the transaction runs its body once");
        out = Some(f(tx)?);
        Ok(())
    })?;
    Ok(out.expect("the body ran"))
}

impl IngestStore for Store {
    fn ingest_tx(&self, f: &mut dyn FnMut(&dyn IngestTx) -> Result<()>) -> Result<()> {
        self.write(|tx| f(tx))
    }

    fn create_upload(&self, new: &NewUpload<'_>) -> Result<String> {
        let id = new_id("art");
        self.write(|tx| {
            tx.execute(
                "INSERT INTO ingest_uploads (id, token_hash, org_id, project_id, user_id, org_role, request, expires_at, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![id, new.token_hash, new.org_id, new.project_id, new.user_id, new.org_role, to_json(new.request), new.expires_at, now_ms()],
            )?;
            Ok(())
        })?;
        Ok(id)
    }

    fn upload_by_hash(&self, token_hash: &str) -> Result<Option<StoredUpload>> {
        let row = self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT id, org_id, project_id, user_id, org_role, request, expires_at, used_at
                 FROM ingest_uploads WHERE token_hash = ?1",
            )?
            .query_row([token_hash], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, i64>(6)?,
                    r.get::<_, Option<i64>>(7)?,
                ))
            })
            .optional()?)
        })?;
        row.map(
            |(id, org_id, project_id, user_id, org_role, request, expires_at, used_at)| {
                Ok(StoredUpload {
                    id,
                    org_id,
                    project_id,
                    user_id,
                    org_role,
                    request: from_json(&request)?,
                    expires_at,
                    used_at,
                })
            },
        )
        .transpose()
    }
}

/// Marks the upload used and stores what it received; `false` when another request used
/// it first (single use holds even under a race).
pub fn consume_upload(tx: &Transaction, id: &str, a: &UploadedArtifact<'_>) -> Result<bool> {
    let n = tx.execute(
        "UPDATE ingest_uploads SET used_at = ?2, kind = ?3, size = ?4, sha256 = ?5, content = ?6, run_id = ?7
         WHERE id = ?1 AND used_at IS NULL",
        params![id, now_ms(), a.kind, a.content.len() as i64, a.sha256, a.content, a.run_id],
    )?;
    Ok(n == 1)
}
