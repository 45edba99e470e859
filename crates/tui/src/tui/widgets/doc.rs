//! A document view: line numbers, Markdown (or JSON) highlighting with syntect, a range of
//! lines emphasised (a draft's source lines) and an optional cursor. Only the lines on
//! screen are highlighted, so a 100 KB paste costs what a screenful does.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::highlight::highlight;
use crate::tui::theme::Theme;

#[derive(Debug, Default)]
pub struct DocView {
    /// First line shown (0-based).
    pub scroll: usize,
    height: usize,
}

/// What to draw.
pub struct Doc<'a> {
    pub lines: &'a [String],
    /// The number of the first of `lines` (1 for a whole document, a draft's start line
    /// for an excerpt).
    pub first_number: usize,
    /// Syntax, by file extension (`md`, `json`).
    pub ext: &'a str,
    /// 1-based inclusive line numbers to emphasise.
    pub emphasis: Option<(usize, usize)>,
    /// (row, column) in `lines`, 0-based.
    pub cursor: Option<(usize, usize)>,
}

impl DocView {
    pub fn scroll_by(&mut self, delta: i64, total: usize) {
        let max = total.saturating_sub(self.height.max(1));
        self.scroll = (self.scroll as i64 + delta).clamp(0, max as i64) as usize;
    }

    /// Scrolls so that 0-based `row` is visible, with a little context above.
    pub fn reveal(&mut self, row: usize) {
        let h = self.height.max(1);
        if row < self.scroll {
            self.scroll = row.saturating_sub(2);
        } else if row >= self.scroll + h {
            self.scroll = row + 1 - h;
        }
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, doc: &Doc, theme: &Theme) {
        self.height = area.height as usize;
        if let Some((row, _)) = doc.cursor {
            self.reveal(row);
        }
        let total = doc.lines.len().max(1);
        self.scroll = self.scroll.min(total.saturating_sub(1));
        let last_number = doc.first_number + total - 1;
        let gutter = last_number.to_string().len() + 1;
        let end = (self.scroll + self.height).min(doc.lines.len());
        let visible = if self.scroll < end {
            &doc.lines[self.scroll..end]
        } else {
            &[][..]
        };
        let mut styled = highlight(&visible.join("\n"), doc.ext, theme);
        styled.resize(visible.len(), Line::default());
        let mut out = Vec::with_capacity(styled.len());
        for (n, line) in styled.into_iter().enumerate() {
            let row = self.scroll + n;
            let number = doc.first_number + row;
            let emph = doc
                .emphasis
                .is_some_and(|(a, b)| number >= a && number <= b);
            let mut spans = vec![Span::styled(
                format!("{number:>w$}", w = gutter - 1),
                if emph { theme.accent } else { theme.dim },
            )];
            spans.push(Span::styled(if emph { "▌" } else { " " }, theme.accent));
            let mut line = line;
            if emph {
                line = line.patch_style(if theme.color {
                    Style::default().add_modifier(Modifier::BOLD)
                } else {
                    Style::default().add_modifier(Modifier::UNDERLINED)
                });
            }
            spans.extend(line.spans);
            out.push(Line::from(spans));
        }
        f.render_widget(Paragraph::new(out), area);
        if let Some((row, col)) = doc.cursor
            && row >= self.scroll
            && row < self.scroll + self.height
        {
            let text = doc.lines.get(row).map(String::as_str).unwrap_or("");
            let before: String = text.chars().take(col).collect();
            let x = area.x as usize + gutter + 1 + Span::raw(before).width();
            let y = area.y as usize + row - self.scroll;
            if x < (area.x + area.width) as usize {
                let cell = Rect::new(x as u16, y as u16, 1, 1);
                f.buffer_mut()
                    .set_style(cell, Style::default().add_modifier(Modifier::REVERSED));
            }
        }
    }
}
