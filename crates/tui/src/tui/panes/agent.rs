//! The agent: a conversation with the project's headless agent (`POST …/agent`). Each turn
//! sends the whole history; the reply shows with the operations the agent ran and the
//! resources it created. The history lives as long as the workbench, across openings.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::spec::agent::{AgentMessage, AgentTurnRequest, AgentTurnResponse};
use crate::spec::{Code, Error};
use crate::tui::message::Request;
use crate::tui::theme::Theme;
use crate::tui::widgets::input::LineInput;
use crate::tui::widgets::modal::{centered, frame_box};

/// One exchange: what the user asked and what came back.
struct Turn {
    ask: String,
    answer: Option<Result<AgentTurnResponse, Error>>,
}

#[derive(Default)]
pub struct AgentChat {
    turns: Vec<Turn>,
    input: LineInput,
    /// Lines scrolled up from the bottom of the conversation.
    scroll: u16,
    /// The chat session the conversation is recorded in, once the first turn answered.
    session: Option<String>,
}

pub enum AgentOutcome {
    Keep,
    Close,
    Send(Box<Request>),
}

impl AgentChat {
    pub fn waiting(&self) -> bool {
        self.turns.last().is_some_and(|t| t.answer.is_none())
    }

    /// The history the agent sees: every answered exchange, then the new question.
    fn messages(&self, ask: &str) -> Vec<AgentMessage> {
        let mut out = Vec::new();
        for t in &self.turns {
            if let Some(Ok(r)) = &t.answer {
                out.push(AgentMessage::user(t.ask.clone()));
                out.push(AgentMessage::assistant(r.reply.clone()));
            }
        }
        out.push(AgentMessage::user(ask));
        out
    }

    pub fn handle_key(&mut self, key: &KeyEvent, project: &str) -> AgentOutcome {
        match key.code {
            KeyCode::Esc => return AgentOutcome::Close,
            KeyCode::PageUp => self.scroll = self.scroll.saturating_add(5),
            KeyCode::PageDown => self.scroll = self.scroll.saturating_sub(5),
            KeyCode::Char('l') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                if !self.waiting() {
                    self.turns.clear();
                    self.scroll = 0;
                    self.session = None;
                }
            }
            KeyCode::Enter => {
                let ask = self.input.text().trim().to_string();
                if ask.is_empty() || self.waiting() {
                    return AgentOutcome::Keep;
                }
                let messages = self.messages(&ask);
                self.turns.push(Turn { ask, answer: None });
                self.input.clear();
                self.scroll = 0;
                return AgentOutcome::Send(Box::new(Request::AgentTurn {
                    project: project.to_string(),
                    body: AgentTurnRequest {
                        messages,
                        session_id: self.session.clone(),
                    },
                }));
            }
            _ => {
                self.input.handle_key(key);
            }
        }
        AgentOutcome::Keep
    }

    pub fn paste(&mut self, text: &str) {
        self.input.insert_str(&text.replace(['\r', '\n'], " "));
    }

    pub fn on_reply(&mut self, r: AgentTurnResponse) {
        if r.session_id.is_some() {
            self.session = r.session_id.clone();
        }
        if let Some(t) = self.turns.iter_mut().rev().find(|t| t.answer.is_none()) {
            t.answer = Some(Ok(r));
        }
    }

    pub fn on_failed(&mut self, e: Error) {
        if let Some(t) = self.turns.iter_mut().rev().find(|t| t.answer.is_none()) {
            t.answer = Some(Err(e));
        }
    }

    fn lines(&self, theme: &Theme, spinner: char) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        if self.turns.is_empty() {
            out.push(Line::styled(
                "Ask about this project's servers, suites and runs, or ask for a new eval suite.",
                theme.dim,
            ));
            out.push(Line::styled(
                "The agent reads and creates suites; it never starts runs.",
                theme.dim,
            ));
        }
        for t in &self.turns {
            out.push(Line::from(vec![
                Span::styled("you    ", theme.accent),
                Span::raw(t.ask.clone()),
            ]));
            match &t.answer {
                None => out.push(Line::styled(
                    format!("agent  {spinner} thinking…"),
                    theme.warn,
                )),
                Some(Ok(r)) => {
                    for c in &r.tool_calls {
                        let (mark, style) = if c.ok {
                            ("✓", theme.dim)
                        } else {
                            ("✗", theme.error)
                        };
                        let why = c
                            .error
                            .as_ref()
                            .map(|e| format!(" — {}", e.message))
                            .unwrap_or_default();
                        out.push(Line::styled(
                            format!("  {mark} {} {}{why}", c.operation, compact(&c.arguments)),
                            style,
                        ));
                    }
                    for (i, l) in r.reply.lines().enumerate() {
                        let who = if i == 0 { "agent  " } else { "       " };
                        out.push(Line::from(vec![
                            Span::styled(who, theme.ok),
                            Span::raw(l.to_string()),
                        ]));
                    }
                    for c in &r.created_resources {
                        out.push(Line::styled(
                            format!(
                                "  + created {} {} ({})",
                                c.kind,
                                c.name.as_deref().unwrap_or(&c.id),
                                c.id
                            ),
                            theme.accent,
                        ));
                    }
                    out.push(Line::styled(
                        format!(
                            "  {} in · {} out tokens · {} credit(s)",
                            r.usage.input_tokens, r.usage.output_tokens, r.credits_charged
                        ),
                        theme.dim,
                    ));
                }
                Some(Err(e)) => {
                    out.push(Line::styled(
                        format!("agent  ✗ {}: {}", e.code, e.message),
                        theme.error,
                    ));
                    if e.code == Code::RateLimited {
                        out.push(Line::styled(
                            "  the organization has too many agent turns running; ask again shortly",
                            theme.dim,
                        ));
                    }
                    let created = e
                        .details
                        .as_ref()
                        .and_then(|d| d.get("createdResources"))
                        .and_then(|c| c.as_array())
                        .map(Vec::len)
                        .unwrap_or(0);
                    if created > 0 {
                        out.push(Line::styled(
                            format!("  it had already created {created} resource(s): list the suites before asking again"),
                            theme.warn,
                        ));
                    }
                }
            }
            out.push(Line::from(""));
        }
        out
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme, spinner: char) {
        let r = centered(
            area,
            area.width.saturating_sub(4).max(40),
            area.height.saturating_sub(2).max(10),
        );
        let inner = frame_box(
            f,
            r,
            Line::styled(" Agent — this project ", theme.title),
            theme.border_focused,
        );
        let [talk, input, keys] = Layout::vertical([
            Constraint::Fill(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(inner);
        let lines = self.lines(theme, spinner);
        let width = talk.width.max(1) as usize;
        let height: usize = lines.iter().map(|l| l.width().div_ceil(width).max(1)).sum();
        let bottom = height.saturating_sub(talk.height as usize) as u16;
        self.scroll = self.scroll.min(bottom);
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((bottom - self.scroll, 0)),
            talk,
        );
        let mut prompt = vec![Span::styled("› ", theme.accent)];
        prompt.extend(
            self.input
                .line(theme.base, theme.selected, !self.waiting())
                .spans,
        );
        f.render_widget(Paragraph::new(Line::from(prompt)), input);
        let key = |k: &'static str, what: &'static str| {
            [Span::styled(k, theme.key), Span::styled(what, theme.dim)]
        };
        let mut hint: Vec<Span> = Vec::new();
        hint.extend(key("Enter", " send  "));
        hint.extend(key("PgUp/PgDn", " scroll  "));
        hint.extend(key("Ctrl-l", " new conversation  "));
        hint.extend(key("Esc", " close (kept)"));
        f.render_widget(Paragraph::new(Line::from(hint)), keys);
    }
}

/// Arguments on one line, cut short: the operation's gist, not its whole body.
fn compact(v: &serde_json::Value) -> String {
    if v.as_object().is_some_and(|o| o.is_empty()) || v.is_null() {
        return String::new();
    }
    super::clip(&v.to_string(), 60)
}
