//! The `?` overlay: key bindings grouped by where they apply, built from the same command
//! lists as the footer, so help never disagrees with the keys.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::modal::{centered, frame_box};
use crate::tui::theme::Theme;

pub struct HelpSection {
    pub title: String,
    /// `(keys, what they do)`.
    pub rows: Vec<(String, String)>,
}

pub struct Help {
    pub sections: Vec<HelpSection>,
    pub scroll: u16,
}

impl Help {
    pub fn scroll_by(&mut self, delta: i32) {
        self.scroll = (self.scroll as i32 + delta).max(0) as u16;
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        let key_w = self
            .sections
            .iter()
            .flat_map(|s| s.rows.iter().map(|(k, _)| k.chars().count()))
            .max()
            .unwrap_or(4)
            + 2;
        let mut lines = Vec::new();
        for s in &self.sections {
            if !lines.is_empty() {
                lines.push(Line::raw(""));
            }
            lines.push(Line::styled(s.title.clone(), theme.accent));
            for (k, label) in &s.rows {
                lines.push(Line::from(vec![
                    Span::styled(format!("  {k:<key_w$}"), theme.key),
                    Span::raw(label.clone()),
                ]));
            }
        }
        let width = (area.width * 7 / 10).clamp(40.min(area.width), 80);
        let height = (lines.len() as u16 + 3).min(area.height.saturating_sub(2));
        let rect = centered(area, width, height);
        let max_scroll = (lines.len() as u16 + 1).saturating_sub(rect.height.saturating_sub(2));
        self.scroll = self.scroll.min(max_scroll);
        let inner = frame_box(
            f,
            rect,
            Line::styled(" Help — Esc to close ", theme.accent),
            theme.border_focused,
        );
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((self.scroll, 0)),
            inner,
        );
    }
}
