//! A JSON editor with validation as you type: the text is parsed and checked on every
//! change, and the violations (the spec's paths and words) show under it. Ctrl-S saves
//! only a valid document; Esc cancels.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui_textarea::TextArea;
use serde_json::Value;

use super::modal::frame_box;
use crate::spec::Error;
use crate::tui::theme::Theme;

/// Checks a parsed document; returns the violations as `path: message` lines.
pub type Validator = fn(&Value) -> Vec<String>;

pub enum EditOutcome {
    Keep,
    Cancel,
    Save(Value),
}

pub struct JsonEditor {
    pub title: String,
    ta: TextArea<'static>,
    validate: Validator,
    problems: Vec<String>,
    /// An error the backend returned for the last save.
    server_error: Option<String>,
    pub saving: bool,
}

/// An error's violations (or its message) as lines.
pub fn error_lines(e: &Error) -> Vec<String> {
    let v = e.violations();
    if v.is_empty() {
        vec![format!("{}: {}", e.code, e.message)]
    } else {
        v.into_iter()
            .map(|v| {
                let path = if v.path.is_empty() { "/" } else { &v.path };
                format!("{path}: {}", v.message)
            })
            .collect()
    }
}

impl JsonEditor {
    pub fn new(title: impl Into<String>, value: &Value, validate: Validator) -> JsonEditor {
        let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into());
        let mut ta = TextArea::new(text.lines().map(str::to_string).collect());
        ta.set_line_number_style(ratatui::style::Style::default());
        let mut ed = JsonEditor {
            title: title.into(),
            ta,
            validate,
            problems: Vec::new(),
            server_error: None,
            saving: false,
        };
        ed.check();
        ed
    }

    /// An editor whose owner checks the document (see [`JsonEditor::set_problems`]).
    pub fn unchecked(title: impl Into<String>, value: &Value) -> JsonEditor {
        fn none(_: &Value) -> Vec<String> {
            Vec::new()
        }
        JsonEditor::new(title, value, none)
    }

    /// Replaces what is shown as wrong with the document (the owner's own check).
    pub fn set_problems(&mut self, problems: Vec<String>) {
        self.problems = problems;
    }

    pub fn text(&self) -> String {
        self.ta.lines().join("\n")
    }

    fn check(&mut self) -> Option<Value> {
        match serde_json::from_str::<Value>(&self.text()) {
            Ok(v) => {
                self.problems = (self.validate)(&v);
                self.problems.is_empty().then_some(v)
            }
            Err(e) => {
                self.problems = vec![format!("not JSON: {e}")];
                None
            }
        }
    }

    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    pub fn set_error(&mut self, e: &Error) {
        self.saving = false;
        self.server_error = Some(error_lines(e).join("; "));
    }

    pub fn paste(&mut self, text: &str) {
        self.ta.insert_str(text);
        self.server_error = None;
        self.check();
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> EditOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return EditOutcome::Cancel,
            KeyCode::Char('s') if ctrl => {
                if let Some(v) = self.check() {
                    self.saving = true;
                    self.server_error = None;
                    return EditOutcome::Save(v);
                }
            }
            _ => {
                if self.ta.input(*key) {
                    self.server_error = None;
                    self.check();
                }
            }
        }
        EditOutcome::Keep
    }

    /// Draws the editor in a box filling `area`.
    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        let title = Line::from(vec![
            Span::styled(format!(" {} ", self.title), theme.title),
            Span::styled("Ctrl-S save  Esc cancel ", theme.dim),
        ]);
        let inner = frame_box(f, area, title, theme.border_focused);
        self.render_plain(f, inner, theme);
    }

    /// Draws the text and what is wrong with it in `inner`, without a box of its own.
    pub fn render_plain(&mut self, f: &mut Frame, inner: Rect, theme: &Theme) {
        let mut notes: Vec<Line<'static>> = Vec::new();
        if self.saving {
            notes.push(Line::styled("saving…", theme.warn));
        }
        if let Some(e) = &self.server_error {
            notes.push(Line::styled(format!("✗ {e}"), theme.error));
        }
        if self.problems.is_empty() {
            notes.push(Line::styled("✓ valid", theme.ok));
        } else {
            for p in &self.problems {
                notes.push(Line::styled(format!("✗ {p}"), theme.error));
            }
        }
        let notes_h = (notes.len() as u16).min(inner.height / 3).max(1);
        let [text_area, notes_area] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(notes_h)]).areas(inner);
        self.ta
            .set_cursor_line_style(ratatui::style::Style::default());
        f.render_widget(&self.ta, text_area);
        f.render_widget(Paragraph::new(notes).wrap(Wrap { trim: false }), notes_area);
    }
}
