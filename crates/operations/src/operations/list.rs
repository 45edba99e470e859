//! Every `/api/v1` operation, in the order the OpenAPI document lists them: the published
//! contract first, then evaldeck's extensions. The syntax is in `define.rs`.

use serde_json::Value;

use crate::spec::agent::{AgentTurnRequest, AgentTurnResponse};
use crate::spec::authoring::{
    AuthoringDraft, CommitRequest, DraftQuery, EarlierImport, EarlierImportQuery,
};
use crate::spec::case::{EvalCase, EvalCaseUpdate};
use crate::spec::catalog::{
    ChatSession, ChatSessionQuery, ChatboxDetail, Deleted, EvalSuiteSummary, Project, ProjectQuery,
};
use crate::spec::environment::{
    Created, EnvironmentCreate, EnvironmentPatch, EnvironmentQuery, EnvironmentResolution,
    EnvironmentRestored, PluginVersionCreate, RevisionGuard, ServerGroupCreate, SkillCreate,
};
use crate::spec::host::{HostCreate, HostPatch, HostSummary};
use crate::spec::import::{
    EvalAuthoringJobAccepted, EvalCaseImportRequest, EvalCaseImported, ImportResponse,
};
use crate::spec::ingest::{
    IngestBatch, IngestRun, RunFields, StoredArtifact, UploadUrl, UploadUrlRequest,
};
use crate::spec::page::{Page, PageRequest};
use crate::spec::primitives::{
    CallCancelled, CheckOauthResult, DoctorReport, ExportSnapshot, ImportTokensRequest,
    ImportTokensResult, ListRequest, McpPage, PromptGetRequest, PromptItem, ResourceItem,
    ResourceReadRequest, ResourceTemplateItem, Subscribed, TaskCancelled, TaskList,
    ToolCallRequest, ToolItem, TrafficPage, TrafficQuery, ValidateResult,
};
use crate::spec::run::{EvalIteration, EvalRun, RunCreate, RunCreated};
use crate::spec::schedule::{SchedulePatch, SuiteSchedule};
use crate::spec::server::{ServerCreate, ServerPatch};
use crate::spec::suite::{EvalSuite, SuiteCreate, SuiteCreated, SuitePatch};
use crate::spec::widget::{ViewRecord, WidgetRenderRequest};
use crate::spec::{authoring, catalog, environment, host, ingest, server};

pub(super) fn visit_all(v: &mut impl super::Visit) {
    published(v);
    extensions(v);
}

#[rustfmt::skip]
operations! { published, extension = false;
    Me: GET "/me", path(), query(), body none,
        -> catalog::Me, 200, "The account behind the key, its organization and credit balance",
        |s, who| s.me(who);
    Projects: GET "/projects", path(), query(q: ProjectQuery, page: PageRequest), body none,
        -> Page<Project>, 200, "Accessible projects",
        |s, who| s.projects(who, &q, &page);
    Servers: GET "/projects/{project_id}/servers", path(p), query(page: PageRequest), body none,
        -> Page<server::Server>, 200, "Saved servers",
        |s, who| s.servers(who, &p, &page);
    EvalSuites: GET "/projects/{project_id}/eval-suites", path(p), query(page: PageRequest), body none,
        -> Page<EvalSuiteSummary>, 200, "Eval suites with latest-run summaries",
        handwritten("over HTTP it answers from the per-key suite-page cache"),
        |s, who| s.eval_suites(who, &p, &page);
    Hosts: GET "/projects/{project_id}/hosts", path(p), query(page: PageRequest), body none,
        -> Page<HostSummary>, 200, "List hosts",
        |s, who| s.hosts(who, &p, &page);
    CreateHost: POST "/projects/{project_id}/hosts", path(p), query(), body admin(b: HostCreate),
        -> host::Host, 201, "Create a host from a template or a full config",
        |s, who| s.create_host(who, &p, &b);
    Host: GET "/projects/{project_id}/hosts/{host_id}", path(p, id), query(), body none,
        -> host::Host, 200, "Read a host",
        |s, who| s.host(who, &p, &id);
    UpdateHost: PATCH "/projects/{project_id}/hosts/{host_id}", path(p, id), query(), body admin(b: HostPatch),
        -> host::Host, 200, "Rename or edit a host",
        |s, who| s.update_host(who, &p, &id, &b);
    DeleteHost: DELETE "/projects/{project_id}/hosts/{host_id}", path(p, id), query(), body none,
        -> Deleted, 200, "Delete a host",
        |s, who| s.delete_host(who, &p, &id);
    ChatSessions: GET "/chat-sessions", path(), query(q: ChatSessionQuery), body none,
        -> Page<ChatSession>, 200, "Chat sessions",
        |s, who| s.chat_sessions(who, &q);
    Environments: GET "/projects/{project_id}/environments", path(p), query(q: EnvironmentQuery), body none,
        -> Page<environment::Environment>, 200, "List environments",
        |s, who| s.environments(who, &p, &q);
    CreateEnvironment: POST "/projects/{project_id}/environments", path(p), query(), body admin(b: EnvironmentCreate),
        -> environment::Environment, 201, "Create an environment",
        |s, who| s.create_environment(who, &p, &b);
    Environment: GET "/projects/{project_id}/environments/{environment_id}", path(p, id), query(), body none,
        -> environment::Environment, 200, "Read an environment",
        |s, who| s.environment(who, &p, &id);
    UpdateEnvironment: PATCH "/projects/{project_id}/environments/{environment_id}", path(p, id), query(), body admin(b: EnvironmentPatch),
        -> environment::Environment, 200, "Edit an environment",
        |s, who| s.update_environment(who, &p, &id, &b);
    ResolveEnvironment: GET "/projects/{project_id}/environments/{environment_id}/resolve", path(p, id), query(), body none,
        -> EnvironmentResolution, 200, "Preview what the environment resolves to",
        |s, who| s.resolve_environment(who, &p, &id);
    ArchiveEnvironment: POST "/projects/{project_id}/environments/{environment_id}/archive", path(p, id), query(), body admin(b: RevisionGuard),
        -> environment::Environment, 200, "Archive an environment",
        |s, who| s.archive_environment(who, &p, &id, b.expected_revision);
    RestoreEnvironment: POST "/projects/{project_id}/environments/{environment_id}/restore", path(p, id), query(), body admin(b: RevisionGuard),
        -> EnvironmentRestored, 200, "Restore an archived environment",
        |s, who| s.restore_environment(who, &p, &id, b.expected_revision);
    Chatboxes: GET "/projects/{project_id}/chatboxes", path(p), query(page: PageRequest), body none,
        -> Page<catalog::Chatbox>, 200, "Published chatboxes",
        |s, who| s.chatboxes(who, &p, &page);
    Chatbox: GET "/projects/{project_id}/chatboxes/{chatbox_id}", path(p, id), query(), body none,
        -> ChatboxDetail, 200, "Chatbox settings",
        |s, who| s.chatbox(who, &p, &id);
    ValidateServer: POST "/projects/{project_id}/servers/{server_id}/validate", path(p, id), query(), body member(_b: Value),
        -> ValidateResult, 200, "Connect, initialize, capture a capability snapshot",
        |s, who| s.validate_server(who, &p, &id).await;
    Doctor: POST "/projects/{project_id}/servers/{server_id}/doctor", path(p, id), query(), body member(_b: Value),
        -> DoctorReport, 200, "Probe, connect, initialize, capabilities workflow",
        |s, who| s.doctor(who, &p, &id).await;
    CheckOauth: POST "/projects/{project_id}/servers/{server_id}/check-oauth", path(p, id), query(), body member(_b: Value),
        -> CheckOauthResult, 200, "Whether the server is configured to require an OAuth grant (no connection)",
        |s, who| s.check_oauth(who, &p, &id);
    Tools: POST "/projects/{project_id}/servers/{server_id}/tools", path(p, id), query(), body member(b: ListRequest),
        -> McpPage<ToolItem>, 200, "List tools",
        |s, who| s.tools(who, &p, &id, &b).await;
    CallTool: POST "/projects/{project_id}/servers/{server_id}/tools/call", path(p, id), query(), body member(b: ToolCallRequest),
        -> Value, 200, "Execute a tool; the MCP call-tool result verbatim",
        |s, who| s.call_tool(who, &p, &id, &b).await;
    Prompts: POST "/projects/{project_id}/servers/{server_id}/prompts", path(p, id), query(), body member(b: ListRequest),
        -> McpPage<PromptItem>, 200, "List prompts",
        |s, who| s.prompts(who, &p, &id, &b).await;
    GetPrompt: POST "/projects/{project_id}/servers/{server_id}/prompts/get", path(p, id), query(), body member(b: PromptGetRequest),
        -> Value, 200, "Render a prompt; the MCP get-prompt result verbatim",
        |s, who| s.get_prompt(who, &p, &id, &b).await;
    Resources: POST "/projects/{project_id}/servers/{server_id}/resources", path(p, id), query(), body member(b: ListRequest),
        -> McpPage<ResourceItem>, 200, "List resources",
        |s, who| s.resources(who, &p, &id, &b).await;
    ReadResource: POST "/projects/{project_id}/servers/{server_id}/resources/read", path(p, id), query(), body member(b: ResourceReadRequest),
        -> Value, 200, "Read one resource by URI",
        |s, who| s.read_resource(who, &p, &id, &b).await;
    Export: POST "/projects/{project_id}/servers/{server_id}/export", path(p, id), query(), body member(_b: Value),
        -> ExportSnapshot, 200, "One JSON snapshot of tools, resources and prompts",
        |s, who| s.export(who, &p, &id).await;
    ImportTokens: POST "/projects/{project_id}/servers/{server_id}/oauth/import-tokens", path(p, id), query(), body member(b: ImportTokensRequest),
        -> ImportTokensResult, 200, "Store OAuth tokens obtained by the caller",
        |s, who| s.import_tokens(who, &p, &id, &b).await;
    CreateSuite: POST "/projects/{project_id}/eval-suites", path(p), query(), body member(b: SuiteCreate),
        -> SuiteCreated, 201, "Create a suite with its test cases; starts nothing, spends nothing",
        |s, who| s.create_suite(who, &p, &b);
    UpdateSuite: PATCH "/projects/{project_id}/eval-suites/{suite_id}", path(p, id), query(), body member(b: SuitePatch),
        -> EvalSuite, 200, "Edit suite settings, including environmentIds",
        |s, who| s.update_suite(who, &p, &id, &b);
    SetSchedule: PATCH "/projects/{project_id}/eval-suites/{suite_id}/schedule", path(p, id), query(), body member(b: SchedulePatch),
        -> SuiteSchedule, 200, "Enable or disable scheduled runs; environmentId pins the environment they launch",
        |s, who| s.set_schedule(who, &p, &id, &b);
    CreateRun: POST "/projects/{project_id}/eval-runs", path(p), query(), body member(b: RunCreate),
        -> RunCreated, 202, "Create an eval run (202); see the rules for POST eval-runs",
        |s, who| s.create_run(who, &p, &b, s.source).await;
    ProjectRuns: GET "/projects/{project_id}/eval-runs", path(p), query(page: PageRequest), body none,
        -> Page<EvalRun>, 200, "Extension: every run of the project (native, ingested, scheduled), newest first",
        |s, who| s.project_runs(who, &p, &page);
    Run: GET "/projects/{project_id}/eval-runs/{run_id}", path(p, id), query(), body none,
        -> EvalRun, 200, "Run status, result and summary",
        |s, who| s.run(who, &p, &id);
    Iterations: GET "/projects/{project_id}/eval-runs/{run_id}/iterations", path(p, id), query(page: PageRequest), body none,
        -> Page<EvalIteration>, 200, "Per-iteration results, paginated",
        |s, who| s.iterations(who, &p, &id, &page);
    Trace: GET "/projects/{project_id}/eval-runs/{run_id}/iterations/{iteration_id}/trace", path(p, id, it), query(), body none,
        -> Value, 200, "Full trace: messages and expected-versus-actual analysis",
        |s, who| s.trace(who, &p, &id, &it);
    SuiteRuns: GET "/projects/{project_id}/eval-suites/{suite_id}/runs", path(p, id), query(page: PageRequest), body none,
        -> Page<EvalRun>, 200, "Recent runs of a suite, newest first",
        |s, who| s.suite_runs(who, &p, &id, &page);
    ImportCases: POST "/projects/{project_id}/eval-suites/{suite_id}/cases/import", path(p, id), query(), body member(b: EvalCaseImportRequest),
        -> ImportResponse, 200, "Author eval cases from a document: 200 committed (or finished uncommitted), 202 still authoring",
        also(202, EvalAuthoringJobAccepted, "still authoring after the wait window: poll the job (jobId) under authoring-jobs"),
        handwritten("over HTTP it reads idempotency keys from headers and answers 200 or 202 by the job's state"),
        |s, who| s.import_cases(who, &p, &id, &b, None).await;
    IngestReport: POST "/projects/{project_id}/eval-ingest/report", path(p), query(), body decoded(b: ingest::IngestReport),
        -> IngestRun, 200, "One-shot: create a run from finished results (1 to 200) and finalize it; idempotent on externalRunId ({projectId} may be `default`)",
        |s, who| s.ingest_report(who, &p, &b);
    IngestStart: POST "/projects/{project_id}/eval-ingest/runs/start", path(p), query(), body decoded(b: RunFields),
        -> IngestRun, 200, "Create, or idempotently reuse, a run by externalRunId",
        |s, who| s.ingest_start(who, &p, &b);
    IngestIterations: POST "/projects/{project_id}/eval-ingest/runs/iterations", path(p), query(), body decoded(b: ingest::IngestIterations),
        -> IngestBatch, 200, "Append an iteration batch (up to 200) to a started run; replayed externalIterationIds are skipped",
        |s, who| s.ingest_iterations(who, &p, &b);
    IngestFinalize: POST "/projects/{project_id}/eval-ingest/runs/finalize", path(p), query(), body decoded(b: ingest::IngestFinalize),
        -> IngestRun, 200, "Finalize a chunked run (idempotent)",
        |s, who| s.ingest_finalize(who, &p, &b);
    IngestUploadUrl: POST "/projects/{project_id}/eval-ingest/artifacts/upload-url", path(p), query(), body decoded(b: UploadUrlRequest),
        -> UploadUrl, 200, "Mint a single-use, expiring upload URL for a JUnit XML, Jest JSON or Vitest JSON artifact",
        handwritten("over HTTP the URL's origin is `serve --public-url` or the request's Host"),
        |s, who| s.ingest_upload_url(who, &p, &b, None);
    AgentTurn: POST "/projects/{project_id}/agent", path(p), query(), body member(b: AgentTurnRequest),
        -> AgentTurnResponse, 200, "One assistant turn over messages; reads servers, suites and runs, creates eval suites, cannot start runs. Not idempotent: on an error check details.createdResources",
        |s, who| s.agent_turn(who, &p, &b).await;
}

#[rustfmt::skip]
operations! { extensions, extension = true;
    CancelCall: POST "/projects/{project_id}/servers/{server_id}/calls/{call_id}/cancel", path(p, id, call), query(), body member(_b: Value),
        -> CallCancelled, 200, "Cancel a running tools/call that named itself with callId (the server is sent notifications/cancelled)",
        |s, who| s.cancel_call(who, &p, &id, &call);
    SubscribeResource: POST "/projects/{project_id}/servers/{server_id}/resources/subscribe", path(p, id), query(), body member(b: ResourceReadRequest),
        -> Subscribed, 200, "Subscribe to updates of a resource for the session's life; updates arrive as the server's protocol events",
        |s, who| s.subscribe_resource(who, &p, &id, &b).await;
    IngestArtifact: GET "/projects/{project_id}/eval-ingest/artifacts/{storage_id}", path(p, id), query(), body none,
        -> StoredArtifact, 200, "Read back an uploaded artifact by its storageId: a widget snapshot's HTML, or a report file",
        |s, who| s.ingest_artifact(who, &p, &id);
    RenderWidget: POST "/projects/{project_id}/servers/{server_id}/widgets/render", path(p, id), query(), body member(b: WidgetRenderRequest),
        -> ViewRecord, 200, "Render a tool's MCP Apps view from a call's arguments and result in headless Chromium: initialization, latency, console, the view's own calls and a PNG screenshot",
        |s, who| s.render_widget(who, &p, &id, &b).await;
    ServerTasks: GET "/projects/{project_id}/servers/{server_id}/tasks", path(p, id), query(), body none,
        -> TaskList, 200, "The server's tasks: those evaldeck follows, and the server's own list where it has one",
        |s, who| s.server_tasks(who, &p, &id).await;
    CancelTask: POST "/projects/{project_id}/servers/{server_id}/tasks/{task_id}/cancel", path(p, id, task), query(), body member(_b: Value),
        -> TaskCancelled, 200, "Ask the server to cancel a task (cooperative)",
        |s, who| s.cancel_task(who, &p, &id, &task).await;
    ServerTraffic: GET "/projects/{project_id}/servers/{server_id}/traffic", path(p, id), query(q: TrafficQuery), body none,
        -> TrafficPage, 200, "The server's recent protocol events (JSON-RPC both ways, stderr, decisions) after `after`",
        |s, who| s.server_traffic(who, &p, &id, q.after);
    AuthoringJob: GET "/projects/{project_id}/authoring-jobs/{job_id}", path(p, j), query(), body none,
        -> ImportResponse, 200, "Poll an authoring job: the recorded EvalCaseImported once committed, else the job body",
        |s, who| s.authoring_job(who, &p, &j);
    CommitAuthoringJob: POST "/projects/{project_id}/authoring-jobs/{job_id}/commit", path(p, j), query(), body member(b: CommitRequest),
        -> EvalCaseImported, 200, "Commit a completed authoring job (duplicatePolicy may be chosen now)",
        |s, who| s.commit_authoring_job(who, &p, &j, &b);
    CancelAuthoringJob: POST "/projects/{project_id}/authoring-jobs/{job_id}/cancel", path(p, j), query(), body unread,
        -> EvalAuthoringJobAccepted, 200, "Cancel a pending job, or discard a completed uncommitted one",
        |s, who| s.cancel_authoring_job(who, &p, &j);
    EarlierImports: GET "/projects/{project_id}/eval-suites/{suite_id}/authoring-jobs", path(p, suite), query(q: EarlierImportQuery), body none,
        -> Page<EarlierImport>, 200, "The suite's earlier authoring jobs for the same document (?fileHash=SHA-256 of its content), newest first: clients warn before importing it again",
        |s, who| s.earlier_imports(who, &p, &suite, &q);
    AuthoringDrafts: GET "/projects/{project_id}/authoring-jobs/{job_id}/drafts", path(p, j), query(q: DraftQuery), body none,
        -> Page<AuthoringDraft>, 200, "An authoring job's drafts (?state=skipped for the review)",
        |s, who| s.authoring_drafts(who, &p, &j, &q);
    SaveDraft: PATCH "/projects/{project_id}/authoring-jobs/{job_id}/drafts/{draft_id}", path(p, j, d), query(), body member(b: EvalCaseUpdate),
        -> AuthoringDraft, 200, "Save an edit of a draft (the review form): re-grounded against the job's discovered tools, its claim recomputed; it stays a draft",
        |s, who| s.save_draft(who, &p, &j, &d, &b);
    FinishDraft: POST "/projects/{project_id}/authoring-jobs/{job_id}/drafts/{draft_id}/finish", path(p, j, d), query(), body member(b: EvalCaseUpdate),
        -> EvalCase, 200, "Write one skipped draft, optionally edited (re-grounded like a saved edit); costs nothing",
        |s, who| s.finish_draft(who, &p, &j, &d, &b);
    Credits: GET "/credits", path(), query(), body none,
        -> authoring::Credits, 200, "The organization's credit balance and ledger (grants are local: `evaldeck credits grant`)",
        |s, who| s.credits(who);
    CancelRun: POST "/projects/{project_id}/eval-runs/{run_id}/cancel", path(p, id), query(), body unread,
        -> EvalRun, 200, "Cancel an active run",
        |s, who| s.cancel_run(who, &p, &id).await;
    RegradeRun: POST "/projects/{project_id}/eval-runs/{run_id}/regrade", path(p, id), query(), body unread,
        -> EvalRun, 200, "Grade the stored transcripts again (calls nothing)",
        |s, who| s.regrade_run(who, &p, &id);
    Suite: GET "/projects/{project_id}/eval-suites/{suite_id}", path(p, id), query(), body none,
        -> EvalSuite, 200, "Read a suite (by id or name) with its settings",
        |s, who| s.suite(who, &p, &id);
    DeleteSuite: DELETE "/projects/{project_id}/eval-suites/{suite_id}", path(p, id), query(), body none,
        -> Deleted, 200, "Delete a suite and its cases",
        |s, who| s.delete_suite(who, &p, &id);
    Schedule: GET "/projects/{project_id}/eval-suites/{suite_id}/schedule", path(p, id), query(), body none,
        -> SuiteSchedule, 200, "A suite's schedule with its recent firings",
        |s, who| s.schedule(who, &p, &id);
    Cases: GET "/projects/{project_id}/eval-suites/{suite_id}/cases", path(p, id), query(page: PageRequest), body none,
        -> Page<EvalCase>, 200, "A suite's persisted cases, in order",
        |s, who| s.cases(who, &p, &id, &page);
    CreateCase: POST "/projects/{project_id}/eval-suites/{suite_id}/cases", path(p, id), query(), body member(b: Value), doc(EvalCase),
        -> EvalCase, 201, "Add a case (persisted shape; id and times assigned)",
        |s, who| s.create_case(who, &p, &id, b);
    Case: GET "/projects/{project_id}/eval-suites/{suite_id}/cases/{case_id}", path(p, sid, cid), query(), body none,
        -> EvalCase, 200, "Read a case",
        |s, who| s.case(who, &p, &sid, &cid);
    UpdateCase: PATCH "/projects/{project_id}/eval-suites/{suite_id}/cases/{case_id}", path(p, sid, cid), query(), body member(b: EvalCaseUpdate),
        -> EvalCase, 200, "Edit a case (omitted keeps, null clears)",
        |s, who| s.update_case(who, &p, &sid, &cid, &b);
    DeleteCase: DELETE "/projects/{project_id}/eval-suites/{suite_id}/cases/{case_id}", path(p, sid, cid), query(), body none,
        -> Deleted, 200, "Delete a case",
        |s, who| s.delete_case(who, &p, &sid, &cid);
    ResourceTemplates: POST "/projects/{project_id}/servers/{server_id}/resources/templates", path(p, id), query(), body member(b: ListRequest),
        -> McpPage<ResourceTemplateItem>, 200, "List resource templates",
        |s, who| s.resource_templates(who, &p, &id, &b).await;
    CreateServer: POST "/projects/{project_id}/servers", path(p), query(), body admin(b: ServerCreate),
        -> server::Server, 201, "Save a server",
        |s, who| s.create_server(who, &p, &b);
    Server: GET "/projects/{project_id}/servers/{server_id}", path(p, id), query(), body none,
        -> server::Server, 200, "Read a saved server (by id or name)",
        |s, who| s.server(who, &p, &id);
    UpdateServer: PATCH "/projects/{project_id}/servers/{server_id}", path(p, id), query(), body admin(b: ServerPatch),
        -> server::Server, 200, "Edit a saved server",
        |s, who| s.update_server(who, &p, &id, &b);
    DeleteServer: DELETE "/projects/{project_id}/servers/{server_id}", path(p, id), query(), body none,
        -> Deleted, 200, "Delete a saved server",
        |s, who| s.delete_server(who, &p, &id);
    CreateServerGroup: POST "/projects/{project_id}/server-groups", path(p), query(), body admin(b: ServerGroupCreate),
        -> Created, 201, "Create a server group (an environment's server attachment)",
        |s, who| s.create_server_group(who, &p, &b);
    CreatePluginVersion: POST "/projects/{project_id}/plugins", path(p), query(), body admin(b: PluginVersionCreate),
        -> Created, 201, "Register a plugin version to pin",
        |s, who| s.create_plugin_version(who, &p, &b);
    DeletePluginVersion: DELETE "/projects/{project_id}/plugin-versions/{version_id}", path(p, id), query(), body none,
        -> Deleted, 200, "Delete a plugin version",
        |s, who| s.delete_plugin_version(who, &p, &id);
    CreateSkill: POST "/projects/{project_id}/skills", path(p), query(), body admin(b: SkillCreate),
        -> Created, 201, "Register a skill",
        |s, who| s.create_skill(who, &p, &b);
}
