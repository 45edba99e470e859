//! Import: paste or type a test plan (or load a file), pick the servers or an environment,
//! the duplicate policy and its reason, submit, and watch the authoring job until it is
//! committed; then review the skipped drafts — each with its reason and its source lines
//! highlighted in the document — edit one with validation inline and commit it (free).
//! `evaldeck open REVIEW_URL` opens straight onto the review.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui_textarea::TextArea;
use tokio::time::Instant;

use super::cases::{edit_value, parse_update};
use super::{clip, pad, pane_block};
use crate::spec::Error;
use crate::spec::authoring::AuthoringDraft;
use crate::spec::case::EvalCase;
use crate::spec::import::{
    DuplicatePolicy, EvalCaseImportRequest, EvalCaseImported, ImportResponse, JobStatus,
};
use crate::spec::primitives::ToolItem;
use crate::tui::message::Request;
use crate::tui::theme::Theme;
use crate::tui::widgets::doc::{Doc, DocView};
use crate::tui::widgets::form::{Form, FormOutcome};
use crate::tui::widgets::highlight;
use crate::tui::widgets::input::LineInput;
use crate::tui::widgets::list::ListView;

/// How often a pending job is polled.
pub const POLL_MS: u64 = 500;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The suite's own servers.
    Suite,
    Server {
        id: String,
        name: String,
    },
    Environment {
        id: String,
        name: String,
    },
}

impl Target {
    fn label(&self) -> String {
        match self {
            Target::Suite => "the suite's servers".into(),
            Target::Server { name, .. } => format!("server {name}"),
            Target::Environment { name, .. } => format!("environment {name}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Compose,
    Watch,
    Review,
}

/// What the controller should do after a key.
#[allow(clippy::large_enum_variant)] // returned once per key, never stored
pub enum Outcome {
    Keep,
    Close,
    Send(Request),
}

const POLICIES: [DuplicatePolicy; 3] = [
    DuplicatePolicy::Block,
    DuplicatePolicy::Warn,
    DuplicatePolicy::CreateAnyway,
];

/// Option rows beside the document.
const ROWS: usize = 4;

pub struct ImportScreen {
    pub project: String,
    pub suite: Option<(String, String)>,
    phase: Phase,
    // compose
    ta: TextArea<'static>,
    doc: DocView,
    on_options: bool,
    row: usize,
    targets: Vec<Target>,
    target: usize,
    policy: usize,
    reason: LineInput,
    file: LineInput,
    problem: Option<String>,
    // watch
    started: Option<Instant>,
    took: Option<Duration>,
    job: Option<String>,
    state: String,
    result: Option<EvalCaseImported>,
    failure: Option<String>,
    // review
    /// Only these drafts (from a review link), when set.
    only: Option<Vec<String>>,
    drafts: Option<Vec<AuthoringDraft>>,
    list: ListView,
    source: DocView,
    /// The case form on the selected draft (the same form as a saved case's).
    pub editor: Option<Form>,
    /// The live tools the form picks the expected tool from.
    pub tools: Vec<ToolItem>,
    committed: Vec<(String, String)>,
    /// The review was opened from a link (Esc closes instead of going back).
    from_link: bool,
    /// Titles of the suite's cases by id, to name the case a draft duplicates.
    pub case_titles: std::collections::HashMap<String, String>,
}

impl ImportScreen {
    pub fn new(project: String, suite: (String, String), targets: Vec<Target>) -> ImportScreen {
        let mut ta = TextArea::default();
        ta.set_line_number_style(ratatui::style::Style::default());
        let mut all = vec![Target::Suite];
        all.extend(targets);
        ImportScreen {
            project,
            suite: Some(suite),
            phase: Phase::Compose,
            ta,
            doc: DocView::default(),
            on_options: false,
            row: 0,
            targets: all,
            target: 0,
            policy: 0,
            reason: LineInput::default(),
            file: LineInput::default(),
            problem: None,
            started: None,
            took: None,
            job: None,
            state: String::new(),
            result: None,
            failure: None,
            only: None,
            drafts: None,
            list: ListView::default(),
            source: DocView::default(),
            editor: None,
            tools: Vec::new(),
            committed: Vec::new(),
            from_link: false,
            case_titles: Default::default(),
        }
    }

    /// The review of a job's skipped drafts, as a review link names them.
    pub fn review(project: String, job: String, only: Vec<String>) -> ImportScreen {
        let mut s = ImportScreen::new(project, (String::new(), String::new()), Vec::new());
        s.suite = None;
        s.phase = Phase::Review;
        s.job = Some(job);
        s.only = (!only.is_empty()).then_some(only);
        s.from_link = true;
        s
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the document has any text (closing keeps it for the next `i`).
    pub fn has_text(&self) -> bool {
        self.ta.lines().iter().any(|l| !l.trim().is_empty())
    }

    pub fn suite_id(&self) -> Option<&str> {
        self.suite.as_ref().map(|s| s.0.as_str())
    }

    pub fn drafts_request(&self) -> Option<Request> {
        Some(Request::Drafts {
            project: self.project.clone(),
            job: self.job.clone()?,
        })
    }

    pub fn busy(&self) -> bool {
        self.phase == Phase::Watch && self.took.is_none()
    }

    fn text(&self) -> String {
        self.ta.lines().join("\n")
    }

    /// Bracketed paste: the whole text at once, wherever the cursor is.
    pub fn paste(&mut self, text: &str) {
        if let Some(ed) = self.editor.as_mut() {
            ed.paste(text);
            return;
        }
        match (self.phase, self.on_options) {
            (Phase::Compose, false) => {
                let text = text.replace("\r\n", "\n").replace('\r', "\n");
                self.ta.insert_str(text);
            }
            (Phase::Compose, true) => {
                let one = text.lines().next().unwrap_or("");
                match self.row {
                    2 => self.reason.insert_str(one),
                    3 => self.file.insert_str(one),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn request(&self) -> Result<Request, String> {
        let Some((suite, _)) = &self.suite else {
            return Err("no suite".into());
        };
        let mut body = EvalCaseImportRequest::new(self.text());
        let file = self.file.text().trim();
        if !file.is_empty() {
            let base = std::path::Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| file.to_string());
            body.file_name = Some(base);
        }
        match &self.targets[self.target] {
            Target::Suite => {}
            Target::Server { id, .. } => body.servers = Some(vec![id.clone()]),
            Target::Environment { id, .. } => body.environment_id = Some(id.clone()),
        }
        body.duplicate_policy = POLICIES[self.policy];
        let reason = self.reason.text().trim();
        if !reason.is_empty() {
            body.override_reason = Some(reason.to_string());
        }
        if body.content.trim().is_empty() {
            return Err("paste or type a test plan first".into());
        }
        body.validate()
            .map_err(|e| crate::tui::widgets::json_edit::error_lines(&e).join("; "))?;
        Ok(Request::ImportCases {
            project: self.project.clone(),
            suite: suite.clone(),
            body,
        })
    }

    /// Empties the document (Ctrl-L, and `n` after an import).
    pub fn clear_document(&mut self) {
        let mut ta = TextArea::default();
        ta.set_line_number_style(ratatui::style::Style::default());
        self.ta = ta;
        self.doc = DocView::default();
        self.problem = None;
    }

    /// The document's length in characters (the limit counts characters).
    pub fn chars(&self) -> usize {
        let lines = self.ta.lines();
        lines.iter().map(|l| l.chars().count()).sum::<usize>() + lines.len().saturating_sub(1)
    }

    /// How a draft's skip reads: a duplicate names the case it duplicates by its title.
    fn reason_text(&self, d: &AuthoringDraft) -> String {
        let reason = d.skip_reason.clone().unwrap_or_default();
        match (d.skip_code.as_deref(), d.duplicate_of.as_deref()) {
            (Some("DUPLICATE"), Some(id)) => match self.case_titles.get(id) {
                Some(t) => format!("duplicate of “{t}” (same prompts or the same tool call)"),
                None => reason,
            },
            _ => reason,
        }
    }

    fn load_file(&mut self) {
        let path = self.file.text().trim().to_string();
        if path.is_empty() {
            self.problem = Some("type a file path in “file”, then Ctrl-O".into());
            return;
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let mut ta = TextArea::new(text.lines().map(str::to_string).collect());
                ta.set_line_number_style(ratatui::style::Style::default());
                self.ta = ta;
                self.problem = None;
            }
            Err(e) => self.problem = Some(format!("cannot read {path}: {e}")),
        }
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> Outcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(ed) = self.editor.as_mut() {
            match ed.handle_key(key) {
                FormOutcome::Keep | FormOutcome::Alt(_) => {}
                FormOutcome::Cancel => self.editor = None,
                FormOutcome::Save(v) => {
                    // SEAM(update_draft): saving commits the edited draft as a case (free),
                    // through the finish-draft operation. Once the Backend can save an edited
                    // draft re-grounded without committing it, Ctrl-S saves (and shows the
                    // recomputed claim) and `c` commits.
                    if let Some(req) = self.finish_request(Some(v)) {
                        return Outcome::Send(req);
                    }
                }
            }
            return Outcome::Keep;
        }
        match self.phase {
            Phase::Compose => self.compose_key(key, ctrl),
            Phase::Watch => match key.code {
                KeyCode::Char('x') | KeyCode::Char('X') if self.busy() => match &self.job {
                    Some(job) => Outcome::Send(Request::CancelJob {
                        project: self.project.clone(),
                        job: job.clone(),
                    }),
                    None => Outcome::Keep,
                },
                KeyCode::Enter | KeyCode::Char('v')
                    if self.result.as_ref().is_some_and(|r| !r.skipped.is_empty()) =>
                {
                    self.phase = Phase::Review;
                    self.drafts = None;
                    match self.drafts_request() {
                        Some(r) => Outcome::Send(r),
                        None => Outcome::Keep,
                    }
                }
                KeyCode::Char('n') if !self.busy() => {
                    // A new import starts from an empty document (the options stay).
                    self.clear_document();
                    self.phase = Phase::Compose;
                    Outcome::Keep
                }
                KeyCode::Esc | KeyCode::Char('q') => Outcome::Close,
                _ => Outcome::Keep,
            },
            Phase::Review => match key.code {
                KeyCode::Esc | KeyCode::Char('q') => {
                    if self.from_link || self.result.is_none() {
                        Outcome::Close
                    } else {
                        self.phase = Phase::Watch;
                        Outcome::Keep
                    }
                }
                KeyCode::Up | KeyCode::Char('k') => {
                    self.list.up();
                    self.source.scroll = 0;
                    Outcome::Keep
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.list.down();
                    self.source.scroll = 0;
                    Outcome::Keep
                }
                KeyCode::Char('e') | KeyCode::Enter => {
                    if let Some(d) = self.selected_draft() {
                        let mut form = crate::tui::case_form::case_form(
                            format!("Draft “{}”", d.title),
                            &d.case,
                            self.tools.clone(),
                        );
                        form.save_label = "commit with this edit (free)";
                        self.editor = Some(form);
                    }
                    Outcome::Keep
                }
                KeyCode::Char('c') => match self.finish_request(None) {
                    Some(r) => Outcome::Send(r),
                    None => Outcome::Keep,
                },
                KeyCode::Char('r') => match self.drafts_request() {
                    Some(r) => Outcome::Send(r),
                    None => Outcome::Keep,
                },
                _ => Outcome::Keep,
            },
        }
    }

    fn compose_key(&mut self, key: &KeyEvent, ctrl: bool) -> Outcome {
        match key.code {
            KeyCode::Esc => return Outcome::Close,
            KeyCode::Char('s') if ctrl => match self.request() {
                Ok(req) => {
                    self.problem = None;
                    self.phase = Phase::Watch;
                    self.started = Some(Instant::now());
                    self.took = None;
                    self.job = None;
                    self.result = None;
                    self.failure = None;
                    self.committed.clear();
                    self.state = "submitted".into();
                    return Outcome::Send(req);
                }
                Err(p) => self.problem = Some(p),
            },
            KeyCode::Char('o') if ctrl => self.load_file(),
            KeyCode::Char('l') if ctrl => self.clear_document(),
            KeyCode::Tab | KeyCode::BackTab => self.on_options = !self.on_options,
            _ if self.on_options => match key.code {
                KeyCode::Up => self.row = self.row.saturating_sub(1),
                KeyCode::Down | KeyCode::Enter => self.row = (self.row + 1).min(ROWS - 1),
                KeyCode::Left | KeyCode::Right if self.row < 2 => {
                    let right = key.code == KeyCode::Right;
                    let (slot, n) = if self.row == 0 {
                        (&mut self.target, self.targets.len())
                    } else {
                        (&mut self.policy, POLICIES.len())
                    };
                    *slot = if right {
                        (*slot + 1) % n
                    } else {
                        (*slot + n - 1) % n
                    };
                }
                _ => {
                    match self.row {
                        2 => self.reason.handle_key(key),
                        3 => self.file.handle_key(key),
                        _ => false,
                    };
                }
            },
            _ => {
                self.ta.input(*key);
            }
        }
        Outcome::Keep
    }

    // --- replies --------------------------------------------------------------------------

    /// The import's answer or a poll: returns what to send next (a poll, the commit).
    pub fn on_response(&mut self, r: ImportResponse) -> Option<Request> {
        match r {
            ImportResponse::Imported(done) => {
                self.on_imported(done);
                None
            }
            ImportResponse::Job(j) => {
                self.job = Some(j.job_id.clone());
                self.state = j.status.as_str().into();
                match j.status {
                    JobStatus::Pending => Some(Request::PollJob {
                        project: self.project.clone(),
                        job: j.job_id,
                        delay_ms: POLL_MS,
                    }),
                    JobStatus::Completed => {
                        self.state = "completed — committing".into();
                        Some(Request::CommitJob {
                            project: self.project.clone(),
                            job: j.job_id,
                        })
                    }
                    JobStatus::Failed | JobStatus::Cancelled => {
                        self.took = self.started.map(|s| s.elapsed());
                        self.failure = j
                            .error
                            .or(Some(format!("the job was {}", j.status.as_str())));
                        None
                    }
                }
            }
        }
    }

    pub fn on_imported(&mut self, done: EvalCaseImported) {
        self.took = self.started.map(|s| s.elapsed());
        self.state = "committed".into();
        if let Some(j) = &done.job_id {
            self.job = Some(j.clone());
        }
        self.result = Some(done);
    }

    pub fn on_failed(&mut self, e: &Error) {
        if self.phase == Phase::Watch {
            self.took = self.started.map(|s| s.elapsed());
            self.state = "failed".into();
            self.failure = Some(format!("{}: {}", e.code, e.message));
        }
    }

    pub fn set_drafts(&mut self, items: Vec<AuthoringDraft>) {
        let items: Vec<AuthoringDraft> = match &self.only {
            Some(ids) => items.into_iter().filter(|d| ids.contains(&d.id)).collect(),
            None => items,
        };
        self.list
            .set_keys(items.iter().map(|d| d.title.clone()).collect());
        self.drafts = Some(items);
    }

    fn selected_draft(&self) -> Option<&AuthoringDraft> {
        self.drafts.as_ref()?.get(self.list.selected()?)
    }

    fn finish_request(&self, edit: Option<serde_json::Value>) -> Option<Request> {
        let d = self.selected_draft()?;
        Some(Request::FinishDraft {
            project: self.project.clone(),
            job: d.job_id.clone(),
            draft: d.id.clone(),
            edit: edit.map(parse_update).unwrap_or_default(),
        })
    }

    pub fn on_finished(&mut self, draft: &str, case: &EvalCase) {
        self.editor = None;
        self.committed.push((case.title.clone(), case.id.clone()));
        // The job's summary counts the draft as created from now on.
        if let Some(r) = self.result.as_mut()
            && r.skipped.iter().any(|s| s.draft_id == draft)
        {
            r.skipped.retain(|s| s.draft_id != draft);
            if case.is_negative {
                r.counts.negative += 1;
            } else {
                r.counts.normal += 1;
            }
            r.created.push(case.clone());
        }
        if let Some(ds) = self.drafts.as_mut() {
            ds.retain(|d| d.id != draft);
            let keys = ds.iter().map(|d| d.title.clone()).collect();
            self.list.set_keys(keys);
        }
    }

    /// The live tools, for the case form (now or when it opens).
    pub fn give_tools(&mut self, tools: Vec<ToolItem>) {
        self.tools = tools.clone();
        if let Some(form) = self.editor.as_mut() {
            crate::tui::case_form::give_tools(form, tools);
        }
    }

    pub fn on_finish_failed(&mut self, e: &Error) -> bool {
        match self.editor.as_mut() {
            Some(ed) => {
                ed.set_error(e);
                true
            }
            None => false,
        }
    }

    // --- drawing --------------------------------------------------------------------------

    /// The footer's hints for the current phase.
    pub fn hints(&self) -> Vec<(String, String)> {
        let h = |k: &str, l: &str| (k.to_string(), l.to_string());
        if self.editor.is_some() {
            return vec![
                h("Ctrl-S", "commit with edit"),
                h("Ctrl-T", "JSON"),
                h("Esc", "cancel"),
            ];
        }
        match self.phase {
            Phase::Compose => vec![
                h("Ctrl-S", "submit"),
                h("Tab", "options"),
                h("Ctrl-O", "load file"),
                h("Ctrl-L", "clear"),
                h("Esc", "close"),
            ],
            Phase::Watch if self.busy() => vec![h("x", "cancel the job"), h("Esc", "close")],
            Phase::Watch => {
                let mut out = Vec::new();
                if self.result.as_ref().is_some_and(|r| !r.skipped.is_empty()) {
                    out.push(h("Enter", "review skipped"));
                }
                out.push(h("n", "new import"));
                out.push(h("Esc", "close"));
                out
            }
            Phase::Review => vec![
                h("j/k", "move"),
                h("e", "edit"),
                h("c", "commit (free)"),
                h("Esc", "back"),
            ],
        }
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme, spinner: char) {
        match self.phase {
            Phase::Compose | Phase::Watch => self.render_compose(f, area, theme, spinner),
            Phase::Review => self.render_review(f, area, theme, spinner),
        }
        if let Some(ed) = self.editor.as_mut() {
            ed.render(f, area, theme);
        }
    }

    fn suite_name(&self) -> String {
        self.suite.as_ref().map(|s| s.1.clone()).unwrap_or_default()
    }

    fn render_compose(&mut self, f: &mut Frame, area: Rect, theme: &Theme, spinner: char) {
        let side_w = if area.width >= 100 { 44 } else { 34 };
        let [left, right] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(side_w)]).areas(area);
        let editing = self.phase == Phase::Compose && !self.on_options;
        let chars = self.chars();
        let lines = self.ta.lines();
        let max = crate::spec::import::MAX_CONTENT_CHARS;
        // The size against the limit, as it grows (the limit counts characters).
        let size = Span::styled(
            format!(" {} / {} characters ", thousands(chars), thousands(max)),
            if chars > max {
                theme.error
            } else if chars * 10 > max * 9 {
                theme.warn
            } else {
                theme.dim
            },
        );
        let title = format!(
            "Import into suite “{}” ({} lines)",
            self.suite_name(),
            lines.len()
        );
        let block =
            pane_block(title, editing, theme).title_bottom(Line::from(size).right_aligned());
        let inner = block.inner(left);
        f.render_widget(block, left);
        if lines.len() == 1 && lines[0].is_empty() && editing {
            f.render_widget(
                Paragraph::new(vec![
                    Line::styled(
                        "Paste a test plan (Markdown, CSV, JSON or YAML) or type one.",
                        theme.dim,
                    ),
                    Line::styled(
                        "Or type a path in “file” (Tab) and press Ctrl-O to load it.",
                        theme.dim,
                    ),
                ]),
                inner,
            );
        } else {
            let cursor = self.ta.cursor();
            let emphasis = None;
            self.doc.render(
                f,
                inner,
                &Doc {
                    lines,
                    first_number: 1,
                    ext: "md",
                    emphasis,
                    cursor: editing.then_some((cursor.0, cursor.1)),
                },
                theme,
            );
        }
        if self.phase == Phase::Compose {
            self.render_options(f, right, theme);
        } else {
            self.render_job(f, right, theme, spinner);
        }
    }

    fn render_options(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let block = pane_block("Options", self.on_options, theme);
        let inner = block.inner(area);
        f.render_widget(block, area);
        let w = inner.width as usize;
        let row = |i: usize, label: &str, value: Line<'static>| -> Line<'static> {
            let sel = self.on_options && self.row == i;
            let mut spans = vec![Span::styled(
                format!("{} {label:<8}", if sel { "▸" } else { " " }),
                if sel { theme.accent } else { theme.dim },
            )];
            spans.extend(value.spans);
            Line::from(spans)
        };
        let cycle = |s: String| Line::from(format!("‹ {} ›", clip(&s, w.saturating_sub(14))));
        let policy = POLICIES[self.policy].as_str().to_string();
        let mut lines = vec![
            row(0, "target", cycle(self.targets[self.target].label())),
            row(1, "policy", cycle(policy)),
            row(
                2,
                "reason",
                self.reason
                    .line(theme.base, theme.selected, self.on_options && self.row == 2),
            ),
            row(
                3,
                "file",
                self.file
                    .line(theme.base, theme.selected, self.on_options && self.row == 3),
            ),
            Line::raw(""),
        ];
        if POLICIES[self.policy] != DuplicatePolicy::Block && self.reason.text().trim().is_empty() {
            lines.push(Line::styled(
                format!("✗ {} needs a reason", POLICIES[self.policy].as_str()),
                theme.error,
            ));
        }
        if let Some(p) = &self.problem {
            lines.push(Line::styled(format!("✗ {p}"), theme.error));
        }
        lines.push(Line::from(vec![
            Span::styled("Ctrl-S", theme.key),
            Span::styled(" submit  ", theme.dim),
            Span::styled("Tab", theme.key),
            Span::styled(" text/options", theme.dim),
        ]));
        lines.push(Line::styled(
            "Authoring costs credits per draft; committing skipped drafts later is free.",
            theme.dim,
        ));
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }

    fn render_job(&self, f: &mut Frame, area: Rect, theme: &Theme, spinner: char) {
        let title = match &self.job {
            Some(j) => format!("Job {j}"),
            None => "Job".into(),
        };
        let block = pane_block(title, true, theme);
        let inner = block.inner(area);
        f.render_widget(block, area);
        let elapsed = self
            .took
            .or_else(|| self.started.map(|s| s.elapsed()))
            .unwrap_or_default();
        let mut lines = Vec::new();
        let (mark, style) = if self.failure.is_some() {
            ("✗".to_string(), theme.error)
        } else if self.took.is_some() {
            ("✓".to_string(), theme.ok)
        } else {
            (spinner.to_string(), theme.warn)
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{mark} "), style),
            Span::styled(self.state.clone(), style),
            Span::styled(format!("  {:.1} s", elapsed.as_secs_f64()), theme.dim),
        ]));
        if self.took.is_none() {
            lines.push(Line::styled(
                "the server answers within its wait window; a job still authoring then is polled",
                theme.dim,
            ));
        }
        if let Some(e) = &self.failure {
            lines.push(Line::styled(e.clone(), theme.error));
        }
        if let Some(r) = &self.result
            && r.created.is_empty()
            && r.skipped.is_empty()
            && self.committed.is_empty()
        {
            // Nothing to commit is not a success to report with zeros.
            lines.push(Line::styled(
                "no case was found in the document",
                theme.warn,
            ));
            lines.push(Line::styled(
                "A case needs a prompt (a question or instruction for the assistant) and, \
                 ideally, what should happen: a tool, its arguments, or the answer's text. \
                 n starts a new import.",
                theme.dim,
            ));
            for w in &r.warnings {
                lines.push(Line::styled(format!("⚠ {}", w.message), theme.warn));
            }
        } else if let Some(r) = &self.result {
            lines.push(Line::from(format!("authored with {}", r.generation_model)));
            lines.push(Line::from(vec![
                Span::styled(format!("{} created", r.created.len()), theme.ok),
                Span::styled(
                    format!(
                        " ({} normal, {} negative)",
                        r.counts.normal, r.counts.negative
                    ),
                    theme.dim,
                ),
            ]));
            let skipped = Span::styled(
                format!("{} skipped", r.skipped.len()),
                if r.skipped.is_empty() {
                    theme.dim
                } else {
                    theme.warn
                },
            );
            let mut l = vec![skipped];
            if !r.skipped.is_empty() {
                l.push(Span::styled(" → Enter to review", theme.key));
            }
            lines.push(Line::from(l));
            for w in &r.warnings {
                lines.push(Line::styled(format!("⚠ {}", w.message), theme.warn));
            }
            lines.push(Line::raw(""));
            let w = inner.width as usize;
            for c in &r.created {
                lines.push(Line::from(vec![
                    Span::styled("✓ ", theme.ok),
                    Span::raw(clip(&c.title, w.saturating_sub(2))),
                ]));
            }
            for s in &r.skipped {
                lines.push(Line::from(vec![
                    Span::styled("↷ ", theme.warn),
                    Span::raw(clip(&s.title, w.saturating_sub(2))),
                ]));
            }
        }
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }

    fn render_review(&mut self, f: &mut Frame, area: Rect, theme: &Theme, spinner: char) {
        let n = self.drafts.as_ref().map(Vec::len);
        let list_h = (n.unwrap_or(1) as u16 + 2).clamp(3, area.height / 3);
        let [top, reason_area, bottom] = Layout::vertical([
            Constraint::Length(list_h),
            Constraint::Length(2),
            Constraint::Fill(1),
        ])
        .areas(area);
        let title = match n {
            Some(n) => format!("Review skipped drafts ({n})"),
            None => "Review skipped drafts".into(),
        };
        let empty = match (&self.drafts, self.committed.len()) {
            (None, _) => format!("{spinner} loading the drafts…"),
            (Some(_), 0) => "no skipped drafts".into(),
            (Some(_), k) => format!("all done: {k} committed (no credits spent)"),
        };
        let drafts = self.drafts.clone().unwrap_or_default();
        let reasons: Vec<String> = drafts.iter().map(|d| self.reason_text(d)).collect();
        let width = top.width.saturating_sub(4) as usize;
        self.list.render(
            f,
            top,
            pane_block(title, self.editor.is_none(), theme),
            theme,
            self.editor.is_none(),
            &empty,
            |i| {
                let d = &drafts[i];
                let lines = d
                    .case
                    .source
                    .as_ref()
                    .map(|s| format!("lines {}–{}", s.start_line, s.end_line))
                    .unwrap_or_default();
                let reason = reasons[i].clone();
                let title_w = (width / 3).max(12);
                Line::from(vec![
                    Span::raw(pad(&d.title, title_w)),
                    Span::styled(
                        format!(
                            " {} ",
                            pad(&reason, width.saturating_sub(title_w + lines.len() + 3))
                        ),
                        theme.warn,
                    ),
                    Span::styled(lines, theme.dim),
                ])
            },
        );
        let d = self.selected_draft().cloned();
        let mut info = Vec::new();
        if let Some(d) = &d {
            info.push(Line::from(vec![
                Span::styled(
                    format!("{} ", d.skip_code.clone().unwrap_or_default()),
                    theme.warn,
                ),
                Span::raw(self.reason_text(d)),
            ]));
        }
        if let Some((title, id)) = self.committed.last() {
            info.push(Line::from(vec![
                Span::styled("✓ ", theme.ok),
                Span::raw(format!("committed “{title}” as {id} (free)")),
            ]));
        }
        f.render_widget(Paragraph::new(info), reason_area);
        let [src_area, json_area] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Fill(1)]).areas(bottom);
        let Some(d) = d else {
            return;
        };
        // The source: the whole document when this app has it, else the draft's excerpt.
        let span = d
            .case
            .source
            .as_ref()
            .map(|s| (s.start_line as usize, s.end_line as usize));
        let whole: Vec<String> = self.ta.lines().to_vec();
        let have_doc = whole.len() > 1 && span.is_some_and(|(_, b)| b <= whole.len());
        let title = match (&d.case.source, span) {
            (Some(s), Some((a, b))) => format!("{} (lines {a}–{b} highlighted)", s.file_name),
            _ => "source".into(),
        };
        let block = pane_block(title, false, theme);
        let inner = block.inner(src_area);
        f.render_widget(block, src_area);
        if have_doc {
            if let Some((a, _)) = span
                && self.source.scroll == 0
            {
                self.source.scroll = a.saturating_sub(3);
            }
            self.source.render(
                f,
                inner,
                &Doc {
                    lines: &whole,
                    first_number: 1,
                    ext: "md",
                    emphasis: span,
                    cursor: None,
                },
                theme,
            );
        } else if let Some(s) = &d.case.source {
            let excerpt: Vec<String> = s.excerpt.lines().map(str::to_string).collect();
            self.source.render(
                f,
                inner,
                &Doc {
                    lines: &excerpt,
                    first_number: s.start_line as usize,
                    ext: "md",
                    emphasis: span,
                    cursor: None,
                },
                theme,
            );
        }
        let block = pane_block("draft (JSON) — e to edit", false, theme);
        let inner = block.inner(json_area);
        f.render_widget(block, json_area);
        let lines = highlight::json(&edit_value(&d.case), theme);
        f.render_widget(Paragraph::new(lines), inner);
    }
}

/// `102400` as `102,400`.
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Parses a review link: `…/review/{projectId}/{jobId}?drafts=a,b`.
pub fn parse_review_url(url: &str) -> Option<(String, String, Vec<String>)> {
    let (path, query) = match url.split_once('?') {
        Some((p, q)) => (p, q),
        None => (url, ""),
    };
    let mut parts = path.trim_end_matches('/').rsplit('/');
    let job = parts.next()?.to_string();
    let project = parts.next()?.to_string();
    if parts.next()? != "review" || job.is_empty() || project.is_empty() {
        return None;
    }
    let drafts = form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "drafts")
        .map(|(_, v)| {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Some((project, job, drafts))
}

#[cfg(test)]
mod tests {
    #[test]
    fn review_links_parse() {
        let (p, j, d) =
            super::parse_review_url("evaldeck://review/prj_1/job_2?drafts=drf_a,drf_b").unwrap();
        assert_eq!((p.as_str(), j.as_str()), ("prj_1", "job_2"));
        assert_eq!(d, ["drf_a", "drf_b"]);
        let (p, _, d) =
            super::parse_review_url("https://evals.example.com/review/prj_9/job_3").unwrap();
        assert_eq!(p, "prj_9");
        assert!(d.is_empty());
        assert!(super::parse_review_url("https://x/other/a/b").is_none());
    }
}
