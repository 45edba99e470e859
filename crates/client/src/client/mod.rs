//! `Backend`: every operation the CLI and the workbench use, over the embedded core
//! ([`Embedded`]) or a remote `/api/v1` ([`Remote`]). Both return the same spec types and
//! the same [`Error`](crate::spec::Error), so everything above this module is one code path.
//!
//! Each backend implements one generic call for every listed operation
//! ([`crate::operations`]): [`Target::call`] sends it in-process or over HTTP.

pub mod compare;
mod embedded;
mod remote;

pub use embedded::Embedded;
pub use remote::{Remote, RetryPolicy};

use async_trait::async_trait;

use crate::operations::{self as op, Operation};
use crate::spec::Result;
use crate::spec::authoring::EarlierImportQuery;
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
use crate::spec::widget::{ViewRecord, WidgetRenderRequest};
use serde_json::Value;

/// What a caller of [`Backend::call_tool_watched`] follows and answers.
#[derive(Clone, Default)]
pub struct CallWatch {
    pub progress: Option<tokio::sync::mpsc::UnboundedSender<crate::service::mcp::client::Progress>>,
    pub asker: Option<std::sync::Arc<dyn crate::service::mcp::Asker>>,
}

/// Where a backend sends operations. There are two, so the generic call is a `match` here
/// rather than a generic trait method, which `dyn Backend` could not carry.
pub enum Target<'a> {
    Embedded(&'a Embedded),
    Remote(&'a Remote),
}

impl Target<'_> {
    /// Any listed operation, with its path values, query and body: the one generic call
    /// both backends implement.
    pub async fn call<O: Operation>(
        &self,
        path: O::Path,
        query: O::Query,
        body: O::Body,
    ) -> Result<O::Response> {
        match self {
            Target::Embedded(e) => e.dispatch::<O>(path, query, body).await,
            Target::Remote(r) => r.send::<O>(&path, &query, &body).await,
        }
    }
}

/// The named methods below are provided, each a one-line call of an operation through
/// [`Target::call`]: the workbench and the CLI keep calls that read as what they do, with
/// borrowed arguments, and a backend implements only [`Backend::target`] (plus what only
/// the embedded core can do). Switching every caller to `call::<O>` would have spread
/// tuples of owned strings over the workbench and CLI for no less code. A new operation
/// needs no method here: `target().call::<O>()` reaches it through both backends.
#[async_trait]
pub trait Backend: Send + Sync {
    /// Where the operations go, for the status bar: `embedded: PATH` or `remote: URL`.
    fn describe(&self) -> String;

    /// Where [`Target::call`] sends operations.
    fn target(&self) -> Target<'_>;

    /// Releases what the backend holds (the embedded core's MCP sessions and child
    /// processes); a remote backend has nothing to release.
    async fn close(&self) {}

    /// Starts what the embedded core does on its own while the workbench is open (firing
    /// scheduled runs); a remote backend's server does that itself, so the default is none.
    fn start_scheduler(&self) {}

    async fn me(&self) -> Result<Me> {
        self.target().call::<op::Me>((), (), ()).await
    }
    async fn projects(&self, q: &ProjectQuery, page: &PageRequest) -> Result<Page<Project>> {
        self.target()
            .call::<op::Projects>((), (q.clone(), page.clone()), ())
            .await
    }
    async fn eval_suites(
        &self,
        project: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>> {
        self.target()
            .call::<op::EvalSuites>((project.into(),), (page.clone(),), ())
            .await
    }
    async fn chat_sessions(&self, q: &ChatSessionQuery) -> Result<Page<ChatSession>> {
        self.target()
            .call::<op::ChatSessions>((), (q.clone(),), ())
            .await
    }
    async fn chatboxes(&self, project: &str, page: &PageRequest) -> Result<Page<Chatbox>> {
        self.target()
            .call::<op::Chatboxes>((project.into(),), (page.clone(),), ())
            .await
    }
    async fn chatbox(&self, project: &str, id: &str) -> Result<ChatboxDetail> {
        self.target()
            .call::<op::Chatbox>((project.into(), id.into()), (), ())
            .await
    }

    async fn servers(&self, project: &str, page: &PageRequest) -> Result<Page<Server>> {
        self.target()
            .call::<op::Servers>((project.into(),), (page.clone(),), ())
            .await
    }
    async fn server(&self, project: &str, id_or_name: &str) -> Result<Server> {
        self.target()
            .call::<op::Server>((project.into(), id_or_name.into()), (), ())
            .await
    }
    async fn create_server(&self, project: &str, body: &ServerCreate) -> Result<Server> {
        self.target()
            .call::<op::CreateServer>((project.into(),), (), body.clone())
            .await
    }
    async fn update_server(&self, project: &str, id: &str, body: &ServerPatch) -> Result<Server> {
        self.target()
            .call::<op::UpdateServer>((project.into(), id.into()), (), body.clone())
            .await
    }
    async fn delete_server(&self, project: &str, id: &str) -> Result<Deleted> {
        self.target()
            .call::<op::DeleteServer>((project.into(), id.into()), (), ())
            .await
    }

    async fn hosts(&self, project: &str, page: &PageRequest) -> Result<Page<HostSummary>> {
        self.target()
            .call::<op::Hosts>((project.into(),), (page.clone(),), ())
            .await
    }
    async fn host(&self, project: &str, id: &str) -> Result<Host> {
        self.target()
            .call::<op::Host>((project.into(), id.into()), (), ())
            .await
    }
    async fn create_host(&self, project: &str, body: &HostCreate) -> Result<Host> {
        self.target()
            .call::<op::CreateHost>((project.into(),), (), body.clone())
            .await
    }
    async fn update_host(&self, project: &str, id: &str, body: &HostPatch) -> Result<Host> {
        self.target()
            .call::<op::UpdateHost>((project.into(), id.into()), (), body.clone())
            .await
    }
    async fn delete_host(&self, project: &str, id: &str) -> Result<Deleted> {
        self.target()
            .call::<op::DeleteHost>((project.into(), id.into()), (), ())
            .await
    }

    async fn environments(&self, project: &str, q: &EnvironmentQuery) -> Result<Page<Environment>> {
        self.target()
            .call::<op::Environments>((project.into(),), (q.clone(),), ())
            .await
    }
    async fn environment(&self, project: &str, id: &str) -> Result<Environment> {
        self.target()
            .call::<op::Environment>((project.into(), id.into()), (), ())
            .await
    }
    async fn create_environment(
        &self,
        project: &str,
        body: &EnvironmentCreate,
    ) -> Result<Environment> {
        self.target()
            .call::<op::CreateEnvironment>((project.into(),), (), body.clone())
            .await
    }
    async fn update_environment(
        &self,
        project: &str,
        id: &str,
        body: &EnvironmentPatch,
    ) -> Result<Environment> {
        self.target()
            .call::<op::UpdateEnvironment>((project.into(), id.into()), (), body.clone())
            .await
    }
    async fn resolve_environment(&self, project: &str, id: &str) -> Result<EnvironmentResolution> {
        self.target()
            .call::<op::ResolveEnvironment>((project.into(), id.into()), (), ())
            .await
    }
    async fn archive_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<Environment> {
        self.target()
            .call::<op::ArchiveEnvironment>(
                (project.into(), id.into()),
                (),
                RevisionGuard { expected_revision },
            )
            .await
    }
    async fn restore_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<EnvironmentRestored> {
        self.target()
            .call::<op::RestoreEnvironment>(
                (project.into(), id.into()),
                (),
                RevisionGuard { expected_revision },
            )
            .await
    }

    async fn validate_server(&self, project: &str, server: &str) -> Result<ValidateResult> {
        self.target()
            .call::<op::ValidateServer>((project.into(), server.into()), (), serde_json::json!({}))
            .await
    }
    async fn doctor(&self, project: &str, server: &str) -> Result<DoctorReport> {
        self.target()
            .call::<op::Doctor>((project.into(), server.into()), (), serde_json::json!({}))
            .await
    }
    async fn check_oauth(&self, project: &str, server: &str) -> Result<CheckOauthResult> {
        self.target()
            .call::<op::CheckOauth>((project.into(), server.into()), (), serde_json::json!({}))
            .await
    }
    async fn tools(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ToolItem>> {
        self.target()
            .call::<op::Tools>((project.into(), server.into()), (), req.clone())
            .await
    }
    /// The MCP call-tool result verbatim; a tool-level error is `Ok` with `isError: true`.
    async fn call_tool(&self, project: &str, server: &str, req: &ToolCallRequest) -> Result<Value> {
        self.target()
            .call::<op::CallTool>((project.into(), server.into()), (), req.clone())
            .await
    }
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
    ) -> Result<CallCancelled> {
        self.target()
            .call::<op::CancelCall>(
                (project.into(), server.into(), call_id.into()),
                (),
                serde_json::json!({}),
            )
            .await
    }
    /// An uploaded artifact read back by storage id (a widget snapshot's HTML, a report).
    async fn ingest_artifact(
        &self,
        project: &str,
        storage_id: &str,
    ) -> Result<crate::spec::ingest::StoredArtifact> {
        self.target()
            .call::<op::IngestArtifact>((project.into(), storage_id.into()), (), ())
            .await
    }
    /// Renders a tool's MCP Apps view from a call's arguments and result.
    async fn render_widget(
        &self,
        project: &str,
        server: &str,
        req: &WidgetRenderRequest,
    ) -> Result<ViewRecord> {
        self.target()
            .call::<op::RenderWidget>((project.into(), server.into()), (), req.clone())
            .await
    }
    /// Subscribes to updates of a resource; they arrive as the server's protocol events.
    async fn subscribe_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Subscribed> {
        self.target()
            .call::<op::SubscribeResource>((project.into(), server.into()), (), req.clone())
            .await
    }
    /// A server's tasks: those evaldeck follows and those the server lists.
    async fn server_tasks(&self, project: &str, server: &str) -> Result<TaskList> {
        self.target()
            .call::<op::ServerTasks>((project.into(), server.into()), (), ())
            .await
    }
    /// Asks the server to cancel one of its tasks.
    async fn cancel_task(
        &self,
        project: &str,
        server: &str,
        task_id: &str,
    ) -> Result<TaskCancelled> {
        self.target()
            .call::<op::CancelTask>(
                (project.into(), server.into(), task_id.into()),
                (),
                serde_json::json!({}),
            )
            .await
    }
    /// A server's protocol events after `after` (the protocol pane, `--verbose`).
    async fn server_traffic(&self, project: &str, server: &str, after: u64) -> Result<TrafficPage> {
        self.target()
            .call::<op::ServerTraffic>(
                (project.into(), server.into()),
                (TrafficQuery { after },),
                (),
            )
            .await
    }
    async fn prompts(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<PromptItem>> {
        self.target()
            .call::<op::Prompts>((project.into(), server.into()), (), req.clone())
            .await
    }
    async fn get_prompt(
        &self,
        project: &str,
        server: &str,
        req: &PromptGetRequest,
    ) -> Result<Value> {
        self.target()
            .call::<op::GetPrompt>((project.into(), server.into()), (), req.clone())
            .await
    }
    async fn resources(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceItem>> {
        self.target()
            .call::<op::Resources>((project.into(), server.into()), (), req.clone())
            .await
    }
    async fn resource_templates(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceTemplateItem>> {
        self.target()
            .call::<op::ResourceTemplates>((project.into(), server.into()), (), req.clone())
            .await
    }
    async fn read_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Value> {
        self.target()
            .call::<op::ReadResource>((project.into(), server.into()), (), req.clone())
            .await
    }
    async fn export(&self, project: &str, server: &str) -> Result<ExportSnapshot> {
        self.target()
            .call::<op::Export>((project.into(), server.into()), (), serde_json::json!({}))
            .await
    }
    /// The snapshots the checks of a saved server kept, newest first (embedded backend
    /// only: `/api/v1` has no conformance suites, and these are what they kept).
    async fn kept_snapshots(&self, _project: &str, server: &str) -> Result<Vec<ExportSnapshot>> {
        Err(crate::spec::Error::invalid(
            "/snapshot",
            "embedded",
            format!(
                "`last:{server}` names a snapshot a local `check` of `{server}` kept, and {} is a remote backend (`/api/v1` has no conformance suites): run `check` and `diff last:…` against the local store, or use `server:{server}` or files from `export`",
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
    ) -> Result<ImportTokensResult> {
        self.target()
            .call::<op::ImportTokens>((project.into(), server.into()), (), req.clone())
            .await
    }

    async fn create_suite(&self, project: &str, body: &SuiteCreate) -> Result<SuiteCreated> {
        self.target()
            .call::<op::CreateSuite>((project.into(),), (), body.clone())
            .await
    }
    async fn suite(&self, project: &str, suite: &str) -> Result<EvalSuite> {
        self.target()
            .call::<op::Suite>((project.into(), suite.into()), (), ())
            .await
    }
    async fn update_suite(
        &self,
        project: &str,
        suite: &str,
        body: &SuitePatch,
    ) -> Result<EvalSuite> {
        self.target()
            .call::<op::UpdateSuite>((project.into(), suite.into()), (), body.clone())
            .await
    }
    async fn delete_suite(&self, project: &str, suite: &str) -> Result<Deleted> {
        self.target()
            .call::<op::DeleteSuite>((project.into(), suite.into()), (), ())
            .await
    }
    /// The suite's schedule with its recent firings (extension `GET …/schedule`).
    async fn schedule(
        &self,
        project: &str,
        suite: &str,
    ) -> Result<crate::spec::schedule::SuiteSchedule> {
        self.target()
            .call::<op::Schedule>((project.into(), suite.into()), (), ())
            .await
    }
    /// Enables, edits or disables the suite's scheduled runs.
    async fn set_schedule(
        &self,
        project: &str,
        suite: &str,
        body: &crate::spec::schedule::SchedulePatch,
    ) -> Result<crate::spec::schedule::SuiteSchedule> {
        self.target()
            .call::<op::SetSchedule>((project.into(), suite.into()), (), body.clone())
            .await
    }
    async fn cases(&self, project: &str, suite: &str) -> Result<Page<EvalCase>> {
        self.target()
            .call::<op::Cases>(
                (project.into(), suite.into()),
                (PageRequest::default(),),
                (),
            )
            .await
    }
    async fn case(&self, project: &str, suite: &str, case: &str) -> Result<EvalCase> {
        self.target()
            .call::<op::Case>((project.into(), suite.into(), case.into()), (), ())
            .await
    }
    /// Adds a case given in the persisted shape (without `id`).
    async fn create_case(&self, project: &str, suite: &str, body: &Value) -> Result<EvalCase> {
        self.target()
            .call::<op::CreateCase>((project.into(), suite.into()), (), body.clone())
            .await
    }
    async fn update_case(
        &self,
        project: &str,
        suite: &str,
        case: &str,
        body: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        self.target()
            .call::<op::UpdateCase>(
                (project.into(), suite.into(), case.into()),
                (),
                body.clone(),
            )
            .await
    }
    async fn delete_case(&self, project: &str, suite: &str, case: &str) -> Result<Deleted> {
        self.target()
            .call::<op::DeleteCase>((project.into(), suite.into(), case.into()), (), ())
            .await
    }

    /// Starts a run (tagged `ui` by the embedded backend, `api` by a remote one).
    async fn create_run(&self, project: &str, body: &RunCreate) -> Result<RunCreated> {
        self.target()
            .call::<op::CreateRun>((project.into(),), (), body.clone())
            .await
    }
    async fn run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.target()
            .call::<op::Run>((project.into(), run.into()), (), ())
            .await
    }
    async fn iterations(
        &self,
        project: &str,
        run: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalIteration>> {
        self.target()
            .call::<op::Iterations>((project.into(), run.into()), (page.clone(),), ())
            .await
    }
    /// The trace of one iteration (an open object).
    async fn trace(&self, project: &str, run: &str, iteration: &str) -> Result<Value> {
        self.target()
            .call::<op::Trace>((project.into(), run.into(), iteration.into()), (), ())
            .await
    }
    /// Every run of the project, newest first.
    async fn project_runs(&self, project: &str, page: &PageRequest) -> Result<Page<EvalRun>> {
        self.target()
            .call::<op::ProjectRuns>((project.into(),), (page.clone(),), ())
            .await
    }
    /// A suite's runs, newest first.
    async fn suite_runs(
        &self,
        project: &str,
        suite: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalRun>> {
        self.target()
            .call::<op::SuiteRuns>((project.into(), suite.into()), (page.clone(),), ())
            .await
    }
    async fn cancel_run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.target()
            .call::<op::CancelRun>((project.into(), run.into()), (), serde_json::json!({}))
            .await
    }
    async fn regrade_run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.target()
            .call::<op::RegradeRun>((project.into(), run.into()), (), serde_json::json!({}))
            .await
    }

    async fn create_server_group(
        &self,
        project: &str,
        body: &ServerGroupCreate,
    ) -> Result<Created> {
        self.target()
            .call::<op::CreateServerGroup>((project.into(),), (), body.clone())
            .await
    }
    async fn create_plugin_version(
        &self,
        project: &str,
        body: &PluginVersionCreate,
    ) -> Result<Created> {
        self.target()
            .call::<op::CreatePluginVersion>((project.into(),), (), body.clone())
            .await
    }
    async fn delete_plugin_version(&self, project: &str, id: &str) -> Result<Deleted> {
        self.target()
            .call::<op::DeletePluginVersion>((project.into(), id.into()), (), ())
            .await
    }
    async fn create_skill(&self, project: &str, body: &SkillCreate) -> Result<Created> {
        self.target()
            .call::<op::CreateSkill>((project.into(),), (), body.clone())
            .await
    }

    // Authoring (`cases/import`), its job paths (extensions) and credits.
    /// Imports a document; a `pending` job body means the window closed first (HTTP 202).
    async fn import_cases(
        &self,
        project: &str,
        suite: &str,
        req: &crate::spec::import::EvalCaseImportRequest,
    ) -> Result<crate::spec::import::ImportResponse> {
        self.target()
            .call::<op::ImportCases>((project.into(), suite.into()), (), req.clone())
            .await
    }
    async fn authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::ImportResponse> {
        self.target()
            .call::<op::AuthoringJob>((project.into(), job.into()), (), ())
            .await
    }
    async fn commit_authoring_job(
        &self,
        project: &str,
        job: &str,
        body: &crate::spec::authoring::CommitRequest,
    ) -> Result<crate::spec::import::EvalCaseImported> {
        self.target()
            .call::<op::CommitAuthoringJob>((project.into(), job.into()), (), body.clone())
            .await
    }
    async fn cancel_authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::EvalAuthoringJobAccepted> {
        self.target()
            .call::<op::CancelAuthoringJob>((project.into(), job.into()), (), serde_json::json!({}))
            .await
    }
    async fn authoring_drafts(
        &self,
        project: &str,
        job: &str,
        q: &crate::spec::authoring::DraftQuery,
    ) -> Result<Page<crate::spec::authoring::AuthoringDraft>> {
        self.target()
            .call::<op::AuthoringDrafts>((project.into(), job.into()), (q.clone(),), ())
            .await
    }
    /// The suite's earlier authoring jobs for a document with this SHA-256, newest first.
    async fn earlier_imports(
        &self,
        project: &str,
        suite: &str,
        file_hash: &str,
    ) -> Result<Page<crate::spec::authoring::EarlierImport>> {
        self.target()
            .call::<op::EarlierImports>(
                (project.into(), suite.into()),
                (EarlierImportQuery {
                    file_hash: file_hash.to_string(),
                },),
                (),
            )
            .await
    }
    /// Saves an edit of a draft: re-grounded against the job's tools, claim recomputed.
    async fn save_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<crate::spec::authoring::AuthoringDraft> {
        self.target()
            .call::<op::SaveDraft>((project.into(), job.into(), draft.into()), (), edit.clone())
            .await
    }
    /// Writes one skipped draft (with an optional edit); costs nothing.
    async fn finish_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        self.target()
            .call::<op::FinishDraft>((project.into(), job.into(), draft.into()), (), edit.clone())
            .await
    }
    async fn credits(&self) -> Result<crate::spec::authoring::Credits> {
        self.target().call::<op::Credits>((), (), ()).await
    }

    // Result ingestion (`{project}` may be the literal `default`). Ingested runs are tagged
    // `source: sdk` whichever backend sends them.
    /// One-shot: a run from finished results, finalized; idempotent on `externalRunId`.
    async fn ingest_report(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestReport,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.target()
            .call::<op::IngestReport>((project.into(),), (), body.clone())
            .await
    }
    /// Creates, or reuses by `externalRunId`, an open run.
    async fn ingest_start(
        &self,
        project: &str,
        body: &crate::spec::ingest::RunFields,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.target()
            .call::<op::IngestStart>((project.into(),), (), body.clone())
            .await
    }
    /// Appends a batch of results (replays skipped).
    async fn ingest_iterations(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestIterations,
    ) -> Result<crate::spec::ingest::IngestBatch> {
        self.target()
            .call::<op::IngestIterations>((project.into(),), (), body.clone())
            .await
    }
    /// Finalizes an open run (idempotent).
    async fn ingest_finalize(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestFinalize,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.target()
            .call::<op::IngestFinalize>((project.into(),), (), body.clone())
            .await
    }
    /// Mints an upload URL. The embedded backend serves no URL: 422 `FEATURE_NOT_SUPPORTED`
    /// (reason `NO_UPLOAD_SERVER`) unless the service has a public URL configured.
    async fn ingest_upload_url(
        &self,
        project: &str,
        body: &crate::spec::ingest::UploadUrlRequest,
    ) -> Result<crate::spec::ingest::UploadUrl> {
        self.target()
            .call::<op::IngestUploadUrl>((project.into(),), (), body.clone())
            .await
    }

    /// One headless agent turn over `messages` (not idempotent: never retried).
    async fn agent_turn(
        &self,
        project: &str,
        req: &crate::spec::agent::AgentTurnRequest,
    ) -> Result<crate::spec::agent::AgentTurnResponse> {
        self.target()
            .call::<op::AgentTurn>((project.into(),), (), req.clone())
            .await
    }
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
