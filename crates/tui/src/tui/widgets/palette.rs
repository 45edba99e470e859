//! The `:` command palette: every command the app and the current pane offer, narrowed by
//! a fuzzy match as you type.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::input::LineInput;
use super::modal::{centered, frame_box};
use crate::tui::keymap::Action;
use crate::tui::section::Section;
use crate::tui::theme::Theme;

#[derive(Debug, Clone)]
pub struct Entry {
    pub action: Action,
    /// The section whose pane runs the action (the palette switches there first).
    pub section: Option<Section>,
    pub label: String,
    pub key: Option<String>,
}

pub struct Palette {
    entries: Vec<Entry>,
    input: LineInput,
    /// Indices into `entries`, best match first.
    matches: Vec<usize>,
    cursor: usize,
}

/// What a key did in the palette.
pub enum PaletteOutcome {
    Keep,
    Close,
    Run(Action, Option<Section>),
}

/// Scores `needle` as a subsequence of `hay` (case-insensitive): higher is better, `None`
/// when it does not match. Consecutive letters and word starts score more.
pub fn fuzzy_score(needle: &str, hay: &str) -> Option<i32> {
    let hay: Vec<char> = hay.to_lowercase().chars().collect();
    let mut score = 0;
    let mut pos = 0;
    let mut prev: Option<usize> = None;
    for n in needle.to_lowercase().chars().filter(|c| !c.is_whitespace()) {
        let found = (pos..hay.len()).find(|&i| hay[i] == n)?;
        score += 1;
        if prev.is_some_and(|p| p + 1 == found) {
            score += 3;
        }
        if found == 0 || hay[found - 1] == ' ' {
            score += 2;
        }
        prev = Some(found);
        pos = found + 1;
    }
    Some(score * 100 - hay.len() as i32)
}

impl Palette {
    pub fn new(entries: Vec<Entry>) -> Palette {
        let mut p = Palette {
            entries,
            input: LineInput::default(),
            matches: Vec::new(),
            cursor: 0,
        };
        p.refilter();
        p
    }

    fn refilter(&mut self) {
        let q = self.input.text();
        let mut scored: Vec<(i32, usize)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| fuzzy_score(q, &e.label).map(|s| (s, i)))
            .collect();
        if !q.trim().is_empty() {
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        }
        self.matches = scored.into_iter().map(|(_, i)| i).collect();
        self.cursor = 0;
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> PaletteOutcome {
        match key.code {
            KeyCode::Esc => return PaletteOutcome::Close,
            KeyCode::Enter => {
                return match self.matches.get(self.cursor) {
                    Some(&i) => {
                        PaletteOutcome::Run(self.entries[i].action, self.entries[i].section)
                    }
                    None => PaletteOutcome::Keep,
                };
            }
            KeyCode::Up => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down | KeyCode::Tab => {
                if self.cursor + 1 < self.matches.len() {
                    self.cursor += 1;
                }
            }
            _ => {
                if self.input.handle_key(key) {
                    self.refilter();
                }
            }
        }
        PaletteOutcome::Keep
    }

    pub fn paste(&mut self, text: &str) {
        self.input.insert_str(text);
        self.refilter();
    }

    pub fn render(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let width = (area.width * 6 / 10).clamp(30.min(area.width), 70);
        let height = (self.matches.len() as u16 + 4).clamp(6, area.height.saturating_sub(4).max(6));
        let rect = centered(area, width, height);
        let rect = Rect {
            y: area.y + area.height / 6,
            ..rect
        }
        .intersection(area);
        let inner = frame_box(
            f,
            rect,
            Line::styled(" Command ", theme.accent),
            theme.border_focused,
        );
        if inner.height == 0 {
            return;
        }
        let mut input = self.input.line(theme.base, theme.selected, true);
        input.spans.insert(0, Span::styled(": ", theme.key));
        f.render_widget(Paragraph::new(input), Rect { height: 1, ..inner });
        let rows = inner.height.saturating_sub(2) as usize;
        let start = self.cursor.saturating_sub(rows.saturating_sub(1));
        for (n, &i) in self.matches.iter().skip(start).take(rows).enumerate() {
            let e = &self.entries[i];
            let key = e.key.clone().unwrap_or_default();
            let w = inner.width as usize;
            let label_w = w.saturating_sub(key.chars().count() + 2);
            let mut line = Line::from(vec![
                Span::raw(format!(" {:<label_w$}", e.label)),
                Span::styled(key, theme.key),
            ]);
            let r = Rect {
                y: inner.y + 2 + n as u16,
                height: 1,
                ..inner
            };
            if start + n == self.cursor {
                line = line.patch_style(theme.selected);
                f.buffer_mut().set_style(r, theme.selected);
            }
            f.render_widget(Paragraph::new(line), r);
        }
        if self.matches.is_empty() {
            let r = Rect {
                y: inner.y + 2,
                height: 1,
                ..inner
            };
            f.render_widget(
                Paragraph::new(Span::styled(" no command matches", theme.dim)),
                r,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fuzzy_score;

    #[test]
    fn fuzzy_prefers_word_starts_and_runs() {
        assert!(fuzzy_score("srv", "go to servers").is_some());
        assert!(fuzzy_score("xyz", "go to servers").is_none());
        assert!(
            fuzzy_score("add", "add server") > fuzzy_score("add", "go to hosts and dashboards")
        );
    }
}
