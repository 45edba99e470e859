//! Start a run: pick the model (the suite's default, the built-in baseline agent, or any
//! `<provider>/<name>` typed in) and go.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::spec::case::{ClaimStatus, EvalCase};
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
    /// The suite's cases, once known: which can run, which need approval.
    cases: Option<Selection>,
    /// Approve the `approximated` imports for this run (else they are left out).
    approve: bool,
}

/// The suite's cases sorted for a run.
struct Selection {
    total: usize,
    /// Exact, manual and approximated cases (all that may run).
    runnable: Vec<String>,
    approximated: Vec<String>,
    /// `unsupported` / `unresolved` imports: never run.
    blocked: usize,
}

#[allow(clippy::large_enum_variant)] // returned once per key, never stored
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
            cases: None,
            approve: true,
        }
    }

    pub fn set_cases(&mut self, cases: &[EvalCase]) {
        let status = |c: &EvalCase| c.import.as_ref().map(|i| i.status);
        self.cases = Some(Selection {
            total: cases.len(),
            runnable: cases
                .iter()
                .filter(|c| c.is_runnable())
                .map(|c| c.id.clone())
                .collect(),
            approximated: cases
                .iter()
                .filter(|c| status(c) == Some(ClaimStatus::Approximated))
                .map(|c| c.id.clone())
                .collect(),
            blocked: cases.iter().filter(|c| !c.is_runnable()).count(),
        });
    }

    /// The case selection of the run: everything runnable, the approximated ones approved
    /// (or left out).
    fn selection(&self) -> (Option<Vec<String>>, Option<Vec<String>>) {
        let Some(sel) = &self.cases else {
            return (None, None);
        };
        let ids: Vec<String> = sel
            .runnable
            .iter()
            .filter(|id| self.approve || !sel.approximated.contains(id))
            .cloned()
            .collect();
        let narrowed = ids.len() != sel.total;
        let approved =
            (self.approve && !sel.approximated.is_empty()).then(|| sel.approximated.clone());
        (narrowed.then_some(ids), approved)
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
            KeyCode::Char('a') if !self.on_custom() => self.approve = !self.approve,
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
                let (case_ids, approved_case_ids) = self.selection();
                return PickOutcome::Start(Request::CreateRun {
                    project: project.to_string(),
                    body: RunCreate {
                        suite_id: Some(self.suite.clone()),
                        model,
                        case_ids,
                        approved_case_ids,
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
        let r = centered(area, 72, self.choices.len() as u16 + 10);
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
        match &self.cases {
            None => lines.push(Line::styled("reading the suite's cases…", theme.dim)),
            Some(sel) => {
                let n = self.selection().0.map(|v| v.len()).unwrap_or(sel.total);
                lines.push(Line::from(format!("runs {n} of {} case(s)", sel.total)));
                if sel.blocked > 0 {
                    lines.push(Line::styled(
                        format!("{} unsupported/unresolved import(s) left out", sel.blocked),
                        theme.warn,
                    ));
                }
                if !sel.approximated.is_empty() {
                    lines.push(Line::from(vec![
                        Span::styled("a ", theme.key),
                        Span::raw(format!(
                            "approve the {} approximated import(s) for this run: ",
                            sel.approximated.len()
                        )),
                        Span::styled(
                            if self.approve { "yes" } else { "no (left out)" },
                            theme.accent,
                        ),
                    ]));
                }
            }
        }
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
