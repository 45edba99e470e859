//! `Backend`: every operation the CLI and the workbench use, over the embedded core
//! ([`Embedded`]) or a remote `/api/v1` ([`Remote`]). Both return the same spec types and
//! the same [`Error`](crate::spec::Error), so everything above this module is one code path.

pub mod compare;
mod embedded;
mod remote;

pub use embedded::Embedded;
pub use remote::{Remote, RetryPolicy};

use async_trait::async_trait;

use crate::spec::Result;
use crate::spec::case::{EvalCase, EvalCaseUpdate};
use crate::spec::catalog::{
    ChatSession, ChatSessionQuery, Chatbox, ChatboxDetail, Deleted, EvalSuiteSummary, Me, Project,
    ProjectQuery,
};
use crate::spec::environment::{
    Created, Environment, EnvironmentCreate, EnvironmentPatch, EnvironmentQuery,
    EnvironmentResolution, EnvironmentRestored, PluginVersionCreate, ServerGroupCreate,
    SkillCreate,
};
use crate::spec::host::{Host, HostCreate, HostPatch, HostSummary};
use crate::spec::page::{Page, PageRequest};
use crate::spec::primitives::{CallCancelled, Subscribed, TaskCancelled, TaskList, TrafficPage};
use crate::spec::primitives::{
    CheckOauthResult, DoctorReport, ExportSnapshot, ImportTokensRequest, ImportTokensResult,
    ListRequest, McpPage, PromptGetRequest, PromptItem, ResourceItem, ResourceReadRequest,
    ResourceTemplateItem, ToolCallRequest, ToolItem, ValidateResult,
};
use crate::spec::run::{EvalIteration, EvalRun, RunCreate, RunCreated};
use crate::spec::server::{Server, ServerCreate, ServerPatch};
use crate::spec::suite::{EvalSuite, SuiteCreate, SuiteCreated, SuitePatch};
use serde_json::Value;

/// What a caller of [`Backend::call_tool_watched`] follows and answers.
#[derive(Clone, Default)]
pub struct CallWatch {
    pub progress: Option<tokio::sync::mpsc::UnboundedSender<crate::service::mcp::client::Progress>>,
    pub asker: Option<std::sync::Arc<dyn crate::service::mcp::Asker>>,
}

#[async_trait]
pub trait Backend: Send + Sync {
    /// Where the operations go, for the status bar: `embedded: PATH` or `remote: URL`.
    fn describe(&self) -> String;

    /// Releases what the backend holds (the embedded core's MCP sessions and child
    /// processes); a remote backend has nothing to release.
    async fn close(&self) {}

    /// Starts what the embedded core does on its own while the workbench is open (firing
    /// scheduled runs); a remote backend's server does that itself, so the default is none.
    fn start_scheduler(&self) {}

    async fn me(&self) -> Result<Me>;
    async fn projects(&self, q: &ProjectQuery, page: &PageRequest) -> Result<Page<Project>>;
    async fn eval_suites(
        &self,
        project: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>>;
    async fn chat_sessions(&self, q: &ChatSessionQuery) -> Result<Page<ChatSession>>;
    async fn chatboxes(&self, project: &str, page: &PageRequest) -> Result<Page<Chatbox>>;
    async fn chatbox(&self, project: &str, id: &str) -> Result<ChatboxDetail>;

    async fn servers(&self, project: &str, page: &PageRequest) -> Result<Page<Server>>;
    async fn server(&self, project: &str, id_or_name: &str) -> Result<Server>;
    async fn create_server(&self, project: &str, body: &ServerCreate) -> Result<Server>;
    async fn update_server(&self, project: &str, id: &str, body: &ServerPatch) -> Result<Server>;
    async fn delete_server(&self, project: &str, id: &str) -> Result<Deleted>;

    async fn hosts(&self, project: &str, page: &PageRequest) -> Result<Page<HostSummary>>;
    async fn host(&self, project: &str, id: &str) -> Result<Host>;
    async fn create_host(&self, project: &str, body: &HostCreate) -> Result<Host>;
    async fn update_host(&self, project: &str, id: &str, body: &HostPatch) -> Result<Host>;
    async fn delete_host(&self, project: &str, id: &str) -> Result<Deleted>;

    async fn environments(&self, project: &str, q: &EnvironmentQuery) -> Result<Page<Environment>>;
    async fn environment(&self, project: &str, id: &str) -> Result<Environment>;
    async fn create_environment(
        &self,
        project: &str,
        body: &EnvironmentCreate,
    ) -> Result<Environment>;
    async fn update_environment(
        &self,
        project: &str,
        id: &str,
        body: &EnvironmentPatch,
    ) -> Result<Environment>;
    async fn resolve_environment(&self, project: &str, id: &str) -> Result<EnvironmentResolution>;
    async fn archive_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<Environment>;
    async fn restore_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<EnvironmentRestored>;

    async fn validate_server(&self, project: &str, server: &str) -> Result<ValidateResult>;
    async fn doctor(&self, project: &str, server: &str) -> Result<DoctorReport>;
    async fn check_oauth(&self, project: &str, server: &str) -> Result<CheckOauthResult>;
    async fn tools(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ToolItem>>;
    /// The MCP call-tool result verbatim; a tool-level error is `Ok` with `isError: true`.
    async fn call_tool(&self, project: &str, server: &str, req: &ToolCallRequest) -> Result<Value>;
    /// `tools/call` with the caller watching: progress as the server reports it, and a
    /// person asked when the server elicits. Only the embedded core can do either; over a
    /// remote backend it is `call_tool` (progress shows in the server's traffic).
    async fn call_tool_watched(
        &self,
        project: &str,
        server: &str,
        req: &ToolCallRequest,
        _watch: CallWatch,
    ) -> Result<Value> {
        self.call_tool(project, server, req).await
    }
    /// Cancels a running call that named itself with `callId`.
    async fn cancel_call(
        &self,
        project: &str,
        server: &str,
        call_id: &str,
    ) -> Result<CallCancelled>;
    /// Subscribes to updates of a resource; they arrive as the server's protocol events.
    async fn subscribe_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Subscribed>;
    /// A server's tasks: those evaldeck follows and those the server lists.
    async fn server_tasks(&self, project: &str, server: &str) -> Result<TaskList>;
    /// Asks the server to cancel one of its tasks.
    async fn cancel_task(
        &self,
        project: &str,
        server: &str,
        task_id: &str,
    ) -> Result<TaskCancelled>;
    /// A server's protocol events after `after` (the protocol pane, `--verbose`).
    async fn server_traffic(&self, project: &str, server: &str, after: u64) -> Result<TrafficPage>;
    async fn prompts(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<PromptItem>>;
    async fn get_prompt(
        &self,
        project: &str,
        server: &str,
        req: &PromptGetRequest,
    ) -> Result<Value>;
    async fn resources(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceItem>>;
    async fn resource_templates(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceTemplateItem>>;
    async fn read_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Value>;
    async fn export(&self, project: &str, server: &str) -> Result<ExportSnapshot>;
    /// The snapshot the last `check` of a saved server kept (embedded backend only).
    async fn last_snapshot(&self, _project: &str, server: &str) -> Result<Option<ExportSnapshot>> {
        Err(crate::spec::Error::invalid(
            "/snapshot",
            "embedded",
            format!(
                "`last:{server}` is the snapshot a local `check` kept; {} is a remote backend",
                self.describe()
            ),
        ))
    }
    /// Conformance checks (`evaldeck check`). They run where the MCP connection is made:
    /// the embedded core. `/api/v1` has no conformance suites, so a remote backend refuses.
    async fn check(
        &self,
        _project: &str,
        _server: &str,
        _req: &crate::spec::conformance::CheckRequest,
    ) -> Result<crate::spec::conformance::CheckReport> {
        Err(crate::spec::Error::invalid(
            "/backend",
            "embedded",
            format!(
                "`check` runs only where the MCP connection is made, and {} is a remote backend (`/api/v1` has no conformance suites): run it without --base-url, against a saved server of the local store or an unsaved target (-- COMMAND, --url URL)",
                self.describe()
            ),
        ))
    }
    async fn import_tokens(
        &self,
        project: &str,
        server: &str,
        req: &ImportTokensRequest,
    ) -> Result<ImportTokensResult>;

    async fn create_suite(&self, project: &str, body: &SuiteCreate) -> Result<SuiteCreated>;
    async fn suite(&self, project: &str, suite: &str) -> Result<EvalSuite>;
    async fn update_suite(
        &self,
        project: &str,
        suite: &str,
        body: &SuitePatch,
    ) -> Result<EvalSuite>;
    async fn delete_suite(&self, project: &str, suite: &str) -> Result<Deleted>;
    /// The suite's schedule with its recent firings (extension `GET …/schedule`).
    async fn schedule(
        &self,
        project: &str,
        suite: &str,
    ) -> Result<crate::spec::schedule::SuiteSchedule>;
    /// Enables, edits or disables the suite's scheduled runs.
    async fn set_schedule(
        &self,
        project: &str,
        suite: &str,
        body: &crate::spec::schedule::SchedulePatch,
    ) -> Result<crate::spec::schedule::SuiteSchedule>;
    async fn cases(&self, project: &str, suite: &str) -> Result<Page<EvalCase>>;
    async fn case(&self, project: &str, suite: &str, case: &str) -> Result<EvalCase>;
    /// Adds a case given in the persisted shape (without `id`).
    async fn create_case(&self, project: &str, suite: &str, body: &Value) -> Result<EvalCase>;
    async fn update_case(
        &self,
        project: &str,
        suite: &str,
        case: &str,
        body: &EvalCaseUpdate,
    ) -> Result<EvalCase>;
    async fn delete_case(&self, project: &str, suite: &str, case: &str) -> Result<Deleted>;

    /// Starts a run (tagged `ui` by the embedded backend, `api` by a remote one).
    async fn create_run(&self, project: &str, body: &RunCreate) -> Result<RunCreated>;
    async fn run(&self, project: &str, run: &str) -> Result<EvalRun>;
    async fn iterations(
        &self,
        project: &str,
        run: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalIteration>>;
    /// The trace of one iteration (an open object).
    async fn trace(&self, project: &str, run: &str, iteration: &str) -> Result<Value>;
    /// Every run of the project, newest first.
    async fn project_runs(&self, project: &str, page: &PageRequest) -> Result<Page<EvalRun>>;
    /// A suite's runs, newest first.
    async fn suite_runs(
        &self,
        project: &str,
        suite: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalRun>>;
    async fn cancel_run(&self, project: &str, run: &str) -> Result<EvalRun>;
    async fn regrade_run(&self, project: &str, run: &str) -> Result<EvalRun>;

    async fn create_server_group(&self, project: &str, body: &ServerGroupCreate)
    -> Result<Created>;
    async fn create_plugin_version(
        &self,
        project: &str,
        body: &PluginVersionCreate,
    ) -> Result<Created>;
    async fn delete_plugin_version(&self, project: &str, id: &str) -> Result<Deleted>;
    async fn create_skill(&self, project: &str, body: &SkillCreate) -> Result<Created>;

    // Authoring (`cases/import`), its job paths (extensions) and credits.
    /// Imports a document; a `pending` job body means the window closed first (HTTP 202).
    async fn import_cases(
        &self,
        project: &str,
        suite: &str,
        req: &crate::spec::import::EvalCaseImportRequest,
    ) -> Result<crate::spec::import::ImportResponse>;
    async fn authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::ImportResponse>;
    async fn commit_authoring_job(
        &self,
        project: &str,
        job: &str,
        body: &crate::spec::authoring::CommitRequest,
    ) -> Result<crate::spec::import::EvalCaseImported>;
    async fn cancel_authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::EvalAuthoringJobAccepted>;
    async fn authoring_drafts(
        &self,
        project: &str,
        job: &str,
        q: &crate::spec::authoring::DraftQuery,
    ) -> Result<Page<crate::spec::authoring::AuthoringDraft>>;
    /// The suite's earlier authoring jobs for a document with this SHA-256, newest first.
    async fn earlier_imports(
        &self,
        project: &str,
        suite: &str,
        file_hash: &str,
    ) -> Result<Page<crate::spec::authoring::EarlierImport>>;
    /// Saves an edit of a draft: re-grounded against the job's tools, claim recomputed.
    async fn save_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<crate::spec::authoring::AuthoringDraft>;
    /// Writes one skipped draft (with an optional edit); costs nothing.
    async fn finish_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<EvalCase>;
    async fn credits(&self) -> Result<crate::spec::authoring::Credits>;

    // Result ingestion (`{project}` may be the literal `default`). Ingested runs are tagged
    // `source: sdk` whichever backend sends them.
    /// One-shot: a run from finished results, finalized; idempotent on `externalRunId`.
    async fn ingest_report(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestReport,
    ) -> Result<crate::spec::ingest::IngestRun>;
    /// Creates, or reuses by `externalRunId`, an open run.
    async fn ingest_start(
        &self,
        project: &str,
        body: &crate::spec::ingest::RunFields,
    ) -> Result<crate::spec::ingest::IngestRun>;
    /// Appends a batch of results (replays skipped).
    async fn ingest_iterations(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestIterations,
    ) -> Result<crate::spec::ingest::IngestBatch>;
    /// Finalizes an open run (idempotent).
    async fn ingest_finalize(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestFinalize,
    ) -> Result<crate::spec::ingest::IngestRun>;
    /// Mints an upload URL. The embedded backend serves no URL: 422 `FEATURE_NOT_SUPPORTED`
    /// (reason `NO_UPLOAD_SERVER`) unless the service has a public URL configured.
    async fn ingest_upload_url(
        &self,
        project: &str,
        body: &crate::spec::ingest::UploadUrlRequest,
    ) -> Result<crate::spec::ingest::UploadUrl>;
    /// An uploaded artifact read back by storage id (a widget snapshot's HTML, a report).
    async fn ingest_artifact(
        &self,
        project: &str,
        storage_id: &str,
    ) -> Result<crate::spec::ingest::StoredArtifact>;

    /// One headless agent turn over `messages` (not idempotent: never retried).
    async fn agent_turn(
        &self,
        project: &str,
        req: &crate::spec::agent::AgentTurnRequest,
    ) -> Result<crate::spec::agent::AgentTurnResponse>;
}

/// Reads every page of a list, for callers that want all of it (CLI output, pickers).
pub async fn collect_all<T, F, Fut>(mut fetch: F) -> Result<Vec<T>>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<T>>>,
{
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = fetch(PageRequest {
            cursor,
            limit: Some(crate::spec::page::MAX_LIMIT),
        })
        .await?;
        out.extend(page.items);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}
