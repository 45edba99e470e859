//! Authoring eval cases from a document (`cases/import`): discovery, authoring jobs,
//! grounding, provenance, the commit with its duplicate policy, idempotency and credits.
//!
//! The flow: the request is validated; tools are discovered over live MCP connections
//! (the request's `servers`, the environment's closed server set, or the suite's saved
//! servers), so a connection failure is the request's 502/504/401; a `pending` job is
//! stored with the request and the discovered tools and run on a tokio task owned by the
//! service; the request waits up to [`AuthoringConfig::wait`]. A job that finishes
//! authoring inside its window is committed by its runner, and the request answers 200
//! with `EvalCaseImported`; still authoring → 202 with the job body; failed or cancelled
//! → 200 with the job body. A job finishing after its window stops at `completed`,
//! uncommitted, until `POST …/authoring-jobs/{job}/commit`.
//!
//! Decisions where the spec is silent (also in the README):
//! - **Job paths** (extensions, all under `/projects/{projectId}/authoring-jobs/{jobId}`):
//!   `GET` polls (the recorded `EvalCaseImported` once committed, else the job body, 200);
//!   `POST …/commit` commits a completed job (body `{duplicatePolicy?, overrideReason?}`
//!   overrides the request's policy; committing again returns the recorded result);
//!   `POST …/cancel` cancels a pending job, or discards a completed, uncommitted one;
//!   `GET …/drafts[?state=skipped]` lists drafts; `POST …/drafts/{draftId}/finish` writes
//!   one skipped draft, with an optional edit (the case edit body), at no cost.
//! - **Duplicate**: see [`dedupe`] (same prompts modulo case and spacing, or for a
//!   render-check the same tool call). Skipped entries carry `{draftId, title, reason,
//!   code}` (`DUPLICATE` or `INVALID_DRAFT`) plus `duplicateOf` and the line span.
//! - **`reviewUrl`**: `{publicUrl}/review/{projectId}/{jobId}?drafts={id},{id}` when the
//!   service has a public URL (`serve --public-url`), else
//!   `evaldeck://review/{projectId}/{jobId}?drafts=…`; `evaldeck open URL` opens the
//!   workbench on exactly those drafts.
//! - **Credits**: charged once, when authoring completes, in the transaction that stores
//!   the drafts: `creditsPerDraft` per draft plus, for the model author,
//!   `creditsPer1kTokens` per started thousand tokens (defaults 1 and 1). A request is
//!   refused up front with 403 `FORBIDDEN`, `details.reason` `INSUFFICIENT_CREDITS`
//!   (and `details.balance`, `details.required`) when the balance cannot pay for one
//!   draft; a job whose final cost exceeds the balance fails with an error starting
//!   `INSUFFICIENT_CREDITS` and charges nothing. Replays, commits and finishing drafts
//!   are free. A cancelled pending job is not charged.
//! - **Idempotency**: the key is the first of the headers `x-evaldeck-idempotency-key`,
//!   `x-service-idempotency-key`, `Idempotency-Key`, else the body's `idempotencyKey`;
//!   keys are unique per organization. "The same request" is the same project, suite and
//!   body apart from the key (SHA-256 of its canonical JSON). A different request under a
//!   used key is 409 `CONFLICT` with `details.reason` `IDEMPOTENCY_KEY_REUSED` and
//!   `details.jobId`. A replay waits like the original (until the job's own window ends)
//!   and answers with the job's state then.
//! - **Restart**: a job belongs to the process running it through a lease
//!   ([`crate::service::leases`]); a pending job whose lease ran out (its process died or
//!   stopped) is taken over by the next sweep of any process on the store and resumed (its
//!   request and discovered tools are stored; completion is conditional, so it is charged
//!   once), or, with `resume_jobs` off, marked `failed` with an error. A resumed job's
//!   window has passed, so it stops at `completed` until committed.
//! - **Keys** are scoped to the principal (organization and member), and the caller's
//!   access to the project is checked before a key is looked up: a replay never answers
//!   someone who may not make the request.
//! - **Authors**: the built-in extractor (`generationModel` `evaldeck-extract/1`) unless a
//!   model is configured ([`AuthorConfig::from_env`]). Model-authored cases are at best
//!   `approximated`: a model's reading is an interpretation.
//! - Defaults: `fileName` `document`; `caseModels` the suite's default model (and
//!   provider); `source.format` `markdown` and `method` `ai` (the only values the spec
//!   has) for every shape.

pub mod catalog;
pub mod dedupe;
pub mod draft;
pub mod extract;
pub mod fields;
pub mod glossary;
pub mod ground;
pub mod lexicon;
pub mod lines;
pub mod model;
pub mod reading;
pub mod unit;
pub mod yaml_values;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use model::AuthorConfig;

use super::store::authoring::{Completion, JobRow, NewJob};
use super::store::projects::ProjectRole;
use super::store::{new_id, now_ms};
use super::{Principal, Service};
use crate::spec::authoring::{
    AuthoringDraft, CommitRequest, Credits, DraftQuery, EarlierImport, EarlierImportQuery,
};
use crate::spec::case::{CaseModel, EvalCase, EvalCaseUpdate, sha256_hex};
use crate::spec::import::{
    EvalAuthoringJobAccepted, EvalCaseImportRequest, EvalCaseImported, ImportResponse, JobStatus,
    MAX_IDEMPOTENCY_KEY,
};
use crate::spec::page::Page;
use crate::spec::primitives::ListRequest;
use crate::spec::{Error, Result};
use ground::{CaseContext, DiscoveredTool, build_case};
use lines::LineIndex;

/// Settings of authoring (all in [`super::Config`]).
#[derive(Debug, Clone)]
pub struct AuthoringConfig {
    /// How long an import request waits for its job before answering 202.
    pub wait: Duration,
    pub author: AuthorConfig,
    pub credits_per_draft: i64,
    pub credits_per_1k_tokens: i64,
    /// Largest chunk of the document sent to a model at once, in bytes.
    pub chunk_chars: usize,
    /// Upper bound on one model request.
    pub model_timeout: Duration,
    /// Origin of links handed out (`reviewUrl`); `evaldeck://` links without one.
    pub public_url: Option<String>,
    /// Resume jobs left pending by a stopped process (else mark them failed).
    pub resume_jobs: bool,
}

impl Default for AuthoringConfig {
    fn default() -> Self {
        AuthoringConfig {
            wait: Duration::from_secs(10),
            author: AuthorConfig::from_env(),
            credits_per_draft: 1,
            credits_per_1k_tokens: 1,
            chunk_chars: 24_000,
            model_timeout: Duration::from_secs(120),
            public_url: None,
            resume_jobs: true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    Committing,
    Settled,
}

struct Handle {
    phase: watch::Sender<Phase>,
    cancel: CancellationToken,
}

/// The jobs this process is running.
#[derive(Default)]
pub struct Jobs {
    running: Mutex<HashMap<String, Handle>>,
}

impl Jobs {
    fn register(&self, id: &str) -> Option<(watch::Sender<Phase>, CancellationToken)> {
        let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if m.contains_key(id) {
            return None;
        }
        let (tx, _) = watch::channel(Phase::Running);
        let cancel = CancellationToken::new();
        m.insert(
            id.to_string(),
            Handle {
                phase: tx.clone(),
                cancel: cancel.clone(),
            },
        );
        Some((tx, cancel))
    }

    fn watch(&self, id: &str) -> Option<watch::Receiver<Phase>> {
        let m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        m.get(id).map(|h| h.phase.subscribe())
    }

    fn cancel(&self, id: &str) {
        let m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(h) = m.get(id) {
            h.cancel.cancel();
        }
    }

    fn remove(&self, id: &str) {
        let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        m.remove(id);
    }

    /// The jobs this process runs now.
    pub(crate) fn ids(&self) -> Vec<String> {
        let m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        m.keys().cloned().collect()
    }

    /// Stops every runner without touching the store (shutdown: the jobs stay `pending`
    /// and are resumed by the next process).
    pub fn stop_all(&self) {
        let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        for (_, h) in m.drain() {
            h.cancel.cancel();
            h.phase.send_replace(Phase::Settled);
        }
    }
}

/// The job's answer now: the recorded result once committed, else the job body.
pub fn job_response(job: &JobRow) -> ImportResponse {
    if let Some(r) = &job.result {
        return ImportResponse::Imported(r.clone());
    }
    let mut body = EvalAuthoringJobAccepted::new(job.id.clone(), job.status);
    body.generation_model = job.generation_model.clone();
    if job.status == JobStatus::Failed {
        body.error = Some(job.error.clone().unwrap_or_else(|| "the job failed".into()));
    }
    if job.status != JobStatus::Pending {
        body.counts = Some(job.counts);
    }
    ImportResponse::Job(body)
}

/// Turns drafts into persisted-shape cases (ids `drf_…`), grounded in `tools`.
fn build_cases(
    drafts: &[draft::Draft],
    ix: &LineIndex,
    file_name: &str,
    version: &str,
    models: &[CaseModel],
    tools: &[DiscoveredTool],
) -> Vec<EvalCase> {
    let file_hash = sha256_hex(ix.text());
    let ctx = CaseContext {
        file_name,
        file_hash: &file_hash,
        ix,
        extractor_version: version,
        models,
        tools,
    };
    drafts
        .iter()
        .map(|d| build_case(d, &new_id("drf"), &ctx))
        .collect()
}

/// The built-in author's whole pipeline on one document, without a live server: the
/// document is segmented, read against `tools` (the discovered catalog) and every draft
/// is grounded and built into the case a job would store (before its commit).
pub fn author_builtin(
    content: &str,
    file_name: &str,
    tools: &[DiscoveredTool],
    models: &[CaseModel],
) -> Vec<EvalCase> {
    let ix = LineIndex::new(content);
    let drafts = extract::extract(content, tools);
    build_cases(
        &drafts,
        &ix,
        file_name,
        extract::EXTRACTOR_VERSION,
        models,
        tools,
    )
}

/// The first idempotency key among the headers the API accepts (the caller passes them
/// in order of precedence) or the body's.
pub fn idempotency_key<'a>(headers: &[Option<&'a str>], body: Option<&'a str>) -> Option<&'a str> {
    headers.iter().flatten().next().copied().or(body)
}

impl Service {
    fn review_url(&self, project_id: &str, job_id: &str, drafts: &[String]) -> String {
        let base = match &self.config().authoring.public_url {
            Some(u) => u.trim_end_matches('/').to_string(),
            None => "evaldeck:/".into(),
        };
        format!(
            "{base}/review/{project_id}/{job_id}?drafts={}",
            drafts.join(",")
        )
    }

    /// `POST /projects/{p}/eval-suites/{s}/cases/import`. `header_key` is the idempotency
    /// key from a header, which wins over the body's.
    pub async fn import_cases(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        req: &EvalCaseImportRequest,
        header_key: Option<&str>,
    ) -> Result<ImportResponse> {
        // Access first: a caller without it learns nothing about their body.
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        req.validate()?;
        if let Some(k) = header_key
            && (k.is_empty() || k.chars().count() > MAX_IDEMPOTENCY_KEY)
        {
            return Err(Error::invalid(
                "/idempotencyKey",
                if k.is_empty() {
                    "minLength"
                } else {
                    "maxLength"
                },
                format!("the idempotency key header must be 1 to {MAX_IDEMPOTENCY_KEY} characters"),
            ));
        }
        let suite = self.store().suite(project_id, suite)?;
        let key = header_key.or(req.idempotency_key.as_deref());
        let mut canonical = req.clone();
        canonical.idempotency_key = None;
        let fingerprint = sha256_hex(
            &serde_json::to_string(&json!({
                "projectId": project_id, "suiteId": suite.id, "request": canonical,
            }))
            .expect("serializes"),
        );
        if let Some(k) = key
            && let Some(job) = self.store().job_by_key(&who.org_id, &who.user_id, k)?
        {
            return self.replay(job, &fingerprint).await;
        }
        let cfg = &self.config().authoring;
        self.require_credits(&who.org_id, cfg.credits_per_draft, "authoring (per draft)")?;
        let targets: Vec<(String, String)> = if let Some(ids) = &req.servers {
            self.resolve_servers(project_id, "/servers", ids)?
                .into_iter()
                .map(|s| (s.id.clone(), s.name.unwrap_or(s.id)))
                .collect()
        } else if let Some(env) = &req.environment_id {
            self.resolve_environment(who, project_id, env)?
                .servers
                .into_iter()
                .map(|s| (s.server_id, s.name))
                .collect()
        } else {
            let mut v = Vec::new();
            for id in &suite.server_ids {
                let s = self.store().server(project_id, id)?;
                v.push((s.id, s.name));
            }
            v
        };
        if targets.is_empty() {
            return Err(Error::invalid(
                "/servers",
                "required",
                "the suite has no saved servers: name `servers` or an `environmentId`",
            )
            .with_reason("NO_SAVED_SERVER_SELECTION"));
        }
        let tools = self.discover(who, project_id, &targets).await?;
        let job_id = new_id("job");
        let models: Vec<CaseModel> = req.case_models.clone().unwrap_or_else(|| {
            vec![CaseModel::new(
                suite.settings.model.clone(),
                suite.settings.provider.clone(),
            )]
        });
        let author = json!({"author": cfg.author, "models": models});
        let inserted = self.store().insert_job(&NewJob {
            id: &job_id,
            org_id: &who.org_id,
            project_id,
            suite_id: &suite.id,
            user_id: &who.user_id,
            request: req,
            fingerprint: &fingerprint,
            idempotency_key: key,
            tools: &tools,
            author: &author,
            commit_deadline: now_ms() + cfg.wait.as_millis() as i64,
            owner: self.worker_id(),
            lease_until: self.config().leases.until(),
        })?;
        if !inserted {
            // A concurrent request with the same key won the race: replay its job.
            let k = key.expect("only a keyed insert can collide");
            let job = self
                .store()
                .job_by_key(&who.org_id, &who.user_id, k)?
                .ok_or_else(|| Error::internal("the idempotency key vanished"))?;
            return self.replay(job, &fingerprint).await;
        }
        self.spawn_job(&job_id);
        let job = self.settle(&job_id).await?;
        Ok(job_response(&job))
    }

    async fn replay(&self, job: JobRow, fingerprint: &str) -> Result<ImportResponse> {
        if job.fingerprint != fingerprint {
            return Err(Error::conflict(
                "this idempotency key was used for a different import request; use a new key",
            )
            .with_details(json!({"reason": "IDEMPOTENCY_KEY_REUSED", "jobId": job.id})));
        }
        let job = self.settle(&job.id).await?;
        Ok(job_response(&job))
    }

    /// Tools of every target server, over live MCP connections.
    async fn discover(
        &self,
        who: &Principal,
        project_id: &str,
        targets: &[(String, String)],
    ) -> Result<Vec<DiscoveredTool>> {
        let mut out = Vec::new();
        for (id, name) in targets {
            let mut cursor = None;
            for _ in 0..self.config().pool.max_pages.max(1) {
                let page = self
                    .tools(who, project_id, id, &ListRequest { cursor })
                    .await?;
                out.extend(page.items.into_iter().map(|tool| DiscoveredTool {
                    server_id: id.clone(),
                    server_name: name.clone(),
                    tool,
                }));
                match page.next_cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
        }
        Ok(out)
    }

    /// Waits until the job settles or its window closes, then reads it.
    async fn settle(&self, job_id: &str) -> Result<JobRow> {
        let job = self.store().job(job_id)?;
        if let Some(mut rx) = self.jobs().watch(job_id) {
            let left = (job.commit_deadline - now_ms()).max(0) as u64;
            let until = tokio::time::Instant::now() + Duration::from_millis(left);
            loop {
                let phase = *rx.borrow_and_update();
                let wait = match phase {
                    Phase::Settled => break,
                    // A commit in flight is waited for, whatever the window says.
                    Phase::Committing => tokio::time::Instant::now() + Duration::from_secs(30),
                    Phase::Running => until,
                };
                match tokio::time::timeout_at(wait, rx.changed()).await {
                    Ok(Ok(())) => continue,
                    _ => break,
                }
            }
        }
        self.store().job(job_id)
    }

    /// Starts the runner of a pending job on the current runtime.
    fn spawn_job(&self, job_id: &str) {
        let Some((phase, cancel)) = self.jobs().register(job_id) else {
            return;
        };
        let svc = self.clone();
        let id = job_id.to_string();
        tokio::spawn(async move {
            let run = svc.run_job(&id, &phase);
            tokio::select! {
                _ = cancel.cancelled() => {}
                r = run => {
                    if let Err(e) = r {
                        tracing::warn!(job = %id, error = %e, "authoring job failed");
                        let _ = svc.store().fail_job(&id, &e.message, None);
                    }
                }
            }
            phase.send_replace(Phase::Settled);
            svc.jobs().remove(&id);
        });
    }

    async fn run_job(&self, id: &str, phase: &watch::Sender<Phase>) -> Result<()> {
        let job = self.store().job(id)?;
        let cfg = &self.config().authoring;
        let stored_author: AuthorConfig =
            serde_json::from_value(job.author.get("author").cloned().unwrap_or(Value::Null))
                .unwrap_or_default();
        // The key is never stored with the job: take it from today's settings.
        let author = match (&stored_author, &cfg.author) {
            (AuthorConfig::Builtin, _) => AuthorConfig::Builtin,
            (s, c)
                if s.model() == c.model()
                    && std::mem::discriminant(s) == std::mem::discriminant(c) =>
            {
                c.clone()
            }
            (s, _) => s.clone(),
        };
        let models: Vec<CaseModel> =
            serde_json::from_value(job.author.get("models").cloned().unwrap_or(Value::Null))
                .unwrap_or_default();
        let content = job.request.content.clone();
        let ix = LineIndex::new(&content);
        let (drafts, generation_model, tokens_in, tokens_out, version) = match &author {
            AuthorConfig::Builtin => (
                extract::extract(&content, &job.tools),
                extract::GENERATION_MODEL.to_string(),
                0,
                0,
                extract::EXTRACTOR_VERSION.to_string(),
            ),
            m => {
                let a = model::author(
                    self.http(),
                    m,
                    &ix,
                    job.request.file_name(),
                    &job.tools,
                    cfg.chunk_chars,
                    cfg.model_timeout,
                )
                .await;
                let name = m.model().unwrap_or_default().to_string();
                let a = match a {
                    Ok(a) => a,
                    Err(e) => {
                        // The failed job still says which model ran.
                        self.store().fail_job(id, &e.message, Some(&name))?;
                        return Err(Error::new(e.code.clone(), e.message));
                    }
                };
                (
                    a.drafts,
                    name.clone(),
                    a.tokens_in,
                    a.tokens_out,
                    format!("evaldeck-model-author/1 ({name})"),
                )
            }
        };
        let cases = build_cases(
            &drafts,
            &ix,
            job.request.file_name(),
            &version,
            &models,
            &job.tools,
        );
        let tokens = tokens_in + tokens_out;
        let cost = cases.len() as i64 * cfg.credits_per_draft
            + if tokens > 0 {
                (tokens + 999) / 1000 * cfg.credits_per_1k_tokens
            } else {
                0
            };
        match self.store().complete_job(
            id,
            &cases,
            &generation_model,
            (tokens_in, tokens_out),
            cost,
        )? {
            Completion::Completed if now_ms() <= job.commit_deadline => {
                phase.send_replace(Phase::Committing);
                let project = job.project_id.clone();
                let url = |drafts: &[String]| self.review_url(&project, id, drafts);
                if let Err(e) = self
                    .store()
                    .commit_job(id, job.request.duplicate_policy, &url)
                {
                    tracing::warn!(job = %id, error = %e, "commit after authoring failed; the job awaits its commit path");
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Takes over the pending jobs no live process holds (see [`crate::service::leases`]):
    /// each is resumed, or marked `failed` with an error when resuming is off.
    pub(crate) fn recover_jobs(&self) -> Result<()> {
        let leases = self.config().leases;
        let orphans = self
            .store()
            .claim_orphan_jobs(self.worker_id(), now_ms(), leases.until())?;
        for id in orphans {
            if self.config().authoring.resume_jobs {
                tracing::info!(job = %id, "resuming an interrupted authoring job");
                self.spawn_job(&id);
            } else {
                self.store().fail_job(
                    &id,
                    "interrupted: the service stopped while the job was authoring; send the import again with a new idempotency key",
                    None,
                )?;
            }
        }
        Ok(())
    }

    fn job_of(&self, who: &Principal, project_id: &str, job_id: &str) -> Result<JobRow> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let job = self.store().job(job_id)?;
        if job.project_id != project_id {
            return Err(Error::not_found("authoring job", job_id));
        }
        Ok(job)
    }

    /// Extension `GET /projects/{p}/authoring-jobs/{job}`.
    pub fn authoring_job(
        &self,
        who: &Principal,
        project_id: &str,
        job_id: &str,
    ) -> Result<ImportResponse> {
        Ok(job_response(&self.job_of(who, project_id, job_id)?))
    }

    /// Extension `POST /projects/{p}/authoring-jobs/{job}/commit`.
    pub fn commit_authoring_job(
        &self,
        who: &Principal,
        project_id: &str,
        job_id: &str,
        body: &CommitRequest,
    ) -> Result<EvalCaseImported> {
        body.validate()?;
        let job = self.job_of(who, project_id, job_id)?;
        let policy = body
            .duplicate_policy
            .unwrap_or(job.request.duplicate_policy);
        let url = |drafts: &[String]| self.review_url(project_id, job_id, drafts);
        self.store().commit_job(job_id, policy, &url)
    }

    /// Extension `POST /projects/{p}/authoring-jobs/{job}/cancel`.
    pub fn cancel_authoring_job(
        &self,
        who: &Principal,
        project_id: &str,
        job_id: &str,
    ) -> Result<EvalAuthoringJobAccepted> {
        self.job_of(who, project_id, job_id)?;
        let job = self.store().cancel_job(job_id)?;
        self.jobs().cancel(job_id);
        match job_response(&job) {
            ImportResponse::Job(j) => Ok(j),
            ImportResponse::Imported(_) => {
                Err(Error::conflict("the job is committed").with_reason("JOB_COMMITTED"))
            }
        }
    }

    /// Extension `GET /projects/{p}/authoring-jobs/{job}/drafts`.
    pub fn authoring_drafts(
        &self,
        who: &Principal,
        project_id: &str,
        job_id: &str,
        q: &DraftQuery,
    ) -> Result<Page<AuthoringDraft>> {
        self.job_of(who, project_id, job_id)?;
        let mut items = self.store().drafts(job_id)?;
        if let Some(s) = q.state {
            items.retain(|d| d.state == s);
        }
        Ok(Page {
            items,
            next_cursor: None,
        })
    }

    /// Extension `POST /projects/{p}/authoring-jobs/{job}/drafts/{draft}/finish`: writes a
    /// skipped draft (with the edit applied) into the suite. Finishing costs nothing and
    /// applies no duplicate policy: a person reviewed it.
    pub fn finish_draft(
        &self,
        who: &Principal,
        project_id: &str,
        job_id: &str,
        draft_id: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        edit.validate()?;
        self.job_of(who, project_id, job_id)?;
        let draft = self
            .store()
            .drafts(job_id)?
            .into_iter()
            .find(|d| d.id == draft_id)
            .ok_or_else(|| Error::not_found("draft", draft_id))?;
        let job = self.store().job(job_id)?;
        let mut case = draft.case;
        if *edit != EvalCaseUpdate::default() {
            edit.clone().apply(&mut case);
            ground::reground_case(&mut case, &job.tools);
        }
        case.id = new_id("case");
        case.normalize();
        case.check()?;
        self.store().finish_draft(job_id, draft_id, &case)
    }

    /// Extension `PATCH /projects/{p}/authoring-jobs/{job}/drafts/{draft}`: saves an edit
    /// of a draft (the review form): the edit is applied, the draft re-grounded against the
    /// job's discovered tools and its claim recomputed ([`ground::reground_case`]). The
    /// draft stays a draft; finishing or committing writes it.
    pub fn save_draft(
        &self,
        who: &Principal,
        project_id: &str,
        job_id: &str,
        draft_id: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<AuthoringDraft> {
        edit.validate()?;
        let job = self.job_of(who, project_id, job_id)?;
        let draft = self
            .store()
            .drafts(job_id)?
            .into_iter()
            .find(|d| d.id == draft_id)
            .ok_or_else(|| Error::not_found("draft", draft_id))?;
        let mut case = draft.case;
        edit.clone().apply(&mut case);
        ground::reground_case(&mut case, &job.tools);
        case.normalize();
        case.check()?;
        self.store().save_draft(job_id, draft_id, &case)
    }

    /// Extension `GET /projects/{p}/eval-suites/{s}/authoring-jobs?fileHash=…`: the suite's
    /// earlier authoring jobs for the same document, newest first. The import itself keeps
    /// the spec's behaviour (it authors and bills again); clients call this first to warn.
    pub fn earlier_imports(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        q: &EarlierImportQuery,
    ) -> Result<Page<EarlierImport>> {
        q.validate()?;
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let suite = self.store().suite(project_id, suite)?;
        let mut items = Vec::new();
        for job in self.store().jobs_of_suite(&suite.id)? {
            if sha256_hex(&job.request.content) != q.file_hash {
                continue;
            }
            let (created, skipped) = job
                .result
                .as_ref()
                .map(|r| (r.created.len(), r.skipped.len()))
                .unwrap_or((0, 0));
            let review_url = match &job.result {
                Some(r) => r.review_url.clone(),
                None if job.status == JobStatus::Completed => {
                    let ids: Vec<String> = self
                        .store()
                        .drafts(&job.id)?
                        .into_iter()
                        .map(|d| d.id)
                        .collect();
                    (!ids.is_empty()).then(|| self.review_url(project_id, &job.id, &ids))
                }
                None => None,
            };
            items.push(EarlierImport {
                job_id: job.id.clone(),
                status: job.status,
                file_name: job.request.file_name.clone(),
                file_hash: q.file_hash.clone(),
                created_at: job.created_at,
                committed: job.result.is_some(),
                created,
                skipped,
                credits_charged: job.credits_charged,
                review_url,
            });
        }
        Ok(Page {
            items,
            next_cursor: None,
        })
    }

    /// Extension `GET /credits`: the caller's organization's balance and ledger.
    pub fn credits(&self, who: &Principal) -> Result<Credits> {
        let org = self.store().org(&who.org_id)?;
        Ok(Credits {
            organization_id: org.id.clone(),
            balance: org.credits,
            ledger: self.store().ledger(&org.id, 200)?,
        })
    }
}
