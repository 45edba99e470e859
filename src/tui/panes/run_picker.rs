//! Start a run: pick the model (the suite's default, the built-in baseline agent, or any
//! `<provider>/<name>` typed in) and go.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::spec::run::RunCreate;
use crate::tui::message::Request;
use crate::tui::theme::Theme;
use crate::tui::widgets::input::LineInput;
use crate::tui::widgets::modal::{centered, frame_box};

pub struct RunPicker {
    pub suite: String,
    pub suite_name: String,
    choices: Vec<(Option<String>, String)>,
    cursor: usize,
    custom: LineInput,
}

pub enum PickOutcome {
    Keep,
    Cancel,
    Start(Request),
}

impl RunPicker {
    pub fn new(suite: String, suite_name: String) -> RunPicker {
        RunPicker {
            suite,
            suite_name,
            choices: vec![
                (None, "the suite's default model".into()),
                (
                    Some("builtin/baseline".into()),
                    "builtin/baseline — offline heuristic agent".into(),
                ),
            ],
            cursor: 0,
            custom: LineInput::default(),
        }
    }

    fn on_custom(&self) -> bool {
        self.cursor == self.choices.len()
    }

    pub fn paste(&mut self, text: &str) {
        self.cursor = self.choices.len();
        self.custom.insert_str(text.lines().next().unwrap_or(""));
    }

    pub fn handle_key(&mut self, key: &KeyEvent, project: &str) -> PickOutcome {
        match key.code {
            KeyCode::Esc => return PickOutcome::Cancel,
            KeyCode::Up => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down | KeyCode::Tab => self.cursor = (self.cursor + 1).min(self.choices.len()),
            KeyCode::Enter => {
                let model = if self.on_custom() {
                    let m = self.custom.text().trim();
                    if m.is_empty() {
                        return PickOutcome::Keep;
                    }
                    Some(m.to_string())
                } else {
                    self.choices[self.cursor].0.clone()
                };
                return PickOutcome::Start(Request::CreateRun {
                    project: project.to_string(),
                    body: RunCreate {
                        suite_id: Some(self.suite.clone()),
                        model,
                        ..Default::default()
                    },
                });
            }
            KeyCode::Char('j') if !self.on_custom() => {
                self.cursor = (self.cursor + 1).min(self.choices.len())
            }
            KeyCode::Char('k') if !self.on_custom() => self.cursor = self.cursor.saturating_sub(1),
            _ => {
                if !self.on_custom() {
                    self.cursor = self.choices.len();
                }
                self.custom.handle_key(key);
            }
        }
        PickOutcome::Keep
    }

    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let r = centered(area, 64, self.choices.len() as u16 + 7);
        let inner = frame_box(
            f,
            r,
            Line::styled(
                format!(" Start a run of “{}” ", self.suite_name),
                theme.title,
            ),
            theme.border_focused,
        );
        let mut lines = vec![Line::styled("model", theme.dim)];
        for (i, (_, label)) in self.choices.iter().enumerate() {
            let sel = i == self.cursor;
            lines.push(Line::from(vec![
                Span::styled(if sel { "▸ " } else { "  " }, theme.accent),
                Span::styled(label.clone(), if sel { theme.selected } else { theme.base }),
            ]));
        }
        let sel = self.on_custom();
        let mut l = vec![
            Span::styled(if sel { "▸ " } else { "  " }, theme.accent),
            Span::styled("other: ", theme.dim),
        ];
        l.extend(self.custom.line(theme.base, theme.selected, sel).spans);
        lines.push(Line::from(l));
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled("Enter", theme.key),
            Span::styled(" start  ", theme.dim),
            Span::styled("↑/↓", theme.key),
            Span::styled(" choose  ", theme.dim),
            Span::styled("Esc", theme.key),
            Span::styled(" cancel", theme.dim),
        ]));
        f.render_widget(Paragraph::new(lines), inner);
    }
}
