//! The "add a server" form: a name and either a command with arguments (stdio) or a URL
//! (streamable HTTP, legacy SSE). It validates with the spec's own rules before sending, and
//! shows the backend's violations beside the fields they name.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::spec::Error;
use crate::spec::server::{ServerConfig, ServerCreate, Transport};
use crate::tui::theme::Theme;
use crate::tui::widgets::input::LineInput;
use crate::tui::widgets::modal::{centered, frame_box};

const TRANSPORTS: [&str; 3] = ["stdio", "http", "sse"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Transport,
    Command,
    Args,
    Url,
}

#[derive(Default)]
pub struct ServerForm {
    name: LineInput,
    transport: usize,
    command: LineInput,
    args: LineInput,
    url: LineInput,
    focus: usize,
    errors: Vec<(Option<Field>, String)>,
    /// Sent; waiting for the backend.
    pub saving: bool,
}

pub enum FormOutcome {
    Keep,
    Cancel,
    Submit(Box<ServerCreate>),
}

/// Splits arguments like a shell would for the simple cases: whitespace separates, single
/// and double quotes group, a backslash escapes the next character.
pub fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => cur.push(c),
            (_, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                in_word = true;
            }
            (_, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

impl ServerForm {
    fn fields(&self) -> Vec<Field> {
        if self.transport == 0 {
            vec![Field::Name, Field::Transport, Field::Command, Field::Args]
        } else {
            vec![Field::Name, Field::Transport, Field::Url]
        }
    }

    fn current(&self) -> Field {
        let f = self.fields();
        f[self.focus.min(f.len() - 1)]
    }

    fn input(&mut self, field: Field) -> Option<&mut LineInput> {
        match field {
            Field::Name => Some(&mut self.name),
            Field::Command => Some(&mut self.command),
            Field::Args => Some(&mut self.args),
            Field::Url => Some(&mut self.url),
            Field::Transport => None,
        }
    }

    /// The body the form describes.
    pub fn body(&self) -> ServerCreate {
        let transport = match self.transport {
            0 => Transport::Stdio {
                command: self.command.text().trim().to_string(),
                args: split_args(self.args.text()),
                env: Default::default(),
                cwd: None,
            },
            1 => Transport::Http {
                url: self.url.text().trim().to_string(),
                headers: Default::default(),
            },
            _ => Transport::Sse {
                url: self.url.text().trim().to_string(),
                headers: Default::default(),
            },
        };
        ServerCreate::new(self.name.text(), ServerConfig::new(transport))
    }

    /// Shows an error from validation or from the backend beside the fields it names.
    pub fn set_error(&mut self, e: &Error) {
        self.saving = false;
        let violations = e.violations();
        self.errors = if violations.is_empty() {
            vec![(None, format!("{}: {}", e.code, e.message))]
        } else {
            violations
                .into_iter()
                .map(|v| {
                    let field = match v.path.as_str() {
                        "/name" => Some(Field::Name),
                        "/transport/command" => Some(Field::Command),
                        "/transport/url" => Some(Field::Url),
                        p if p.starts_with("/transport/args") => Some(Field::Args),
                        _ => None,
                    };
                    (field, v.message)
                })
                .collect()
        };
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> FormOutcome {
        if self.saving {
            return FormOutcome::Keep;
        }
        let n = self.fields().len();
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return FormOutcome::Cancel,
            KeyCode::Char('s') if ctrl => return self.submit(),
            KeyCode::Enter if self.focus + 1 >= n => return self.submit(),
            KeyCode::Enter | KeyCode::Tab | KeyCode::Down => self.focus = (self.focus + 1) % n,
            KeyCode::BackTab | KeyCode::Up => self.focus = (self.focus + n - 1) % n,
            KeyCode::Left | KeyCode::Right | KeyCode::Char(' ')
                if self.current() == Field::Transport =>
            {
                let step = if key.code == KeyCode::Left { 2 } else { 1 };
                self.transport = (self.transport + step) % TRANSPORTS.len();
            }
            _ => {
                let field = self.current();
                if let Some(input) = self.input(field) {
                    input.handle_key(key);
                }
            }
        }
        FormOutcome::Keep
    }

    pub fn paste(&mut self, text: &str) {
        let field = self.current();
        if let Some(input) = self.input(field) {
            input.insert_str(text.lines().next().unwrap_or(""));
        }
    }

    fn submit(&mut self) -> FormOutcome {
        let body = self.body();
        match body.validate() {
            Ok(()) => {
                self.errors.clear();
                self.saving = true;
                FormOutcome::Submit(Box::new(body))
            }
            Err(e) => {
                self.set_error(&e);
                FormOutcome::Keep
            }
        }
    }

    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let mut lines = Vec::new();
        let current = self.current();
        for field in self.fields() {
            let focused = field == current;
            let label = match field {
                Field::Name => "name",
                Field::Transport => "transport",
                Field::Command => "command",
                Field::Args => "arguments",
                Field::Url => "url",
            };
            let mut spans = vec![Span::styled(
                format!("{} {label:<10} ", if focused { "▸" } else { " " }),
                if focused { theme.accent } else { theme.dim },
            )];
            match field {
                Field::Transport => {
                    for (i, t) in TRANSPORTS.iter().enumerate() {
                        let style = if i == self.transport {
                            if focused { theme.selected } else { theme.title }
                        } else {
                            theme.dim
                        };
                        spans.push(Span::styled(format!(" {t} "), style));
                    }
                }
                _ => {
                    let input = match field {
                        Field::Name => &self.name,
                        Field::Command => &self.command,
                        Field::Args => &self.args,
                        _ => &self.url,
                    };
                    spans.extend(input.line(theme.base, theme.selected, focused).spans);
                }
            }
            lines.push(Line::from(spans));
            for (_, msg) in self.errors.iter().filter(|(f, _)| *f == Some(field)) {
                lines.push(Line::styled(format!("             ✗ {msg}"), theme.error));
            }
        }
        for (_, msg) in self.errors.iter().filter(|(f, _)| f.is_none()) {
            lines.push(Line::styled(format!("✗ {msg}"), theme.error));
        }
        lines.push(Line::raw(""));
        let hint = if self.saving {
            Line::styled("saving…", theme.warn)
        } else {
            Line::from(vec![
                Span::styled("Tab", theme.key),
                Span::raw(" next field  "),
                Span::styled("←/→", theme.key),
                Span::raw(" transport  "),
                Span::styled("Enter", theme.key),
                Span::raw(" on the last field or "),
                Span::styled("Ctrl-s", theme.key),
                Span::raw(" save  "),
                Span::styled("Esc", theme.key),
                Span::raw(" cancel"),
            ])
        };
        lines.push(hint);
        let width = (area.width * 7 / 10).clamp(50.min(area.width), 90);
        let inner_w = width.saturating_sub(2).max(1) as usize;
        let height: usize = lines
            .iter()
            .map(|l| l.width().div_ceil(inner_w).max(1))
            .sum();
        let rect = centered(area, width, height as u16 + 2);
        let inner = frame_box(
            f,
            rect,
            Line::styled(" Add a server ", theme.accent),
            theme.border_focused,
        );
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_split_like_a_shell() {
        assert_eq!(
            split_args(r#"-y @scope/pkg --dir "My Docs" 'a b' c\ d"#),
            ["-y", "@scope/pkg", "--dir", "My Docs", "a b", "c d"]
        );
        assert_eq!(split_args("  "), Vec::<String>::new());
        assert_eq!(split_args(r#""""#), [""]);
    }
}
