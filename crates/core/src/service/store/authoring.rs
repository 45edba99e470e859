//! Authoring jobs, their drafts and the credit ledger. Every state change is one
//! transaction and conditional on the state it leaves (`WHERE status = 'pending'`), so a
//! job that two runners race to finish is finished (and charged) once.

use super::prelude::*;
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::{Store, from_json, new_id, now_ms, to_json};
use crate::service::authoring::dedupe;
use crate::service::authoring::ground::DiscoveredTool;
use crate::spec::authoring::{AuthoringDraft, DraftState, LedgerEntry};
use crate::spec::case::EvalCase;
use crate::spec::import::{
    DuplicatePolicy, EvalCaseImportRequest, EvalCaseImported, ImportCounts, ImportWarning,
    JobStatus, SkippedDraft, skip_code,
};
use crate::spec::{Code, Error, Result};

/// A job as stored.
#[derive(Debug, Clone)]
pub struct JobRow {
    pub id: String,
    pub org_id: String,
    pub project_id: String,
    pub suite_id: String,
    pub status: JobStatus,
    pub error: Option<String>,
    pub request: EvalCaseImportRequest,
    pub fingerprint: String,
    pub idempotency_key: Option<String>,
    pub tools: Vec<DiscoveredTool>,
    /// The author's settings at creation (so a resumed job authors the same way).
    pub author: serde_json::Value,
    pub generation_model: Option<String>,
    pub counts: ImportCounts,
    pub tokens_in: i64,
    pub tokens_out: i64,
    pub credits_charged: i64,
    /// The job is committed by its runner only when authoring finishes by then.
    pub commit_deadline: i64,
    pub result: Option<EvalCaseImported>,
    pub committed_at: Option<i64>,
    pub created_at: i64,
}

/// What a new job is made of.
pub struct NewJob<'a> {
    pub id: &'a str,
    pub org_id: &'a str,
    pub project_id: &'a str,
    pub suite_id: &'a str,
    pub user_id: &'a str,
    pub request: &'a EvalCaseImportRequest,
    pub fingerprint: &'a str,
    pub idempotency_key: Option<&'a str>,
    pub tools: &'a [DiscoveredTool],
    pub author: &'a serde_json::Value,
    pub commit_deadline: i64,
    /// The process that runs it, and when its first lease runs out.
    pub owner: &'a str,
    pub lease_until: i64,
}

/// How finishing authoring went.
#[derive(Debug, Clone, PartialEq)]
pub enum Completion {
    Completed,
    /// Not enough credits: the job failed and nothing was charged.
    Insufficient {
        needed: i64,
        balance: i64,
    },
    /// The job had already left `pending` (cancelled, or finished by another runner).
    NotPending,
}

const JOB_COLS: &str = "id, org_id, project_id, suite_id, status, error, request, fingerprint, idempotency_key, tools, author,
    generation_model, normal, negative, tokens_in, tokens_out, credits_charged, commit_deadline, result, committed_at, created_at";

/// A job with its JSON columns still text: request, tools, author, result.
type RawJob = (JobRow, String, String, String, Option<String>);

fn job_from_row(r: &Row) -> rusqlite::Result<RawJob> {
    let status: String = r.get(4)?;
    Ok((
        JobRow {
            id: r.get(0)?,
            org_id: r.get(1)?,
            project_id: r.get(2)?,
            suite_id: r.get(3)?,
            status: JobStatus::parse(&status).unwrap_or(JobStatus::Failed),
            error: r.get(5)?,
            request: EvalCaseImportRequest::new(""),
            fingerprint: r.get(7)?,
            idempotency_key: r.get(8)?,
            tools: Vec::new(),
            author: serde_json::Value::Null,
            generation_model: r.get(11)?,
            counts: ImportCounts {
                normal: r.get::<_, i64>(12)? as u64,
                negative: r.get::<_, i64>(13)? as u64,
            },
            tokens_in: r.get(14)?,
            tokens_out: r.get(15)?,
            credits_charged: r.get(16)?,
            commit_deadline: r.get(17)?,
            result: None,
            committed_at: r.get(19)?,
            created_at: r.get(20)?,
        },
        r.get(6)?,
        r.get(9)?,
        r.get(10)?,
        r.get(18)?,
    ))
}

fn finish_row((mut job, request, tools, author, result): RawJob) -> Result<JobRow> {
    job.request = from_json(&request)?;
    job.tools = from_json(&tools)?;
    job.author = from_json(&author)?;
    job.result = result.as_deref().map(from_json).transpose()?;
    Ok(job)
}

fn job_in(c: &rusqlite::Connection, id: &str) -> Result<Option<JobRow>> {
    let row = c
        .prepare_cached(&format!(
            "SELECT {JOB_COLS} FROM authoring_jobs WHERE id = ?1"
        ))?
        .query_row([id], job_from_row)
        .optional()?;
    row.map(finish_row).transpose()
}

fn draft_from_row(r: &Row) -> rusqlite::Result<(AuthoringDraft, String)> {
    let state: String = r.get(5)?;
    Ok((
        AuthoringDraft {
            id: r.get(0)?,
            job_id: r.get(1)?,
            position: r.get(2)?,
            title: r.get(3)?,
            state: DraftState::parse(&state).unwrap_or(DraftState::Draft),
            case: EvalCase::new("", "", Vec::new()),
            skip_code: r.get(6)?,
            skip_reason: r.get(7)?,
            duplicate_of: r.get(8)?,
            case_id: r.get(9)?,
        },
        r.get(4)?,
    ))
}

const DRAFT_COLS: &str =
    "id, job_id, position, title, body, state, skip_code, skip_reason, duplicate_of, case_id";

fn drafts_in(c: &rusqlite::Connection, job_id: &str) -> Result<Vec<AuthoringDraft>> {
    let rows = c
        .prepare_cached(&format!(
            "SELECT {DRAFT_COLS} FROM authoring_drafts WHERE job_id = ?1 ORDER BY position"
        ))?
        .query_map([job_id], draft_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(mut d, body)| {
            d.case = from_json(&body)?;
            Ok(d)
        })
        .collect()
}

/// Debits `amount` with a ledger entry; `Ok(false)` (and nothing written) when the balance
/// is short.
fn spend(tx: &Transaction, org_id: &str, amount: i64, job_id: &str, note: &str) -> Result<bool> {
    if amount <= 0 {
        return Ok(true);
    }
    let n = tx.execute(
        "UPDATE organizations SET credits = credits - ?2, updated_at = ?3 WHERE id = ?1 AND credits >= ?2",
        params![org_id, amount, now_ms()],
    )?;
    if n == 0 {
        return Ok(false);
    }
    let balance: i64 = tx.query_row(
        "SELECT credits FROM organizations WHERE id = ?1",
        [org_id],
        |r| r.get(0),
    )?;
    tx.execute(
        "INSERT INTO credit_ledger (id, org_id, delta, balance, kind, job_id, note, created_at)
         VALUES (?1, ?2, ?3, ?4, 'authoring', ?5, ?6, ?7)",
        params![
            new_id("led"),
            org_id,
            -amount,
            balance,
            job_id,
            note,
            now_ms()
        ],
    )?;
    Ok(true)
}

/// The authoring aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait AuthoringStore {
    /// Records a new pending job; `Ok(false)` when its idempotency key is taken already.
    fn insert_job(&self, j: &NewJob) -> Result<bool>;

    fn job(&self, id: &str) -> Result<JobRow>;

    /// The job `user_id` of `org_id` started with idempotency key `key` (keys are scoped
    /// to the principal).
    fn job_by_key(&self, org_id: &str, user_id: &str, key: &str) -> Result<Option<JobRow>>;

    /// Ids of the jobs still `pending`, oldest first.
    fn pending_jobs(&self) -> Result<Vec<String>>;

    /// Stores the drafts, charges `cost` and marks the job completed, in one transaction.
    fn complete_job(
        &self,
        id: &str,
        drafts: &[EvalCase],
        generation_model: &str,
        tokens: (i64, i64),
        cost: i64,
    ) -> Result<Completion>;

    /// Marks a pending job failed; `false` when it was no longer pending.
    fn fail_job(&self, id: &str, error: &str, generation_model: Option<&str>) -> Result<bool>;

    /// Cancels a pending job, or a completed one that was never committed (its drafts are
    /// discarded). Committed and failed jobs cannot be cancelled.
    fn cancel_job(&self, id: &str) -> Result<JobRow>;

    /// Every authoring job of a suite, newest first.
    fn jobs_of_suite(&self, suite_id: &str) -> Result<Vec<JobRow>>;

    fn drafts(&self, job_id: &str) -> Result<Vec<AuthoringDraft>>;

    /// Writes the job's drafts into its suite in one transaction, applying the duplicate
    /// policy against the suite's cases; skipped drafts stay on the job.
    fn commit_job(
        &self,
        id: &str,
        policy: DuplicatePolicy,
        review_url: &dyn Fn(&[String]) -> String,
    ) -> Result<EvalCaseImported>;

    /// Writes one skipped draft (as edited) into the suite. Costs nothing.
    fn finish_draft(&self, job_id: &str, draft_id: &str, case: &EvalCase) -> Result<EvalCase>;

    /// Stores an edited draft (still a draft: nothing is written into the suite).
    fn save_draft(&self, job_id: &str, draft_id: &str, case: &EvalCase) -> Result<AuthoringDraft>;

    /// Adds credits to an organization with a ledger entry; returns the new balance.
    fn grant_credits(&self, org_id: &str, amount: i64, note: Option<&str>) -> Result<i64>;

    /// The ledger of an organization, newest first.
    fn ledger(&self, org_id: &str, limit: usize) -> Result<Vec<LedgerEntry>>;
}

impl AuthoringStore for Store {
    fn insert_job(&self, j: &NewJob) -> Result<bool> {
        let now = now_ms();
        self.write(|tx| {
            let r = tx.execute(
                "INSERT INTO authoring_jobs (id, org_id, project_id, suite_id, user_id, status, request, fingerprint,
                   idempotency_key, tools, author, commit_deadline, created_at, updated_at, owner, lease_until)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13, ?14)",
                params![
                    j.id, j.org_id, j.project_id, j.suite_id, j.user_id, to_json(j.request), j.fingerprint,
                    j.idempotency_key, to_json(&j.tools), to_json(j.author), j.commit_deadline, now,
                    j.owner, j.lease_until
                ],
            );
            match r {
                Ok(_) => Ok(true),
                Err(e) if super::is_unique_violation(&e) => Ok(false),
                Err(e) => Err(e.into()),
            }
        })
    }

    fn job(&self, id: &str) -> Result<JobRow> {
        self.read(|c| job_in(c, id))?
            .ok_or_else(|| Error::not_found("authoring job", id))
    }

    fn job_by_key(&self, org_id: &str, user_id: &str, key: &str) -> Result<Option<JobRow>> {
        let id: Option<String> = self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT id FROM authoring_jobs WHERE org_id = ?1 AND user_id = ?2 AND idempotency_key = ?3",
            )?
            .query_row(params![org_id, user_id, key], |r| r.get(0))
            .optional()?)
        })?;
        id.map(|id| self.job(&id)).transpose()
    }

    fn pending_jobs(&self) -> Result<Vec<String>> {
        self.read(|c| {
            let mut st = c.prepare(
                "SELECT id FROM authoring_jobs WHERE status = 'pending' ORDER BY created_at",
            )?;
            let rows = st.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    fn complete_job(
        &self,
        id: &str,
        drafts: &[EvalCase],
        generation_model: &str,
        tokens: (i64, i64),
        cost: i64,
    ) -> Result<Completion> {
        let now = now_ms();
        self.write(|tx| {
            let job = job_in(tx, id)?.ok_or_else(|| Error::not_found("authoring job", id))?;
            if job.status != JobStatus::Pending {
                return Ok(Completion::NotPending);
            }
            let note = format!("authoring {} draft(s), {} token(s)", drafts.len(), tokens.0 + tokens.1);
            if !spend(tx, &job.org_id, cost, id, &note)? {
                let balance: i64 = tx.query_row("SELECT credits FROM organizations WHERE id = ?1", [&job.org_id], |r| r.get(0))?;
                tx.execute(
                    "UPDATE authoring_jobs SET status = 'failed', error = ?2, generation_model = ?3, tokens_in = ?4, tokens_out = ?5,
                       updated_at = ?6, finished_at = ?6 WHERE id = ?1",
                    params![id, format!("INSUFFICIENT_CREDITS: authoring {} draft(s) costs {cost} credit(s); the organization has {balance}", drafts.len()),
                        generation_model, tokens.0, tokens.1, now],
                )?;
                return Ok(Completion::Insufficient { needed: cost, balance });
            }
            let mut st = tx.prepare_cached(
                "INSERT INTO authoring_drafts (id, job_id, position, title, body, state, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 'draft', ?6)",
            )?;
            for (i, d) in drafts.iter().enumerate() {
                st.execute(params![d.id, id, i as i64, d.title, to_json(d), now])?;
            }
            let counts = ImportCounts::of(drafts);
            tx.execute(
                "UPDATE authoring_jobs SET status = 'completed', generation_model = ?2, normal = ?3, negative = ?4,
                   tokens_in = ?5, tokens_out = ?6, credits_charged = ?7, updated_at = ?8, finished_at = ?8 WHERE id = ?1",
                params![id, generation_model, counts.normal as i64, counts.negative as i64, tokens.0, tokens.1, cost, now],
            )?;
            Ok(Completion::Completed)
        })
    }

    fn fail_job(&self, id: &str, error: &str, generation_model: Option<&str>) -> Result<bool> {
        let now = now_ms();
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE authoring_jobs SET status = 'failed', error = ?2, generation_model = COALESCE(?3, generation_model),
                   updated_at = ?4, finished_at = ?4 WHERE id = ?1 AND status = 'pending'",
                params![id, error, generation_model, now],
            )? > 0)
        })
    }

    fn cancel_job(&self, id: &str) -> Result<JobRow> {
        let now = now_ms();
        self.write(|tx| {
            let job = job_in(tx, id)?.ok_or_else(|| Error::not_found("authoring job", id))?;
            match job.status {
                JobStatus::Cancelled => {}
                JobStatus::Pending => {
                    tx.execute(
                        "UPDATE authoring_jobs SET status = 'cancelled', updated_at = ?2, finished_at = ?2 WHERE id = ?1",
                        params![id, now],
                    )?;
                }
                JobStatus::Completed if job.committed_at.is_none() => {
                    tx.execute("UPDATE authoring_jobs SET status = 'cancelled', updated_at = ?2 WHERE id = ?1", params![id, now])?;
                    tx.execute(
                        "UPDATE authoring_drafts SET state = 'discarded', updated_at = ?2 WHERE job_id = ?1 AND state = 'draft'",
                        params![id, now],
                    )?;
                }
                JobStatus::Completed => {
                    return Err(Error::conflict("the job is committed; delete its cases instead")
                        .with_reason("JOB_COMMITTED"));
                }
                JobStatus::Failed => {
                    return Err(Error::conflict("the job failed; there is nothing to cancel")
                        .with_reason("JOB_FAILED"));
                }
            }
            Ok(job_in(tx, id)?.expect("the job exists"))
        })
    }

    fn jobs_of_suite(&self, suite_id: &str) -> Result<Vec<JobRow>> {
        self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {JOB_COLS} FROM authoring_jobs WHERE suite_id = ?1 ORDER BY created_at DESC, id DESC"
            ))?;
            let rows = st.query_map([suite_id], job_from_row)?;
            let mut out = Vec::new();
            for r in rows {
                out.push(finish_row(r?)?);
            }
            Ok(out)
        })
    }

    fn drafts(&self, job_id: &str) -> Result<Vec<AuthoringDraft>> {
        self.read(|c| drafts_in(c, job_id))
    }

    fn commit_job(
        &self,
        id: &str,
        policy: DuplicatePolicy,
        review_url: &dyn Fn(&[String]) -> String,
    ) -> Result<EvalCaseImported> {
        let now = now_ms();
        self.write(|tx| {
            let job = job_in(tx, id)?.ok_or_else(|| Error::not_found("authoring job", id))?;
            if let Some(r) = job.result {
                return Ok(r);
            }
            match job.status {
                JobStatus::Completed => {}
                JobStatus::Pending => {
                    return Err(Error::conflict("the job is still authoring; poll it until it completes")
                        .with_reason("JOB_PENDING"));
                }
                other => {
                    return Err(Error::conflict(format!("a {} job cannot be committed", other.as_str()))
                        .with_reason("JOB_NOT_COMMITTABLE"));
                }
            }
            let mut existing: std::collections::HashMap<String, String> = std::collections::HashMap::new();
            {
                let mut st = tx.prepare_cached("SELECT id, body FROM eval_cases WHERE suite_id = ?1 ORDER BY position")?;
                let rows = st.query_map([&job.suite_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
                for row in rows {
                    let (cid, body) = row?;
                    if let Ok(c) = serde_json::from_str::<EvalCase>(&body) {
                        existing.entry(dedupe::fingerprint(&c)).or_insert(cid);
                    }
                }
            }
            let drafts: Vec<AuthoringDraft> = drafts_in(tx, id)?.into_iter().filter(|d| d.state == DraftState::Draft).collect();
            let mut created: Vec<EvalCase> = Vec::new();
            let mut skipped: Vec<SkippedDraft> = Vec::new();
            let mut warnings: Vec<ImportWarning> = Vec::new();
            let mut upd = tx.prepare_cached(
                "UPDATE authoring_drafts SET state = ?2, skip_code = ?3, skip_reason = ?4, duplicate_of = ?5, case_id = ?6, updated_at = ?7 WHERE id = ?1",
            )?;
            for d in drafts {
                let mut case = d.case.clone();
                case.id = new_id("case");
                case.normalize();
                let span = case.source.as_ref().map(|s| (s.start_line, s.end_line));
                let skip = |code: &str, reason: String, dup: Option<String>| SkippedDraft {
                    draft_id: d.id.clone(),
                    title: d.title.clone(),
                    reason,
                    code: code.into(),
                    duplicate_of: dup,
                    start_line: span.map(|s| s.0),
                    end_line: span.map(|s| s.1),
                };
                if let Err(e) = case.check() {
                    let detail: Vec<String> = e.violations().iter().map(|v| format!("{} {}", v.path, v.message)).collect();
                    let reason = format!("the draft is not a valid case: {}", if detail.is_empty() { e.message.clone() } else { detail.join("; ") });
                    upd.execute(params![d.id, "skipped", skip_code::INVALID, reason, None::<String>, None::<String>, now])?;
                    skipped.push(skip(skip_code::INVALID, reason, None));
                    continue;
                }
                let fp = dedupe::fingerprint(&case);
                if let Some(dup) = existing.get(&fp).cloned() {
                    match policy {
                        DuplicatePolicy::Block => {
                            let reason = format!("duplicates case `{dup}` of the suite (same prompts, or the same tool call); duplicatePolicy is block");
                            upd.execute(params![d.id, "skipped", skip_code::DUPLICATE, reason, dup, None::<String>, now])?;
                            skipped.push(skip(skip_code::DUPLICATE, reason, Some(dup)));
                            continue;
                        }
                        DuplicatePolicy::Warn => warnings.push(ImportWarning {
                            case_id: case.id.clone(),
                            code: skip_code::DUPLICATE.into(),
                            message: format!("created although it duplicates case `{dup}`"),
                            duplicate_of: Some(dup),
                        }),
                        DuplicatePolicy::CreateAnyway => {}
                    }
                } else {
                    existing.insert(fp, case.id.clone());
                }
                upd.execute(params![d.id, "created", None::<String>, None::<String>, None::<String>, case.id, now])?;
                created.push(case);
            }
            drop(upd);
            super::suites::insert_cases(tx, &job.suite_id, &created, now)?;
            for c in &mut created {
                c.created_at = Some(now);
                c.updated_at = Some(now);
            }
            let review = (!skipped.is_empty()).then(|| {
                let ids: Vec<String> = skipped.iter().map(|s| s.draft_id.clone()).collect();
                review_url(&ids)
            });
            let result = EvalCaseImported {
                generation_model: job.generation_model.clone().unwrap_or_default(),
                counts: ImportCounts::of(&created),
                created,
                skipped,
                review_url: review,
                job_id: Some(job.id.clone()),
                warnings,
            };
            tx.execute(
                "UPDATE authoring_jobs SET result = ?2, committed_at = ?3, updated_at = ?3 WHERE id = ?1",
                params![id, to_json(&result), now],
            )?;
            Ok(result)
        })
    }

    fn finish_draft(&self, job_id: &str, draft_id: &str, case: &EvalCase) -> Result<EvalCase> {
        let now = now_ms();
        let suite_id = self.write(|tx| {
            let job = job_in(tx, job_id)?.ok_or_else(|| Error::not_found("authoring job", job_id))?;
            let state: Option<String> = tx
                .query_row("SELECT state FROM authoring_drafts WHERE id = ?1 AND job_id = ?2", params![draft_id, job_id], |r| r.get(0))
                .optional()?;
            match state.as_deref() {
                None => return Err(Error::not_found("draft", draft_id)),
                Some("skipped") => {}
                Some(other) => {
                    return Err(Error::new(Code::Conflict, format!("only skipped drafts are finished here; this one is {other}"))
                        .with_reason("DRAFT_NOT_SKIPPED"));
                }
            }
            super::suites::insert_cases(tx, &job.suite_id, std::slice::from_ref(case), now)?;
            tx.execute(
                "UPDATE authoring_drafts SET state = 'finished', case_id = ?3, body = ?4, updated_at = ?5 WHERE id = ?1 AND job_id = ?2",
                params![draft_id, job_id, case.id, to_json(case), now],
            )?;
            Ok(job.suite_id)
        })?;
        self.case(&suite_id, &case.id)
    }

    fn save_draft(&self, job_id: &str, draft_id: &str, case: &EvalCase) -> Result<AuthoringDraft> {
        let now = now_ms();
        self.write(|tx| {
            let state: Option<String> = tx
                .query_row("SELECT state FROM authoring_drafts WHERE id = ?1 AND job_id = ?2", params![draft_id, job_id], |r| r.get(0))
                .optional()?;
            match state.as_deref() {
                None => return Err(Error::not_found("draft", draft_id)),
                Some("draft" | "skipped") => {}
                Some(other) => {
                    return Err(Error::new(Code::Conflict, format!("this draft is {other}: it is a case of the suite now; edit the case instead"))
                        .with_reason("DRAFT_WRITTEN"));
                }
            }
            tx.execute(
                "UPDATE authoring_drafts SET body = ?3, title = ?4, updated_at = ?5 WHERE id = ?1 AND job_id = ?2",
                params![draft_id, job_id, to_json(case), case.title, now],
            )?;
            drafts_in(tx, job_id)?
                .into_iter()
                .find(|d| d.id == draft_id)
                .ok_or_else(|| Error::not_found("draft", draft_id))
        })
    }

    fn grant_credits(&self, org_id: &str, amount: i64, note: Option<&str>) -> Result<i64> {
        self.write(|tx| {
            let n = tx.execute(
                "UPDATE organizations SET credits = credits + ?2, updated_at = ?3 WHERE id = ?1",
                params![org_id, amount, now_ms()],
            )?;
            if n == 0 {
                return Err(Error::not_found("organization", org_id));
            }
            let balance: i64 = tx.query_row("SELECT credits FROM organizations WHERE id = ?1", [org_id], |r| r.get(0))?;
            tx.execute(
                "INSERT INTO credit_ledger (id, org_id, delta, balance, kind, note, created_at) VALUES (?1, ?2, ?3, ?4, 'grant', ?5, ?6)",
                params![new_id("led"), org_id, amount, balance, note, now_ms()],
            )?;
            Ok(balance)
        })
    }

    fn ledger(&self, org_id: &str, limit: usize) -> Result<Vec<LedgerEntry>> {
        self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT id, delta, balance, kind, job_id, note, created_at FROM credit_ledger WHERE org_id = ?1
                 ORDER BY created_at DESC, id DESC LIMIT ?2",
            )?;
            let rows = st.query_map(params![org_id, limit as i64], |r| {
                Ok(LedgerEntry {
                    id: r.get(0)?,
                    delta: r.get(1)?,
                    balance: r.get(2)?,
                    kind: r.get(3)?,
                    job_id: r.get(4)?,
                    note: r.get(5)?,
                    created_at: r.get(6)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
