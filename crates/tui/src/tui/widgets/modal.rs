//! Modal boxes drawn over the screen: the error message and the yes/no question.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use tokio::time::Instant;

use crate::spec::{Code, Error};
use crate::tui::message::Request;
use crate::tui::theme::Theme;

/// A centred rectangle `width` × `height`, clipped to `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    area.centered(
        Constraint::Length(width.min(area.width)),
        Constraint::Length(height.min(area.height)),
    )
}

/// Clears `area` and draws a bordered box titled `title`; returns its inside.
pub fn frame_box(
    f: &mut Frame,
    area: Rect,
    title: Line<'static>,
    border: ratatui::style::Style,
) -> Rect {
    f.render_widget(Clear, area);
    let block = Block::bordered().border_style(border).title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// What a server that could not be reached left behind, from an error's details: how its
/// process ended (`exitStatus`) and the last lines it wrote to stderr (`stderrTail`), as the
/// CLI shows them.
pub fn details_lines(e: &Error, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let Some(d) = &e.details else {
        return lines;
    };
    if let Some(status) = d.get("exitStatus").and_then(|v| v.as_str()) {
        lines.push(Line::from(vec![
            Span::styled("exit    ", theme.dim),
            Span::raw(status.to_string()),
        ]));
    }
    let tail: Vec<&str> = d
        .get("stderrTail")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|l| l.as_str()).collect())
        .unwrap_or_default();
    if !tail.is_empty() {
        lines.push(Line::styled("stderr (last lines)", theme.dim));
        for l in tail.iter().rev().take(8).rev() {
            lines.push(Line::styled(format!("  {l}"), theme.warn));
        }
    }
    lines
}

/// An error from the backend, shown until dismissed. A rate-limited request carries its
/// retry: the modal counts down and sends the request again.
#[derive(Debug)]
pub struct ErrorModal {
    pub error: Error,
    /// What the app was doing, e.g. "list servers".
    pub context: String,
    /// An explanation the error code alone does not give (e.g. a revision conflict).
    pub hint: Option<String>,
    pub retry: Option<(Request, Instant)>,
}

impl ErrorModal {
    pub fn new(error: Error, context: String) -> ErrorModal {
        ErrorModal {
            error,
            context,
            hint: None,
            retry: None,
        }
    }

    pub fn retry_in(&self, now: Instant) -> Option<Duration> {
        self.retry
            .as_ref()
            .map(|(_, at)| at.saturating_duration_since(now))
    }

    fn lines(&self, theme: &Theme, now: Instant) -> Vec<Line<'static>> {
        let mut lines = vec![
            Line::from(vec![
                Span::styled(self.error.code.to_string(), theme.error),
                Span::styled(format!("  while trying to {}", self.context), theme.dim),
            ]),
            Line::raw(""),
            Line::raw(self.error.message.clone()),
        ];
        let violations = self.error.violations();
        if violations.len() > 1 {
            lines.push(Line::raw(""));
            for v in violations {
                let path = if v.path.is_empty() {
                    "body".into()
                } else {
                    v.path
                };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {path}: "), theme.warn),
                    Span::raw(v.message),
                ]));
            }
        }
        lines.extend(details_lines(&self.error, theme));
        if let Some(r) = self.error.reason() {
            lines.push(Line::from(vec![
                Span::styled("reason  ", theme.dim),
                Span::raw(r.to_string()),
            ]));
        }
        if let Some(h) = &self.hint {
            lines.push(Line::raw(""));
            lines.push(Line::styled(h.clone(), theme.accent));
        }
        lines.push(Line::raw(""));
        match self.retry_in(now) {
            Some(left) => lines.push(Line::from(vec![
                Span::styled(
                    format!("retrying in {} s", left.as_secs_f64().ceil() as u64),
                    theme.warn,
                ),
                Span::styled("   Enter retry now · Esc cancel", theme.dim),
            ])),
            None => lines.push(Line::styled("Enter or Esc to dismiss", theme.dim)),
        }
        lines
    }

    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme, now: Instant) {
        let lines = self.lines(theme, now);
        let width = (area.width * 7 / 10).clamp(40.min(area.width), 90);
        let inner_w = width.saturating_sub(2).max(1) as usize;
        let height: usize = lines
            .iter()
            .map(|l| l.width().div_ceil(inner_w).max(1))
            .sum();
        let rect = centered(area, width, height as u16 + 2);
        let title = if self.error.code == Code::RateLimited {
            " Rate limited "
        } else {
            " Error "
        };
        let inner = frame_box(f, rect, Line::styled(title, theme.error), theme.error);
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

/// A yes/no question that sends `request` on yes.
#[derive(Debug)]
pub struct Confirm {
    pub prompt: String,
    pub request: Request,
}

impl Confirm {
    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let width = (area.width * 6 / 10).clamp(30.min(area.width), 70);
        let lines = vec![
            Line::raw(self.prompt.clone()),
            Line::raw(""),
            Line::from(vec![
                Span::styled("y", theme.key),
                Span::raw(" yes   "),
                Span::styled("n", theme.key),
                Span::raw("/"),
                Span::styled("Esc", theme.key),
                Span::raw(" no"),
            ]),
        ];
        let inner_w = width.saturating_sub(2).max(1) as usize;
        let height: usize = lines
            .iter()
            .map(|l| l.width().div_ceil(inner_w).max(1))
            .sum();
        let rect = centered(area, width, height as u16 + 2);
        let inner = frame_box(f, rect, Line::styled(" Confirm ", theme.warn), theme.warn);
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}
