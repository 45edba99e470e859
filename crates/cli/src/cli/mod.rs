//! Non-interactive commands: the same operations as the workbench, for scripts and CI.
//! Human-readable output by default, `--json` for programs, and exit codes by error kind.

mod agent;
mod backend_choice;
mod checks;
mod import;
mod ingest;
pub mod operator;
mod output;
mod reports;
mod run;
mod sarif;
mod schedule;
mod server_commands;
mod server_view;
mod suite_file;
mod target_server;

pub use backend_choice::{DefaultBackend, Source, Sources, fail};
pub use output::table;
pub use reports::check_counts;
pub use target_server::{AdHoc, Resolved, resolve as resolve_target};

use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::sync::Arc;

use crate::client::{Backend, Embedded, Remote, collect_all};
use crate::local::admin::{Admin, Opener};
use crate::local::default_db_path;
use crate::spec::catalog::ProjectQuery;
use crate::spec::client_features::Root;
use crate::spec::environment::{Environment, EnvironmentPatch, EnvironmentQuery, Patch};
use crate::spec::primitives::McpPage;
use crate::spec::server::{ServerConfig, ServerCreate, Transport};
use crate::spec::{Code, Error, Result};
use output::Out;
use target_server::ClientArgs;

/// Where operations go: the embedded store (default) or a remote `/api/v1`.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// The SQLite file of the embedded backend [default: the user's data directory].
    #[arg(long, global = true, env = "EVALDECK_DB")]
    pub db: Option<PathBuf>,
    /// Talk to a remote `evaldeck serve` (or any `/api/v1`) instead of the embedded core.
    #[arg(long, global = true, env = "EVALDECK_BASE_URL")]
    pub base_url: Option<String>,
    /// API key for `--base-url`.
    #[arg(long, global = true, env = "EVALDECK_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// Project id or name [default: the organization's first project].
    #[arg(long, short = 'p', global = true, env = "EVALDECK_PROJECT")]
    pub project: Option<String>,
    /// Print JSON instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print the MCP traffic of the command to stderr: every JSON-RPC message both ways,
    /// the server's stderr, and what evaldeck answered on its behalf.
    #[arg(long, global = true)]
    pub verbose: bool,
    /// Set when the settings file chose the remote: the variable its key is read from.
    #[arg(skip)]
    pub api_key_env: Option<String>,
    /// Opens the operator's interface on the store; the binary sets it (the CLI cannot
    /// reach the store by itself).
    #[arg(skip)]
    pub admin: Option<Opener>,
}

impl Target {
    pub fn db_path(&self) -> PathBuf {
        self.db.clone().unwrap_or_else(default_db_path)
    }

    /// The operator's interface on the local store; `what` names the refused commands
    /// when the target is a remote.
    pub fn admin(&self, what: &str) -> Result<Box<dyn Admin>> {
        if self.base_url.is_some() {
            return Err(Error::forbidden(format!(
                "{what} are managed only on the machine that holds the store: run this there, without --base-url"
            )));
        }
        let open = self
            .admin
            .ok_or_else(|| Error::internal("this build has no operator interface"))?;
        open(&self.db_path())
    }

    /// Opens the backend this target names.
    pub fn backend(&self) -> Result<Arc<dyn Backend>> {
        match &self.base_url {
            Some(url) => {
                let key = self.api_key.clone().ok_or_else(|| match &self.api_key_env {
                    Some(var) => Error::unauthorized(format!(
                        "the settings file's backend {url} needs an API key: set {var} (or pass --api-key)"
                    )),
                    None => Error::unauthorized(
                        "--base-url needs an API key: pass --api-key or set EVALDECK_API_KEY",
                    ),
                })?;
                Ok(Arc::new(Remote::new(url, &key)?))
            }
            None => Ok(Arc::new(Embedded::open(&self.db_path(), self.verbose)?)),
        }
    }
}

/// Resolves `--project` (id or name) or the first accessible project.
pub async fn project_id(backend: &dyn Backend, wanted: Option<&str>) -> Result<String> {
    let projects =
        collect_all(|p| async move { backend.projects(&ProjectQuery::default(), &p).await })
            .await?;
    match wanted {
        Some(w) => projects
            .into_iter()
            .find(|p| p.id == w || p.name == w)
            .map(|p| p.id)
            .ok_or_else(|| Error::not_found("project", w)),
        None => projects
            .into_iter()
            .next()
            .map(|p| p.id)
            .ok_or_else(|| Error::not_found("project", "(any)")),
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The account behind the backend: user, organization, credits.
    Me,
    /// Projects you can reach; `create` and `grant` are the operator's (local only).
    Projects {
        #[command(subcommand)]
        cmd: Option<operator::ProjectsAdmin>,
    },
    /// Saved MCP servers.
    #[command(subcommand)]
    Servers(Box<ServersCmd>),
    /// Hosts (the MCP clients an eval emulates).
    Hosts,
    /// Environments.
    #[command(subcommand)]
    Envs(EnvsCmd),
    /// Eval suites with their latest run.
    Suites,
    /// One suite: `export` and `apply` it as a YAML file, `schedule` its runs.
    #[command(subcommand)]
    Suite(SuiteCmd),
    /// Run every diagnostic stage against a server and print the report.
    Doctor {
        server: Option<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// Protocol conformance checks against one server, each with a stable id (`--list`),
    /// plus the security scan of what it lists. Exit 0 passed (or only baselined
    /// failures), 1 a check failed, 2 a check could not run or invalid input. Runs where
    /// the MCP connection is made: not over a remote backend.
    Check(Box<checks::CheckArgs>),
    /// Drift between two snapshots of a server: added, removed and changed tools, prompts
    /// and resources, breaking or not. Each side is an `export` or `check --json` file,
    /// `server:NAME` (now) or `last:NAME[~N]` (what a check of it kept: `diff
    /// last:NAME~1 last:NAME` compares its last two checks). Exit 1 when a change is
    /// breaking, 2 for invalid input (no such file, no kept snapshot).
    Diff(Box<checks::DiffArgs>),
    /// Write a lock file of SHA-256 tool hashes, for `check --pins`.
    Pin(Box<checks::PinArgs>),
    /// Offline security scan of snapshots (files from `export` or `check --json`): hidden
    /// instructions, invisible Unicode, shadowing, unhinted destructive tools, broad
    /// schemas, secrets in results. Exit 1 for a finding of severity error.
    Scan(checks::ScanArgs),
    /// An eval run (`--base RUN` compares it), or a saved `check` or `diff` report, as
    /// Markdown, HTML, JUnit or SARIF; `--github` appends it to the job summary.
    Report(checks::ReportArgs),
    /// Connect, initialize and store a capability snapshot.
    Validate {
        server: Option<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// A server's tools.
    #[command(subcommand)]
    Tools(ToolsCmd),
    /// A server's prompts.
    #[command(subcommand)]
    Prompts(PromptsCmd),
    /// A server's resources.
    #[command(subcommand)]
    Resources(ResourcesCmd),
    /// A server's tasks: those evaldeck follows and those the server lists; cancel one.
    #[command(subcommand)]
    Tasks(TasksCmd),
    /// One JSON snapshot of a server's tools, resources and prompts.
    Export {
        server: Option<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// Author eval cases from a document (test plan, spreadsheet, JSON export, notes).
    Import(Box<import::ImportArgs>),
    /// One headless agent turn: ask about servers, suites and runs, or have it create a suite.
    Agent(Box<agent::AgentArgs>),
    /// The organization's credits and ledger; `credits grant N` adds credits (local only).
    Credits {
        #[command(subcommand)]
        cmd: Option<import::CreditsCmd>,
    },
    /// Eval runs: `run`, `runs list|show`, `trace`, `regrade`.
    #[command(flatten)]
    Evals(run::EvalCmd),
    /// Report a test run executed elsewhere (JUnit XML, Jest or Vitest JSON) as an ingested run.
    #[command(subcommand)]
    Ingest(ingest::IngestCmd),
}

/// `evaldeck suite …`: operations on one suite.
#[derive(Debug, Subcommand)]
pub enum SuiteCmd {
    /// Write the suite and all its cases as a YAML file (stdout by default).
    Export(suite_file::ExportArgs),
    /// Create or update a suite from a YAML file: validate offline, show the diff, apply.
    Apply(suite_file::ApplyArgs),
    /// Show the suite's scheduled runs, or set them: `--every MINUTES [--env ENV]`, `--off`.
    Schedule(schedule::ScheduleArgs),
}

#[derive(Debug, Subcommand)]
pub enum ToolsCmd {
    /// List tools with their annotations.
    List {
        server: Option<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// Call a tool: `tools call SERVER TOOL`, or `tools call TOOL -- COMMAND…` / `--url URL`.
    /// Exit code 3 when the tool answers with `isError: true`.
    Call {
        /// `SERVER TOOL`, or `TOOL` with an unsaved target.
        #[arg(value_name = "[SERVER] TOOL", num_args = 1..=2, required = true)]
        names: Vec<String>,
        /// Arguments as one JSON object.
        #[arg(long)]
        args: Option<String>,
        /// One argument, `key=value`; the value is read as JSON when it parses, else as a string.
        #[arg(long = "arg")]
        arg: Vec<String>,
        /// How to answer an elicitation during this call: decline, cancel, accept[:JSON].
        #[arg(long = "elicit", value_name = "ANSWER")]
        elicitation: Option<String>,
        /// How to answer a sampling request during this call: decline, scripted:TEXT,
        /// model:PROVIDER/NAME.
        #[arg(long, value_name = "POLICY")]
        sampling: Option<String>,
        /// Run the call as a task (a handshake-era server's task-only tools); evaldeck
        /// follows it to its end. A `2026-07-28` server decides on its own.
        #[arg(long)]
        task: bool,
        #[command(flatten)]
        adhoc: AdHoc,
    },
}

#[derive(Debug, Subcommand)]
pub enum TasksCmd {
    List {
        server: Option<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// Ask the server to cancel a task (cooperative).
    Cancel {
        /// `SERVER TASK_ID`, or `TASK_ID` with an unsaved target.
        #[arg(value_name = "[SERVER] TASK_ID", num_args = 1..=2, required = true)]
        names: Vec<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
}

#[derive(Debug, Subcommand)]
pub enum PromptsCmd {
    List {
        server: Option<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// Render a prompt: `prompts get SERVER PROMPT --arg name=value`.
    Get {
        /// `SERVER PROMPT`, or `PROMPT` with an unsaved target.
        #[arg(value_name = "[SERVER] PROMPT", num_args = 1..=2, required = true)]
        names: Vec<String>,
        #[arg(long = "arg")]
        arg: Vec<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
}

#[derive(Debug, Subcommand)]
pub enum ResourcesCmd {
    /// List resources and resource templates.
    List {
        server: Option<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// Read a resource: `resources read SERVER URI`. A URI template (`demo://items/{id}`)
    /// is filled in from `--var id=item-3`.
    Read {
        /// `SERVER URI`, or `URI` with an unsaved target.
        #[arg(value_name = "[SERVER] URI", num_args = 1..=2, required = true)]
        names: Vec<String>,
        /// A URI template variable, `name=value` (repeatable).
        #[arg(long = "var")]
        vars: Vec<String>,
        #[command(flatten)]
        adhoc: AdHoc,
    },
    /// Subscribe to updates of a resource and print them as they come, for `--watch`
    /// seconds (or until Ctrl-C).
    Subscribe {
        /// `SERVER URI`, or `URI` with an unsaved target.
        #[arg(value_name = "[SERVER] URI", num_args = 1..=2, required = true)]
        names: Vec<String>,
        /// How long to watch, in seconds.
        #[arg(long, default_value_t = 60)]
        watch: u64,
        #[command(flatten)]
        adhoc: AdHoc,
    },
}

/// `[SERVER] NAME` positionals: the server is named unless an unsaved target is given.
fn server_and_name(names: &[String], adhoc: &AdHoc) -> Result<(Option<String>, String)> {
    match (names, adhoc.given()) {
        ([name], true) => Ok((None, name.clone())),
        ([server, name], false) => Ok((Some(server.clone()), name.clone())),
        ([_], false) => Err(Error::invalid(
            "/server",
            "required",
            "name the saved server first, or give an unsaved target (--url URL, -- COMMAND…)",
        )),
        _ => Err(Error::invalid(
            "/server",
            "oneOf",
            "with an unsaved target (--url, -- COMMAND) give only the name, not a server",
        )),
    }
}

/// `--args JSON` merged with `--arg k=v` pairs (later wins).
pub fn tool_arguments(
    args: Option<&str>,
    pairs: &[String],
) -> Result<serde_json::Map<String, serde_json::Value>> {
    let mut map = match args {
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(m)) => m,
            Ok(_) => {
                return Err(Error::invalid(
                    "/parameters",
                    "type",
                    "--args must be a JSON object",
                ));
            }
            Err(e) => {
                return Err(Error::invalid(
                    "/parameters",
                    "json",
                    format!("--args is not JSON: {e}"),
                ));
            }
        },
        None => serde_json::Map::new(),
    };
    for p in pairs {
        let (k, v) = p.split_once('=').ok_or_else(|| {
            Error::invalid("/parameters", "format", format!("`{p}` is not `key=value`"))
        })?;
        let value =
            serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
        map.insert(k.to_string(), value);
    }
    Ok(map)
}

#[derive(Debug, Subcommand)]
pub enum ServersCmd {
    /// List saved servers.
    List,
    /// Show one saved server (id or name).
    Show { server: String },
    /// Save a server: `--command` for stdio, `--url` for streamable HTTP (`--sse` for legacy SSE).
    Add(Box<AddServer>),
    /// Delete a saved server.
    Remove { server: String },
    /// Save every server of an `mcp.json`-style file (Claude Desktop, Claude Code, Cursor, VS Code).
    Import { file: PathBuf },
    /// Change what evaldeck offers a saved server as its client: roots, sampling and
    /// elicitation answers, log level. A live session takes the change without
    /// reconnecting (new roots are announced with `notifications/roots/list_changed`).
    Set {
        server: String,
        #[command(flatten)]
        client: ClientArgs,
        /// Offer no roots.
        #[arg(long, conflicts_with = "roots")]
        no_roots: bool,
    },
}

#[derive(Debug, Args)]
pub struct AddServer {
    pub name: String,
    #[arg(long, conflicts_with = "url")]
    pub command: Option<String>,
    /// Arguments of `--command` (repeat, or give after `--`).
    #[arg(long = "arg", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// `KEY=VALUE` environment for a stdio server (repeatable).
    #[arg(long = "env")]
    pub env: Vec<String>,
    #[arg(long)]
    pub cwd: Option<String>,
    #[arg(long)]
    pub url: Option<String>,
    /// `Name: value` HTTP header (repeatable).
    #[arg(long = "header")]
    pub headers: Vec<String>,
    /// The URL speaks legacy HTTP+SSE rather than streamable HTTP.
    #[arg(long, requires = "url")]
    pub sse: bool,
    #[arg(long)]
    pub oauth: bool,
    #[arg(long)]
    pub connect_timeout_ms: Option<u64>,
    #[arg(long)]
    pub request_timeout_ms: Option<u64>,
    #[command(flatten)]
    pub client: ClientArgs,
    /// Trailing arguments for the command.
    #[arg(last = true)]
    pub rest: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum EnvsCmd {
    /// List environments.
    List {
        #[arg(long)]
        archived: bool,
    },
    /// Preview what an environment resolves to.
    Resolve { environment: String },
    /// Set the roots every server of an environment gets during its runs (instead of each
    /// saved server's own), or `--clear` them; with neither, print them.
    Roots {
        environment: String,
        /// A root: a path or a `file://` URI, optionally `=NAME` (repeatable).
        #[arg(long = "root", conflicts_with = "clear")]
        roots: Vec<String>,
        /// Give each server its own saved roots again.
        #[arg(long)]
        clear: bool,
    },
}

use target_server::pairs;

/// An environment by id or name, archived ones included.
/// An environment by id or name (archived ones too): `NOT_FOUND` when there is none.
async fn find_environment(b: &dyn Backend, project: &str, wanted: &str) -> Result<Environment> {
    environment_named(b, project, wanted, true)
        .await?
        .ok_or_else(|| Error::not_found("environment", wanted))
}

/// The environment whose id or name is `wanted`, among the live ones or, with `archived`,
/// all of them.
pub(crate) async fn environment_named(
    b: &dyn Backend,
    project: &str,
    wanted: &str,
    archived: bool,
) -> Result<Option<Environment>> {
    let envs = collect_all(|pg| async move {
        b.environments(
            project,
            &EnvironmentQuery {
                include_archived: archived,
                cursor: pg.cursor,
                limit: pg.limit,
            },
        )
        .await
    })
    .await?;
    Ok(envs
        .into_iter()
        .find(|e| e.id == wanted || e.name == wanted))
}

impl AddServer {
    fn to_body(&self) -> Result<ServerCreate> {
        let transport = match (&self.command, &self.url) {
            (Some(cmd), None) => Transport::Stdio {
                command: cmd.clone(),
                args: self.args.iter().chain(&self.rest).cloned().collect(),
                env: pairs(&self.env, '=', "env")?,
                cwd: self.cwd.clone(),
            },
            (None, Some(url)) if self.sse => Transport::Sse {
                url: url.clone(),
                headers: pairs(&self.headers, ':', "headers")?,
            },
            (None, Some(url)) => Transport::Http {
                url: url.clone(),
                headers: pairs(&self.headers, ':', "headers")?,
            },
            _ => {
                return Err(Error::invalid(
                    "/transport",
                    "oneOf",
                    "give --command (stdio) or --url (HTTP)",
                ));
            }
        };
        let mut config = ServerConfig::new(transport);
        config.use_oauth = self.oauth;
        config.client = self.client.apply(Default::default())?;
        if let Some(t) = self.connect_timeout_ms {
            config.connect_timeout_ms = t;
        }
        if let Some(t) = self.request_timeout_ms {
            config.request_timeout_ms = t;
        }
        Ok(ServerCreate::new(&self.name, config))
    }
}

/// How a command ended short of success: an error still to print, or an outcome the
/// command already printed that only sets the exit code (a failed verdict, a tool's error
/// result, a declined prompt).
pub(crate) enum Failure {
    Error(Error),
    Exit(i32),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Error(e)
    }
}

/// What a command that can end with its own exit code returns.
pub(crate) type Outcome = std::result::Result<(), Failure>;

/// Reads every page of an MCP list (the server's own cursor).
async fn collect_mcp<T, F, Fut>(mut fetch: F) -> Result<Vec<T>>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<McpPage<T>>>,
{
    let mut out = Vec::new();
    let mut cursor = None;
    for _ in 0..1000 {
        let page = fetch(cursor).await?;
        out.extend(page.items);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    Ok(out)
}

/// The first of SIGINT, SIGTERM and SIGHUP: its name and the shell's exit code for it.
async fn interrupted() -> (&'static str, i32) {
    use tokio::signal::unix::{SignalKind, signal};
    async fn next(s: Option<&mut tokio::signal::unix::Signal>) {
        match s {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    let mut term = signal(SignalKind::terminate()).ok();
    let mut hup = signal(SignalKind::hangup()).ok();
    tokio::select! {
        // A command that handles Ctrl-C itself (a tool call cancels on its server) gets a
        // moment to finish doing so.
        _ = async {
            let _ = tokio::signal::ctrl_c().await;
            tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        } => ("interrupted", 130),
        _ = next(term.as_mut()) => ("terminated", 143),
        _ = next(hup.as_mut()) => ("hung up", 129),
    }
}

/// Runs one command and returns the process exit code.
pub async fn run(target: &Target, cmd: Command) -> i32 {
    if let Command::Projects { cmd: Some(admin) } = cmd {
        return operator::run(target, |out| operator::projects(target, admin, out));
    }
    let out = Out { json: target.json };
    let (code, backend) = match target.backend() {
        Ok(b) => {
            // Ctrl-C, SIGTERM and SIGHUP end the command: what it was waiting for is
            // dropped, which cancels an MCP call in flight (`notifications/cancelled`).
            let code = tokio::select! {
                // A command that handles the interruption itself (a tool call) goes first.
                biased;
                r = execute(target, b.clone(), cmd, &out) => r,
                sig = interrupted() => {
                    eprintln!("evaldeck: {} — cancelled", sig.0);
                    // Let the cancellation reach the server before the session closes.
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    Err(Failure::Exit(sig.1))
                }
            };
            (code, Some(b))
        }
        Err(e) => (Err(e.into()), None),
    };
    if let Some(b) = backend {
        b.close().await;
    }
    match code {
        Ok(()) => 0,
        Err(Failure::Exit(code)) => code,
        Err(Failure::Error(e)) => {
            out.error(&e);
            exit_code(&e.code)
        }
    }
}

/// Exit codes, by error kind (documented in the README).
pub fn exit_code(code: &Code) -> i32 {
    match code {
        Code::ValidationError => 2,
        Code::Unauthorized | Code::Forbidden | Code::OauthRequired => 4,
        Code::NotFound => 5,
        Code::Conflict => 6,
        Code::ServerUnreachable | Code::Timeout | Code::FeatureNotSupported => 7,
        Code::RateLimited => 8,
        _ => 1,
    }
}

/// Commands that can end with an exit code of their own; the rest only fail with an error.
async fn execute(target: &Target, backend: Arc<dyn Backend>, cmd: Command, out: &Out) -> Outcome {
    let b = backend.as_ref();
    match cmd {
        Command::Import(a) => import::run_import(target, b, *a, out).await,
        Command::Evals(c) => run::execute(target, b, c, out).await,
        Command::Ingest(c) => ingest::run(target, b, c, out).await,
        Command::Suite(SuiteCmd::Apply(a)) => suite_file::apply(target, b, a, out).await,
        Command::Check(a) => checks::check(target, b, *a, out).await,
        Command::Diff(a) => checks::diff(target, b, *a, out).await,
        Command::Pin(a) => checks::pin(target, b, *a, out).await,
        Command::Scan(a) => checks::scan(target, b, a, out).await,
        Command::Report(a) => checks::report(target, b, a, out).await,
        c @ (Command::Doctor { .. }
        | Command::Validate { .. }
        | Command::Export { .. }
        | Command::Tools(_)
        | Command::Prompts(_)
        | Command::Resources(_)
        | Command::Tasks(_)) => server_commands::run(target, b, c, out).await,
        other => Ok(execute_plain(target, backend, other, out).await?),
    }
}

async fn execute_plain(
    target: &Target,
    backend: Arc<dyn Backend>,
    cmd: Command,
    out: &Out,
) -> Result<()> {
    let b = backend.as_ref();
    match cmd {
        Command::Import(_)
        | Command::Evals(_)
        | Command::Ingest(_)
        | Command::Suite(SuiteCmd::Apply(_))
        | Command::Check(_)
        | Command::Diff(_)
        | Command::Pin(_)
        | Command::Scan(_)
        | Command::Report(_)
        | Command::Doctor { .. }
        | Command::Validate { .. }
        | Command::Export { .. }
        | Command::Tools(_)
        | Command::Prompts(_)
        | Command::Resources(_)
        | Command::Tasks(_) => unreachable!("dispatched by `execute`"),
        Command::Me => out.me(&b.me().await?, &b.describe()),
        Command::Agent(a) => agent::run(target, b, *a, out).await,
        Command::Credits { cmd } => import::credits(target, b, cmd, out).await,
        Command::Projects { cmd: Some(_) } => unreachable!("run by the operator"),
        Command::Projects { cmd: None } => {
            let items =
                collect_all(|p| async move { b.projects(&ProjectQuery::default(), &p).await })
                    .await?;
            out.projects(&items)
        }
        Command::Servers(sc) => {
            let sc = *sc;
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            match sc {
                ServersCmd::List => {
                    let items = collect_all(|pg| async move { b.servers(p, &pg).await }).await?;
                    out.servers(&items)
                }
                ServersCmd::Show { server } => {
                    server_view::server(out, &b.server(p, &server).await?)
                }
                ServersCmd::Add(a) => {
                    server_view::server(out, &b.create_server(p, &a.to_body()?).await?)
                }
                ServersCmd::Remove { server } => {
                    let s = b.server(p, &server).await?;
                    server_view::deleted(out, &s.name, &b.delete_server(p, &s.id).await?)
                }
                ServersCmd::Set {
                    server,
                    client,
                    no_roots,
                } => {
                    let cur = b.server(p, &server).await?;
                    let base = cur.config.map(|c| c.client).unwrap_or_default();
                    let mut features = client.apply(base)?;
                    if no_roots {
                        features.roots.clear();
                    }
                    let patch = crate::spec::server::ServerPatch {
                        client: Some(features),
                        ..Default::default()
                    };
                    server_view::server(out, &b.update_server(p, &cur.id, &patch).await?)
                }
                ServersCmd::Import { file } => {
                    let text = std::fs::read_to_string(&file).map_err(|e| {
                        Error::invalid(
                            "/file",
                            "read",
                            format!("cannot read {}: {e}", file.display()),
                        )
                    })?;
                    let mapped = crate::spec::mcp_config::map_config(&text)
                        .map_err(|m| Error::invalid("/file", "format", m))?;
                    let mut saved = Vec::new();
                    let mut failed = Vec::new();
                    for body in &mapped.servers {
                        match b.create_server(p, body).await {
                            Ok(s) => saved.push(s),
                            Err(e) => failed.push((body.name.clone(), e.message)),
                        }
                    }
                    failed.extend(
                        mapped
                            .skipped
                            .iter()
                            .map(|u| (u.name.clone(), u.reason.clone())),
                    );
                    out.import_report(&saved, &failed, &mapped.warnings)?;
                    if saved.is_empty() && !failed.is_empty() {
                        return Err(Error::invalid(
                            "/file",
                            "import",
                            "no server could be saved",
                        ));
                    }
                    Ok(())
                }
            }
        }
        Command::Hosts => {
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            let items = collect_all(|pg| async move { b.hosts(p, &pg).await }).await?;
            out.hosts(&items)
        }
        Command::Envs(ec) => {
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            match ec {
                EnvsCmd::List { archived } => {
                    let items = collect_all(|pg| async move {
                        let q = EnvironmentQuery {
                            include_archived: archived,
                            cursor: pg.cursor,
                            limit: pg.limit,
                        };
                        b.environments(p, &q).await
                    })
                    .await?;
                    out.environments(&items)
                }
                EnvsCmd::Resolve { environment } => {
                    let env = find_environment(b, p, &environment).await?;
                    out.value(&b.resolve_environment(p, &env.id).await?)
                }
                EnvsCmd::Roots {
                    environment,
                    roots,
                    clear,
                } => {
                    let env = find_environment(b, p, &environment).await?;
                    let roots = match (clear, roots.is_empty()) {
                        (false, true) => return out.value(&env.roots),
                        (true, _) => Patch::Clear,
                        (false, false) => {
                            Patch::Set(roots.iter().map(|r| Root::parse(r)).collect())
                        }
                    };
                    let body = EnvironmentPatch {
                        expected_revision: env.revision,
                        roots,
                        ..Default::default()
                    };
                    out.value(&b.update_environment(p, &env.id, &body).await?.roots)
                }
            }
        }
        Command::Suite(SuiteCmd::Export(a)) => suite_file::export(target, b, a, out).await,
        Command::Suite(SuiteCmd::Schedule(a)) => schedule::run(target, b, a, out).await,
        Command::Suites => {
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            let items = collect_all(|pg| async move { b.eval_suites(p, &pg).await }).await?;
            out.suites(&items)
        }
    }
}
