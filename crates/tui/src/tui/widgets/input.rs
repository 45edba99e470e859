//! A one-line text input: filters, the command palette and form fields.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

#[derive(Debug, Clone, Default)]
pub struct LineInput {
    text: String,
    /// Cursor position in characters.
    cursor: usize,
}

impl LineInput {
    pub fn with_text(text: &str) -> LineInput {
        LineInput {
            text: text.to_string(),
            cursor: text.chars().count(),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    fn byte_at(&self, char_idx: usize) -> usize {
        self.text
            .char_indices()
            .nth(char_idx)
            .map(|(i, _)| i)
            .unwrap_or(self.text.len())
    }

    pub fn insert_str(&mut self, s: &str) {
        let s: String = s.chars().filter(|c| !c.is_control()).collect();
        let at = self.byte_at(self.cursor);
        self.text.insert_str(at, &s);
        self.cursor += s.chars().count();
    }

    /// Applies an editing key; returns whether the key was an editing key at all, so the
    /// caller can give Enter, Esc and Tab their own meaning.
    pub fn handle_key(&mut self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('u') if ctrl => {
                let at = self.byte_at(self.cursor);
                self.text.replace_range(..at, "");
                self.cursor = 0;
            }
            KeyCode::Char('w') if ctrl => {
                let chars: Vec<char> = self.text.chars().collect();
                let mut start = self.cursor;
                while start > 0 && chars[start - 1] == ' ' {
                    start -= 1;
                }
                while start > 0 && chars[start - 1] != ' ' {
                    start -= 1;
                }
                let (a, b) = (self.byte_at(start), self.byte_at(self.cursor));
                self.text.replace_range(a..b, "");
                self.cursor = start;
            }
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.text.chars().count(),
            KeyCode::Char(c) if !ctrl => self.insert_str(&c.to_string()),
            KeyCode::Backspace => {
                if self.cursor > 0 {
                    self.cursor -= 1;
                    let at = self.byte_at(self.cursor);
                    self.text.remove(at);
                }
            }
            KeyCode::Delete => {
                if self.cursor < self.text.chars().count() {
                    let at = self.byte_at(self.cursor);
                    self.text.remove(at);
                }
            }
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.text.chars().count()),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.text.chars().count(),
            _ => return false,
        }
        true
    }

    /// The text as a line, with a visible cursor block when `focused`.
    pub fn line(&self, style: Style, cursor_style: Style, focused: bool) -> Line<'static> {
        if !focused {
            return Line::from(Span::styled(self.text.clone(), style));
        }
        let before: String = self.text.chars().take(self.cursor).collect();
        let at: String = self
            .text
            .chars()
            .nth(self.cursor)
            .map(String::from)
            .unwrap_or_else(|| " ".into());
        let after: String = self.text.chars().skip(self.cursor + 1).collect();
        Line::from(vec![
            Span::styled(before, style),
            Span::styled(at, cursor_style),
            Span::styled(after, style),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn edits_in_the_middle_and_deletes_words() {
        let mut i = LineInput::default();
        for c in "héllo world".chars() {
            i.handle_key(&key(KeyCode::Char(c)));
        }
        i.handle_key(&key(KeyCode::Home));
        i.handle_key(&key(KeyCode::Right));
        i.handle_key(&key(KeyCode::Delete));
        assert_eq!(i.text(), "hllo world");
        i.handle_key(&key(KeyCode::End));
        i.handle_key(&KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(i.text(), "hllo ");
        assert!(!i.handle_key(&key(KeyCode::Enter)));
    }
}
