//! The controller: it owns the backend, the reply queue and every pane. Input becomes
//! actions, actions become effects, effects become backend calls on spawned tasks whose
//! replies come back through the queue tagged with a generation. Nothing here awaits the
//! backend, so drawing and typing never wait on I/O.
//!
//! Headless use (tests): [`App::new`], [`App::handle_key`], [`App::drain`], [`App::render`].

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use futures::FutureExt;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::keymap::{Action, Keymap};
use super::message::{Envelope, Reply, Request, Slot, SuiteThen, execute};
use super::nav::{Nav, NavRow, Section};
use super::panes::agent::{AgentChat, AgentOutcome};
use super::panes::call_form::{CallForm, CallOutcome};
use super::panes::cases::{edit_value, parse_update, validate_update};
use super::panes::credits::CreditsView;
use super::panes::environments::EnvironmentsPane;
use super::panes::hosts::HostsPane;
use super::panes::import::{ImportScreen, Outcome as ImportOutcome, Target};
use super::panes::projects::ProjectsPane;
use super::panes::run_picker::{PickOutcome, RunPicker};
use super::panes::runs::{LIVE_MS, RunsPane};
use super::panes::server_form::{FormOutcome, ServerForm};
use super::panes::servers::{Output, ServersPane, View as ServerView};
use super::panes::suites::SuitesPane;
use super::panes::{Command, Cx, Effect, Pane, PaneFocus, RenderCx};
use super::theme::Theme;
use super::widgets::help::{Help, HelpSection};
use super::widgets::json_edit::{EditOutcome, JsonEditor};
use super::widgets::list::{FilterKey, ListView};
use super::widgets::modal::{Confirm, ErrorModal};
use super::widgets::palette::{Entry, Palette, PaletteOutcome};
use crate::client::Backend;
use crate::spec::catalog::Me;
use crate::spec::{Code, Error};

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// How often the runs list is read again while it is on screen.
const RUNS_EVERY: Duration = Duration::from_secs(3);
/// How long a footer notice stays.
const NOTICE_FOR: Duration = Duration::from_secs(4);

/// Which part of the screen has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Nav,
    List,
    Detail,
}

/// One overlay at a time, moved rarely: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Overlay {
    Help(Help),
    Palette(Palette),
    ServerForm(ServerForm),
    CallForm(Box<CallForm>),
    Confirm(Confirm),
    Import(Box<ImportScreen>),
    RunPicker(RunPicker),
    Editor {
        target: EditTarget,
        editor: Box<JsonEditor>,
    },
    /// The conversation with the project's agent (kept in `App::agent` while closed).
    Agent,
    Credits(CreditsView),
    /// Asks for a file path (an `mcp.json` to import).
    Path {
        input: super::widgets::input::LineInput,
        error: Option<String>,
    },
}

/// What an editor's document is saved as.
enum EditTarget {
    Case { suite: String, case: String },
    Suite { id: String },
    Schedule { suite: String },
    NewEnvironment,
    Environment { id: String },
    Server { id: String },
}

pub struct App {
    backend: Arc<dyn Backend>,
    tx: mpsc::UnboundedSender<Envelope>,
    rx: mpsc::UnboundedReceiver<Envelope>,
    /// The newest generation issued per slot; older replies are stale.
    generations: HashMap<Slot, u64>,
    /// Slots whose newest request has not answered yet.
    pending: HashMap<Slot, u64>,
    in_flight: usize,
    keymap: Keymap,
    theme: Theme,
    describe: String,
    me: Option<Me>,
    nav: Nav,
    focus: Focus,
    projects: ProjectsPane,
    servers: ServersPane,
    environments: EnvironmentsPane,
    hosts: HostsPane,
    suites: SuitesPane,
    runs: RunsPane,
    overlay: Option<Overlay>,
    errors: VecDeque<ErrorModal>,
    last_latency: Option<Duration>,
    notice: Option<(String, Instant)>,
    frame: usize,
    quit: bool,
    nav_area: Rect,
    main_area: Rect,
    /// The project to make active once the projects are known (a review link's).
    prefer_project: Option<String>,
    /// When the runs list was last read, to keep it live while it is on screen.
    runs_read: Option<Instant>,
    /// An import closed before it was submitted: its text comes back with the next `i`.
    kept_import: Option<Box<ImportScreen>>,
    /// The conversation with the agent, kept while its overlay is closed.
    agent: AgentChat,
}

impl App {
    /// A new app; starts loading the account and the projects at once. Needs a tokio
    /// runtime (backend calls run on spawned tasks).
    pub fn new(backend: Arc<dyn Backend>) -> App {
        let (settings, problem) = super::settings::Settings::load();
        let mut app = App::with_theme(backend, settings.theme());
        match settings.keymap() {
            Ok(km) => app.keymap = km,
            Err(e) => app.notify(format!("settings: {e}")),
        }
        if let Some(p) = problem {
            app.notify(format!("settings ignored: {p}"));
        }
        app
    }

    pub fn with_theme(backend: Arc<dyn Backend>, theme: Theme) -> App {
        let (tx, rx) = mpsc::unbounded_channel();
        let describe = backend.describe();
        let mut app = App {
            backend,
            tx,
            rx,
            generations: HashMap::new(),
            pending: HashMap::new(),
            in_flight: 0,
            keymap: Keymap::default(),
            theme,
            describe,
            me: None,
            nav: Nav::default(),
            focus: Focus::Nav,
            projects: ProjectsPane::default(),
            servers: ServersPane::default(),
            environments: EnvironmentsPane::default(),
            hosts: HostsPane::default(),
            suites: SuitesPane::default(),
            runs: RunsPane::default(),
            overlay: None,
            errors: VecDeque::new(),
            last_latency: None,
            notice: None,
            frame: 0,
            quit: false,
            nav_area: Rect::default(),
            main_area: Rect::default(),
            prefer_project: None,
            runs_read: None,
            kept_import: None,
            agent: AgentChat::default(),
        };
        app.dispatch(Request::Me);
        app.dispatch(Request::Projects);
        app
    }

    /// Opens straight onto a job's skipped drafts (`evaldeck open REVIEW_URL`).
    pub fn open_review(&mut self, project: String, job: String, drafts: Vec<String>) {
        if self.nav.projects.iter().any(|p| p.id == project) {
            self.activate_project(&project);
            self.nav.select_project(&project);
        } else {
            self.prefer_project = Some(project.clone());
        }
        let screen = ImportScreen::review(project, job, drafts);
        if let Some(req) = screen.drafts_request() {
            self.dispatch(req);
        }
        self.overlay = Some(Overlay::Import(Box::new(screen)));
    }

    /// Opens a review link; `false` when it is not one.
    pub fn open_url(&mut self, url: &str) -> bool {
        match super::panes::import::parse_review_url(url) {
            Some((project, job, drafts)) => {
                self.open_review(project, job, drafts);
                true
            }
            None => false,
        }
    }

    fn import_screen(&mut self) -> Option<&mut ImportScreen> {
        match self.overlay.as_mut() {
            Some(Overlay::Import(s)) => Some(s),
            _ => None,
        }
    }

    /// The runs pane, for benchmarks that load it with synthetic iterations.
    #[doc(hidden)]
    pub fn runs_pane(&mut self) -> &mut RunsPane {
        &mut self.runs
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// Whether something on screen moves by itself (spinner, countdown, notice), so the
    /// loop should tick.
    pub fn animating(&self) -> bool {
        self.in_flight > 0
            || self.notice.is_some()
            || self.errors.iter().any(|e| e.retry.is_some())
            // The runs list stays live while it is on screen (runs started anywhere).
            || self.section() == Section::Runs
    }

    // --- the reply queue ----------------------------------------------------------------

    /// Sends a request on its own task; the reply comes back through the queue.
    fn dispatch(&mut self, req: Request) {
        let slot = req.slot();
        let generation = {
            let g = self.generations.entry(slot).or_default();
            *g += 1;
            *g
        };
        self.pending.insert(slot, generation);
        self.in_flight += 1;
        tracing::debug!(?slot, generation, what = %req.describe(), "request");
        let backend = self.backend.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            // A panic in the backend becomes an error reply, so the app never waits forever.
            let result = std::panic::AssertUnwindSafe(execute(&*backend, &req))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err(Error::internal("the backend call panicked; see the log")));
            let _ = tx.send(Envelope {
                slot,
                generation,
                request: req,
                result,
                elapsed: started.elapsed(),
            });
        });
    }

    /// Waits for the next reply (the event loop selects on this).
    pub async fn recv(&mut self) -> Option<Envelope> {
        self.rx.recv().await
    }

    /// Applies every reply already queued, without waiting.
    pub fn process_ready(&mut self) {
        while let Ok(env) = self.rx.try_recv() {
            self.on_envelope(env);
        }
    }

    /// Waits until no request is in flight, applying replies (and whatever they trigger).
    pub async fn drain(&mut self) {
        while self.in_flight > 0 {
            match self.rx.recv().await {
                Some(env) => self.on_envelope(env),
                None => break,
            }
        }
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    pub fn on_envelope(&mut self, env: Envelope) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.generations.get(&env.slot) != Some(&env.generation) {
            tracing::debug!(slot = ?env.slot, generation = env.generation, "stale reply dropped");
            return;
        }
        self.pending.remove(&env.slot);
        self.last_latency = Some(env.elapsed);
        match env.result {
            Ok(reply) => self.apply(reply, env.elapsed),
            Err(e) => self.fail(env.request, e),
        }
    }

    fn apply(&mut self, reply: Reply, elapsed: Duration) {
        match reply {
            Reply::Me(me) => {
                self.me = Some(me);
                self.ensure_active_project();
            }
            Reply::Projects(ps) => {
                self.nav.set_projects(ps.clone());
                self.projects.set_items(ps);
                self.ensure_active_project();
            }
            Reply::Servers(v) => self.servers.set_items(v),
            Reply::Server(s) => self.servers.upsert(s),
            Reply::ServerCreated(s) => {
                if matches!(self.overlay, Some(Overlay::ServerForm(_))) {
                    self.overlay = None;
                }
                self.notify(format!("added server {}", s.name));
                let id = s.id.clone();
                self.servers.upsert(s);
                self.servers.select_id(&id);
                self.nav.select_section(Section::Servers);
                self.focus = Focus::List;
                self.reload(Section::Servers);
            }
            Reply::ServerDeleted(d) => {
                self.notify(format!("deleted server {}", d.id));
                self.reload(Section::Servers);
            }
            Reply::Hosts(v) => {
                self.environments.host_names =
                    v.iter().map(|h| (h.id.clone(), h.name.clone())).collect();
                self.hosts.set_items(v);
            }
            Reply::Host(h) => self.hosts.set_opened(h),
            Reply::Environments(v) => self.environments.set_items(v),
            Reply::Resolution(r) => self.environments.set_resolution(r),
            Reply::EnvironmentArchived(e) => {
                self.notify(format!("archived {} (revision {})", e.name, e.revision));
                self.reload(Section::Environments);
            }
            Reply::EnvironmentRestored(r) => {
                let dropped = if r.dropped_plugin_version_ids.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; dropped {} missing plugin pin(s)",
                        r.dropped_plugin_version_ids.len()
                    )
                };
                self.notify(format!("restored {}{dropped}", r.environment.name));
                let id = r.environment.id.clone();
                self.environments.select_id(&id);
                self.reload(Section::Environments);
            }
            Reply::Suites(v) => {
                self.runs.suite_names = v
                    .iter()
                    .map(|s| (s.id.clone(), s.name.clone().unwrap_or_else(|| s.id.clone())))
                    .collect();
                self.runs.trends = v
                    .iter()
                    .map(|s| (s.id.clone(), s.pass_rate_trend.clone()))
                    .collect();
                self.suites.set_items(v);
            }
            Reply::Cases { suite, items } => {
                if let Some(Overlay::RunPicker(p)) = self.overlay.as_mut()
                    && p.suite == suite
                {
                    p.set_cases(&items);
                }
                self.suites.set_cases(suite, items);
            }
            Reply::EnvironmentSaved(e) => {
                if matches!(self.overlay, Some(Overlay::Editor { .. })) {
                    self.overlay = None;
                }
                self.notify(format!(
                    "saved environment {} (revision {})",
                    e.name, e.revision
                ));
                let id = e.id.clone();
                self.environments.select_id(&id);
                self.reload(Section::Environments);
            }
            Reply::ServerSaved(srv) => {
                if matches!(self.overlay, Some(Overlay::Editor { .. })) {
                    self.overlay = None;
                }
                self.notify(format!(
                    "saved server {} (revision {})",
                    srv.name, srv.revision
                ));
                self.servers.upsert(srv);
            }
            Reply::ServersImported {
                created,
                failed,
                notes,
            } => {
                let mut msg = format!("imported {} server(s)", created.len());
                if !failed.is_empty() {
                    let names: Vec<String> = failed
                        .iter()
                        .map(|(n, why)| format!("{n} ({why})"))
                        .collect();
                    msg.push_str(&format!("; refused: {}", names.join(", ")));
                }
                for n in notes {
                    msg.push_str(&format!("; {n}"));
                }
                self.notify(msg);
                self.reload(Section::Servers);
            }
            Reply::CaseUpdated(c) => {
                if matches!(self.overlay, Some(Overlay::Editor { .. })) {
                    self.overlay = None;
                }
                self.notify(format!("saved case {}", c.title));
                self.suites.upsert_case(c);
            }
            Reply::CaseDeleted { suite, case } => {
                self.notify("deleted the case".into());
                self.suites.remove_case(&suite, &case);
                self.cases_changed();
            }
            Reply::Suite { suite, then } => {
                use super::panes::suite_edit as se;
                let editor = match then {
                    SuiteThen::Show => None,
                    SuiteThen::EditSettings => Some((
                        EditTarget::Suite {
                            id: suite.id.clone(),
                        },
                        JsonEditor::new(
                            format!("Edit suite “{}”", suite.name),
                            &se::settings_value(&suite),
                            se::validate_settings,
                        ),
                    )),
                    SuiteThen::EditSchedule => Some((
                        EditTarget::Schedule {
                            suite: suite.id.clone(),
                        },
                        JsonEditor::new(
                            format!("Schedule runs of “{}” (every 5–10080 min)", suite.name),
                            &se::schedule_value(suite.schedule.as_ref()),
                            se::validate_schedule,
                        ),
                    )),
                };
                if let Some((target, editor)) = editor {
                    self.overlay = Some(Overlay::Editor {
                        target,
                        editor: Box::new(editor),
                    });
                }
                self.suites.set_detail(suite);
            }
            Reply::SuiteSaved(s) => {
                if matches!(self.overlay, Some(Overlay::Editor { .. })) {
                    self.overlay = None;
                }
                self.notify(format!("saved suite {}", s.name));
                self.suites.set_detail(s);
                self.reload(Section::Suites);
            }
            Reply::ScheduleSaved(s) => {
                if matches!(self.overlay, Some(Overlay::Editor { .. })) {
                    self.overlay = None;
                }
                self.notify(format!(
                    "schedule saved: {}",
                    super::panes::suite_edit::schedule_summary(&s)
                ));
                self.suites.set_schedule(s);
            }
            Reply::Import(r) => {
                let next = self.import_screen().and_then(|s| s.on_response(r));
                if let Some(req) = next {
                    self.dispatch(req);
                } else {
                    self.cases_changed();
                    self.dispatch(Request::Me);
                }
            }
            Reply::Committed(done) => {
                if let Some(s) = self.import_screen() {
                    s.on_imported(done);
                }
                self.cases_changed();
                // Authoring spent credits: the status bar shows the new balance.
                self.dispatch(Request::Me);
            }
            Reply::Drafts { items, .. } => {
                if let Some(s) = self.import_screen() {
                    s.set_drafts(items);
                }
            }
            Reply::DraftFinished { draft, case } => {
                if let Some(s) = self.import_screen() {
                    s.on_finished(&draft, &case);
                }
                self.notify(format!(
                    "created case “{}” from the draft (free)",
                    case.title
                ));
                self.cases_changed();
            }
            Reply::Runs(v) => self.runs.set_items(v),
            Reply::Run { run, iterations } => {
                let live = !run.is_terminal() && self.runs.opened_id() == Some(run.id.as_str());
                let finished_now = run.is_terminal()
                    && self
                        .runs
                        .items
                        .iter()
                        .any(|r| r.id == run.id && !r.is_terminal());
                let (id, project) = (run.id.clone(), self.nav.active.clone());
                self.runs.set_run(run, iterations);
                if live && let Some(project) = project {
                    self.dispatch(Request::Run {
                        project,
                        run: id,
                        delay_ms: LIVE_MS,
                    });
                } else if finished_now {
                    self.reload(Section::Suites);
                }
            }
            Reply::Trace { iteration, value } => self.runs.set_trace(iteration, value),
            Reply::RunCreated(r) => {
                self.notify(format!("started run {}", r.run_id));
                self.nav.select_section(Section::Runs);
                self.focus = Focus::Detail;
                self.runs.open_id(&r.run_id);
                if let Some(project) = self.nav.active.clone() {
                    self.dispatch(Request::Run {
                        project,
                        run: r.run_id.clone(),
                        delay_ms: 0,
                    });
                }
                self.reload(Section::Runs);
            }
            Reply::RunCancelled(r) => {
                self.notify(format!("cancelled run {}", r.id));
                self.reload(Section::Runs);
            }
            Reply::RunRegraded(r) => {
                let s = r.summary.clone().unwrap_or_default();
                self.notify(format!(
                    "regraded run #{}: {}/{} iterations passed",
                    r.run_number.unwrap_or_default(),
                    s.passed,
                    s.total
                ));
                if let Some(project) = self.nav.active.clone() {
                    self.dispatch(Request::Run {
                        project,
                        run: r.id.clone(),
                        delay_ms: 0,
                    });
                }
                self.reload(Section::Runs);
            }
            Reply::Credits(c) => {
                if let Some(Overlay::Credits(v)) = self.overlay.as_mut() {
                    v.credits = Some(c);
                }
            }
            Reply::AgentReplied(r) => {
                if r.created_resources.iter().any(|c| c.kind == "eval_suite") {
                    self.reload(Section::Suites);
                }
                if !matches!(self.overlay, Some(Overlay::Agent)) {
                    self.notify("the agent replied: A shows it".into());
                }
                self.agent.on_reply(r);
            }
            Reply::Compared(c) => {
                self.runs.set_comparison(c);
                self.focus = Focus::Detail;
            }
            Reply::Validated { server, result } => {
                self.notify(format!("validated: {}", result.status));
                self.servers.mcp_mut(&server).validated = Some(result);
                self.reload_server(&server);
            }
            Reply::Doctor { server, report } => {
                self.servers.mcp_mut(&server).doctor = Some(report);
                self.servers.show(&server, ServerView::Doctor);
                self.reload_server(&server);
            }
            Reply::Checked { server, report } => {
                self.notify(crate::cli::check_counts(&report));
                self.servers.mcp_mut(&server).set_checks(*report);
                self.servers.show(&server, ServerView::Checks);
            }
            Reply::Tools { server, items } => {
                self.servers.mcp_mut(&server).tools = Some(items);
                self.servers.sync_sub();
            }
            Reply::Prompts { server, items } => {
                self.servers.mcp_mut(&server).prompts = Some(items);
                self.servers.sync_sub();
            }
            Reply::Resources { server, items } => {
                self.servers.mcp_mut(&server).resources = Some(items);
                self.servers.sync_sub();
            }
            Reply::Output {
                server,
                title,
                request,
                value,
            } => {
                self.servers.mcp_mut(&server).output = Some(Output {
                    title,
                    request,
                    value,
                    elapsed_ms: elapsed.as_millis(),
                });
                self.servers.show(&server, ServerView::Output);
                if self.section() == Section::Servers {
                    self.focus = Focus::Detail;
                }
            }
        }
    }

    fn fail(&mut self, request: Request, e: Error) {
        tracing::warn!(code = %e.code, message = %e.message, what = %request.describe(), "request failed");
        if let (Request::CreateServer { .. }, Some(Overlay::ServerForm(form))) =
            (&request, self.overlay.as_mut())
            && e.code != Code::RateLimited
        {
            form.set_error(&e);
            return;
        }
        if let (Request::FinishDraft { .. }, Some(Overlay::Import(s))) =
            (&request, self.overlay.as_mut())
            && s.on_finish_failed(&e)
        {
            return;
        }
        if let Request::AgentTurn { .. } = &request
            && e.code != Code::RateLimited
        {
            self.agent.on_failed(e);
            return;
        }
        match (&request, self.overlay.as_mut()) {
            (
                Request::ImportCases { .. } | Request::PollJob { .. } | Request::CommitJob { .. },
                Some(Overlay::Import(s)),
            ) => s.on_failed(&e),
            (
                Request::UpdateCase { .. }
                | Request::UpdateSuite { .. }
                | Request::SetSchedule { .. }
                | Request::UpdateServer { .. }
                | Request::CreateEnvironment { .. }
                | Request::UpdateEnvironment { .. },
                Some(Overlay::Editor { editor, .. }),
            ) if e.code != Code::RateLimited => {
                let conflict = e.code == Code::Conflict;
                editor.set_error(&e);
                if conflict && let Request::UpdateEnvironment { body, .. } = &request {
                    editor.set_error(&Error::new(
                        Code::Conflict,
                        format!(
                            "someone saved this environment after you opened it (you edited \
                             revision {}); Esc, then e again to edit the newest revision",
                            body.expected_revision
                        ),
                    ));
                    self.reload(Section::Environments);
                }
                return;
            }
            _ => {}
        }
        let mut modal = ErrorModal::new(e, request.describe());
        if modal.error.code == Code::RateLimited {
            let wait = Duration::from_secs(modal.error.retry_after().unwrap_or(1).max(1));
            modal.retry = Some((request, Instant::now() + wait));
        } else if modal.error.code == Code::Conflict
            && let Request::ArchiveEnvironment {
                expected_revision, ..
            }
            | Request::RestoreEnvironment {
                expected_revision, ..
            } = &request
        {
            modal.hint = Some(format!(
                "The environment changed after this list was read: you acted on revision \
                 {expected_revision}, and someone (another window, the CLI or the API) has \
                 written a newer one. The list has been reloaded — check the environment \
                 and try again."
            ));
            self.reload(Section::Environments);
        }
        self.errors.push_back(modal);
    }

    /// Advances the spinner, fires due retries and expires the notice.
    pub fn on_tick(&mut self) {
        self.frame = self.frame.wrapping_add(1);
        let now = Instant::now();
        if self.notice.as_ref().is_some_and(|(_, at)| now >= *at) {
            self.notice = None;
        }
        let mut due = Vec::new();
        self.errors.retain_mut(|m| match &m.retry {
            Some((req, at)) if now >= *at => {
                due.push(req.clone());
                false
            }
            _ => true,
        });
        for req in due {
            self.dispatch(req);
        }
        if self.section() == Section::Runs
            && !self.pending.contains_key(&Slot::Runs)
            && self
                .runs_read
                .is_none_or(|t| now.duration_since(t) >= RUNS_EVERY)
        {
            self.runs_read = Some(now);
            self.reload(Section::Runs);
        }
    }

    fn notify(&mut self, msg: String) {
        self.notice = Some((msg, Instant::now() + NOTICE_FOR));
    }

    // --- projects -----------------------------------------------------------------------

    /// Once the projects are known, makes the organization's default (or the first) active.
    fn ensure_active_project(&mut self) {
        if self.nav.active.is_some() || self.nav.projects.is_empty() {
            return;
        }
        let preferred = self
            .prefer_project
            .take()
            .filter(|id| self.nav.projects.iter().any(|p| &p.id == id));
        let default = preferred.or_else(|| {
            self.me
                .as_ref()
                .and_then(|m| m.organization.as_ref())
                .and_then(|o| o.default_project_id.clone())
                .filter(|id| self.nav.projects.iter().any(|p| &p.id == id))
        });
        let id = default.unwrap_or_else(|| self.nav.projects[0].id.clone());
        self.activate_project(&id);
        self.nav.select_project(&id);
        self.projects.select_id(&id);
    }

    fn activate_project(&mut self, id: &str) {
        if self.nav.active.as_deref() == Some(id) {
            return;
        }
        self.nav.set_active(Some(id.to_string()));
        self.projects.active = Some(id.to_string());
        self.servers.set_items(Vec::new());
        self.environments.clear();
        self.hosts.clear();
        self.suites.set_items(Vec::new());
        self.runs.set_items(Vec::new());
        for s in Section::CHILDREN {
            self.reload(s);
        }
    }

    /// Re-reads one server (its status changes after validate and doctor).
    fn reload_server(&mut self, id: &str) {
        if let Some(project) = self.nav.active.clone() {
            self.dispatch(Request::Server {
                project,
                id: id.to_string(),
            });
        }
    }

    /// After an import or a review wrote cases: the suites' counts and the cases on screen.
    fn cases_changed(&mut self) {
        self.reload(Section::Suites);
        if let (Some(suite), Some(project)) = (self.suites.forget_cases(), self.nav.active.clone())
        {
            self.dispatch(Request::Cases { project, suite });
        }
    }

    /// Reloads a section's list for the active project.
    fn reload(&mut self, section: Section) {
        if section == Section::Projects {
            self.dispatch(Request::Projects);
            return;
        }
        let Some(project) = self.nav.active.clone() else {
            return;
        };
        let req = match section {
            Section::Servers => Request::Servers { project },
            Section::Environments => self.environments.list_request(&project),
            Section::Hosts => Request::Hosts { project },
            Section::Suites => Request::Suites { project },
            Section::Runs => Request::Runs { project },
            Section::Projects => unreachable!(),
        };
        self.dispatch(req);
    }

    fn refresh(&mut self) {
        self.dispatch(Request::Me);
        self.dispatch(Request::Projects);
        for s in Section::CHILDREN {
            self.reload(s);
        }
        self.notify("refreshing".into());
    }

    // --- panes --------------------------------------------------------------------------

    /// The section the main area shows.
    pub fn section(&self) -> Section {
        self.nav.section()
    }

    fn pane_mut(&mut self, s: Section) -> &mut dyn Pane {
        match s {
            Section::Projects => &mut self.projects,
            Section::Servers => &mut self.servers,
            Section::Environments => &mut self.environments,
            Section::Hosts => &mut self.hosts,
            Section::Suites => &mut self.suites,
            Section::Runs => &mut self.runs,
        }
    }

    fn pane(&self, s: Section) -> &dyn Pane {
        match s {
            Section::Projects => &self.projects,
            Section::Servers => &self.servers,
            Section::Environments => &self.environments,
            Section::Hosts => &self.hosts,
            Section::Suites => &self.suites,
            Section::Runs => &self.runs,
        }
    }

    fn slot_of(s: Section) -> Slot {
        match s {
            Section::Projects => Slot::Projects,
            Section::Servers => Slot::Servers,
            Section::Environments => Slot::Environments,
            Section::Hosts => Slot::Hosts,
            Section::Suites => Slot::Suites,
            Section::Runs => Slot::Runs,
        }
    }

    fn count(&self, s: Section) -> Option<usize> {
        if self.pending.contains_key(&App::slot_of(s)) {
            return None;
        }
        Some(match s {
            Section::Projects => self.projects.items.len(),
            Section::Servers => self.servers.count(),
            Section::Environments => self.environments.active_count(),
            Section::Hosts => self.hosts.items.len(),
            Section::Suites => self.suites.items.len(),
            Section::Runs => self.runs.items.len(),
        })
    }

    /// Runs a pane handler with a context, then carries out what it asked for.
    fn with_pane(&mut self, f: impl FnOnce(&mut dyn Pane, &mut Cx) -> bool) -> bool {
        let project = self.nav.active.clone();
        let section = self.section();
        let mut cx = Cx {
            project: project.as_deref(),
            effects: Vec::new(),
        };
        let handled = f(self.pane_mut(section), &mut cx);
        let effects = cx.effects;
        for e in effects {
            self.apply_effect(e);
        }
        handled
    }

    fn apply_effect(&mut self, e: Effect) {
        match e {
            Effect::Fetch(r) => self.dispatch(r),
            Effect::Confirm { prompt, request } => {
                self.overlay = Some(Overlay::Confirm(Confirm { prompt, request }));
            }
            Effect::OpenServerForm => {
                if self.nav.active.is_some() {
                    self.overlay = Some(Overlay::ServerForm(ServerForm::default()));
                } else {
                    self.notify("no project is active".into());
                }
            }
            Effect::ActivateProject(id) => {
                self.activate_project(&id);
                self.notify(format!(
                    "project {}",
                    self.nav
                        .active_project()
                        .map(|p| p.name.as_str())
                        .unwrap_or("?")
                ));
            }
            Effect::Notify(m) => self.notify(m),
            Effect::OpenCallForm(form) => self.overlay = Some(Overlay::CallForm(form)),
            Effect::OpenImport { suite, suite_name } => {
                let Some(project) = self.nav.active.clone() else {
                    return;
                };
                if self
                    .kept_import
                    .as_ref()
                    .is_some_and(|k| k.suite_id() == Some(suite.as_str()) && k.project == project)
                    && let Some(kept) = self.kept_import.take()
                {
                    self.overlay = Some(Overlay::Import(kept));
                    return;
                }
                let mut targets: Vec<Target> = self
                    .servers
                    .items
                    .iter()
                    .map(|s| Target::Server {
                        id: s.id.clone(),
                        name: s.name.clone(),
                    })
                    .collect();
                targets.extend(
                    self.environments
                        .items
                        .iter()
                        .filter(|e| e.archived_at.is_none())
                        .map(|e| Target::Environment {
                            id: e.id.clone(),
                            name: e.name.clone(),
                        }),
                );
                self.overlay = Some(Overlay::Import(Box::new(ImportScreen::new(
                    project,
                    (suite, suite_name),
                    targets,
                ))));
            }
            Effect::OpenRunPicker {
                suite,
                suite_name,
                cases,
            } => {
                let mut picker = RunPicker::new(suite.clone(), suite_name);
                match cases {
                    Some(cs) => picker.set_cases(&cs),
                    None => {
                        if let Some(project) = self.nav.active.clone() {
                            self.dispatch(Request::Cases { project, suite });
                        }
                    }
                }
                self.overlay = Some(Overlay::RunPicker(picker));
            }
            Effect::EditCase { suite, case } => {
                let editor = JsonEditor::new(
                    format!("Edit case “{}”", case.title),
                    &edit_value(&case),
                    validate_update,
                );
                self.overlay = Some(Overlay::Editor {
                    target: EditTarget::Case {
                        suite,
                        case: case.id.clone(),
                    },
                    editor: Box::new(editor),
                });
            }
            Effect::EditEnvironment(env) => {
                use super::panes::environments as envs;
                let (target, editor) = match env {
                    None => (
                        EditTarget::NewEnvironment,
                        JsonEditor::new(
                            "New environment",
                            &envs::create_template(self.hosts.items.first().map(|h| h.id.as_str())),
                            envs::validate_create,
                        ),
                    ),
                    Some(e) => (
                        EditTarget::Environment { id: e.id.clone() },
                        JsonEditor::new(
                            format!("Edit environment “{}” (revision {})", e.name, e.revision),
                            &envs::edit_value(&e),
                            envs::validate_patch,
                        ),
                    ),
                };
                self.overlay = Some(Overlay::Editor {
                    target,
                    editor: Box::new(editor),
                });
            }
            Effect::EditServer(srv) => {
                use super::panes::servers as srvs;
                self.overlay = Some(Overlay::Editor {
                    target: EditTarget::Server { id: srv.id.clone() },
                    editor: Box::new(JsonEditor::new(
                        format!("Edit server “{}”", srv.name),
                        &srvs::edit_value(&srv),
                        srvs::validate_patch,
                    )),
                });
            }
            Effect::OpenMcpImport => {
                self.overlay = Some(Overlay::Path {
                    input: Default::default(),
                    error: None,
                });
            }
        }
    }

    // --- input --------------------------------------------------------------------------

    pub fn handle_event(&mut self, ev: Event) {
        match ev {
            Event::Key(k) => self.handle_key(k),
            Event::Mouse(m) => self.handle_mouse(m),
            Event::Paste(text) => self.handle_paste(&text),
            _ => {}
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if !self.errors.is_empty() {
            self.error_key(&key);
            return;
        }
        if let Some(overlay) = self.overlay.take() {
            self.overlay_key(overlay, &key);
            return;
        }
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return;
        }
        if self.focused_list().filter_key(&key) == FilterKey::Consumed {
            if self.focus == Focus::Nav {
                self.on_nav_moved();
            }
            return;
        }
        if let Some(action) = self.keymap.action(&key) {
            self.perform(action);
        }
    }

    pub fn handle_paste(&mut self, text: &str) {
        match self.overlay.as_mut() {
            Some(Overlay::Palette(p)) => p.paste(text),
            Some(Overlay::ServerForm(f)) => f.paste(text),
            Some(Overlay::CallForm(f)) => f.paste(text),
            Some(Overlay::Import(s)) => s.paste(text),
            Some(Overlay::RunPicker(p)) => p.paste(text),
            Some(Overlay::Editor { editor, .. }) => editor.paste(text),
            Some(Overlay::Agent) => self.agent.paste(text),
            Some(Overlay::Path { input, .. }) => {
                input.insert_str(text.lines().next().unwrap_or(""))
            }
            Some(_) => {}
            None => {
                let one_line = text.lines().next().unwrap_or("");
                self.focused_list().paste_into_filter(one_line);
            }
        }
    }

    fn error_key(&mut self, key: &KeyEvent) {
        match key.code {
            KeyCode::Enter => {
                if let Some(m) = self.errors.pop_front()
                    && let Some((req, _)) = m.retry
                {
                    self.dispatch(req);
                }
            }
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char(' ') => {
                self.errors.pop_front();
            }
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => self.quit = true,
            _ => {}
        }
    }

    fn overlay_key(&mut self, overlay: Overlay, key: &KeyEvent) {
        match overlay {
            Overlay::Help(mut h) => match self.keymap.action(key) {
                Some(Action::Back | Action::Help | Action::Quit) => {}
                Some(Action::Down) => {
                    h.scroll_by(1);
                    self.overlay = Some(Overlay::Help(h));
                }
                Some(Action::Up) => {
                    h.scroll_by(-1);
                    self.overlay = Some(Overlay::Help(h));
                }
                Some(Action::PageDown) => {
                    h.scroll_by(10);
                    self.overlay = Some(Overlay::Help(h));
                }
                Some(Action::PageUp) => {
                    h.scroll_by(-10);
                    self.overlay = Some(Overlay::Help(h));
                }
                _ => self.overlay = Some(Overlay::Help(h)),
            },
            Overlay::Palette(mut p) => match p.handle_key(key) {
                PaletteOutcome::Keep => self.overlay = Some(Overlay::Palette(p)),
                PaletteOutcome::Close => {}
                PaletteOutcome::Run(action, section) => {
                    if let Some(section) = section {
                        if section != self.section() {
                            self.nav.select_section(section);
                        }
                        if self.focus == Focus::Nav {
                            self.focus = Focus::List;
                        }
                    }
                    self.perform(action);
                }
            },
            Overlay::ServerForm(mut form) => match form.handle_key(key) {
                FormOutcome::Keep => self.overlay = Some(Overlay::ServerForm(form)),
                FormOutcome::Cancel => {}
                FormOutcome::Submit(body) => {
                    self.overlay = Some(Overlay::ServerForm(form));
                    if let Some(project) = self.nav.active.clone() {
                        self.dispatch(Request::CreateServer {
                            project,
                            body: *body,
                        });
                    }
                }
            },
            Overlay::CallForm(mut form) => {
                let project = self.nav.active.clone().unwrap_or_default();
                match form.handle_key(key, &project) {
                    CallOutcome::Keep => self.overlay = Some(Overlay::CallForm(form)),
                    CallOutcome::Cancel => {}
                    CallOutcome::Submit(req) => {
                        self.notify(format!("{}…", req.describe()));
                        self.servers.show(&form.server, ServerView::Output);
                        self.dispatch(req);
                    }
                }
            }
            Overlay::Import(mut screen) => match screen.handle_key(key) {
                ImportOutcome::Keep => self.overlay = Some(Overlay::Import(screen)),
                ImportOutcome::Close => {
                    if screen.phase() == super::panes::import::Phase::Compose && screen.has_text() {
                        self.notify("the plan is kept: i brings it back".into());
                        self.kept_import = Some(screen);
                    }
                }
                ImportOutcome::Send(req) => {
                    self.overlay = Some(Overlay::Import(screen));
                    self.dispatch(req);
                }
            },
            Overlay::Credits(mut v) => {
                if v.handle_key(key) {
                    self.overlay = Some(Overlay::Credits(v));
                }
            }
            Overlay::Agent => {
                let project = self.nav.active.clone().unwrap_or_default();
                match self.agent.handle_key(key, &project) {
                    AgentOutcome::Keep => self.overlay = Some(Overlay::Agent),
                    AgentOutcome::Close => {}
                    AgentOutcome::Send(req) => {
                        self.overlay = Some(Overlay::Agent);
                        self.dispatch(*req);
                    }
                }
            }
            Overlay::RunPicker(mut p) => {
                let project = self.nav.active.clone().unwrap_or_default();
                match p.handle_key(key, &project) {
                    PickOutcome::Keep => self.overlay = Some(Overlay::RunPicker(p)),
                    PickOutcome::Cancel => {}
                    PickOutcome::Start(req) => {
                        self.notify(format!("starting a run of {}…", p.suite_name));
                        self.dispatch(req);
                    }
                }
            }
            Overlay::Editor { target, mut editor } => match editor.handle_key(key) {
                EditOutcome::Keep => self.overlay = Some(Overlay::Editor { target, editor }),
                EditOutcome::Cancel => {}
                EditOutcome::Save(v) => {
                    if let Some(project) = self.nav.active.clone() {
                        use crate::spec::case::decode;
                        let req = match &target {
                            EditTarget::Case { suite, case } => Some(Request::UpdateCase {
                                project,
                                suite: suite.clone(),
                                case: case.clone(),
                                body: parse_update(v),
                            }),
                            EditTarget::Suite { id } => {
                                decode(v).ok().map(|body| Request::UpdateSuite {
                                    project,
                                    suite: id.clone(),
                                    body,
                                })
                            }
                            EditTarget::Schedule { suite } => {
                                decode(v).ok().map(|body| Request::SetSchedule {
                                    project,
                                    suite: suite.clone(),
                                    body,
                                })
                            }
                            EditTarget::NewEnvironment => decode(v)
                                .ok()
                                .map(|body| Request::CreateEnvironment { project, body }),
                            EditTarget::Server { id } => {
                                decode(v).ok().map(|body| Request::UpdateServer {
                                    project,
                                    id: id.clone(),
                                    body,
                                })
                            }
                            EditTarget::Environment { id } => {
                                decode(v).ok().map(|body| Request::UpdateEnvironment {
                                    project,
                                    id: id.clone(),
                                    body,
                                })
                            }
                        };
                        if let Some(req) = req {
                            self.dispatch(req);
                        }
                    }
                    self.overlay = Some(Overlay::Editor { target, editor });
                }
            },
            Overlay::Path { mut input, .. } => match key.code {
                KeyCode::Esc => {}
                KeyCode::Enter => {
                    let path = crate::spec::mcp_config::expand_home(input.text().trim());
                    let mapped = std::fs::read_to_string(&path)
                        .map_err(|e| format!("cannot read {path}: {e}"))
                        .and_then(|t| crate::spec::mcp_config::map_config(&t));
                    match (mapped, self.nav.active.clone()) {
                        (Ok(m), Some(project)) if !m.servers.is_empty() => {
                            let mut notes: Vec<String> = m
                                .skipped
                                .iter()
                                .map(|u| format!("skipped {}: {}", u.name, u.reason))
                                .collect();
                            notes.extend(m.warnings);
                            for n in &notes {
                                tracing::info!(note = %n, "mcp.json import");
                            }
                            self.dispatch(Request::ImportServers {
                                project,
                                bodies: m.servers,
                                notes,
                            });
                        }
                        (Ok(m), _) => {
                            let why = m
                                .skipped
                                .iter()
                                .map(|u| format!("{}: {}", u.name, u.reason))
                                .collect::<Vec<_>>()
                                .join("; ");
                            self.overlay = Some(Overlay::Path {
                                input,
                                error: Some(format!("no server to import {why}")),
                            });
                        }
                        (Err(e), _) => {
                            self.overlay = Some(Overlay::Path {
                                input,
                                error: Some(e),
                            })
                        }
                    }
                }
                _ => {
                    input.handle_key(key);
                    self.overlay = Some(Overlay::Path { input, error: None });
                }
            },
            Overlay::Confirm(c) => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.dispatch(c.request),
                KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => {}
                _ => self.overlay = Some(Overlay::Confirm(c)),
            },
        }
    }

    fn focused_list(&mut self) -> &mut ListView {
        match self.focus {
            Focus::Nav => &mut self.nav.list,
            Focus::List | Focus::Detail => {
                let s = self.section();
                self.pane_mut(s).list()
            }
        }
    }

    /// After the navigation cursor moved: a project row activates that project.
    fn on_nav_moved(&mut self) {
        if let Some(p) = self.nav.project_under_cursor() {
            let id = p.id.clone();
            self.projects.select_id(&id);
            self.activate_project(&id);
        }
    }

    fn open(&mut self) {
        match self.focus {
            Focus::Nav => match self.nav.current() {
                Some(NavRow::Project(_)) => {
                    self.on_nav_moved();
                    self.focus = Focus::List;
                }
                Some(NavRow::Section(_)) => self.focus = Focus::List,
                None => {}
            },
            Focus::List => {
                if self.with_pane(|p, cx| p.open(cx)) {
                    self.focus = Focus::Detail;
                }
            }
            Focus::Detail => {
                self.with_pane(|p, cx| p.detail_action(Action::Open, cx));
            }
        }
    }

    fn move_focused(&mut self, action: Action) {
        if self.focus == Focus::Detail && self.with_pane(|p, cx| p.detail_action(action, cx)) {
            return;
        }
        if self.focus == Focus::Detail {
            let s = self.section();
            let d = self.pane_mut(s).detail();
            match action {
                Action::Up => d.scroll_by(-1),
                Action::Down => d.scroll_by(1),
                Action::PageUp => d.page(false),
                Action::PageDown => d.page(true),
                Action::Top => d.top(),
                Action::Bottom => d.bottom(),
                _ => {}
            }
            return;
        }
        let list = self.focused_list();
        match action {
            Action::Up => list.up(),
            Action::Down => list.down(),
            Action::PageUp => list.page(false),
            Action::PageDown => list.page(true),
            Action::Top => list.top(),
            Action::Bottom => list.bottom(),
            _ => {}
        }
        if self.focus == Focus::Nav {
            self.on_nav_moved();
        } else {
            let s = self.section();
            self.pane_mut(s).detail().top();
        }
    }

    /// Carries out one action.
    pub fn perform(&mut self, action: Action) {
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.overlay = Some(Overlay::Help(self.help())),
            Action::Credits => {
                self.overlay = Some(Overlay::Credits(CreditsView::default()));
                self.dispatch(Request::Credits);
                self.dispatch(Request::Me);
            }
            Action::Agent => {
                if self.nav.active.is_some() {
                    self.overlay = Some(Overlay::Agent);
                } else {
                    self.notify("open a project first: the agent works in one".into());
                }
            }
            Action::Palette => {
                self.overlay = Some(Overlay::Palette(Palette::new(self.palette_entries())))
            }
            Action::Filter => {
                if self.focus == Focus::Detail {
                    self.focus = Focus::List;
                }
                self.focused_list().start_filter();
            }
            Action::FocusNext => {
                self.focus = match self.focus {
                    Focus::Nav => Focus::List,
                    Focus::List => Focus::Detail,
                    Focus::Detail => Focus::Nav,
                }
            }
            Action::FocusPrev => {
                self.focus = match self.focus {
                    Focus::Nav => Focus::Detail,
                    Focus::List => Focus::Nav,
                    Focus::Detail => Focus::List,
                }
            }
            Action::Goto(s) => {
                if s != Section::Projects && self.nav.active.is_none() {
                    self.notify("no project is active yet".into());
                    return;
                }
                self.nav.select_section(s);
                self.focus = Focus::List;
            }
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::PageUp
            | Action::PageDown => self.move_focused(action),
            Action::Left => match self.focus {
                Focus::Nav => {}
                Focus::List => self.focus = Focus::Nav,
                Focus::Detail => self.focus = Focus::List,
            },
            Action::Right | Action::Open => self.open(),
            Action::Back => {
                if self.focus == Focus::Detail
                    && self.with_pane(|p, cx| p.detail_action(Action::Back, cx))
                {
                    return;
                }
                let list = self.focused_list();
                if !list.filter_text().is_empty() {
                    list.clear_filter();
                    return;
                }
                self.focus = match self.focus {
                    Focus::Nav => Focus::Nav,
                    Focus::List => Focus::Nav,
                    Focus::Detail => Focus::List,
                };
            }
            Action::Refresh => self.refresh(),
            other => {
                // The detail's own commands (delete a case) come before the pane's.
                let in_detail = self.focus == Focus::Detail
                    && self.with_pane(|p, cx| p.detail_action(other, cx));
                if !in_detail && !self.with_pane(|p, cx| p.on_action(other, cx)) {
                    let key = self.keymap.key_for(other).unwrap_or_default();
                    self.notify(format!("{key}: nothing to {} here", other.label()));
                }
            }
        }
    }

    pub fn handle_mouse(&mut self, m: MouseEvent) {
        if !self.errors.is_empty() {
            return;
        }
        if let Some(Overlay::Help(h)) = self.overlay.as_mut() {
            match m.kind {
                MouseEventKind::ScrollDown => h.scroll_by(3),
                MouseEventKind::ScrollUp => h.scroll_by(-3),
                _ => {}
            }
            return;
        }
        if self.overlay.is_some() {
            return;
        }
        let pos = Position::new(m.column, m.row);
        let section = self.section();
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                if self.nav.list.contains(pos) || self.nav_area.contains(pos) {
                    self.focus = Focus::Nav;
                    if self.nav.list.click(pos) {
                        self.on_nav_moved();
                    }
                } else if self.pane_mut(section).list().contains(pos) {
                    self.focus = Focus::List;
                    if self.pane_mut(section).list().click(pos) {
                        self.pane_mut(section).detail().top();
                    }
                } else if self.pane_mut(section).detail().contains(pos) {
                    self.focus = Focus::Detail;
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                if self.nav_area.contains(pos) {
                    self.nav.list.scroll(if down { 1 } else { -1 });
                    self.on_nav_moved();
                } else if self.pane_mut(section).list().contains(pos) {
                    self.pane_mut(section)
                        .list()
                        .scroll(if down { 1 } else { -1 });
                } else if self.pane_mut(section).detail().contains(pos) {
                    self.pane_mut(section)
                        .detail()
                        .scroll_by(if down { 3 } else { -3 });
                }
            }
            _ => {}
        }
    }

    // --- commands, help, palette ---------------------------------------------------------

    fn global_commands() -> Vec<Command> {
        vec![
            Command::new(Action::Help, "help"),
            Command::new(Action::Palette, "command palette"),
            Command::new(Action::Filter, "filter the list"),
            Command::new(Action::FocusNext, "next pane"),
            Command::new(Action::FocusPrev, "previous pane"),
            Command::new(Action::Open, "open"),
            Command::new(Action::Back, "back / clear filter"),
            Command::new(Action::Refresh, "reload everything"),
            Command::new(Action::Agent, "talk to the project's agent"),
            Command::new(Action::Credits, "credits and their ledger"),
            Command::new(Action::Quit, "quit"),
        ]
    }

    fn help(&self) -> Help {
        let km = &self.keymap;
        let rows = |cmds: Vec<Command>| -> Vec<(String, String)> {
            cmds.into_iter()
                .map(|c| (km.keys_for(c.action), c.label.to_string()))
                .collect()
        };
        let section = self.section();
        let mut sections = vec![HelpSection {
            title: format!("{} pane", section.label()),
            rows: rows(self.pane(section).commands()),
        }];
        sections.push(HelpSection {
            title: "Everywhere".into(),
            rows: rows(App::global_commands()),
        });
        let mut moves = rows(vec![
            Command::new(Action::Up, "up"),
            Command::new(Action::Down, "down"),
            Command::new(Action::Left, "back towards the navigation"),
            Command::new(Action::Right, "open / into the pane"),
            Command::new(Action::Top, "first"),
            Command::new(Action::Bottom, "last"),
            Command::new(Action::PageUp, "page up"),
            Command::new(Action::PageDown, "page down"),
        ]);
        moves.push(("click".into(), "focus and select".into()));
        moves.push(("wheel".into(), "scroll what is under the pointer".into()));
        sections.push(HelpSection {
            title: "Moving".into(),
            rows: moves,
        });
        sections.push(HelpSection {
            title: "Sections".into(),
            rows: Section::ALL
                .iter()
                .map(|&s| (km.keys_for(Action::Goto(s)), s.goto_label().to_string()))
                .collect(),
        });
        sections.push(HelpSection {
            title: "Filter (after /)".into(),
            rows: vec![
                (
                    "type".into(),
                    "narrow the list (words match anywhere)".into(),
                ),
                (
                    "Enter".into(),
                    "keep the filter and go back to the list".into(),
                ),
                ("Esc".into(), "clear the filter".into()),
            ],
        });
        Help {
            sections,
            scroll: 0,
        }
    }

    fn palette_entries(&self) -> Vec<Entry> {
        let current = self.section();
        let mut entries: Vec<Entry> = Vec::new();
        let km = &self.keymap;
        let mut push = |action: Action, section: Option<Section>, label: String| {
            if !entries
                .iter()
                .any(|e| e.action == action && e.section == section)
            {
                entries.push(Entry {
                    action,
                    section,
                    label,
                    key: km.key_for(action),
                });
            }
        };
        // The current pane's commands first, then every other pane's, then the rest.
        let mut order = vec![current];
        order.extend(Section::ALL.iter().copied().filter(|&s| s != current));
        for s in order {
            if s != Section::Projects && self.nav.active.is_none() {
                continue;
            }
            for c in self.pane(s).commands() {
                if c.action != Action::Refresh {
                    push(c.action, Some(s), format!("{}: {}", s.label(), c.label));
                }
            }
        }
        for s in Section::ALL {
            push(Action::Goto(s), None, s.goto_label().to_string());
        }
        for c in App::global_commands() {
            if c.action != Action::Palette {
                push(c.action, None, c.label.to_string());
            }
        }
        entries
    }

    /// The footer's key hints for what has focus.
    fn hints(&self) -> Vec<(String, String)> {
        let km = &self.keymap;
        let k = |a: Action| km.key_for(a).unwrap_or_default();
        let mut out: Vec<(String, String)> = Vec::new();
        match self.focus {
            Focus::Nav => {
                out.push((k(Action::Open), "open".into()));
            }
            Focus::List => {
                for c in self.pane(self.section()).commands() {
                    out.push((k(c.action), c.label.into()));
                }
            }
            Focus::Detail => {
                for c in self.pane(self.section()).detail_commands() {
                    out.push((k(c.action), c.label.into()));
                }
                out.push(("j/k".into(), "move".into()));
                out.push((k(Action::Back), "back".into()));
            }
        }
        out.push((k(Action::Filter), "filter".into()));
        out.push((k(Action::FocusNext), "pane".into()));
        out.push((k(Action::Palette), "command".into()));
        out.push((k(Action::Help), "help".into()));
        out.push((k(Action::Quit), "quit".into()));
        out
    }

    // --- drawing ------------------------------------------------------------------------

    pub fn render(&mut self, f: &mut Frame) {
        let area = f.area();
        let [status, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Fill(1),
            Constraint::Length(1),
        ])
        .areas(area);
        self.render_status(f, status);
        let nav_w = if area.width >= 110 { 26 } else { 22 };
        let [nav_area, main_area] =
            Layout::horizontal([Constraint::Length(nav_w), Constraint::Fill(1)]).areas(body);
        self.nav_area = nav_area;
        let counts: HashMap<Section, Option<usize>> = Section::CHILDREN
            .iter()
            .map(|&s| (s, self.count(s)))
            .collect();
        let theme = self.theme.clone();
        let projects_loading = self.pending.contains_key(&Slot::Projects);
        self.nav.render(
            f,
            nav_area,
            &theme,
            self.focus == Focus::Nav,
            projects_loading,
            |s| counts.get(&s).copied().flatten(),
        );
        self.projects.counts = Section::CHILDREN
            .iter()
            .filter_map(|&s| counts.get(&s).copied().flatten().map(|n| (s.label(), n)))
            .collect();
        let section = self.section();
        let pending = self.pending.clone();
        let busy = move |slot: Slot| pending.contains_key(&slot);
        let rcx = RenderCx {
            theme: &theme,
            busy: &busy,
            spinner: SPINNER[self.frame % SPINNER.len()],
            focus: match self.focus {
                Focus::Nav => PaneFocus::None,
                Focus::List => PaneFocus::List,
                Focus::Detail => PaneFocus::Detail,
            },
            loading: self.pending.contains_key(&App::slot_of(section)),
        };
        self.main_area = main_area;
        if !matches!(self.overlay, Some(Overlay::Import(_))) {
            self.pane_mut(section).render(f, main_area, &rcx);
        }
        let filtering = self.focused_list().is_filtering();
        self.render_footer(f, footer, filtering);
        match self.overlay.as_mut() {
            Some(Overlay::Help(h)) => h.render(f, area, &theme),
            Some(Overlay::Palette(p)) => p.render(f, area, &theme),
            Some(Overlay::ServerForm(form)) => form.render(f, area, &theme),
            Some(Overlay::CallForm(form)) => form.render(f, area, &theme),
            Some(Overlay::Confirm(c)) => c.render(f, area, &theme),
            Some(Overlay::Import(s)) => {
                s.render(f, main_area, &theme, SPINNER[self.frame % SPINNER.len()])
            }
            Some(Overlay::RunPicker(p)) => p.render(f, area, &theme),
            Some(Overlay::Path { input, error }) => {
                render_path_prompt(f, area, &theme, input, error.as_deref())
            }
            Some(Overlay::Credits(v)) => v.render(f, area, &theme),
            Some(Overlay::Agent) => {
                self.agent
                    .render(f, area, &theme, SPINNER[self.frame % SPINNER.len()])
            }
            Some(Overlay::Editor { editor, .. }) => {
                let r = super::widgets::modal::centered(
                    main_area,
                    main_area.width.saturating_sub(4).max(40),
                    main_area.height.saturating_sub(2).max(10),
                );
                editor.render(f, r, &theme);
            }
            None => {}
        }
        if let Some(m) = self.errors.front() {
            m.render(f, area, &theme, Instant::now());
        }
    }

    fn render_status(&self, f: &mut Frame, area: Rect) {
        let t = &self.theme;
        let mut right = Vec::new();
        if self.in_flight > 0 {
            right.push(Span::styled(
                format!("{} loading ", SPINNER[self.frame % SPINNER.len()]),
                t.status_bar,
            ));
        }
        if self.errors.len() > 1 {
            right.push(Span::styled(
                format!("{} errors ", self.errors.len()),
                t.status_bar,
            ));
        }
        let right_w: usize = right.iter().map(|s| s.width()).sum();
        let (org, credits) = match self.me.as_ref().and_then(|m| m.organization.as_ref()) {
            Some(o) => (format!("org {}", o.name), format!("{} credits", o.credits)),
            None if self.me.is_some() => ("no organization".into(), String::new()),
            None => ("…".into(), String::new()),
        };
        let sep = " │ ";
        let fixed =
            " evaldeck".len() + sep.len() * 3 + org.chars().count() + credits.chars().count();
        let room = (area.width as usize).saturating_sub(fixed + right_w + 1);
        let describe = clip_middle(&self.describe, room);
        let mut spans = vec![
            Span::styled(
                " evaldeck",
                t.status_bar.add_modifier(ratatui::style::Modifier::BOLD),
            ),
            Span::styled(sep, t.status_bar),
            Span::styled(describe, t.status_bar),
            Span::styled(sep, t.status_bar),
            Span::styled(org, t.status_bar),
        ];
        if !credits.is_empty() {
            spans.push(Span::styled(sep, t.status_bar));
            spans.push(Span::styled(credits, t.status_bar));
        }
        f.buffer_mut().set_style(area, t.status_bar);
        f.render_widget(Paragraph::new(Line::from(spans)), area);
        let rw = right_w as u16;
        if rw > 0 && rw < area.width {
            let r = Rect {
                x: area.x + area.width - rw,
                width: rw,
                ..area
            };
            f.render_widget(Paragraph::new(Line::from(right)), r);
        }
    }

    fn render_footer(&self, f: &mut Frame, area: Rect, filtering: bool) {
        let t = &self.theme;
        let right = match (&self.notice, self.last_latency) {
            (Some((msg, _)), _) => Span::styled(format!("{msg} "), t.accent),
            // Fixed width, so the hints beside it do not come and go with the digits.
            (None, Some(d)) => Span::styled(format!("last: {:>5} ms ", d.as_millis()), t.dim),
            (None, None) => Span::raw(""),
        };
        let room = (area.width as usize).saturating_sub(right.width() + 1);
        let mut spans = vec![Span::raw(" ")];
        let mut used = 1;
        let hints = if let Some(Overlay::Import(s)) = &self.overlay {
            s.hints()
        } else if filtering {
            vec![
                ("type".to_string(), "to filter".to_string()),
                ("Enter".into(), "keep".into()),
                ("Esc".into(), "clear".into()),
            ]
        } else {
            self.hints()
        };
        for (key, label) in hints {
            let w = key.chars().count() + label.chars().count() + 3;
            if used + w > room {
                break;
            }
            spans.push(Span::styled(key, t.key));
            spans.push(Span::styled(format!(" {label}  "), t.dim));
            used += w;
        }
        f.render_widget(Paragraph::new(Line::from(spans)), area);
        let rw = right.width() as u16;
        if rw > 0 && rw < area.width {
            let r = Rect {
                x: area.x + area.width - rw,
                width: rw,
                ..area
            };
            f.render_widget(Paragraph::new(right), r);
        }
    }
}

/// The box that asks for an `mcp.json` path.
fn render_path_prompt(
    f: &mut Frame,
    area: Rect,
    theme: &Theme,
    input: &super::widgets::input::LineInput,
    error: Option<&str>,
) {
    let r = super::widgets::modal::centered(area, 76, 8);
    let inner = super::widgets::modal::frame_box(
        f,
        r,
        Line::styled(" Import servers from an mcp.json ", theme.title),
        theme.border_focused,
    );
    let mut path = vec![Span::styled("path  ", theme.dim)];
    path.extend(input.line(theme.base, theme.selected, true).spans);
    let mut lines = vec![
        Line::styled(
            "Claude Desktop / Claude Code / Cursor (mcpServers) or VS Code (servers) files.",
            theme.dim,
        ),
        Line::from(path),
    ];
    if let Some(e) = error {
        lines.push(Line::styled(format!("✗ {e}"), theme.error));
    }
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key),
        Span::styled(" import  ", theme.dim),
        Span::styled("Esc", theme.key),
        Span::styled(" cancel", theme.dim),
    ]));
    f.render_widget(
        Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
}

/// Shortens text in the middle (`/home/me/…/evaldeck.sqlite3`), keeping both ends readable.
fn clip_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width < 5 {
        return s.chars().take(width).collect();
    }
    let head = (width - 1) / 2;
    let tail = width - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}
