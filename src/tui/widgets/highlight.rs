//! Syntax highlighting (JSON, Markdown) with syntect, turned into ratatui lines.
//! The syntax and theme sets load once, on first use, so startup does not pay for them.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

use crate::tui::theme::Theme;

struct Sets {
    syntaxes: SyntaxSet,
    theme: syntect::highlighting::Theme,
}

fn sets() -> &'static Sets {
    static SETS: OnceLock<Sets> = OnceLock::new();
    SETS.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults();
        let theme = themes
            .themes
            .remove("base16-ocean.dark")
            .unwrap_or_default();
        Sets {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme,
        }
    })
}

/// Highlights `text` as the language with file extension `ext` (`json`, `md`); plain lines
/// when colour is off or the language is unknown.
pub fn highlight(text: &str, ext: &str, theme: &Theme) -> Vec<Line<'static>> {
    if !theme.color {
        return text.lines().map(|l| Line::raw(l.to_string())).collect();
    }
    let sets = sets();
    let Some(syntax) = sets.syntaxes.find_syntax_by_extension(ext) else {
        return text.lines().map(|l| Line::raw(l.to_string())).collect();
    };
    let mut h = HighlightLines::new(syntax, &sets.theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(text) {
        let Ok(ranges) = h.highlight_line(line, &sets.syntaxes) else {
            out.push(Line::raw(line.trim_end_matches(['\n', '\r']).to_string()));
            continue;
        };
        let spans: Vec<Span<'static>> = ranges
            .into_iter()
            .map(|(style, piece)| {
                let fg = style.foreground;
                let mut s = Style::default().fg(Color::Rgb(fg.r, fg.g, fg.b));
                if style.font_style.contains(FontStyle::BOLD) {
                    s = s.add_modifier(Modifier::BOLD);
                }
                if style.font_style.contains(FontStyle::ITALIC) {
                    s = s.add_modifier(Modifier::ITALIC);
                }
                Span::styled(piece.trim_end_matches(['\n', '\r']).to_string(), s)
            })
            .filter(|s| !s.content.is_empty())
            .collect();
        out.push(Line::from(spans));
    }
    out
}

/// Pretty JSON, highlighted.
pub fn json(value: &impl serde::Serialize, theme: &Theme) -> Vec<Line<'static>> {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("<{e}>"));
    highlight(&text, "json", theme)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_the_text_and_colours_it() {
        let lines = json(&serde_json::json!({"a": [1, "x"]}), &Theme::new(true));
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text.join("\n"), "{\n  \"a\": [\n    1,\n    \"x\"\n  ]\n}");
        assert!(lines[1].spans.len() > 1, "a key line has several colours");
    }
}
