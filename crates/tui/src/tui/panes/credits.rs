//! Credits (`$`): the organization's balance and its ledger, newest first — what authoring,
//! hosted-model runs and agent turns spent, and what operators granted.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{clip, time};
use crate::spec::authoring::Credits;
use crate::tui::theme::Theme;
use crate::tui::widgets::modal::{centered, frame_box};

#[derive(Default)]
pub struct CreditsView {
    /// `None` until the ledger arrives.
    pub credits: Option<Credits>,
    scroll: u16,
}

impl CreditsView {
    /// Keys while open; returns whether it stays open.
    pub fn handle_key(&mut self, key: &KeyEvent) -> bool {
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('$') => return false,
            KeyCode::Down | KeyCode::Char('j') => self.scroll = self.scroll.saturating_add(1),
            KeyCode::Up | KeyCode::Char('k') => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::PageDown => self.scroll = self.scroll.saturating_add(10),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            _ => {}
        }
        true
    }

    fn lines(&self, theme: &Theme, width: usize) -> Vec<Line<'static>> {
        let Some(c) = &self.credits else {
            return vec![Line::styled("loading…", theme.warn)];
        };
        let mut out = vec![
            Line::from(vec![
                Span::styled("balance  ", theme.dim),
                Span::styled(format!("{} credits", c.balance), theme.title),
            ]),
            Line::styled(
                "Authoring, runs on hosted models and agent turns spend credits; an operator grants them with `evaldeck credits grant`.",
                theme.dim,
            ),
            Line::from(""),
            Line::styled(
                format!(
                    "{:<17} {:>7} {:>8}  {:<9} note",
                    "when", "change", "balance", "kind"
                ),
                theme.dim,
            ),
        ];
        if c.ledger.is_empty() {
            out.push(Line::styled("no entries yet", theme.dim));
        }
        let note_w = width.saturating_sub(47).max(8);
        for e in &c.ledger {
            let style = if e.delta < 0 { theme.warn } else { theme.ok };
            let note = e
                .note
                .clone()
                .or_else(|| e.job_id.clone())
                .unwrap_or_default();
            out.push(Line::from(vec![
                Span::raw(format!("{:<17} ", time(e.created_at))),
                Span::styled(format!("{:>+7}", e.delta), style),
                Span::raw(format!(" {:>8}  {:<9} ", e.balance, e.kind)),
                Span::styled(clip(&note, note_w), theme.dim),
            ]));
        }
        out
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        let r = centered(
            area,
            area.width.saturating_sub(8).clamp(40, 110),
            area.height.saturating_sub(4).max(8),
        );
        let inner = frame_box(
            f,
            r,
            Line::styled(" Credits — Esc close · j/k scroll ", theme.title),
            theme.border_focused,
        );
        let lines = self.lines(theme, inner.width as usize);
        let max = (lines.len() as u16).saturating_sub(inner.height);
        self.scroll = self.scroll.min(max);
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((self.scroll, 0)),
            inner,
        );
    }
}
