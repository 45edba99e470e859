//! `/api/v1` over HTTP. Error bodies map back to the same [`Error`]; 429 is retried after
//! `Retry-After` with jitter; nothing else is retried (an unknown code is not retryable).
//! Every exchange has an overall timeout ([`Remote::DEFAULT_TIMEOUT`], configurable).

use async_trait::async_trait;
use rand::Rng;
use reqwest::{Method, StatusCode, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::time::Duration;

use super::Backend;
use crate::spec::case::{EvalCase, EvalCaseUpdate};
use crate::spec::catalog::{
    ChatSession, ChatSessionQuery, Chatbox, ChatboxDetail, Deleted, EvalSuiteSummary, Me, Project,
    ProjectQuery,
};
use crate::spec::environment::{
    Created, Environment, EnvironmentCreate, EnvironmentPatch, EnvironmentQuery,
    EnvironmentResolution, EnvironmentRestored, PluginVersionCreate, RevisionGuard,
    ServerGroupCreate, SkillCreate,
};
use crate::spec::host::{Host, HostCreate, HostPatch, HostSummary};
use crate::spec::page::{Page, PageRequest};
use crate::spec::primitives::{
    CallCancelled, Subscribed, TaskCancelled, TaskList, TrafficPage, TrafficQuery,
};
use crate::spec::primitives::{
    CheckOauthResult, DoctorReport, ExportSnapshot, ImportTokensRequest, ImportTokensResult,
    ListRequest, McpPage, PromptGetRequest, PromptItem, ResourceItem, ResourceReadRequest,
    ResourceTemplateItem, ToolCallRequest, ToolItem, ValidateResult,
};
use crate::spec::run::{EvalIteration, EvalRun, RunCreate, RunCreated};
use crate::spec::server::{Server, ServerCreate, ServerPatch};
use crate::spec::suite::{EvalSuite, SuiteCreate, SuiteCreated, SuitePatch};
use crate::spec::{Code, Error, Result};
use serde_json::Value;

/// How a rate-limited request is retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts after the first; 0 turns retrying off.
    pub retries: u32,
    /// Upper bound on one wait, whatever `Retry-After` says.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 3,
            max_wait: Duration::from_secs(60),
        }
    }
}

const DEFAULT_TIMEOUT: Duration = Remote::DEFAULT_TIMEOUT;
const TIMEOUT_ENV: &str = Remote::TIMEOUT_ENV;

pub struct Remote {
    http: reqwest::Client,
    base: Url,
    key: String,
    retry: RetryPolicy,
    timeout: Duration,
}

/// The timeout `EVALDECK_REQUEST_TIMEOUT` asks for, or the default; a value that is not a
/// positive whole number of seconds is refused rather than ignored.
fn timeout_from_env() -> Result<Duration> {
    match std::env::var(TIMEOUT_ENV) {
        Err(_) => Ok(DEFAULT_TIMEOUT),
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(Duration::from_secs(n)),
            _ => Err(Error::invalid(
                &format!("/{TIMEOUT_ENV}"),
                "range",
                format!("{TIMEOUT_ENV} must be a whole number of seconds above 0 (got `{v}`)"),
            )),
        },
    }
}

fn client(timeout: Duration) -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .user_agent(concat!("evaldeck/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(10).min(timeout))
        .timeout(timeout)
        .build()
        .map_err(|e| Error::internal(format!("cannot build the HTTP client: {e}")))
}

const NO_QUERY: Option<&()> = None;
const NO_BODY: Option<&()> = None;

impl Remote {
    /// The overall limit on one HTTP exchange (connect, send, the server's work, the
    /// answer) unless `EVALDECK_REQUEST_TIMEOUT` (seconds) or [`Remote::with_timeout`] sets
    /// another. Longer than anything the service holds a request open for on purpose — one
    /// MCP request (capped at 600 s however much progress it reports), an agent turn (90 s),
    /// the import's wait window (10 s) — so the server's own `TIMEOUT` answer arrives
    /// first, while a server that stopped answering cannot hang a script forever.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(660);

    /// The environment variable that overrides [`Remote::DEFAULT_TIMEOUT`], in seconds.
    pub const TIMEOUT_ENV: &'static str = "EVALDECK_REQUEST_TIMEOUT";

    /// `base` is the API base ending in `/api/v1` (added if missing).
    pub fn new(base: &str, key: &str) -> Result<Remote> {
        let mut base = Url::parse(base.trim_end_matches('/'))
            .map_err(|e| Error::invalid("/baseUrl", "url", format!("not a URL: {e}")))?;
        if !base.path().ends_with("/api/v1") {
            let p = format!("{}/api/v1", base.path().trim_end_matches('/'));
            base.set_path(&p);
        }
        let timeout = timeout_from_env()?;
        Ok(Remote {
            http: client(timeout)?,
            base,
            key: key.to_string(),
            retry: RetryPolicy::default(),
            timeout,
        })
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets the overall limit on one HTTP exchange (each retry gets its own).
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self> {
        self.http = client(timeout)?;
        self.timeout = timeout;
        Ok(self)
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut u = self.base.clone();
        u.path_segments_mut()
            .expect("an http base")
            .extend(segments);
        u
    }

    /// Sends one request, retrying 429s, and decodes the success body or the error body.
    async fn call<Q: Serialize + ?Sized, B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        method: Method,
        segments: &[&str],
        query: Option<&Q>,
        body: Option<&B>,
    ) -> Result<T> {
        let mut url = self.url(segments);
        if let Some(q) = query {
            let qs = serde_urlencoded::to_string(q)
                .map_err(|e| Error::internal(format!("cannot encode the query: {e}")))?;
            url.set_query((!qs.is_empty()).then_some(qs.as_str()));
        }
        let mut attempt = 0;
        loop {
            let mut req = self
                .http
                .request(method.clone(), url.clone())
                .bearer_auth(&self.key);
            if let Some(b) = body {
                req = req.json(b);
            }
            let res = req.send().await.map_err(|e| self.transport_error(e))?;
            let status = res.status();
            let retry_after = res
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let bytes = res.bytes().await.map_err(|e| {
                if e.is_timeout() {
                    self.transport_error(e)
                } else {
                    Error::new(
                        Code::ServerUnreachable,
                        format!("the response was cut off: {e}"),
                    )
                }
            })?;
            if status.is_success() {
                return serde_json::from_slice(&bytes)
                    .map_err(|e| Error::internal(format!("unexpected response from {url}: {e}")));
            }
            let mut err = serde_json::from_slice::<Error>(&bytes).unwrap_or_else(|_| {
                Error::new(
                    Code::from_status(status.as_u16()),
                    format!(
                        "{status} from {url}: {}",
                        String::from_utf8_lossy(&bytes)
                            .chars()
                            .take(200)
                            .collect::<String>()
                    ),
                )
            });
            if status == StatusCode::TOO_MANY_REQUESTS {
                let secs = retry_after.or(err.retry_after()).unwrap_or(1);
                let mut d = err.details.take().unwrap_or_else(|| serde_json::json!({}));
                d["retryAfterSeconds"] = serde_json::json!(secs);
                err.details = Some(d);
                if attempt < self.retry.retries && err.reason().is_none() {
                    attempt += 1;
                    let jitter = rand::rng().random_range(0..=250u64);
                    let wait = (Duration::from_secs(secs) + Duration::from_millis(jitter))
                        .min(self.retry.max_wait);
                    tracing::info!(?wait, attempt, "rate limited; retrying");
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            return Err(err);
        }
    }

    /// A request that got no (whole) answer: `TIMEOUT` when the overall limit ran out
    /// (never retried: the server may have acted on it), else `SERVER_UNREACHABLE`.
    fn transport_error(&self, e: reqwest::Error) -> Error {
        if e.is_timeout() {
            Error::new(
                Code::Timeout,
                format!(
                    "no answer from {} within {} s ({TIMEOUT_ENV} sets the limit)",
                    self.base,
                    self.timeout.as_secs_f64()
                ),
            )
        } else {
            Error::new(
                Code::ServerUnreachable,
                format!("cannot reach {}: {e}", self.base),
            )
        }
    }

    async fn get<T: DeserializeOwned>(&self, segments: &[&str]) -> Result<T> {
        self.call(Method::GET, segments, NO_QUERY, NO_BODY).await
    }

    async fn get_q<Q: Serialize, T: DeserializeOwned>(
        &self,
        segments: &[&str],
        q: &Q,
    ) -> Result<T> {
        self.call(Method::GET, segments, Some(q), NO_BODY).await
    }

    async fn send<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        segments: &[&str],
        body: &B,
    ) -> Result<T> {
        self.call(method, segments, NO_QUERY, Some(body)).await
    }

    async fn delete<T: DeserializeOwned>(&self, segments: &[&str]) -> Result<T> {
        self.call(Method::DELETE, segments, NO_QUERY, NO_BODY).await
    }
}

#[async_trait]
impl Backend for Remote {
    fn describe(&self) -> String {
        format!("remote: {}", self.base)
    }

    async fn me(&self) -> Result<Me> {
        self.get(&["me"]).await
    }
    async fn projects(&self, q: &ProjectQuery, page: &PageRequest) -> Result<Page<Project>> {
        #[derive(Serialize)]
        struct Q<'a> {
            #[serde(flatten)]
            q: &'a ProjectQuery,
            #[serde(flatten)]
            page: &'a PageRequest,
        }
        self.get_q(&["projects"], &Q { q, page }).await
    }
    async fn eval_suites(
        &self,
        project: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>> {
        self.get_q(&["projects", project, "eval-suites"], page)
            .await
    }
    async fn chat_sessions(&self, q: &ChatSessionQuery) -> Result<Page<ChatSession>> {
        self.get_q(&["chat-sessions"], q).await
    }
    async fn chatboxes(&self, project: &str, page: &PageRequest) -> Result<Page<Chatbox>> {
        self.get_q(&["projects", project, "chatboxes"], page).await
    }
    async fn chatbox(&self, project: &str, id: &str) -> Result<ChatboxDetail> {
        self.get(&["projects", project, "chatboxes", id]).await
    }

    async fn servers(&self, project: &str, page: &PageRequest) -> Result<Page<Server>> {
        self.get_q(&["projects", project, "servers"], page).await
    }
    async fn server(&self, project: &str, id_or_name: &str) -> Result<Server> {
        self.get(&["projects", project, "servers", id_or_name])
            .await
    }
    async fn create_server(&self, project: &str, body: &ServerCreate) -> Result<Server> {
        self.send(Method::POST, &["projects", project, "servers"], body)
            .await
    }
    async fn update_server(&self, project: &str, id: &str, body: &ServerPatch) -> Result<Server> {
        self.send(Method::PATCH, &["projects", project, "servers", id], body)
            .await
    }
    async fn delete_server(&self, project: &str, id: &str) -> Result<Deleted> {
        self.delete(&["projects", project, "servers", id]).await
    }

    async fn hosts(&self, project: &str, page: &PageRequest) -> Result<Page<HostSummary>> {
        self.get_q(&["projects", project, "hosts"], page).await
    }
    async fn host(&self, project: &str, id: &str) -> Result<Host> {
        self.get(&["projects", project, "hosts", id]).await
    }
    async fn create_host(&self, project: &str, body: &HostCreate) -> Result<Host> {
        self.send(Method::POST, &["projects", project, "hosts"], body)
            .await
    }
    async fn update_host(&self, project: &str, id: &str, body: &HostPatch) -> Result<Host> {
        self.send(Method::PATCH, &["projects", project, "hosts", id], body)
            .await
    }
    async fn delete_host(&self, project: &str, id: &str) -> Result<Deleted> {
        self.delete(&["projects", project, "hosts", id]).await
    }

    async fn environments(&self, project: &str, q: &EnvironmentQuery) -> Result<Page<Environment>> {
        self.get_q(&["projects", project, "environments"], q).await
    }
    async fn environment(&self, project: &str, id: &str) -> Result<Environment> {
        self.get(&["projects", project, "environments", id]).await
    }
    async fn create_environment(
        &self,
        project: &str,
        body: &EnvironmentCreate,
    ) -> Result<Environment> {
        self.send(Method::POST, &["projects", project, "environments"], body)
            .await
    }
    async fn update_environment(
        &self,
        project: &str,
        id: &str,
        body: &EnvironmentPatch,
    ) -> Result<Environment> {
        self.send(
            Method::PATCH,
            &["projects", project, "environments", id],
            body,
        )
        .await
    }
    async fn resolve_environment(&self, project: &str, id: &str) -> Result<EnvironmentResolution> {
        self.get(&["projects", project, "environments", id, "resolve"])
            .await
    }
    async fn archive_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<Environment> {
        let body = RevisionGuard { expected_revision };
        self.send(
            Method::POST,
            &["projects", project, "environments", id, "archive"],
            &body,
        )
        .await
    }
    async fn restore_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<EnvironmentRestored> {
        let body = RevisionGuard { expected_revision };
        self.send(
            Method::POST,
            &["projects", project, "environments", id, "restore"],
            &body,
        )
        .await
    }

    async fn validate_server(&self, project: &str, server: &str) -> Result<ValidateResult> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "validate"],
            &serde_json::json!({}),
        )
        .await
    }
    async fn doctor(&self, project: &str, server: &str) -> Result<DoctorReport> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "doctor"],
            &serde_json::json!({}),
        )
        .await
    }
    async fn check_oauth(&self, project: &str, server: &str) -> Result<CheckOauthResult> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "check-oauth"],
            &serde_json::json!({}),
        )
        .await
    }
    async fn tools(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ToolItem>> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "tools"],
            req,
        )
        .await
    }
    async fn call_tool(&self, project: &str, server: &str, req: &ToolCallRequest) -> Result<Value> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "tools", "call"],
            req,
        )
        .await
    }
    async fn cancel_call(
        &self,
        project: &str,
        server: &str,
        call_id: &str,
    ) -> Result<CallCancelled> {
        self.send(
            Method::POST,
            &[
                "projects", project, "servers", server, "calls", call_id, "cancel",
            ],
            &serde_json::json!({}),
        )
        .await
    }
    async fn subscribe_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Subscribed> {
        self.send(
            Method::POST,
            &[
                "projects",
                project,
                "servers",
                server,
                "resources",
                "subscribe",
            ],
            req,
        )
        .await
    }
    async fn server_tasks(&self, project: &str, server: &str) -> Result<TaskList> {
        self.get(&["projects", project, "servers", server, "tasks"])
            .await
    }
    async fn cancel_task(
        &self,
        project: &str,
        server: &str,
        task_id: &str,
    ) -> Result<TaskCancelled> {
        self.send(
            Method::POST,
            &[
                "projects", project, "servers", server, "tasks", task_id, "cancel",
            ],
            &serde_json::json!({}),
        )
        .await
    }
    async fn server_traffic(&self, project: &str, server: &str, after: u64) -> Result<TrafficPage> {
        self.get_q(
            &["projects", project, "servers", server, "traffic"],
            &TrafficQuery { after },
        )
        .await
    }
    async fn prompts(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<PromptItem>> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "prompts"],
            req,
        )
        .await
    }
    async fn get_prompt(
        &self,
        project: &str,
        server: &str,
        req: &PromptGetRequest,
    ) -> Result<Value> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "prompts", "get"],
            req,
        )
        .await
    }
    async fn resources(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceItem>> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "resources"],
            req,
        )
        .await
    }
    async fn resource_templates(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceTemplateItem>> {
        self.send(
            Method::POST,
            &[
                "projects",
                project,
                "servers",
                server,
                "resources",
                "templates",
            ],
            req,
        )
        .await
    }
    async fn read_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Value> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "resources", "read"],
            req,
        )
        .await
    }
    async fn export(&self, project: &str, server: &str) -> Result<ExportSnapshot> {
        self.send(
            Method::POST,
            &["projects", project, "servers", server, "export"],
            &serde_json::json!({}),
        )
        .await
    }
    async fn import_tokens(
        &self,
        project: &str,
        server: &str,
        req: &ImportTokensRequest,
    ) -> Result<ImportTokensResult> {
        self.send(
            Method::POST,
            &[
                "projects",
                project,
                "servers",
                server,
                "oauth",
                "import-tokens",
            ],
            req,
        )
        .await
    }

    async fn create_suite(&self, project: &str, body: &SuiteCreate) -> Result<SuiteCreated> {
        self.send(Method::POST, &["projects", project, "eval-suites"], body)
            .await
    }
    async fn suite(&self, project: &str, suite: &str) -> Result<EvalSuite> {
        self.get(&["projects", project, "eval-suites", suite]).await
    }
    async fn update_suite(
        &self,
        project: &str,
        suite: &str,
        body: &SuitePatch,
    ) -> Result<EvalSuite> {
        self.send(
            Method::PATCH,
            &["projects", project, "eval-suites", suite],
            body,
        )
        .await
    }
    async fn delete_suite(&self, project: &str, suite: &str) -> Result<Deleted> {
        self.delete(&["projects", project, "eval-suites", suite])
            .await
    }
    async fn schedule(
        &self,
        project: &str,
        suite: &str,
    ) -> Result<crate::spec::schedule::SuiteSchedule> {
        self.get(&["projects", project, "eval-suites", suite, "schedule"])
            .await
    }
    async fn set_schedule(
        &self,
        project: &str,
        suite: &str,
        body: &crate::spec::schedule::SchedulePatch,
    ) -> Result<crate::spec::schedule::SuiteSchedule> {
        self.send(
            Method::PATCH,
            &["projects", project, "eval-suites", suite, "schedule"],
            body,
        )
        .await
    }
    async fn cases(&self, project: &str, suite: &str) -> Result<Page<EvalCase>> {
        self.get(&["projects", project, "eval-suites", suite, "cases"])
            .await
    }
    async fn case(&self, project: &str, suite: &str, case: &str) -> Result<EvalCase> {
        self.get(&["projects", project, "eval-suites", suite, "cases", case])
            .await
    }
    async fn create_case(&self, project: &str, suite: &str, body: &Value) -> Result<EvalCase> {
        self.send(
            Method::POST,
            &["projects", project, "eval-suites", suite, "cases"],
            body,
        )
        .await
    }
    async fn update_case(
        &self,
        project: &str,
        suite: &str,
        case: &str,
        body: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        self.send(
            Method::PATCH,
            &["projects", project, "eval-suites", suite, "cases", case],
            body,
        )
        .await
    }
    async fn delete_case(&self, project: &str, suite: &str, case: &str) -> Result<Deleted> {
        self.delete(&["projects", project, "eval-suites", suite, "cases", case])
            .await
    }

    async fn create_run(&self, project: &str, body: &RunCreate) -> Result<RunCreated> {
        self.send(Method::POST, &["projects", project, "eval-runs"], body)
            .await
    }
    async fn run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.get(&["projects", project, "eval-runs", run]).await
    }
    async fn iterations(
        &self,
        project: &str,
        run: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalIteration>> {
        self.get_q(&["projects", project, "eval-runs", run, "iterations"], page)
            .await
    }
    async fn trace(&self, project: &str, run: &str, iteration: &str) -> Result<Value> {
        self.get(&[
            "projects",
            project,
            "eval-runs",
            run,
            "iterations",
            iteration,
            "trace",
        ])
        .await
    }
    async fn project_runs(&self, project: &str, page: &PageRequest) -> Result<Page<EvalRun>> {
        self.get_q(&["projects", project, "eval-runs"], page).await
    }
    async fn suite_runs(
        &self,
        project: &str,
        suite: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalRun>> {
        self.get_q(&["projects", project, "eval-suites", suite, "runs"], page)
            .await
    }
    async fn cancel_run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.send(
            Method::POST,
            &["projects", project, "eval-runs", run, "cancel"],
            &serde_json::json!({}),
        )
        .await
    }
    async fn regrade_run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.send(
            Method::POST,
            &["projects", project, "eval-runs", run, "regrade"],
            &serde_json::json!({}),
        )
        .await
    }

    async fn create_server_group(
        &self,
        project: &str,
        body: &ServerGroupCreate,
    ) -> Result<Created> {
        self.send(Method::POST, &["projects", project, "server-groups"], body)
            .await
    }
    async fn create_plugin_version(
        &self,
        project: &str,
        body: &PluginVersionCreate,
    ) -> Result<Created> {
        self.send(Method::POST, &["projects", project, "plugins"], body)
            .await
    }
    async fn delete_plugin_version(&self, project: &str, id: &str) -> Result<Deleted> {
        self.delete(&["projects", project, "plugin-versions", id])
            .await
    }
    async fn create_skill(&self, project: &str, body: &SkillCreate) -> Result<Created> {
        self.send(Method::POST, &["projects", project, "skills"], body)
            .await
    }

    // Authoring (`cases/import`), its job paths and credits.
    async fn import_cases(
        &self,
        project: &str,
        suite: &str,
        req: &crate::spec::import::EvalCaseImportRequest,
    ) -> Result<crate::spec::import::ImportResponse> {
        self.send(
            Method::POST,
            &["projects", project, "eval-suites", suite, "cases", "import"],
            req,
        )
        .await
    }
    async fn authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::ImportResponse> {
        self.get(&["projects", project, "authoring-jobs", job])
            .await
    }
    async fn commit_authoring_job(
        &self,
        project: &str,
        job: &str,
        body: &crate::spec::authoring::CommitRequest,
    ) -> Result<crate::spec::import::EvalCaseImported> {
        self.send(
            Method::POST,
            &["projects", project, "authoring-jobs", job, "commit"],
            body,
        )
        .await
    }
    async fn cancel_authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::EvalAuthoringJobAccepted> {
        self.send(
            Method::POST,
            &["projects", project, "authoring-jobs", job, "cancel"],
            &serde_json::json!({}),
        )
        .await
    }
    async fn authoring_drafts(
        &self,
        project: &str,
        job: &str,
        q: &crate::spec::authoring::DraftQuery,
    ) -> Result<Page<crate::spec::authoring::AuthoringDraft>> {
        self.get_q(&["projects", project, "authoring-jobs", job, "drafts"], q)
            .await
    }
    async fn earlier_imports(
        &self,
        project: &str,
        suite: &str,
        file_hash: &str,
    ) -> Result<Page<crate::spec::authoring::EarlierImport>> {
        self.get_q(
            &["projects", project, "eval-suites", suite, "authoring-jobs"],
            &crate::spec::authoring::EarlierImportQuery {
                file_hash: file_hash.to_string(),
            },
        )
        .await
    }
    async fn save_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<crate::spec::authoring::AuthoringDraft> {
        self.send(
            Method::PATCH,
            &["projects", project, "authoring-jobs", job, "drafts", draft],
            edit,
        )
        .await
    }
    async fn finish_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        self.send(
            Method::POST,
            &[
                "projects",
                project,
                "authoring-jobs",
                job,
                "drafts",
                draft,
                "finish",
            ],
            edit,
        )
        .await
    }
    async fn credits(&self) -> Result<crate::spec::authoring::Credits> {
        self.get(&["credits"]).await
    }

    async fn ingest_report(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestReport,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.send(
            Method::POST,
            &["projects", project, "eval-ingest", "report"],
            body,
        )
        .await
    }
    async fn ingest_start(
        &self,
        project: &str,
        body: &crate::spec::ingest::RunFields,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.send(
            Method::POST,
            &["projects", project, "eval-ingest", "runs", "start"],
            body,
        )
        .await
    }
    async fn ingest_iterations(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestIterations,
    ) -> Result<crate::spec::ingest::IngestBatch> {
        self.send(
            Method::POST,
            &["projects", project, "eval-ingest", "runs", "iterations"],
            body,
        )
        .await
    }
    async fn ingest_finalize(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestFinalize,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.send(
            Method::POST,
            &["projects", project, "eval-ingest", "runs", "finalize"],
            body,
        )
        .await
    }
    async fn ingest_upload_url(
        &self,
        project: &str,
        body: &crate::spec::ingest::UploadUrlRequest,
    ) -> Result<crate::spec::ingest::UploadUrl> {
        self.send(
            Method::POST,
            &[
                "projects",
                project,
                "eval-ingest",
                "artifacts",
                "upload-url",
            ],
            body,
        )
        .await
    }
    async fn ingest_artifact(
        &self,
        project: &str,
        storage_id: &str,
    ) -> Result<crate::spec::ingest::StoredArtifact> {
        self.get(&["projects", project, "eval-ingest", "artifacts", storage_id])
            .await
    }

    async fn agent_turn(
        &self,
        project: &str,
        req: &crate::spec::agent::AgentTurnRequest,
    ) -> Result<crate::spec::agent::AgentTurnResponse> {
        self.send(Method::POST, &["projects", project, "agent"], req)
            .await
    }
}
