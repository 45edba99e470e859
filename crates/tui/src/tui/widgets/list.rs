//! A selectable, filterable list that renders only the rows on screen, so a list of ten
//! thousand items costs what a screenful does. The list holds indices and search keys,
//! never the items: each pane keeps its data and draws a row on request.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::input::LineInput;
use crate::tui::theme::Theme;

#[derive(Debug, Default)]
pub struct ListView {
    keys: Vec<String>,
    /// Indices into the items that pass the filter, in order.
    visible: Vec<usize>,
    /// Position in `visible`.
    cursor: usize,
    offset: usize,
    filter: LineInput,
    editing: bool,
    /// Where the rows were last drawn, for mouse hits.
    rows_area: Rect,
}

/// What a key did to the filter editor.
#[derive(Debug, PartialEq, Eq)]
pub enum FilterKey {
    /// Not editing: the key was not for the filter.
    Ignored,
    /// Consumed (typed, moved, accepted or cleared).
    Consumed,
}

impl ListView {
    /// Replaces the items' search keys, keeping the selected item when it is still there.
    pub fn set_keys(&mut self, keys: Vec<String>) {
        let selected = self.selected();
        self.keys = keys;
        self.refilter(selected);
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn visible_len(&self) -> usize {
        self.visible.len()
    }

    /// The index of the selected item, if any item is visible.
    pub fn selected(&self) -> Option<usize> {
        self.visible.get(self.cursor).copied()
    }

    /// Selects an item by its index, if it passes the filter.
    pub fn select(&mut self, index: usize) {
        if let Some(pos) = self.visible.iter().position(|&i| i == index) {
            self.cursor = pos;
        }
    }

    fn refilter(&mut self, keep: Option<usize>) {
        let terms: Vec<String> = self
            .filter
            .text()
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.visible = self
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| {
                let k = k.to_lowercase();
                terms.iter().all(|t| k.contains(t.as_str()))
            })
            .map(|(i, _)| i)
            .collect();
        self.cursor = keep
            .and_then(|k| self.visible.iter().position(|&i| i == k))
            .unwrap_or(self.cursor)
            .min(self.visible.len().saturating_sub(1));
    }

    pub fn up(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }
    pub fn down(&mut self) {
        if self.cursor + 1 < self.visible.len() {
            self.cursor += 1;
        }
    }
    pub fn top(&mut self) {
        self.cursor = 0;
    }
    pub fn bottom(&mut self) {
        self.cursor = self.visible.len().saturating_sub(1);
    }
    pub fn page(&mut self, down: bool) {
        let h = (self.rows_area.height.max(2) - 1) as usize;
        if down {
            self.cursor = (self.cursor + h).min(self.visible.len().saturating_sub(1));
        } else {
            self.cursor = self.cursor.saturating_sub(h);
        }
    }

    /// Mouse wheel: moves the selection, which drags the view along.
    pub fn scroll(&mut self, lines: i32) {
        for _ in 0..lines.unsigned_abs() {
            if lines > 0 { self.down() } else { self.up() }
        }
    }

    /// Selects the row under a mouse click; returns whether the click hit a row.
    pub fn click(&mut self, pos: Position) -> bool {
        if !self.rows_area.contains(pos) {
            return false;
        }
        let row = self.offset + (pos.y - self.rows_area.y) as usize;
        if row < self.visible.len() {
            self.cursor = row;
            true
        } else {
            false
        }
    }

    pub fn contains(&self, pos: Position) -> bool {
        self.rows_area.contains(pos)
    }

    // --- filter -------------------------------------------------------------------------

    pub fn start_filter(&mut self) {
        self.editing = true;
    }

    pub fn is_filtering(&self) -> bool {
        self.editing
    }

    pub fn filter_text(&self) -> &str {
        self.filter.text()
    }

    pub fn clear_filter(&mut self) {
        let keep = self.selected();
        self.filter.clear();
        self.editing = false;
        self.refilter(keep);
    }

    /// While the filter is being typed, every key goes to it: Enter keeps the filter and
    /// returns to the list, Esc drops it, ↑/↓ still move the selection.
    pub fn filter_key(&mut self, key: &KeyEvent) -> FilterKey {
        if !self.editing {
            return FilterKey::Ignored;
        }
        match key.code {
            KeyCode::Enter => self.editing = false,
            KeyCode::Esc => self.clear_filter(),
            KeyCode::Up => self.up(),
            KeyCode::Down => self.down(),
            _ => {
                if self.filter.handle_key(key) {
                    self.cursor = 0;
                    self.refilter(None);
                }
            }
        }
        FilterKey::Consumed
    }

    pub fn paste_into_filter(&mut self, text: &str) -> bool {
        if !self.editing {
            return false;
        }
        self.filter.insert_str(text);
        self.refilter(None);
        true
    }

    // --- drawing ------------------------------------------------------------------------

    /// Draws the block and the visible rows; `row` draws item `i` (selected or not).
    /// The filter, when set, takes the last line inside the block.
    pub fn render<'a>(
        &mut self,
        f: &mut Frame,
        area: Rect,
        block: Block<'a>,
        theme: &Theme,
        focused: bool,
        empty: &str,
        mut row: impl FnMut(usize) -> Line<'static>,
    ) {
        let inner = block.inner(area);
        f.render_widget(block, area);
        let show_filter = self.editing || !self.filter.text().is_empty();
        let rows_area = if show_filter && inner.height > 1 {
            let filter_area = Rect {
                y: inner.y + inner.height - 1,
                height: 1,
                ..inner
            };
            let mut line = self.filter.line(theme.base, theme.selected, self.editing);
            line.spans.insert(0, Span::styled("/ ", theme.key));
            line.spans.push(Span::styled(
                format!("  {}/{}", self.visible.len(), self.keys.len()),
                theme.dim,
            ));
            f.render_widget(Paragraph::new(line), filter_area);
            Rect {
                height: inner.height - 1,
                ..inner
            }
        } else {
            inner
        };
        self.rows_area = rows_area;
        let height = rows_area.height as usize;
        if self.visible.is_empty() {
            let msg = if self.keys.is_empty() {
                empty.to_string()
            } else {
                "no match".to_string()
            };
            f.render_widget(Paragraph::new(Span::styled(msg, theme.dim)), rows_area);
            return;
        }
        if height == 0 {
            return;
        }
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + height {
            self.offset = self.cursor + 1 - height;
        }
        self.offset = self.offset.min(self.visible.len().saturating_sub(height));
        let end = (self.offset + height).min(self.visible.len());
        for (n, pos) in (self.offset..end).enumerate() {
            let i = self.visible[pos];
            let mut line = row(i);
            let r = Rect {
                y: rows_area.y + n as u16,
                height: 1,
                ..rows_area
            };
            if pos == self.cursor {
                let style = if focused {
                    theme.selected
                } else {
                    theme.selected_unfocused
                };
                line = line.patch_style(style);
                f.buffer_mut().set_style(r, style);
            }
            f.render_widget(Paragraph::new(line), r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    #[test]
    fn filter_keeps_matching_items_and_clearing_restores() {
        let mut l = ListView::default();
        l.set_keys(vec!["demo".into(), "weather api".into(), "Docs".into()]);
        l.bottom();
        assert_eq!(l.selected(), Some(2));
        l.start_filter();
        for c in "d".chars() {
            l.filter_key(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
        assert_eq!(l.visible_len(), 2);
        l.filter_key(&KeyEvent::new(KeyCode::Char('o'), KeyModifiers::NONE));
        l.filter_key(&KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE));
        assert_eq!(l.selected(), Some(2));
        l.filter_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        assert_eq!(l.visible_len(), 3);
        assert_eq!(l.selected(), Some(2));
    }
}
