//! Drives the whole app headless: keys in, screen lines out, over ratatui's `TestBackend`.
//! Used by the integration tests; handy for reproducing a bug without a terminal.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use evaldeck_client::client::Backend;
use evaldeck_tui::tui::app::App;
use evaldeck_tui::tui::keymap::Key;
use evaldeck_tui::tui::theme::Theme;

pub struct Harness {
    pub app: App,
    terminal: Terminal<TestBackend>,
}

/// A key event from a key name as the keymap writes it: `j`, `G`, `Enter`, `Esc`, `Tab`,
/// `BackTab`, `PgDn`, `Space`, `F5`, `C-c`. An upper-case letter and `BackTab` carry Shift,
/// as a terminal reports them.
pub fn key(spec: &str) -> KeyEvent {
    let k = Key::parse(spec).unwrap_or_else(|| panic!("unknown key name {spec:?}"));
    let shifted = match k.code {
        KeyCode::Char(c) => c.is_ascii_uppercase(),
        KeyCode::BackTab => true,
        _ => false,
    };
    let mods = if shifted {
        k.mods | KeyModifiers::SHIFT
    } else {
        k.mods
    };
    KeyEvent::new(k.code, mods)
}

impl Harness {
    /// An app over `backend` drawing into a `width` × `height` test terminal, monochrome so
    /// the output does not depend on `NO_COLOR`. Waits for the first load to finish.
    pub async fn new(backend: Arc<dyn Backend>, width: u16, height: u16) -> Harness {
        Harness::with_color(backend, width, height, false).await
    }

    /// Like [`Harness::new`], in colour when `color` (the screen text is the same; styles
    /// differ, and highlighting runs).
    pub async fn with_color(
        backend: Arc<dyn Backend>,
        width: u16,
        height: u16,
        color: bool,
    ) -> Harness {
        let app = App::with_theme(backend, Theme::new(color));
        let terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
        let mut h = Harness { app, terminal };
        h.drain().await;
        h
    }

    /// Sends named keys (see [`key`]), one after another.
    pub fn keys(&mut self, specs: &[&str]) {
        for s in specs {
            self.app.handle_key(key(s));
        }
    }

    pub fn press(&mut self, spec: &str) {
        self.app.handle_key(key(spec));
    }

    /// Types text character by character.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.app
                .handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    pub fn click(&mut self, column: u16, row: u16) {
        self.app.handle_mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        });
    }

    pub fn scroll(&mut self, column: u16, row: u16, down: bool) {
        self.app.handle_mouse(MouseEvent {
            kind: if down {
                MouseEventKind::ScrollDown
            } else {
                MouseEventKind::ScrollUp
            },
            column,
            row,
            modifiers: KeyModifiers::NONE,
        });
    }

    /// Applies every backend reply, including those the replies trigger.
    pub async fn drain(&mut self) {
        self.app.drain().await;
    }

    /// Draws one frame (and nothing else): for timing.
    pub fn draw(&mut self) {
        let app = &mut self.app;
        self.terminal.draw(|f| app.render(f)).expect("draw");
    }

    /// Draws a frame and returns it cell by cell (colours included).
    pub fn buffer(&mut self) -> ratatui::buffer::Buffer {
        self.draw();
        self.terminal.backend().buffer().clone()
    }

    /// Forgets what the terminal shows, so the next frame is written in full.
    pub fn clear(&mut self) {
        self.terminal.clear().expect("clear");
    }

    /// Draws a frame and returns the screen, one string per row, right-trimmed.
    pub fn lines(&mut self) -> Vec<String> {
        let app = &mut self.app;
        self.terminal.draw(|f| app.render(f)).expect("draw");
        let buf = self.terminal.backend().buffer();
        let width = buf.area.width as usize;
        buf.content
            .chunks(width)
            .map(|row| {
                let mut s = String::new();
                let mut skip = 0;
                for cell in row {
                    if skip > 0 {
                        skip -= 1;
                        continue;
                    }
                    let sym = cell.symbol();
                    s.push_str(sym);
                    skip = unicode_width(sym).saturating_sub(1);
                }
                s.trim_end().to_string()
            })
            .collect()
    }

    /// The screen as one string.
    pub fn screen(&mut self) -> String {
        self.lines().join("\n")
    }

    /// Whether any row contains `text`.
    pub fn shows(&mut self, text: &str) -> bool {
        self.lines().iter().any(|l| l.contains(text))
    }
}

/// Display width of a cell symbol: wide characters take the next cell too.
fn unicode_width(s: &str) -> usize {
    use ratatui::text::Span;
    Span::raw(s).width().max(1)
}
