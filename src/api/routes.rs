//! The route table and its handlers: each handler only unpacks the request and calls one
//! service method.

use axum::Json;
use axum::extract::{OriginalUri, State as AxState};
use axum::http::{Method, StatusCode};

use super::extract::{AdminBody, MemberBody, Path, Query};
use super::{Routes, State};
use crate::service::Principal;
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
use crate::spec::run::{EvalIteration, EvalRun, RunCreate, RunCreated, RunSource};
use crate::spec::schedule::{SchedulePatch, SuiteSchedule};
use crate::spec::server::{Server, ServerCreate, ServerPatch};
use crate::spec::suite::{EvalSuite, SuiteCreate, SuiteCreated, SuitePatch};
use crate::spec::{Error, Result};

type St = AxState<State>;
type R<T> = Result<Json<T>>;
type RS<T> = Result<(StatusCode, Json<T>)>;

/// Every route with its summary; `extensions()` marks what the published spec lacks.
#[rustfmt::skip]
pub(super) fn table(r: Routes) -> Routes {
    type Any = serde_json::Value;
    r.get::<Me, _, _>("/me", "The account behind the key, its organization and credit balance", me)
        .get::<Page<Project>, _, _>("/projects", "Accessible projects", projects)
        .get::<Page<Server>, _, _>("/projects/{project_id}/servers", "Saved servers", servers)
        .get::<Page<EvalSuiteSummary>, _, _>("/projects/{project_id}/eval-suites", "Eval suites with latest-run summaries", eval_suites)
        .get::<Page<HostSummary>, _, _>("/projects/{project_id}/hosts", "List hosts", hosts)
        .post::<HostCreate, Host, _, _>("/projects/{project_id}/hosts", "Create a host from a template or a full config", StatusCode::CREATED, create_host)
        .get::<Host, _, _>("/projects/{project_id}/hosts/{host_id}", "Read a host", host)
        .patch::<HostPatch, Host, _, _>("/projects/{project_id}/hosts/{host_id}", "Rename or edit a host", update_host)
        .delete::<Deleted, _, _>("/projects/{project_id}/hosts/{host_id}", "Delete a host", delete_host)
        .get::<Page<ChatSession>, _, _>("/chat-sessions", "Chat sessions", chat_sessions)
        .get::<Page<Environment>, _, _>("/projects/{project_id}/environments", "List environments", environments)
        .post::<EnvironmentCreate, Environment, _, _>("/projects/{project_id}/environments", "Create an environment", StatusCode::CREATED, create_environment)
        .get::<Environment, _, _>("/projects/{project_id}/environments/{environment_id}", "Read an environment", environment)
        .patch::<EnvironmentPatch, Environment, _, _>("/projects/{project_id}/environments/{environment_id}", "Edit an environment", update_environment)
        .get::<EnvironmentResolution, _, _>("/projects/{project_id}/environments/{environment_id}/resolve", "Preview what the environment resolves to", resolve_environment)
        .post::<RevisionGuard, Environment, _, _>("/projects/{project_id}/environments/{environment_id}/archive", "Archive an environment", StatusCode::OK, archive_environment)
        .post::<RevisionGuard, EnvironmentRestored, _, _>("/projects/{project_id}/environments/{environment_id}/restore", "Restore an archived environment", StatusCode::OK, restore_environment)
        .get::<Page<Chatbox>, _, _>("/projects/{project_id}/chatboxes", "Published chatboxes", chatboxes)
        .get::<ChatboxDetail, _, _>("/projects/{project_id}/chatboxes/{chatbox_id}", "Chatbox settings", chatbox)
        .post::<Any, ValidateResult, _, _>("/projects/{project_id}/servers/{server_id}/validate", "Connect, initialize, capture a capability snapshot", StatusCode::OK, validate)
        .post::<Any, DoctorReport, _, _>("/projects/{project_id}/servers/{server_id}/doctor", "Probe, connect, initialize, capabilities workflow", StatusCode::OK, doctor)
        .post::<Any, CheckOauthResult, _, _>("/projects/{project_id}/servers/{server_id}/check-oauth", "Whether the server is configured to require an OAuth grant (no connection)", StatusCode::OK, check_oauth)
        .post::<ListRequest, McpPage<ToolItem>, _, _>("/projects/{project_id}/servers/{server_id}/tools", "List tools", StatusCode::OK, tools)
        .post::<ToolCallRequest, Any, _, _>("/projects/{project_id}/servers/{server_id}/tools/call", "Execute a tool; the MCP call-tool result verbatim", StatusCode::OK, call_tool)
        .post::<ListRequest, McpPage<PromptItem>, _, _>("/projects/{project_id}/servers/{server_id}/prompts", "List prompts", StatusCode::OK, prompts)
        .post::<PromptGetRequest, Any, _, _>("/projects/{project_id}/servers/{server_id}/prompts/get", "Render a prompt; the MCP get-prompt result verbatim", StatusCode::OK, get_prompt)
        .post::<ListRequest, McpPage<ResourceItem>, _, _>("/projects/{project_id}/servers/{server_id}/resources", "List resources", StatusCode::OK, resources)
        .post::<ResourceReadRequest, Any, _, _>("/projects/{project_id}/servers/{server_id}/resources/read", "Read one resource by URI", StatusCode::OK, read_resource)
        .post::<Any, ExportSnapshot, _, _>("/projects/{project_id}/servers/{server_id}/export", "One JSON snapshot of tools, resources and prompts", StatusCode::OK, export)
        .post::<ImportTokensRequest, ImportTokensResult, _, _>("/projects/{project_id}/servers/{server_id}/oauth/import-tokens", "Store OAuth tokens obtained by the caller", StatusCode::OK, import_tokens)
        .post::<SuiteCreate, SuiteCreated, _, _>("/projects/{project_id}/eval-suites", "Create a suite with its test cases; starts nothing, spends nothing", StatusCode::CREATED, create_suite)
        .patch::<SuitePatch, EvalSuite, _, _>("/projects/{project_id}/eval-suites/{suite_id}", "Edit suite settings, including environmentIds", update_suite)
        .patch::<SchedulePatch, SuiteSchedule, _, _>("/projects/{project_id}/eval-suites/{suite_id}/schedule", "Enable or disable scheduled runs; environmentId pins the environment they launch", set_schedule)
        .post::<RunCreate, RunCreated, _, _>("/projects/{project_id}/eval-runs", "Create an eval run (202); see the rules for POST eval-runs", StatusCode::ACCEPTED, create_run)
        .get::<Page<EvalRun>, _, _>("/projects/{project_id}/eval-runs", "Extension: every run of the project (native, ingested, scheduled), newest first", project_runs)
        .get::<EvalRun, _, _>("/projects/{project_id}/eval-runs/{run_id}", "Run status, result and summary", run)
        .get::<Page<EvalIteration>, _, _>("/projects/{project_id}/eval-runs/{run_id}/iterations", "Per-iteration results, paginated", iterations)
        .get::<Any, _, _>("/projects/{project_id}/eval-runs/{run_id}/iterations/{iteration_id}/trace", "Full trace: messages and expected-versus-actual analysis", trace)
        .get::<Page<EvalRun>, _, _>("/projects/{project_id}/eval-suites/{suite_id}/runs", "Recent runs of a suite, newest first", suite_runs)
        .post::<EvalCaseImportRequest, ImportResponse, _, _>("/projects/{project_id}/eval-suites/{suite_id}/cases/import", "Author eval cases from a document: 200 committed (or finished uncommitted), 202 still authoring", StatusCode::OK, import_cases)
        .responds::<EvalAuthoringJobAccepted>(StatusCode::ACCEPTED, "still authoring after the wait window: poll the job (jobId) under authoring-jobs")
        .post::<IngestReport, IngestRun, _, _>("/projects/{project_id}/eval-ingest/report", "One-shot: create a run from finished results (1 to 200) and finalize it; idempotent on externalRunId ({projectId} may be `default`)", StatusCode::OK, ingest_report)
        .post::<RunFields, IngestRun, _, _>("/projects/{project_id}/eval-ingest/runs/start", "Create, or idempotently reuse, a run by externalRunId", StatusCode::OK, ingest_start)
        .post::<IngestIterations, IngestBatch, _, _>("/projects/{project_id}/eval-ingest/runs/iterations", "Append an iteration batch (up to 200) to a started run; replayed externalIterationIds are skipped", StatusCode::OK, ingest_iterations)
        .post::<IngestFinalize, IngestRun, _, _>("/projects/{project_id}/eval-ingest/runs/finalize", "Finalize a chunked run (idempotent)", StatusCode::OK, ingest_finalize)
        .post::<UploadUrlRequest, UploadUrl, _, _>("/projects/{project_id}/eval-ingest/artifacts/upload-url", "Mint a single-use, expiring upload URL for a JUnit XML, Jest JSON or Vitest JSON artifact, or (additive) an HTML widget snapshot", StatusCode::OK, ingest_upload_url)
        .post::<AgentTurnRequest, AgentTurnResponse, _, _>("/projects/{project_id}/agent", "One assistant turn over messages; reads servers, suites and runs, creates eval suites, cannot start runs. Not idempotent: on an error check details.createdResources", StatusCode::OK, agent_turn)
        .extensions()
        .get::<StoredArtifact, _, _>("/projects/{project_id}/eval-ingest/artifacts/{storage_id}", "Read back an uploaded artifact by its storageId: a widget snapshot's HTML, or a report file", ingest_artifact)
        .post::<Any, CallCancelled, _, _>("/projects/{project_id}/servers/{server_id}/calls/{call_id}/cancel", "Cancel a running tools/call that named itself with callId (the server is sent notifications/cancelled)", StatusCode::OK, cancel_call)
        .post::<ResourceReadRequest, Subscribed, _, _>("/projects/{project_id}/servers/{server_id}/resources/subscribe", "Subscribe to updates of a resource for the session's life; updates arrive as the server's protocol events", StatusCode::OK, subscribe_resource)
        .get::<TaskList, _, _>("/projects/{project_id}/servers/{server_id}/tasks", "The server's tasks: those evaldeck follows, and the server's own list where it has one", server_tasks)
        .post::<Any, TaskCancelled, _, _>("/projects/{project_id}/servers/{server_id}/tasks/{task_id}/cancel", "Ask the server to cancel a task (cooperative)", StatusCode::OK, cancel_task)
        .get::<TrafficPage, _, _>("/projects/{project_id}/servers/{server_id}/traffic", "The server's recent protocol events (JSON-RPC both ways, stderr, decisions) after `after`", server_traffic)
        .get::<ImportResponse, _, _>("/projects/{project_id}/authoring-jobs/{job_id}", "Poll an authoring job: the recorded EvalCaseImported once committed, else the job body", authoring_job)
        .post::<CommitRequest, EvalCaseImported, _, _>("/projects/{project_id}/authoring-jobs/{job_id}/commit", "Commit a completed authoring job (duplicatePolicy may be chosen now)", StatusCode::OK, commit_authoring_job)
        .post::<Any, EvalAuthoringJobAccepted, _, _>("/projects/{project_id}/authoring-jobs/{job_id}/cancel", "Cancel a pending job, or discard a completed uncommitted one", StatusCode::OK, cancel_authoring_job)
        .get::<Page<EarlierImport>, _, _>("/projects/{project_id}/eval-suites/{suite_id}/authoring-jobs", "The suite's earlier authoring jobs for the same document (?fileHash=SHA-256 of its content), newest first: clients warn before importing it again", earlier_imports)
        .get::<Page<AuthoringDraft>, _, _>("/projects/{project_id}/authoring-jobs/{job_id}/drafts", "An authoring job's drafts (?state=skipped for the review)", authoring_drafts)
        .patch::<EvalCaseUpdate, AuthoringDraft, _, _>("/projects/{project_id}/authoring-jobs/{job_id}/drafts/{draft_id}", "Save an edit of a draft (the review form): re-grounded against the job's discovered tools, its claim recomputed; it stays a draft", save_draft)
        .post::<EvalCaseUpdate, EvalCase, _, _>("/projects/{project_id}/authoring-jobs/{job_id}/drafts/{draft_id}/finish", "Write one skipped draft, optionally edited (re-grounded like a saved edit); costs nothing", StatusCode::OK, finish_draft)
        .get::<Credits, _, _>("/credits", "The organization's credit balance and ledger (grants are local: `evaldeck credits grant`)", credits)
        .post::<Any, EvalRun, _, _>("/projects/{project_id}/eval-runs/{run_id}/cancel", "Cancel an active run", StatusCode::OK, cancel_run)
        .post::<Any, EvalRun, _, _>("/projects/{project_id}/eval-runs/{run_id}/regrade", "Grade the stored transcripts again (calls nothing)", StatusCode::OK, regrade_run)
        .get::<EvalSuite, _, _>("/projects/{project_id}/eval-suites/{suite_id}", "Read a suite (by id or name) with its settings", suite)
        .delete::<Deleted, _, _>("/projects/{project_id}/eval-suites/{suite_id}", "Delete a suite and its cases", delete_suite)
        .get::<SuiteSchedule, _, _>("/projects/{project_id}/eval-suites/{suite_id}/schedule", "A suite's schedule with its recent firings", schedule)
        .get::<Page<EvalCase>, _, _>("/projects/{project_id}/eval-suites/{suite_id}/cases", "A suite's persisted cases, in order", cases)
        .post::<EvalCase, EvalCase, _, _>("/projects/{project_id}/eval-suites/{suite_id}/cases", "Add a case (persisted shape; id and times assigned)", StatusCode::CREATED, create_case)
        .get::<EvalCase, _, _>("/projects/{project_id}/eval-suites/{suite_id}/cases/{case_id}", "Read a case", case)
        .patch::<EvalCaseUpdate, EvalCase, _, _>("/projects/{project_id}/eval-suites/{suite_id}/cases/{case_id}", "Edit a case (omitted keeps, null clears)", update_case)
        .delete::<Deleted, _, _>("/projects/{project_id}/eval-suites/{suite_id}/cases/{case_id}", "Delete a case", delete_case)
        .post::<ListRequest, McpPage<ResourceTemplateItem>, _, _>("/projects/{project_id}/servers/{server_id}/resources/templates", "List resource templates", StatusCode::OK, resource_templates)
        .post::<ServerCreate, Server, _, _>("/projects/{project_id}/servers", "Save a server", StatusCode::CREATED, create_server)
        .get::<Server, _, _>("/projects/{project_id}/servers/{server_id}", "Read a saved server (by id or name)", server)
        .patch::<ServerPatch, Server, _, _>("/projects/{project_id}/servers/{server_id}", "Edit a saved server", update_server)
        .delete::<Deleted, _, _>("/projects/{project_id}/servers/{server_id}", "Delete a saved server", delete_server)
        .post::<ServerGroupCreate, Created, _, _>("/projects/{project_id}/server-groups", "Create a server group (an environment's server attachment)", StatusCode::CREATED, create_server_group)
        .post::<PluginVersionCreate, Created, _, _>("/projects/{project_id}/plugins", "Register a plugin version to pin", StatusCode::CREATED, create_plugin_version)
        .delete::<Deleted, _, _>("/projects/{project_id}/plugin-versions/{version_id}", "Delete a plugin version", delete_plugin_version)
        .post::<SkillCreate, Created, _, _>("/projects/{project_id}/skills", "Register a skill", StatusCode::CREATED, create_skill)
        .refused("/api-keys", "/api-keys", "Key management is not available over the API: every method answers 403 FORBIDDEN (use `evaldeck keys` on the service's machine)", StatusCode::FORBIDDEN, keys_forbidden)
        .refused("/api-keys/{*rest}", "/api-keys/{key_id}", "Key management is not available over the API: every method on every path below /api-keys answers 403 FORBIDDEN", StatusCode::FORBIDDEN, keys_forbidden)
}

/// Older paths kept as deprecated aliases (spec "Versioning" rule 5): the MCP method names
/// earlier clients posted to (`tools/list`, `resources/templates/list`), the verb-first
/// names (`call-tool`, `get-prompt`, `read-resource`) and `evals/suites`.
#[rustfmt::skip]
pub(super) fn aliases(r: Routes) -> Routes {
    r.alias(Method::POST, "/projects/{project_id}/servers/{server_id}/tools/list", "/projects/{project_id}/servers/{server_id}/tools")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/call-tool", "/projects/{project_id}/servers/{server_id}/tools/call")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/prompts/list", "/projects/{project_id}/servers/{server_id}/prompts")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/get-prompt", "/projects/{project_id}/servers/{server_id}/prompts/get")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/resources/list", "/projects/{project_id}/servers/{server_id}/resources")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/read-resource", "/projects/{project_id}/servers/{server_id}/resources/read")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/resources/templates/list", "/projects/{project_id}/servers/{server_id}/resources/templates")
        .alias(Method::GET, "/projects/{project_id}/evals/suites", "/projects/{project_id}/eval-suites")
}

pub(super) async fn not_found(method: Method, OriginalUri(uri): OriginalUri) -> Error {
    Error::new(
        crate::spec::Code::NotFound,
        format!("no route for {method} {}", uri.path()),
    )
}

pub(super) async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> Error {
    Error::new(
        crate::spec::Code::NotFound,
        format!("{} does not answer {method}", uri.path()),
    )
}

async fn keys_forbidden() -> Error {
    Error::forbidden(
        "API keys cannot manage API keys; use `evaldeck keys` on the service's machine",
    )
}

async fn me(AxState(s): St, who: Principal) -> R<Me> {
    s.service.me(&who).map(Json)
}

async fn projects(
    AxState(s): St,
    who: Principal,
    Query(q): Query<ProjectQuery>,
    Query(page): Query<PageRequest>,
) -> R<Page<Project>> {
    s.service.projects(&who, &q, &page).map(Json)
}

async fn servers(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    Query(page): Query<PageRequest>,
) -> R<Page<Server>> {
    s.service.servers(&who, &p, &page).map(Json)
}

async fn server(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<Server> {
    s.service.server(&who, &p, &id).map(Json)
}

async fn create_server(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    AdminBody(b): AdminBody<ServerCreate>,
) -> RS<Server> {
    s.service
        .create_server(&who, &p, &b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

async fn update_server(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
    AdminBody(b): AdminBody<ServerPatch>,
) -> R<Server> {
    s.service.update_server(&who, &p, &id, &b).map(Json)
}

async fn delete_server(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<Deleted> {
    s.service.delete_server(&who, &p, &id).map(Json)
}

async fn eval_suites(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    Query(page): Query<PageRequest>,
) -> Result<axum::response::Response> {
    s.suite_pages.get(&s.service, &who, &p, &page)
}

async fn hosts(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    Query(page): Query<PageRequest>,
) -> R<Page<HostSummary>> {
    s.service.hosts(&who, &p, &page).map(Json)
}

async fn host(AxState(s): St, who: Principal, Path((p, id)): Path<(String, String)>) -> R<Host> {
    s.service.host(&who, &p, &id).map(Json)
}

async fn create_host(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    AdminBody(b): AdminBody<HostCreate>,
) -> RS<Host> {
    s.service
        .create_host(&who, &p, &b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

async fn update_host(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
    AdminBody(b): AdminBody<HostPatch>,
) -> R<Host> {
    s.service.update_host(&who, &p, &id, &b).map(Json)
}

async fn delete_host(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<Deleted> {
    s.service.delete_host(&who, &p, &id).map(Json)
}

async fn chat_sessions(
    AxState(s): St,
    who: Principal,
    Query(q): Query<ChatSessionQuery>,
) -> R<Page<ChatSession>> {
    s.service.chat_sessions(&who, &q).map(Json)
}

async fn environments(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    Query(q): Query<EnvironmentQuery>,
) -> R<Page<Environment>> {
    s.service.environments(&who, &p, &q).map(Json)
}

async fn environment(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<Environment> {
    s.service.environment(&who, &p, &id).map(Json)
}

async fn create_environment(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    AdminBody(b): AdminBody<EnvironmentCreate>,
) -> RS<Environment> {
    s.service
        .create_environment(&who, &p, &b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

async fn update_environment(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
    AdminBody(b): AdminBody<EnvironmentPatch>,
) -> R<Environment> {
    s.service.update_environment(&who, &p, &id, &b).map(Json)
}

async fn resolve_environment(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<EnvironmentResolution> {
    s.service.resolve_environment(&who, &p, &id).map(Json)
}

async fn archive_environment(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
    AdminBody(b): AdminBody<RevisionGuard>,
) -> R<Environment> {
    s.service
        .archive_environment(&who, &p, &id, b.expected_revision)
        .map(Json)
}

async fn restore_environment(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
    AdminBody(b): AdminBody<RevisionGuard>,
) -> R<EnvironmentRestored> {
    s.service
        .restore_environment(&who, &p, &id, b.expected_revision)
        .map(Json)
}

async fn chatboxes(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    Query(page): Query<PageRequest>,
) -> R<Page<Chatbox>> {
    s.service.chatboxes(&who, &p, &page).map(Json)
}

async fn chatbox(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<ChatboxDetail> {
    s.service.chatbox(&who, &p, &id).map(Json)
}

async fn create_server_group(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    AdminBody(b): AdminBody<ServerGroupCreate>,
) -> RS<Created> {
    s.service
        .create_server_group(&who, &p, &b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

async fn create_plugin_version(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    AdminBody(b): AdminBody<PluginVersionCreate>,
) -> RS<Created> {
    s.service
        .create_plugin_version(&who, &p, &b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

async fn delete_plugin_version(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<Deleted> {
    s.service.delete_plugin_version(&who, &p, &id).map(Json)
}

async fn create_skill(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    AdminBody(b): AdminBody<SkillCreate>,
) -> RS<Created> {
    s.service
        .create_skill(&who, &p, &b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

type ServerPath = Path<(String, String)>;

async fn validate(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(_): MemberBody<serde_json::Value>,
) -> R<ValidateResult> {
    s.service.validate_server(&who, &p, &id).await.map(Json)
}

async fn doctor(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(_): MemberBody<serde_json::Value>,
) -> R<DoctorReport> {
    s.service.doctor(&who, &p, &id).await.map(Json)
}

async fn check_oauth(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(_): MemberBody<serde_json::Value>,
) -> R<CheckOauthResult> {
    s.service.check_oauth(&who, &p, &id).map(Json)
}

async fn tools(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ListRequest>,
) -> R<McpPage<ToolItem>> {
    s.service.tools(&who, &p, &id, &b).await.map(Json)
}

async fn call_tool(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ToolCallRequest>,
) -> R<serde_json::Value> {
    s.service.call_tool(&who, &p, &id, &b).await.map(Json)
}

async fn cancel_call(
    AxState(s): St,
    who: Principal,
    Path((p, id, call)): Path<(String, String, String)>,
    MemberBody(_): MemberBody<serde_json::Value>,
) -> R<CallCancelled> {
    s.service.cancel_call(&who, &p, &id, &call).map(Json)
}

async fn subscribe_resource(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ResourceReadRequest>,
) -> R<Subscribed> {
    s.service
        .subscribe_resource(&who, &p, &id, &b)
        .await
        .map(Json)
}

async fn server_tasks(AxState(s): St, who: Principal, Path((p, id)): ServerPath) -> R<TaskList> {
    s.service.server_tasks(&who, &p, &id).await.map(Json)
}

async fn cancel_task(
    AxState(s): St,
    who: Principal,
    Path((p, id, task)): Path<(String, String, String)>,
    MemberBody(_): MemberBody<serde_json::Value>,
) -> R<TaskCancelled> {
    s.service.cancel_task(&who, &p, &id, &task).await.map(Json)
}

async fn server_traffic(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    Query(q): Query<TrafficQuery>,
) -> R<TrafficPage> {
    s.service.server_traffic(&who, &p, &id, q.after).map(Json)
}

async fn prompts(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ListRequest>,
) -> R<McpPage<PromptItem>> {
    s.service.prompts(&who, &p, &id, &b).await.map(Json)
}

async fn get_prompt(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<PromptGetRequest>,
) -> R<serde_json::Value> {
    s.service.get_prompt(&who, &p, &id, &b).await.map(Json)
}

async fn resources(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ListRequest>,
) -> R<McpPage<ResourceItem>> {
    s.service.resources(&who, &p, &id, &b).await.map(Json)
}

async fn resource_templates(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ListRequest>,
) -> R<McpPage<ResourceTemplateItem>> {
    s.service
        .resource_templates(&who, &p, &id, &b)
        .await
        .map(Json)
}

async fn read_resource(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ResourceReadRequest>,
) -> R<serde_json::Value> {
    s.service.read_resource(&who, &p, &id, &b).await.map(Json)
}

async fn export(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(_): MemberBody<serde_json::Value>,
) -> R<ExportSnapshot> {
    s.service.export(&who, &p, &id).await.map(Json)
}

async fn import_tokens(
    AxState(s): St,
    who: Principal,
    Path((p, id)): ServerPath,
    MemberBody(b): MemberBody<ImportTokensRequest>,
) -> R<ImportTokensResult> {
    s.service.import_tokens(&who, &p, &id, &b).await.map(Json)
}

type SuitePath = Path<(String, String)>;
type CasePath = Path<(String, String, String)>;

async fn create_suite(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    MemberBody(b): MemberBody<SuiteCreate>,
) -> RS<SuiteCreated> {
    s.service
        .create_suite(&who, &p, &b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

async fn suite(AxState(s): St, who: Principal, Path((p, id)): SuitePath) -> R<EvalSuite> {
    s.service.suite(&who, &p, &id).map(Json)
}

async fn update_suite(
    AxState(s): St,
    who: Principal,
    Path((p, id)): SuitePath,
    MemberBody(b): MemberBody<SuitePatch>,
) -> R<EvalSuite> {
    s.service.update_suite(&who, &p, &id, &b).map(Json)
}

async fn delete_suite(AxState(s): St, who: Principal, Path((p, id)): SuitePath) -> R<Deleted> {
    s.service.delete_suite(&who, &p, &id).map(Json)
}

async fn schedule(AxState(s): St, who: Principal, Path((p, id)): SuitePath) -> R<SuiteSchedule> {
    s.service.schedule(&who, &p, &id).map(Json)
}

async fn set_schedule(
    AxState(s): St,
    who: Principal,
    Path((p, id)): SuitePath,
    MemberBody(b): MemberBody<SchedulePatch>,
) -> R<SuiteSchedule> {
    s.service.set_schedule(&who, &p, &id, &b).map(Json)
}

async fn cases(
    AxState(s): St,
    who: Principal,
    Path((p, id)): SuitePath,
    Query(page): Query<PageRequest>,
) -> R<Page<EvalCase>> {
    s.service.cases(&who, &p, &id, &page).map(Json)
}

async fn create_case(
    AxState(s): St,
    who: Principal,
    Path((p, id)): SuitePath,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> RS<EvalCase> {
    s.service
        .create_case(&who, &p, &id, b)
        .map(|v| (StatusCode::CREATED, Json(v)))
}

async fn case(AxState(s): St, who: Principal, Path((p, sid, cid)): CasePath) -> R<EvalCase> {
    s.service.case(&who, &p, &sid, &cid).map(Json)
}

async fn update_case(
    AxState(s): St,
    who: Principal,
    Path((p, sid, cid)): CasePath,
    MemberBody(b): MemberBody<EvalCaseUpdate>,
) -> R<EvalCase> {
    s.service.update_case(&who, &p, &sid, &cid, &b).map(Json)
}

async fn delete_case(AxState(s): St, who: Principal, Path((p, sid, cid)): CasePath) -> R<Deleted> {
    s.service.delete_case(&who, &p, &sid, &cid).map(Json)
}

// Eval runs.

type RunPath = Path<(String, String)>;

async fn create_run(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    MemberBody(b): MemberBody<RunCreate>,
) -> RS<RunCreated> {
    s.service
        .create_run(&who, &p, &b, RunSource::Api)
        .await
        .map(|v| (StatusCode::ACCEPTED, Json(v)))
}

async fn run(AxState(s): St, who: Principal, Path((p, id)): RunPath) -> R<EvalRun> {
    s.service.run(&who, &p, &id).map(Json)
}

async fn iterations(
    AxState(s): St,
    who: Principal,
    Path((p, id)): RunPath,
    Query(page): Query<PageRequest>,
) -> R<Page<EvalIteration>> {
    s.service.iterations(&who, &p, &id, &page).map(Json)
}

async fn trace(
    AxState(s): St,
    who: Principal,
    Path((p, id, it)): Path<(String, String, String)>,
) -> R<serde_json::Value> {
    s.service.trace(&who, &p, &id, &it).map(Json)
}

async fn project_runs(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    Query(page): Query<PageRequest>,
) -> R<Page<EvalRun>> {
    s.service.project_runs(&who, &p, &page).map(Json)
}

async fn suite_runs(
    AxState(s): St,
    who: Principal,
    Path((p, id)): SuitePath,
    Query(page): Query<PageRequest>,
) -> R<Page<EvalRun>> {
    s.service.suite_runs(&who, &p, &id, &page).map(Json)
}

async fn cancel_run(AxState(s): St, who: Principal, Path((p, id)): RunPath) -> R<EvalRun> {
    s.service.cancel_run(&who, &p, &id).await.map(Json)
}

async fn regrade_run(AxState(s): St, who: Principal, Path((p, id)): RunPath) -> R<EvalRun> {
    s.service.regrade_run(&who, &p, &id).map(Json)
}

// Authoring (`cases/import`) and credits.

use crate::spec::authoring::{
    AuthoringDraft, CommitRequest, Credits, DraftQuery, EarlierImport, EarlierImportQuery,
};
use crate::spec::import::{
    EvalAuthoringJobAccepted, EvalCaseImportRequest, EvalCaseImported, ImportResponse, JobStatus,
};

type JobPath = Path<(String, String)>;

/// Reads the import body with the request's own rule names (`enum` for a bad
/// `duplicatePolicy`) and the idempotency key headers, first match wins.
async fn import_cases(
    AxState(s): St,
    who: Principal,
    Path((p, id)): SuitePath,
    headers: axum::http::HeaderMap,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> RS<ImportResponse> {
    let req: EvalCaseImportRequest = crate::spec::case::decode(b)?;
    req.validate()?;
    let mut keys = Vec::new();
    for name in [
        "x-evaldeck-idempotency-key",
        "x-service-idempotency-key",
        "idempotency-key",
    ] {
        if let Some(v) = headers.get(name) {
            keys.push(Some(v.to_str().map_err(|_| {
                Error::invalid(
                    "/idempotencyKey",
                    "type",
                    format!("the `{name}` header is not text"),
                )
            })?));
        }
    }
    let key = crate::service::authoring::idempotency_key(&keys, None);
    let r = s.service.import_cases(&who, &p, &id, &req, key).await?;
    let status = match &r {
        ImportResponse::Job(j) if j.status == JobStatus::Pending => StatusCode::ACCEPTED,
        _ => StatusCode::OK,
    };
    Ok((status, Json(r)))
}

async fn authoring_job(AxState(s): St, who: Principal, Path((p, j)): JobPath) -> R<ImportResponse> {
    s.service.authoring_job(&who, &p, &j).map(Json)
}

async fn commit_authoring_job(
    AxState(s): St,
    who: Principal,
    Path((p, j)): JobPath,
    MemberBody(b): MemberBody<CommitRequest>,
) -> R<EvalCaseImported> {
    s.service.commit_authoring_job(&who, &p, &j, &b).map(Json)
}

async fn cancel_authoring_job(
    AxState(s): St,
    who: Principal,
    Path((p, j)): JobPath,
) -> R<EvalAuthoringJobAccepted> {
    s.service.cancel_authoring_job(&who, &p, &j).map(Json)
}

async fn authoring_drafts(
    AxState(s): St,
    who: Principal,
    Path((p, j)): JobPath,
    Query(q): Query<DraftQuery>,
) -> R<Page<AuthoringDraft>> {
    s.service.authoring_drafts(&who, &p, &j, &q).map(Json)
}

async fn earlier_imports(
    AxState(s): St,
    who: Principal,
    Path((p, suite)): Path<(String, String)>,
    Query(q): Query<EarlierImportQuery>,
) -> R<Page<EarlierImport>> {
    s.service.earlier_imports(&who, &p, &suite, &q).map(Json)
}

async fn save_draft(
    AxState(s): St,
    who: Principal,
    Path((p, j, d)): Path<(String, String, String)>,
    MemberBody(b): MemberBody<EvalCaseUpdate>,
) -> R<AuthoringDraft> {
    s.service.save_draft(&who, &p, &j, &d, &b).map(Json)
}

async fn finish_draft(
    AxState(s): St,
    who: Principal,
    Path((p, j, d)): Path<(String, String, String)>,
    MemberBody(b): MemberBody<EvalCaseUpdate>,
) -> R<EvalCase> {
    s.service.finish_draft(&who, &p, &j, &d, &b).map(Json)
}

async fn credits(AxState(s): St, who: Principal) -> R<Credits> {
    s.service.credits(&who).map(Json)
}

// The headless agent turn.

use crate::spec::agent::{AgentTurnRequest, AgentTurnResponse};

async fn agent_turn(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    MemberBody(b): MemberBody<AgentTurnRequest>,
) -> R<AgentTurnResponse> {
    s.service.agent_turn(&who, &p, &b).await.map(Json)
}

// Result ingestion.

use crate::spec::ingest::{
    ArtifactUploaded, IngestBatch, IngestBody, IngestFinalize, IngestIterations, IngestReport,
    IngestRun, RunFields, StoredArtifact, UploadUrl, UploadUrlRequest,
};

async fn ingest_report(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> R<IngestRun> {
    let b = IngestReport::decode(b)?;
    s.service.ingest_report(&who, &p, &b).map(Json)
}

async fn ingest_start(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> R<IngestRun> {
    let b = RunFields::decode(b)?;
    s.service.ingest_start(&who, &p, &b).map(Json)
}

async fn ingest_iterations(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> R<IngestBatch> {
    let b = IngestIterations::decode(b)?;
    s.service.ingest_iterations(&who, &p, &b).map(Json)
}

async fn ingest_finalize(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> R<IngestRun> {
    let b = IngestFinalize::decode(b)?;
    s.service.ingest_finalize(&who, &p, &b).map(Json)
}

async fn ingest_artifact(
    AxState(s): St,
    who: Principal,
    Path((p, id)): Path<(String, String)>,
) -> R<StoredArtifact> {
    s.service.ingest_artifact(&who, &p, &id).map(Json)
}

/// The upload URL's origin: `serve --public-url`, else where this request arrived.
async fn ingest_upload_url(
    AxState(s): St,
    who: Principal,
    Path(p): Path<String>,
    headers: axum::http::HeaderMap,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> R<UploadUrl> {
    let b = UploadUrlRequest::decode(b)?;
    let origin = s.config.public_url.clone().or_else(|| {
        headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(|h| format!("http://{h}"))
    });
    s.service
        .ingest_upload_url(&who, &p, &b, origin.as_deref())
        .map(Json)
}

/// `POST /eval-ingest/uploads/{token}`: outside the API-key layer; the token authorizes.
/// In this order, before a byte of the body is read: the per-address rate limit (429
/// `RATE_LIMITED` with `Retry-After`), then the token (401 for an unknown, used or expired
/// one; the connection is closed on the unread body). Only then is the body, the raw file
/// (any content type; `text/html` marks a widget snapshot), read up to the configured cap.
pub(super) async fn upload_artifact(
    AxState(s): St,
    Path(token): Path<String>,
    req: axum::extract::Request,
) -> R<ArtifactUploaded> {
    if let Some(limiter) = &s.upload_limiter {
        let addr = req
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip().to_string())
            .unwrap_or_default();
        if let Err(secs) = limiter.check(&addr) {
            return Err(Error::rate_limited(secs, None));
        }
    }
    s.service.upload_token(&token)?;
    let max = s.service.config().ingest.max_artifact_bytes;
    let content_type = req
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bytes = axum::body::to_bytes(req.into_body(), max.saturating_add(1))
        .await
        .map_err(|_| {
            Error::invalid(
                "",
                "maxBodySize",
                format!("the artifact is larger than {max} bytes"),
            )
        })?;
    let service = s.service.clone();
    tokio::task::spawn_blocking(move || {
        service.ingest_upload(&token, content_type.as_deref(), &bytes)
    })
    .await
    .map_err(|e| Error::internal(format!("the upload task failed: {e}")))?
    .map(Json)
}
