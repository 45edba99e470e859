//! What the workbench asks of the backend ([`Request`]), what comes back ([`Reply`]), and
//! the envelope that carries a reply to the controller tagged with its [`Slot`] and
//! generation, so a reply that a newer request has overtaken is dropped, not shown.

use std::collections::HashMap;
use std::time::Duration;

use crate::client::compare::{Comparison, compare};
use crate::client::{Backend, collect_all};
use crate::spec::Result;
use crate::spec::agent::{AgentTurnRequest, AgentTurnResponse};
use crate::spec::authoring::{AuthoringDraft, CommitRequest, DraftQuery, DraftState};
use crate::spec::case::{EvalCase, EvalCaseUpdate};
use crate::spec::catalog::{Deleted, EvalSuiteSummary, Me, Project, ProjectQuery};
use crate::spec::environment::{
    Environment, EnvironmentCreate, EnvironmentPatch, EnvironmentQuery, EnvironmentResolution,
    EnvironmentRestored,
};
use crate::spec::host::{Host, HostSummary};
use crate::spec::import::{EvalCaseImportRequest, EvalCaseImported, ImportResponse};
use crate::spec::primitives::{
    DoctorReport, ListRequest, McpPage, PromptGetRequest, PromptItem, ResourceItem,
    ResourceReadRequest, ResourceTemplateItem, ToolCallRequest, ToolItem, TrafficPage,
    ValidateResult,
};
use crate::spec::run::{EvalIteration, EvalRun, RunCreate, RunCreated};
use crate::spec::schedule::{SchedulePatch, SuiteSchedule};
use crate::spec::server::{Server, ServerCreate, ServerPatch};
use crate::spec::suite::{EvalSuite, SuitePatch};
use serde_json::Value;

/// One backend operation, with everything needed to send it again (a 429 retry does).
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Me,
    /// The organization's balance and ledger.
    Credits,
    Projects,
    Servers {
        project: String,
    },
    Server {
        project: String,
        id: String,
    },
    CreateServer {
        project: String,
        body: ServerCreate,
    },
    DeleteServer {
        project: String,
        id: String,
    },
    Hosts {
        project: String,
    },
    Host {
        project: String,
        id: String,
        /// Open the host form on it once read.
        edit: bool,
    },
    CreateHost {
        project: String,
        body: crate::spec::host::HostCreate,
    },
    UpdateHost {
        project: String,
        id: String,
        body: crate::spec::host::HostPatch,
    },
    /// Creates a suite; without a first case, a placeholder is written and removed.
    CreateSuite {
        project: String,
        body: crate::spec::suite::SuiteCreate,
        placeholder: bool,
    },
    Environments {
        project: String,
        include_archived: bool,
    },
    ResolveEnvironment {
        project: String,
        id: String,
    },
    ArchiveEnvironment {
        project: String,
        id: String,
        expected_revision: i64,
    },
    RestoreEnvironment {
        project: String,
        id: String,
        expected_revision: i64,
    },
    Suites {
        project: String,
    },
    /// `validate`: connect and initialize; updates the server's status.
    Validate {
        project: String,
        server: String,
    },
    Doctor {
        project: String,
        server: String,
    },
    /// `evaldeck check`: the conformance checks (embedded backend only).
    Check {
        project: String,
        server: String,
    },
    Tools {
        project: String,
        server: String,
    },
    CallTool {
        project: String,
        server: String,
        body: ToolCallRequest,
    },
    /// Renders the MCP Apps view of a tool call (its arguments and result).
    RenderWidget {
        project: String,
        server: String,
        body: crate::spec::widget::WidgetRenderRequest,
    },
    /// Cancels a running call by the `callId` it was sent with.
    CancelCall {
        project: String,
        server: String,
        call_id: String,
    },
    /// The server's protocol events after `after`.
    Traffic {
        project: String,
        server: String,
        after: u64,
    },
    Prompts {
        project: String,
        server: String,
    },
    GetPrompt {
        project: String,
        server: String,
        body: PromptGetRequest,
    },
    Resources {
        project: String,
        server: String,
    },
    ReadResource {
        project: String,
        server: String,
        uri: String,
    },
    CreateEnvironment {
        project: String,
        body: EnvironmentCreate,
    },
    UpdateEnvironment {
        project: String,
        id: String,
        body: EnvironmentPatch,
    },
    UpdateServer {
        project: String,
        id: String,
        body: ServerPatch,
    },
    /// Saves the servers an `mcp.json` maps to, one by one.
    ImportServers {
        project: String,
        bodies: Vec<ServerCreate>,
        /// What the file held that could not be mapped, to report with the result.
        notes: Vec<String>,
    },
    /// One suite in full (settings, schedule), then what to do with it.
    Suite {
        project: String,
        suite: String,
        then: SuiteThen,
    },
    UpdateSuite {
        project: String,
        suite: String,
        body: SuitePatch,
    },
    SetSchedule {
        project: String,
        suite: String,
        body: SchedulePatch,
    },
    DeleteCase {
        project: String,
        suite: String,
        case: String,
    },
    /// A suite's cases.
    Cases {
        project: String,
        suite: String,
    },
    /// How each case of a suite did in its last runs.
    CaseHistory {
        project: String,
        suite: String,
    },
    UpdateCase {
        project: String,
        suite: String,
        case: String,
        body: EvalCaseUpdate,
    },
    /// `cases/import`: answers when the job is done or its wait window closes.
    ImportCases {
        project: String,
        suite: String,
        body: EvalCaseImportRequest,
    },
    /// Polls an authoring job after `delay_ms`.
    PollJob {
        project: String,
        job: String,
        delay_ms: u64,
    },
    CommitJob {
        project: String,
        job: String,
    },
    CancelJob {
        project: String,
        job: String,
    },
    /// A job's skipped drafts.
    Drafts {
        project: String,
        job: String,
    },
    /// Writes one skipped draft, with an optional edit (free).
    FinishDraft {
        project: String,
        job: String,
        draft: String,
        edit: EvalCaseUpdate,
    },
    /// The project's runs, newest first, across its suites.
    Runs {
        project: String,
    },
    /// One run with its iterations, read after `delay_ms` (live polling).
    Run {
        project: String,
        run: String,
        delay_ms: u64,
    },
    Trace {
        project: String,
        run: String,
        iteration: String,
    },
    CreateRun {
        project: String,
        body: RunCreate,
    },
    CancelRun {
        project: String,
        run: String,
    },
    /// Grades a finished run's stored transcripts again.
    RegradeRun {
        project: String,
        run: String,
    },
    /// One agent turn over the conversation so far.
    AgentTurn {
        project: String,
        body: AgentTurnRequest,
    },
    /// Reads two runs' iterations and compares them case by case.
    CompareRuns {
        project: String,
        base: String,
        head: String,
    },
}

/// What a suite read is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteThen {
    /// Show its settings and schedule in the detail.
    Show,
    EditSettings,
    EditSchedule,
}

/// Where a reply lands. A newer request for the same slot makes older replies stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    Me,
    Credits,
    Projects,
    Servers,
    ServerDetail,
    ServerWrite,
    Hosts,
    HostDetail,
    HostWrite,
    Environments,
    EnvironmentDetail,
    EnvironmentWrite,
    Suites,
    /// Validate and doctor: one check of a server at a time.
    ServerCheck,
    /// A server's tools, prompts, resources or templates: one slot per server (the hash of
    /// its id), so listing one server never makes another's answer stale.
    ServerTools(u64),
    ServerPrompts(u64),
    ServerResources(u64),
    /// Calling a tool, rendering a prompt, reading a resource.
    ServerCall,
    ServerWidget,
    ServerCancel,
    ServerTraffic,
    Cases,
    CaseHistory,
    CaseWrite,
    SuiteDetail,
    SuiteWrite,
    /// The import request, its polls, commit and cancel.
    Import,
    Drafts,
    DraftWrite,
    Runs,
    RunDetail,
    Trace,
    RunWrite,
    Compare,
    Agent,
}

/// How each case of a suite did in its last finished runs (no API lists it: it is read
/// from the runs' iterations).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseHistory {
    /// The runs read, oldest first: their numbers.
    pub runs: Vec<i64>,
    /// Per case id, per run: `(passed, total)` iterations, `None` where it did not run.
    pub cases: HashMap<String, Vec<Option<(u32, u32)>>>,
}

/// How many of a suite's latest runs a case's history covers.
pub const HISTORY_RUNS: usize = 20;

async fn case_history(b: &dyn Backend, project: &str, suite: &str) -> Result<CaseHistory> {
    let page = crate::spec::page::PageRequest {
        cursor: None,
        limit: Some(HISTORY_RUNS * 2),
    };
    let mut runs: Vec<EvalRun> = b
        .suite_runs(project, suite, &page)
        .await?
        .items
        .into_iter()
        .filter(|r| !matches!(r.status.as_str(), "pending" | "running"))
        .take(HISTORY_RUNS)
        .collect();
    runs.reverse();
    let mut h = CaseHistory {
        runs: runs
            .iter()
            .map(|r| r.run_number.unwrap_or_default())
            .collect(),
        cases: HashMap::new(),
    };
    for (k, run) in runs.iter().enumerate() {
        let its = collect_all(|p| async move { b.iterations(project, &run.id, &p).await }).await?;
        for it in its {
            let Some(case) = it.test_case_id else {
                continue;
            };
            let marks = h
                .cases
                .entry(case)
                .or_insert_with(|| vec![None; runs.len()]);
            let (passed, total) = marks[k].get_or_insert((0, 0));
            *total += 1;
            if it.result.as_deref() == Some("passed") {
                *passed += 1;
            }
        }
    }
    Ok(h)
}

/// A server id as a slot key.
pub fn server_key(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

impl Request {
    /// The saved server an MCP request talks to, if it is one.
    pub fn server(&self) -> Option<&str> {
        match self {
            Request::Validate { server, .. }
            | Request::Doctor { server, .. }
            | Request::Tools { server, .. }
            | Request::Prompts { server, .. }
            | Request::Resources { server, .. }
            | Request::CallTool { server, .. }
            | Request::GetPrompt { server, .. }
            | Request::ReadResource { server, .. } => Some(server),
            _ => None,
        }
    }

    pub fn slot(&self) -> Slot {
        match self {
            Request::Me => Slot::Me,
            Request::Credits => Slot::Credits,
            Request::Projects => Slot::Projects,
            Request::Servers { .. } => Slot::Servers,
            Request::Server { .. } => Slot::ServerDetail,
            Request::CreateServer { .. } | Request::DeleteServer { .. } => Slot::ServerWrite,
            Request::Hosts { .. } => Slot::Hosts,
            Request::Host { .. } => Slot::HostDetail,
            Request::CreateHost { .. } | Request::UpdateHost { .. } => Slot::HostWrite,
            Request::CreateSuite { .. } => Slot::SuiteWrite,
            Request::Environments { .. } => Slot::Environments,
            Request::ResolveEnvironment { .. } => Slot::EnvironmentDetail,
            Request::ArchiveEnvironment { .. } | Request::RestoreEnvironment { .. } => {
                Slot::EnvironmentWrite
            }
            Request::Suites { .. } => Slot::Suites,
            Request::Validate { .. } | Request::Doctor { .. } | Request::Check { .. } => {
                Slot::ServerCheck
            }
            Request::Tools { server, .. } => Slot::ServerTools(server_key(server)),
            Request::Prompts { server, .. } => Slot::ServerPrompts(server_key(server)),
            Request::Resources { server, .. } => Slot::ServerResources(server_key(server)),
            Request::CallTool { .. } | Request::GetPrompt { .. } | Request::ReadResource { .. } => {
                Slot::ServerCall
            }
            Request::CancelCall { .. } => Slot::ServerCancel,
            Request::RenderWidget { .. } => Slot::ServerWidget,
            Request::Traffic { .. } => Slot::ServerTraffic,
            Request::CreateEnvironment { .. } | Request::UpdateEnvironment { .. } => {
                Slot::EnvironmentWrite
            }
            Request::ImportServers { .. } | Request::UpdateServer { .. } => Slot::ServerWrite,
            Request::Cases { .. } => Slot::Cases,
            Request::CaseHistory { .. } => Slot::CaseHistory,
            Request::Suite { .. } => Slot::SuiteDetail,
            Request::UpdateSuite { .. } | Request::SetSchedule { .. } => Slot::SuiteWrite,
            Request::DeleteCase { .. } => Slot::CaseWrite,
            Request::UpdateCase { .. } => Slot::CaseWrite,
            Request::ImportCases { .. }
            | Request::PollJob { .. }
            | Request::CommitJob { .. }
            | Request::CancelJob { .. } => Slot::Import,
            Request::Drafts { .. } => Slot::Drafts,
            Request::FinishDraft { .. } => Slot::DraftWrite,
            Request::Runs { .. } => Slot::Runs,
            Request::Run { .. } => Slot::RunDetail,
            Request::Trace { .. } => Slot::Trace,
            Request::CreateRun { .. } | Request::CancelRun { .. } | Request::RegradeRun { .. } => {
                Slot::RunWrite
            }
            Request::CompareRuns { .. } => Slot::Compare,
            Request::AgentTurn { .. } => Slot::Agent,
        }
    }

    /// A few words for the log and the error modal's title.
    pub fn describe(&self) -> String {
        match self {
            Request::Me => "load the account".into(),
            Request::Credits => "load the credit ledger".into(),
            Request::Projects => "list projects".into(),
            Request::Servers { .. } => "list servers".into(),
            Request::Server { id, .. } => format!("load server {id}"),
            Request::CreateServer { body, .. } => format!("add server {}", body.name),
            Request::DeleteServer { id, .. } => format!("delete server {id}"),
            Request::Hosts { .. } => "list hosts".into(),
            Request::Host { id, .. } => format!("load host {id}"),
            Request::CreateHost { body, .. } => format!("add host {}", body.name),
            Request::UpdateHost { id, .. } => format!("save host {id}"),
            Request::CreateSuite { body, .. } => format!("create suite {}", body.name),
            Request::Environments { .. } => "list environments".into(),
            Request::ResolveEnvironment { id, .. } => format!("resolve environment {id}"),
            Request::ArchiveEnvironment { id, .. } => format!("archive environment {id}"),
            Request::RestoreEnvironment { id, .. } => format!("restore environment {id}"),
            Request::Suites { .. } => "list suites".into(),
            Request::Validate { .. } => "validate the server".into(),
            Request::Doctor { .. } => "run the doctor".into(),
            Request::Check { .. } => "run the conformance checks".into(),
            Request::Tools { .. } => "list tools".into(),
            Request::CallTool { body, .. } => format!("call tool {}", body.tool_name),
            Request::CancelCall { .. } => "cancel the call".into(),
            Request::RenderWidget { body, .. } => {
                format!("render the widget of {}", body.tool_name)
            }
            Request::Traffic { .. } => "read the protocol events".into(),
            Request::Prompts { .. } => "list prompts".into(),
            Request::GetPrompt { body, .. } => format!("render prompt {}", body.prompt_name),
            Request::Resources { .. } => "list resources".into(),
            Request::ReadResource { uri, .. } => format!("read {uri}"),
            Request::CreateEnvironment { body, .. } => format!("create environment {}", body.name),
            Request::UpdateEnvironment { id, .. } => format!("save environment {id}"),
            Request::UpdateServer { id, .. } => format!("save server {id}"),
            Request::ImportServers { bodies, .. } => format!("save {} server(s)", bodies.len()),
            Request::Cases { .. } => "list cases".into(),
            Request::CaseHistory { .. } => "read the cases' history".into(),
            Request::Suite { suite, .. } => format!("load suite {suite}"),
            Request::UpdateSuite { suite, .. } => format!("save suite {suite}"),
            Request::SetSchedule { suite, .. } => format!("save the schedule of {suite}"),
            Request::DeleteCase { case, .. } => format!("delete case {case}"),
            Request::UpdateCase { case, .. } => format!("save case {case}"),
            Request::ImportCases { .. } => "import the document".into(),
            Request::PollJob { job, .. } => format!("poll job {job}"),
            Request::CommitJob { job, .. } => format!("commit job {job}"),
            Request::CancelJob { job, .. } => format!("cancel job {job}"),
            Request::Drafts { job, .. } => format!("list the drafts of {job}"),
            Request::FinishDraft { draft, .. } => format!("commit draft {draft}"),
            Request::Runs { .. } => "list runs".into(),
            Request::Run { run, .. } => format!("load run {run}"),
            Request::Trace { iteration, .. } => format!("load the trace of {iteration}"),
            Request::CreateRun { .. } => "start a run".into(),
            Request::CancelRun { run, .. } => format!("cancel run {run}"),
            Request::RegradeRun { run, .. } => format!("regrade run {run}"),
            Request::AgentTurn { .. } => "ask the agent".into(),
            Request::CompareRuns { base, head, .. } => format!("compare {base} with {head}"),
        }
    }
}

/// Each reply moves once through the queue, so its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Reply {
    Me(Me),
    Credits(crate::spec::authoring::Credits),
    Projects(Vec<Project>),
    Servers(Vec<Server>),
    Server(Server),
    ServerCreated(Server),
    ServerDeleted(Deleted),
    Hosts(Vec<HostSummary>),
    Host {
        host: Host,
        edit: bool,
    },
    HostSaved(Host),
    SuiteCreated {
        id: String,
        name: String,
    },
    Environments(Vec<Environment>),
    Resolution(EnvironmentResolution),
    EnvironmentArchived(Environment),
    EnvironmentRestored(EnvironmentRestored),
    Suites(Vec<EvalSuiteSummary>),
    Validated {
        server: String,
        result: ValidateResult,
    },
    Doctor {
        server: String,
        report: DoctorReport,
    },
    Checked {
        server: String,
        report: Box<crate::spec::conformance::CheckReport>,
    },
    Tools {
        server: String,
        items: Vec<ToolItem>,
    },
    Prompts {
        server: String,
        items: Vec<PromptItem>,
    },
    /// Resources and resource templates (none when the server lists none).
    Resources {
        server: String,
        items: Vec<ResourceItem>,
        templates: Vec<ResourceTemplateItem>,
    },
    /// Protocol events of a server, oldest first.
    Traffic {
        server: String,
        page: TrafficPage,
    },
    /// What a tool's rendered view showed.
    Widget {
        server: String,
        record: crate::spec::widget::ViewRecord,
    },
    /// Whether a running call was found and cancelled.
    CallCancelled {
        server: String,
        cancelled: bool,
    },
    /// A tool result, a rendered prompt or resource contents, verbatim.
    Output {
        server: String,
        /// `tool echo`, `prompt greet`, `resource file:///x`.
        title: String,
        request: Value,
        value: Value,
    },
    EnvironmentSaved(Environment),
    ServerSaved(Server),
    /// Names saved, and names refused with the reason.
    ServersImported {
        created: Vec<String>,
        failed: Vec<(String, String)>,
        notes: Vec<String>,
    },
    Cases {
        suite: String,
        items: Vec<EvalCase>,
    },
    CaseHistory {
        suite: String,
        history: CaseHistory,
    },
    CaseUpdated(EvalCase),
    CaseDeleted {
        suite: String,
        case: String,
    },
    Suite {
        suite: EvalSuite,
        then: SuiteThen,
    },
    SuiteSaved(EvalSuite),
    ScheduleSaved(SuiteSchedule),
    /// The import's answer, a poll or a cancel: done, or the job's state.
    Import(ImportResponse),
    /// A commit's result.
    Committed(EvalCaseImported),
    Drafts {
        job: String,
        items: Vec<AuthoringDraft>,
    },
    DraftFinished {
        draft: String,
        case: EvalCase,
    },
    Runs(Vec<EvalRun>),
    Run {
        run: EvalRun,
        iterations: Vec<EvalIteration>,
    },
    Trace {
        iteration: String,
        value: Value,
    },
    RunCreated(RunCreated),
    RunCancelled(EvalRun),
    RunRegraded(EvalRun),
    AgentReplied(AgentTurnResponse),
    Compared(Comparison),
}

/// A reply on its way to the controller.
#[derive(Debug)]
pub struct Envelope {
    pub slot: Slot,
    pub generation: u64,
    pub request: Request,
    pub result: Result<Reply>,
    pub elapsed: Duration,
}

/// Something that comes to the controller while a request is still running: a call's
/// progress, or a question the server asks the person (its answer goes back through
/// `reply`).
pub enum Live {
    Progress {
        server: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Elicit {
        server: String,
        request: crate::spec::primitives::ElicitationRequest,
        reply: tokio::sync::oneshot::Sender<crate::spec::client_features::ElicitationAnswer>,
    },
}

/// Asks the person at the workbench: the question goes to the controller as [`Live::Elicit`]
/// and the answer comes back (a workbench that goes away cancels).
pub struct WorkbenchAsker {
    pub tx: tokio::sync::mpsc::UnboundedSender<Live>,
}

impl crate::local::mcp::Asker for WorkbenchAsker {
    fn elicit(
        &self,
        server: &str,
        request: crate::spec::primitives::ElicitationRequest,
    ) -> futures::future::BoxFuture<'static, crate::spec::client_features::ElicitationAnswer> {
        use crate::spec::client_features::{ElicitationAction, ElicitationAnswer};
        let (reply, answer) = tokio::sync::oneshot::channel();
        let _ = self.tx.send(Live::Elicit {
            server: server.to_string(),
            request,
            reply,
        });
        Box::pin(async move {
            answer.await.unwrap_or(ElicitationAnswer {
                action: ElicitationAction::Cancel,
                content: None,
            })
        })
    }
}

/// Performs one request. Lists are read in full (every page): the panes filter and scroll
/// locally, and the catalog lists are small. A tool call is made watched: its progress and
/// the server's questions come through `watch`.
pub async fn execute(
    b: &dyn Backend,
    req: &Request,
    watch: crate::client::CallWatch,
) -> Result<Reply> {
    Ok(match req {
        Request::Me => Reply::Me(b.me().await?),
        Request::Credits => Reply::Credits(b.credits().await?),
        Request::Projects => Reply::Projects(
            collect_all(|p| async move { b.projects(&ProjectQuery::default(), &p).await }).await?,
        ),
        Request::Servers { project } => {
            Reply::Servers(collect_all(|p| async move { b.servers(project, &p).await }).await?)
        }
        Request::Server { project, id } => Reply::Server(b.server(project, id).await?),
        Request::CreateServer { project, body } => {
            Reply::ServerCreated(b.create_server(project, body).await?)
        }
        Request::DeleteServer { project, id } => {
            Reply::ServerDeleted(b.delete_server(project, id).await?)
        }
        Request::Hosts { project } => {
            Reply::Hosts(collect_all(|p| async move { b.hosts(project, &p).await }).await?)
        }
        Request::Host { project, id, edit } => Reply::Host {
            host: b.host(project, id).await?,
            edit: *edit,
        },
        Request::CreateHost { project, body } => {
            Reply::HostSaved(b.create_host(project, body).await?)
        }
        Request::UpdateHost { project, id, body } => {
            Reply::HostSaved(b.update_host(project, id, body).await?)
        }
        Request::CreateSuite {
            project,
            body,
            placeholder,
        } => {
            let created = b.create_suite(project, body).await?;
            if *placeholder {
                // The API needs a first case; the placeholder goes once the suite exists.
                for c in b.cases(project, &created.suite_id).await?.items {
                    b.delete_case(project, &created.suite_id, &c.id).await?;
                }
            }
            Reply::SuiteCreated {
                id: created.suite_id,
                name: created.name,
            }
        }
        Request::Environments {
            project,
            include_archived,
        } => {
            let mut out = Vec::new();
            let mut cursor = None;
            loop {
                let q = EnvironmentQuery {
                    include_archived: *include_archived,
                    cursor,
                    limit: Some(crate::spec::page::MAX_LIMIT),
                };
                let page = b.environments(project, &q).await?;
                out.extend(page.items);
                match page.next_cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            Reply::Environments(out)
        }
        Request::ResolveEnvironment { project, id } => {
            Reply::Resolution(b.resolve_environment(project, id).await?)
        }
        Request::ArchiveEnvironment {
            project,
            id,
            expected_revision,
        } => Reply::EnvironmentArchived(
            b.archive_environment(project, id, *expected_revision)
                .await?,
        ),
        Request::RestoreEnvironment {
            project,
            id,
            expected_revision,
        } => Reply::EnvironmentRestored(
            b.restore_environment(project, id, *expected_revision)
                .await?,
        ),
        Request::Suites { project } => {
            Reply::Suites(collect_all(|p| async move { b.eval_suites(project, &p).await }).await?)
        }
        Request::Validate { project, server } => Reply::Validated {
            server: server.clone(),
            result: b.validate_server(project, server).await?,
        },
        Request::Doctor { project, server } => Reply::Doctor {
            server: server.clone(),
            report: b.doctor(project, server).await?,
        },
        Request::Check { project, server } => Reply::Checked {
            server: server.clone(),
            report: Box::new(
                b.check(
                    project,
                    server,
                    &crate::spec::conformance::CheckRequest::default(),
                )
                .await?,
            ),
        },
        Request::Tools { project, server } => Reply::Tools {
            server: server.clone(),
            items: mcp_all(|r| async move { b.tools(project, server, &r).await }).await?,
        },
        Request::Prompts { project, server } => Reply::Prompts {
            server: server.clone(),
            items: mcp_all(|r| async move { b.prompts(project, server, &r).await }).await?,
        },
        Request::Resources { project, server } => {
            let items = mcp_all(|r| async move { b.resources(project, server, &r).await }).await?;
            // A server without templates (or that refuses the list) has none to fill in.
            let templates =
                mcp_all(|r| async move { b.resource_templates(project, server, &r).await })
                    .await
                    .unwrap_or_default();
            Reply::Resources {
                server: server.clone(),
                items,
                templates,
            }
        }
        Request::Traffic {
            project,
            server,
            after,
        } => Reply::Traffic {
            server: server.clone(),
            page: b.server_traffic(project, server, *after).await?,
        },
        Request::CallTool {
            project,
            server,
            body,
        } => Reply::Output {
            server: server.clone(),
            title: format!("tool {}", body.tool_name),
            request: serde_json::to_value(body).unwrap_or_default(),
            value: b.call_tool_watched(project, server, body, watch).await?,
        },
        Request::RenderWidget {
            project,
            server,
            body,
        } => Reply::Widget {
            server: server.clone(),
            record: b.render_widget(project, server, body).await?,
        },
        Request::CancelCall {
            project,
            server,
            call_id,
        } => Reply::CallCancelled {
            server: server.clone(),
            cancelled: b.cancel_call(project, server, call_id).await?.cancelled,
        },
        Request::GetPrompt {
            project,
            server,
            body,
        } => Reply::Output {
            server: server.clone(),
            title: format!("prompt {}", body.prompt_name),
            request: serde_json::to_value(body).unwrap_or_default(),
            value: b.get_prompt(project, server, body).await?,
        },
        Request::ReadResource {
            project,
            server,
            uri,
        } => {
            let body = ResourceReadRequest { uri: uri.clone() };
            Reply::Output {
                server: server.clone(),
                title: format!("resource {uri}"),
                request: serde_json::to_value(&body).unwrap_or_default(),
                value: b.read_resource(project, server, &body).await?,
            }
        }
        Request::CreateEnvironment { project, body } => {
            Reply::EnvironmentSaved(b.create_environment(project, body).await?)
        }
        Request::UpdateEnvironment { project, id, body } => {
            Reply::EnvironmentSaved(b.update_environment(project, id, body).await?)
        }
        Request::UpdateServer { project, id, body } => {
            Reply::ServerSaved(b.update_server(project, id, body).await?)
        }
        Request::ImportServers {
            project,
            bodies,
            notes,
        } => {
            let (mut created, mut failed) = (Vec::new(), Vec::new());
            for body in bodies {
                match b.create_server(project, body).await {
                    Ok(s) => created.push(s.name),
                    Err(e) if e.code == crate::spec::Code::RateLimited => return Err(e),
                    Err(e) => failed.push((body.name.clone(), e.message)),
                }
            }
            Reply::ServersImported {
                created,
                failed,
                notes: notes.clone(),
            }
        }
        Request::Cases { project, suite } => Reply::Cases {
            suite: suite.clone(),
            items: b.cases(project, suite).await?.items,
        },
        Request::CaseHistory { project, suite } => Reply::CaseHistory {
            suite: suite.clone(),
            history: case_history(b, project, suite).await?,
        },
        Request::UpdateCase {
            project,
            suite,
            case,
            body,
        } => Reply::CaseUpdated(b.update_case(project, suite, case, body).await?),
        Request::ImportCases {
            project,
            suite,
            body,
        } => Reply::Import(b.import_cases(project, suite, body).await?),
        Request::PollJob {
            project,
            job,
            delay_ms,
        } => {
            tokio::time::sleep(Duration::from_millis(*delay_ms)).await;
            Reply::Import(b.authoring_job(project, job).await?)
        }
        Request::CommitJob { project, job } => Reply::Committed(
            b.commit_authoring_job(project, job, &CommitRequest::default())
                .await?,
        ),
        Request::CancelJob { project, job } => Reply::Import(ImportResponse::Job(
            b.cancel_authoring_job(project, job).await?,
        )),
        Request::Drafts { project, job } => {
            let q = DraftQuery {
                state: Some(DraftState::Skipped),
            };
            Reply::Drafts {
                job: job.clone(),
                items: b.authoring_drafts(project, job, &q).await?.items,
            }
        }
        Request::FinishDraft {
            project,
            job,
            draft,
            edit,
        } => Reply::DraftFinished {
            draft: draft.clone(),
            case: b.finish_draft(project, job, draft, edit).await?,
        },
        Request::Suite {
            project,
            suite,
            then,
        } => Reply::Suite {
            suite: b.suite(project, suite).await?,
            then: *then,
        },
        Request::UpdateSuite {
            project,
            suite,
            body,
        } => Reply::SuiteSaved(b.update_suite(project, suite, body).await?),
        Request::SetSchedule {
            project,
            suite,
            body,
        } => Reply::ScheduleSaved(b.set_schedule(project, suite, body).await?),
        Request::DeleteCase {
            project,
            suite,
            case,
        } => {
            b.delete_case(project, suite, case).await?;
            Reply::CaseDeleted {
                suite: suite.clone(),
                case: case.clone(),
            }
        }
        Request::Runs { project } => {
            let page = crate::spec::page::PageRequest {
                cursor: None,
                limit: Some(200),
            };
            Reply::Runs(b.project_runs(project, &page).await?.items)
        }
        Request::Run {
            project,
            run,
            delay_ms,
        } => {
            if *delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(*delay_ms)).await;
            }
            let r = b.run(project, run).await?;
            let iterations =
                collect_all(|p| async move { b.iterations(project, run, &p).await }).await?;
            Reply::Run { run: r, iterations }
        }
        Request::Trace {
            project,
            run,
            iteration,
        } => Reply::Trace {
            iteration: iteration.clone(),
            value: b.trace(project, run, iteration).await?,
        },
        Request::CreateRun { project, body } => {
            Reply::RunCreated(b.create_run(project, body).await?)
        }
        Request::CancelRun { project, run } => {
            Reply::RunCancelled(b.cancel_run(project, run).await?)
        }
        Request::AgentTurn { project, body } => {
            Reply::AgentReplied(b.agent_turn(project, body).await?)
        }
        Request::RegradeRun { project, run } => {
            Reply::RunRegraded(b.regrade_run(project, run).await?)
        }
        Request::CompareRuns {
            project,
            base,
            head,
        } => {
            let before = collect_all(|p| async move { b.iterations(project, base, &p).await });
            let after = collect_all(|p| async move { b.iterations(project, head, &p).await });
            let (before, after) = futures::try_join!(before, after)?;
            Reply::Compared(compare(base, &before, head, &after))
        }
    })
}

/// Reads every page of an MCP list (the server's own cursors).
async fn mcp_all<T, F, Fut>(mut fetch: F) -> Result<Vec<T>>
where
    F: FnMut(ListRequest) -> Fut,
    Fut: std::future::Future<Output = Result<McpPage<T>>>,
{
    let mut out = Vec::new();
    let mut cursor = None;
    // A server that keeps handing out cursors is cut off rather than followed for ever.
    for _ in 0..100 {
        let page = fetch(ListRequest { cursor }).await?;
        out.extend(page.items);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    Ok(out)
}
