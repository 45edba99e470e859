//! The main-area panes. Each pane owns its data, a [`ListView`] and a [`DetailView`]; it
//! turns actions into [`Effect`]s (never calling the backend itself) and lists its own
//! [`Command`]s, from which the footer, the help overlay and the palette are built.

pub mod agent;
pub mod call_form;
pub mod cases;
pub mod credits;
pub mod elicit;
pub mod environments;
pub mod hosts;
pub mod import;
pub mod projects;
pub mod protocol;
pub mod run_picker;
pub mod runs;
pub mod servers;
pub mod structured;
pub mod suite_edit;
pub mod suites;
pub mod template_form;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::keymap::Action;
use super::message::Request;
use super::theme::Theme;
use super::widgets::list::ListView;

/// A command a pane offers: the action (whose key the keymap knows) and what it does here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    pub action: Action,
    pub label: &'static str,
}

impl Command {
    pub const fn new(action: Action, label: &'static str) -> Command {
        Command { action, label }
    }
}

/// What a pane asks the controller to do.
pub enum Effect {
    Fetch(Request),
    /// Ask the user first; send the request on "yes".
    Confirm {
        prompt: String,
        request: Request,
    },
    OpenServerForm,
    OpenCallForm(Box<call_form::CallForm>),
    /// The form that fills in a resource template's variables.
    OpenTemplateForm(Box<template_form::TemplateForm>),
    /// Make this project the one the other panes show.
    ActivateProject(String),
    /// A short message in the footer.
    Notify(String),
    /// Put text on the clipboard (the terminal's, through OSC 52).
    Copy(String),
    /// The import screen for a suite.
    OpenImport {
        suite: String,
        suite_name: String,
    },
    /// The model picker that starts a run of a suite (with its cases, when read).
    OpenRunPicker {
        suite: String,
        suite_name: String,
        cases: Option<Vec<crate::spec::case::EvalCase>>,
    },
    /// The environment editor: a new one, or this one.
    EditEnvironment(Option<Box<crate::spec::environment::Environment>>),
    /// The server form on a saved server.
    EditServer(Box<crate::spec::server::Server>),
    /// The host form: a new host, or one read in full.
    NewHost,
    EditHost(Box<crate::spec::host::Host>),
    /// The new-suite form.
    NewSuite,
    /// Ask for the path of an `mcp.json` and save the servers it names.
    OpenMcpImport,
    /// The case editor.
    EditCase {
        suite: String,
        case: Box<crate::spec::case::EvalCase>,
    },
}

/// What a pane may use while handling an action.
pub struct Cx<'a> {
    /// The active project's id.
    pub project: Option<&'a str>,
    pub effects: Vec<Effect>,
    /// Whether a request for this slot is in flight.
    pub busy: &'a dyn Fn(super::message::Slot) -> bool,
}

impl Cx<'_> {
    pub fn fetch(&mut self, req: Request) {
        self.effects.push(Effect::Fetch(req));
    }
    pub fn notify(&mut self, msg: impl Into<String>) {
        self.effects.push(Effect::Notify(msg.into()));
    }
}

/// Which part of a pane has the keyboard, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneFocus {
    None,
    List,
    Detail,
}

pub struct RenderCx<'a> {
    pub theme: &'a Theme,
    /// Whether a request for this slot is in flight.
    pub busy: &'a dyn Fn(super::message::Slot) -> bool,
    /// The spinner's current frame.
    pub spinner: char,
    pub focus: PaneFocus,
    /// The pane's list is being (re)loaded.
    pub loading: bool,
}

pub trait Pane {
    /// The list block's title, e.g. `Servers (3)`.
    fn title(&self) -> String;
    /// Pane-specific commands, shown in the footer and the help.
    fn commands(&self) -> Vec<Command>;
    fn list(&mut self) -> &mut ListView;
    fn detail(&mut self) -> &mut DetailView;
    /// Enter on the list; returns whether the detail should take focus.
    fn open(&mut self, cx: &mut Cx) -> bool;
    /// A pane-specific action; returns whether it was handled.
    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool;
    /// An action while the detail has focus (before it falls back to scrolling).
    fn detail_action(&mut self, _action: Action, _cx: &mut Cx) -> bool {
        false
    }
    /// The list's selection moved (keys, mouse, filter): the detail starts at its top, and a
    /// pane may read what the new item needs.
    fn on_select(&mut self, _cx: &mut Cx) {
        self.detail().top();
    }
    /// A list inside the detail (a server's tools, its protocol events): with the detail
    /// focused, `/` filters it instead of the pane's list.
    fn detail_list(&mut self) -> Option<&mut ListView> {
        None
    }
    /// Commands of the detail, for the footer while it has focus.
    fn detail_commands(&self) -> Vec<Command> {
        Vec::new()
    }
    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx);
}

/// A scrollable block of text beside a list.
#[derive(Debug, Default)]
pub struct DetailView {
    pub scroll: u16,
    area: Rect,
    content_height: u16,
}

impl DetailView {
    pub fn scroll_by(&mut self, delta: i32) {
        let max = self
            .content_height
            .saturating_sub(self.area.height.saturating_sub(2));
        self.scroll = (self.scroll as i32 + delta).clamp(0, max as i32) as u16;
    }

    pub fn page(&mut self, down: bool) {
        let h = self.area.height.saturating_sub(3).max(1) as i32;
        self.scroll_by(if down { h } else { -h });
    }

    pub fn top(&mut self) {
        self.scroll = 0;
    }

    pub fn bottom(&mut self) {
        self.scroll_by(i32::from(u16::MAX));
    }

    pub fn contains(&self, pos: Position) -> bool {
        self.area.contains(pos)
    }

    /// Draws `lines` in a bordered block, wrapped, scrolled to `self.scroll`.
    pub fn render(
        &mut self,
        f: &mut Frame,
        area: Rect,
        title: Line<'static>,
        lines: Vec<Line<'static>>,
        focused: bool,
        theme: &Theme,
    ) {
        self.area = area;
        let block = pane_block(title, focused, theme);
        let inner_width = block.inner(area).width.max(1);
        let para = Paragraph::new(lines).wrap(Wrap { trim: false });
        // The rows the text takes once word-wrapped, exactly as it will be drawn, so the
        // last line can be scrolled to (an estimate by characters fell short of long lines).
        self.content_height = para.line_count(inner_width).min(u16::MAX as usize) as u16;
        let max = self
            .content_height
            .saturating_sub(area.height.saturating_sub(2));
        self.scroll = self.scroll.min(max);
        f.render_widget(para.block(block).scroll((self.scroll, 0)), area);
    }
}

/// The bordered block every pane uses, highlighted when it has focus.
pub fn pane_block(title: impl Into<Line<'static>>, focused: bool, theme: &Theme) -> Block<'static> {
    Block::bordered()
        .border_style(if focused {
            theme.border_focused
        } else {
            theme.border
        })
        .title(
            title
                .into()
                .style(if focused { theme.accent } else { theme.title }),
        )
}

/// Splits a pane's area into a list (left) and a detail (right); stacked when narrow, where
/// the part with the keyboard gets the larger share.
pub fn split(area: Rect, focus: PaneFocus) -> (Rect, Rect) {
    let [a, b] = if area.width >= 90 {
        Layout::horizontal([Constraint::Percentage(40), Constraint::Fill(1)]).areas(area)
    } else {
        let list = if focus == PaneFocus::Detail { 25 } else { 45 };
        Layout::vertical([Constraint::Percentage(list), Constraint::Fill(1)]).areas(area)
    };
    (a, b)
}

/// `label  value` with the label dimmed and padded, for detail views.
pub fn field(label: &str, value: impl Into<String>, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<14}"), theme.dim),
        Span::raw(value.into()),
    ])
}

pub fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(text.to_string(), theme.title))
}

/// Epoch milliseconds as local time, `2026-11-22 14:03`.
pub fn time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%Y-%m-%d %H:%M")
                .to_string()
        })
        .unwrap_or_else(|| ms.to_string())
}

/// Text cut to `width` characters with an ellipsis.
pub fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else if width == 0 {
        String::new()
    } else {
        let mut out: String = s.chars().take(width - 1).collect();
        out.push('…');
        out
    }
}

/// `name` padded (or clipped) to `width` characters.
pub fn pad(s: &str, width: usize) -> String {
    format!("{:<width$}", clip(s, width))
}

/// A row in the list while it is loading or after an empty answer.
pub fn empty_text(loading: bool, what: &str) -> String {
    if loading {
        "loading…".into()
    } else {
        format!("no {what}")
    }
}
