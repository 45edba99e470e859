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

use crate::client::Backend;
use crate::spec::catalog::Me;
use crate::spec::{Code, Error};
use crate::tui::keymap::{Action, Keymap};
use crate::tui::message::{Envelope, Live, Reply, Request, Slot, SuiteThen, execute};
use crate::tui::nav::{Nav, NavRow};
use crate::tui::panes::agent::{AgentChat, AgentOutcome};
use crate::tui::panes::call_form::{CallForm, CallOutcome};
use crate::tui::panes::cases::parse_update;
use crate::tui::panes::credits::CreditsView;
use crate::tui::panes::environments::EnvironmentsPane;
use crate::tui::panes::hosts::HostsPane;
use crate::tui::panes::import::{ImportScreen, Outcome as ImportOutcome, Target};
use crate::tui::panes::projects::ProjectsPane;
use crate::tui::panes::run_picker::{PickOutcome, RunPicker};
use crate::tui::panes::runs::{LIVE_MS, RunsPane};
use crate::tui::panes::servers::{Output, ServersPane, View as ServerView};
use crate::tui::panes::suites::SuitesPane;
use crate::tui::panes::{Command, Cx, Effect, Pane, PaneFocus, RenderCx, clip};
use crate::tui::section::Section;
use crate::tui::theme::Theme;
use crate::tui::widgets::help::{Help, HelpSection};
use crate::tui::widgets::list::{FilterKey, ListView};
use crate::tui::widgets::modal::{Confirm, ErrorModal};
use crate::tui::widgets::palette::{Entry, Palette, PaletteOutcome};

mod effects;
mod input;
mod replies;
mod view;

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// How often the runs list is read again while it is on screen.
const RUNS_EVERY: Duration = Duration::from_secs(3);
/// How often the protocol events on screen are read again.
const TRAFFIC_EVERY: Duration = Duration::from_millis(500);
/// How long a footer notice stays.
const NOTICE_FOR: Duration = Duration::from_secs(4);

/// What comes to the controller: a reply, or a report from a request still running.
pub enum Incoming {
    Reply(Box<Envelope>),
    Live(Live),
}

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
    /// A form (with its JSON view), and what it saves as.
    Form {
        target: EditTarget,
        form: Box<crate::tui::widgets::form::Form>,
    },
    CallForm(Box<CallForm>),
    Confirm(Confirm),
    Import(Box<ImportScreen>),
    RunPicker(RunPicker),
    /// The conversation with the project's agent (kept in `App::agent` while closed).
    Agent,
    Credits(CreditsView),
    /// A resource template's variables, to read the resource they name.
    Template(Box<crate::tui::panes::template_form::TemplateForm>),
    /// A server's question during a call (elicitation).
    Ask(Box<crate::tui::panes::elicit::Ask>),
    /// Asks for a file path (an `mcp.json` to import).
    Path {
        input: crate::tui::widgets::input::LineInput,
        error: Option<String>,
    },
}

/// What an editor's or a form's document is saved as.
enum EditTarget {
    Case { suite: String, case: String },
    Suite { id: String },
    NewSuite,
    Schedule { suite: String },
    NewEnvironment,
    Environment { id: String },
    NewServer,
    Server { id: String },
    NewHost,
    Host { id: String },
}

pub struct App {
    backend: Arc<dyn Backend>,
    tx: mpsc::UnboundedSender<Envelope>,
    rx: mpsc::UnboundedReceiver<Envelope>,
    /// Progress of running calls and the servers' questions.
    live_tx: mpsc::UnboundedSender<Live>,
    live_rx: mpsc::UnboundedReceiver<Live>,
    /// Questions from servers waiting for the overlay to be free.
    asks: VecDeque<crate::tui::panes::elicit::Ask>,
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
    /// A section to read again once a borrow of the overlay ends.
    reload_later: Option<Section>,
    /// The text last copied, and whether copying reaches the terminal (OSC 52).
    copied: Option<String>,
    osc52: bool,
}

impl App {
    /// A new app; starts loading the account and the projects at once. Needs a tokio
    /// runtime (backend calls run on spawned tasks).
    pub fn new(backend: Arc<dyn Backend>) -> App {
        let (settings, problem) = crate::tui::settings::Settings::load();
        let theme = settings.theme();
        if theme.color {
            // Loads while the first frames draw; until then text is drawn plain.
            crate::tui::widgets::highlight::warm_up();
        }
        let mut app = App::with_theme(backend, theme);
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
        let (live_tx, live_rx) = mpsc::unbounded_channel();
        let describe = backend.describe();
        let mut app = App {
            backend,
            tx,
            rx,
            live_tx,
            live_rx,
            asks: VecDeque::new(),
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
            reload_later: None,
            copied: None,
            osc52: false,
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
        let mut screen = ImportScreen::review(project, job, drafts);
        screen.tools = self.tools_for(None);
        if let Some(req) = screen.drafts_request() {
            self.dispatch(req);
        }
        self.overlay = Some(Overlay::Import(Box::new(screen)));
    }

    /// Opens on one server of a project, selected in the servers pane (`evaldeck open --
    /// COMMAND`: an unsaved target, saved for the session).
    pub fn open_server(&mut self, project: String, server: String) {
        if self.nav.projects.iter().any(|p| p.id == project) {
            self.activate_project(&project);
            self.nav.select_project(&project);
        } else {
            self.prefer_project = Some(project);
        }
        self.servers.want = Some(server.clone());
        self.servers.select_id(&server);
        self.nav.select_section(Section::Servers);
        self.focus = Focus::List;
    }

    /// Opens a review link; `false` when it is not one.
    pub fn open_url(&mut self, url: &str) -> bool {
        match crate::tui::panes::import::parse_review_url(url) {
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

    /// Copying writes to the terminal's clipboard (OSC 52); off unless on a terminal.
    pub fn copy_to_terminal(&mut self, on: bool) {
        self.osc52 = on;
    }

    /// The text last copied.
    pub fn copied(&self) -> Option<&str> {
        self.copied.as_deref()
    }

    pub(super) fn copy(&mut self, text: String) {
        let n = text.chars().count();
        if self.osc52 {
            use base64::Engine;
            use std::io::Write;
            let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            let mut out = std::io::stdout();
            let _ = write!(out, "\x1b]52;c;{b64}\x07");
            let _ = out.flush();
        }
        self.notify(format!("copied {n} characters"));
        self.copied = Some(text);
    }

    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// Whether something on screen moves by itself (spinner, countdown, notice), so the
    /// loop should tick.
    pub fn animating(&self) -> bool {
        self.in_flight > 0
            || self.notice.is_some()
            // The frame after the highlighter has loaded is drawn in colour.
            || (self.theme.color && !crate::tui::widgets::highlight::is_ready())
            || self.errors.iter().any(|e| e.retry.is_some())
            // The runs list stays live while it is on screen (runs started anywhere).
            || self.section() == Section::Runs
            // So do a server's protocol events.
            || (self.section() == Section::Servers && self.servers.watched_traffic().is_some())
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
        let watch = self.watch(&req);
        tokio::spawn(async move {
            let started = Instant::now();
            // A panic in the backend becomes an error reply, so the app never waits forever.
            let result = std::panic::AssertUnwindSafe(execute(&*backend, &req, watch))
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

    /// How a tool call is watched: its progress comes back tagged with the server, and the
    /// server's questions are put to the person.
    fn watch(&self, req: &Request) -> crate::client::CallWatch {
        let Request::CallTool { server, .. } = req else {
            return crate::client::CallWatch::default();
        };
        let (progress, mut reports) = mpsc::unbounded_channel::<crate::local::mcp::Progress>();
        let live = self.live_tx.clone();
        let server = server.clone();
        tokio::spawn(async move {
            while let Some((progress, total, message)) = reports.recv().await {
                let _ = live.send(Live::Progress {
                    server: server.clone(),
                    progress,
                    total,
                    message,
                });
            }
        });
        crate::client::CallWatch {
            progress: Some(progress),
            asker: Some(Arc::new(crate::tui::message::WorkbenchAsker {
                tx: self.live_tx.clone(),
            })),
        }
    }

    /// Waits for the next reply or live report (the event loop selects on this).
    pub async fn recv(&mut self) -> Option<Incoming> {
        tokio::select! {
            biased;
            Some(env) = self.rx.recv() => Some(Incoming::Reply(Box::new(env))),
            Some(live) = self.live_rx.recv() => Some(Incoming::Live(live)),
            else => None,
        }
    }

    pub fn on_incoming(&mut self, i: Incoming) {
        match i {
            Incoming::Reply(env) => self.on_envelope(*env),
            Incoming::Live(l) => self.on_live(l),
        }
    }

    /// Applies every reply and report already queued, without waiting.
    pub fn process_ready(&mut self) {
        loop {
            if let Ok(env) = self.rx.try_recv() {
                self.on_envelope(env);
            } else if let Ok(l) = self.live_rx.try_recv() {
                self.on_live(l);
            } else {
                break;
            }
        }
    }

    /// Waits until no request is in flight, applying replies (and whatever they trigger),
    /// or until a server asks the person something (the answer is theirs to give).
    pub async fn drain(&mut self) {
        while self.in_flight > 0 && !self.asking() {
            match self.recv().await {
                Some(i) => self.on_incoming(i),
                None => break,
            }
        }
    }

    /// Whether the backend is a remote `serve` (calls report no progress there).
    pub(super) fn remote(&self) -> bool {
        self.describe.starts_with("remote")
    }

    /// Whether a server's question is on screen (or waiting to be).
    pub fn asking(&self) -> bool {
        matches!(self.overlay, Some(Overlay::Ask(_))) || !self.asks.is_empty()
    }

    /// The asker tool calls use (tests put questions to the person through it).
    pub fn asker(&self) -> Arc<dyn crate::local::mcp::Asker> {
        Arc::new(crate::tui::message::WorkbenchAsker {
            tx: self.live_tx.clone(),
        })
    }

    fn on_live(&mut self, l: Live) {
        match l {
            Live::Progress {
                server,
                progress,
                total,
                message,
            } => self.servers.on_progress(&server, progress, total, message),
            Live::Elicit {
                server,
                request,
                reply,
            } => {
                let name = self
                    .servers
                    .items
                    .iter()
                    .find(|s| s.id == server || s.name == server)
                    .map(|s| s.name.clone())
                    .unwrap_or(server);
                self.asks
                    .push_back(crate::tui::panes::elicit::Ask::new(name, request, reply));
                self.show_next_ask();
            }
        }
    }

    /// Puts the next waiting question on screen once nothing else is.
    pub(super) fn show_next_ask(&mut self) {
        if self.overlay.is_none()
            && let Some(ask) = self.asks.pop_front()
        {
            self.overlay = Some(Overlay::Ask(Box::new(ask)));
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
}

impl App {
    pub(super) fn notify(&mut self, msg: String) {
        self.notice = Some((msg, Instant::now() + NOTICE_FOR));
    }

    // --- projects -----------------------------------------------------------------------

    /// Once the projects are known, makes the organization's default (or the first) active.
    pub(super) fn ensure_active_project(&mut self) {
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
        // Opened on a server: its pane, once the project it lives in is known.
        if self.servers.want.is_some() {
            self.nav.select_section(Section::Servers);
            self.focus = Focus::List;
        }
    }

    pub(super) fn activate_project(&mut self, id: &str) {
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
    pub(super) fn reload_server(&mut self, id: &str) {
        if let Some(project) = self.nav.active.clone() {
            self.dispatch(Request::Server {
                project,
                id: id.to_string(),
            });
        }
    }

    /// After an import or a review wrote cases: the suites' counts and the cases on screen.
    pub(super) fn cases_changed(&mut self) {
        self.reload(Section::Suites);
        if let (Some(suite), Some(project)) = (self.suites.forget_cases(), self.nav.active.clone())
        {
            self.dispatch(Request::Cases { project, suite });
        }
    }

    /// Reloads a section's list for the active project.
    pub(super) fn reload(&mut self, section: Section) {
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

    pub(super) fn refresh(&mut self) {
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

    pub(super) fn pane_mut(&mut self, s: Section) -> &mut dyn Pane {
        match s {
            Section::Projects => &mut self.projects,
            Section::Servers => &mut self.servers,
            Section::Environments => &mut self.environments,
            Section::Hosts => &mut self.hosts,
            Section::Suites => &mut self.suites,
            Section::Runs => &mut self.runs,
        }
    }

    pub(super) fn pane(&self, s: Section) -> &dyn Pane {
        match s {
            Section::Projects => &self.projects,
            Section::Servers => &self.servers,
            Section::Environments => &self.environments,
            Section::Hosts => &self.hosts,
            Section::Suites => &self.suites,
            Section::Runs => &self.runs,
        }
    }

    pub(super) fn slot_of(s: Section) -> Slot {
        match s {
            Section::Projects => Slot::Projects,
            Section::Servers => Slot::Servers,
            Section::Environments => Slot::Environments,
            Section::Hosts => Slot::Hosts,
            Section::Suites => Slot::Suites,
            Section::Runs => Slot::Runs,
        }
    }

    pub(super) fn count(&self, s: Section) -> Option<usize> {
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
    pub(super) fn with_pane(&mut self, f: impl FnOnce(&mut dyn Pane, &mut Cx) -> bool) -> bool {
        let project = self.nav.active.clone();
        let section = self.section();
        let pending = self.pending.clone();
        let busy = move |slot: Slot| pending.contains_key(&slot);
        let mut cx = Cx {
            project: project.as_deref(),
            effects: Vec::new(),
            busy: &busy,
        };
        let handled = f(self.pane_mut(section), &mut cx);
        let effects = cx.effects;
        for e in effects {
            self.apply_effect(e);
        }
        handled
    }
}
