//! Syntax highlighting (JSON, Markdown) with syntect, turned into ratatui lines.
//!
//! The syntax and theme sets take a while to load (about 0.2 s in a release build, seconds
//! in a debug one), so they load on a thread of their own, started with the workbench
//! ([`warm_up`]). Until they are there, text is drawn plain: a keystroke or a paste is never
//! kept waiting for the highlighter, and the next frame after the load is in colour.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

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

static SETS: OnceLock<Sets> = OnceLock::new();
static STARTED: AtomicBool = AtomicBool::new(false);
/// Tests pretend the sets have not loaded yet (see [`hold`]).
static HELD: AtomicBool = AtomicBool::new(false);

fn load() -> Sets {
    let mut themes = ThemeSet::load_defaults();
    let theme = themes
        .themes
        .remove("base16-ocean.dark")
        .unwrap_or_default();
    Sets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        theme,
    }
}

/// What the workbench highlights, in most of its forms: a syntax builds the rules of each
/// of its contexts the first time text needs them, which took a keystroke 0.18 s in a
/// release build when the highlighter first met a Markdown table. Built here, on the
/// loading thread, before highlighting is declared ready.
const SAMPLES: [(&str, &str); 2] = [
    (
        "json",
        "{\"a\": [1, -2.5e3, \"x\\n\", true, false, null], \"b\": {\"c\": {}}}\n",
    ),
    (
        "md",
        "# Title\n## Case 1: `echo` **bold** _it_ [link](http://x) <b>html</b>\n\n\
         - item\n  1. nested\n> quote\n\n| a | b |\n|---|---|\n| `c` | d |\n\n\
         ```json\n{\"a\": 1}\n```\n    indented\n---\nText: \"quoted\" -> tool\n",
    ),
];

fn prime(sets: &Sets) {
    for (ext, text) in SAMPLES {
        if let Some(syntax) = sets.syntaxes.find_syntax_by_extension(ext) {
            let mut h = HighlightLines::new(syntax, &sets.theme);
            for line in LinesWithEndings::from(text) {
                let _ = h.highlight_line(line, &sets.syntaxes);
            }
        }
    }
}

/// Starts loading the sets on a background thread (once); returns at once.
pub fn warm_up() {
    if SETS.get().is_some() || STARTED.swap(true, Ordering::SeqCst) {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("highlighter".into())
        .spawn(|| {
            let sets = load();
            prime(&sets);
            let _ = SETS.set(sets);
        });
    if spawned.is_err() {
        STARTED.store(false, Ordering::SeqCst);
    }
}

/// Whether highlighting is available now (the sets have loaded).
pub fn is_ready() -> bool {
    ready().is_some()
}

fn ready() -> Option<&'static Sets> {
    if HELD.load(Ordering::SeqCst) {
        return None;
    }
    SETS.get()
}

/// For tests: while held, the highlighter behaves as if it had not loaded yet.
#[doc(hidden)]
pub fn hold(held: bool) {
    HELD.store(held, Ordering::SeqCst);
}

fn plain(text: &str) -> Vec<Line<'static>> {
    text.lines().map(|l| Line::raw(l.to_string())).collect()
}

/// Highlights `text` as the language with file extension `ext` (`json`, `md`); plain lines
/// when colour is off or the language is unknown.
pub fn highlight(text: &str, ext: &str, theme: &Theme) -> Vec<Line<'static>> {
    if !theme.color {
        return plain(text);
    }
    let Some(sets) = ready() else {
        warm_up();
        return plain(text);
    };
    let Some(syntax) = sets.syntaxes.find_syntax_by_extension(ext) else {
        return plain(text);
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
        SETS.get_or_init(load);
        let lines = json(&serde_json::json!({"a": [1, "x"]}), &Theme::new(true));
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text.join("\n"), "{\n  \"a\": [\n    1,\n    \"x\"\n  ]\n}");
        assert!(lines[1].spans.len() > 1, "a key line has several colours");
    }
}
