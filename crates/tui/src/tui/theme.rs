//! Colours and emphasis in one place. `NO_COLOR` keeps only bold, reverse and underline,
//! so every state stays readable on a monochrome terminal.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone)]
pub struct Theme {
    pub color: bool,
    pub base: Style,
    pub dim: Style,
    pub title: Style,
    pub accent: Style,
    pub key: Style,
    pub selected: Style,
    /// Selected row of a list that does not have focus.
    pub selected_unfocused: Style,
    pub border: Style,
    pub border_focused: Style,
    pub ok: Style,
    pub warn: Style,
    pub error: Style,
    pub status_bar: Style,
}

impl Theme {
    /// The theme for this process: colour unless `NO_COLOR` is set to anything non-empty.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::new(!no_color)
    }

    pub fn new(color: bool) -> Theme {
        let c = |s: Style, fg: Color| if color { s.fg(fg) } else { s };
        let plain = Style::default();
        Theme {
            color,
            base: plain,
            dim: c(plain, Color::DarkGray),
            title: plain.add_modifier(Modifier::BOLD),
            accent: c(plain, Color::Cyan).add_modifier(Modifier::BOLD),
            key: c(plain, Color::Yellow).add_modifier(Modifier::BOLD),
            selected: if color {
                plain
                    .bg(Color::Blue)
                    .fg(Color::White)
                    .add_modifier(Modifier::BOLD)
            } else {
                plain.add_modifier(Modifier::REVERSED | Modifier::BOLD)
            },
            selected_unfocused: if color {
                plain.bg(Color::DarkGray).fg(Color::White)
            } else {
                plain.add_modifier(Modifier::UNDERLINED)
            },
            border: c(plain, Color::DarkGray),
            border_focused: c(plain, Color::Cyan),
            ok: c(plain, Color::Green),
            warn: c(plain, Color::Yellow),
            error: c(plain, Color::Red).add_modifier(Modifier::BOLD),
            status_bar: if color {
                plain.bg(Color::Indexed(236)).fg(Color::White)
            } else {
                plain.add_modifier(Modifier::REVERSED)
            },
        }
    }
}
