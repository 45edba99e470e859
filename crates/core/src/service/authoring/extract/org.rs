//! Org-mode files (Emacs), read as the Markdown they correspond to, line for line so that
//! every span stays exact: `** TODO Title` is a level-2 heading (its TODO keyword, priority
//! and tags dropped; a dropped keyword marks the section dropped), `:KEY: value` property
//! lines and `term :: text` list items are fields, a quote block holds the user's words,
//! source blocks are code fences, and drawers, planning lines and `#+` settings are blank.

use crate::service::authoring::lexicon;
use crate::service::authoring::lines::split_lines;

/// Whether the document is Org: `#+` settings or property drawers beside `*` headings.
pub fn looks_like_org(t: &str) -> bool {
    let mut headings = 0;
    let mut org = 0;
    for l in split_lines(t) {
        let s = l.trim_start();
        if star_heading(l).is_some() {
            headings += 1;
        }
        let lower = s.to_ascii_lowercase();
        if lower.starts_with("#+title:")
            || lower.starts_with("#+begin_")
            || lower.starts_with("#+todo:")
            || lower.starts_with("#+startup:")
            || s == ":PROPERTIES:"
        {
            org += 1;
        }
    }
    headings >= 1 && org >= 1
}

/// `** Title` at the start of a line: its level and text.
fn star_heading(l: &str) -> Option<(usize, &str)> {
    let stars = l.bytes().take_while(|&b| b == b'*').count();
    (stars >= 1 && l[stars..].starts_with(' ')).then(|| (stars, l[stars..].trim()))
}

/// The document rewritten as Markdown with the same lines.
pub fn to_markdown(t: &str) -> String {
    let mut keywords: Vec<String> = ["TODO", "DONE", "NEXT", "WAITING", "READY", "CANCELLED"]
        .map(String::from)
        .to_vec();
    for l in t.lines() {
        let lower = l.trim().to_ascii_lowercase();
        if lower.starts_with("#+todo:") || lower.starts_with("#+seq_todo:") {
            let words = l.trim().split_once(':').map_or("", |(_, w)| w);
            keywords.extend(
                words
                    .split_whitespace()
                    .filter(|w| *w != "|")
                    .map(|w| w.split('(').next().unwrap_or(w).to_string()),
            );
        }
    }
    let mut out = Vec::new();
    let mut in_quote = false;
    let mut in_drawer = false;
    let mut prompted = false;
    // (A body indented under its heading, as `org-adapt-indentation` writes it, is read
    // without that indentation: `** Title` indents by three.)
    let mut body_indent = 0;
    for l in t.lines() {
        let s = l.trim();
        let lower = s.to_ascii_lowercase();
        let line = if let Some((level, text)) = star_heading(l) {
            prompted = false;
            in_drawer = false;
            body_indent = level + 1;
            heading(level, text, &keywords)
        } else if lower.starts_with("#+begin_quote") {
            in_quote = true;
            String::new()
        } else if lower.starts_with("#+end_quote") {
            in_quote = false;
            String::new()
        } else if [
            "#+begin_src",
            "#+begin_example",
            "#+end_src",
            "#+end_example",
        ]
        .iter()
        .any(|p| lower.starts_with(p))
        {
            "```".into()
        } else if s.starts_with("#+") || s.starts_with("# ") {
            String::new()
        } else if in_quote && !s.is_empty() {
            // The quote's first line is the prompt unless a property already gave one.
            if prompted {
                format!("  {s}")
            } else {
                prompted = true;
                format!("Prompt: {s}")
            }
        } else if s.starts_with(':') && s.ends_with(':') && !s.contains(' ') && s.len() > 2 {
            // `:PROPERTIES:`, `:LOGBOOK:`, `:END:`.
            in_drawer = s != ":END:" && s != ":PROPERTIES:";
            String::new()
        } else if in_drawer
            || ["CLOSED:", "SCHEDULED:", "DEADLINE:"]
                .iter()
                .any(|p| s.starts_with(p))
        {
            String::new()
        } else if let Some(rest) = s.strip_prefix(':')
            && let Some((key, value)) = rest.split_once(':')
            && !key.contains(' ')
        {
            let line = format!("{key}: {}", value.trim());
            if lexicon::label_role(key) == Some(lexicon::LabelRole::Prompt) {
                prompted = true;
            }
            line
        } else if let Some((term, text)) = s.split_once(" :: ")
            && let Some(term) = term.strip_prefix("- ").or_else(|| term.strip_prefix("+ "))
        {
            // A description item is a field of the entry, like its properties.
            format!("{}: {text}", term.trim())
        } else if s.starts_with('|') && s.contains("-+-") {
            l.replace('+', "|")
        } else if let Some(rest) = lexicon::ARROWS.iter().find_map(|a| s.strip_prefix(a)) {
            // `→ path …`: what the entry expects.
            format!("Expected: {}", rest.trim())
        } else if !prompted && s.starts_with(['"', '“', '«', '„', '「']) {
            // An entry's body opening with a quote: what the user says.
            prompted = true;
            format!("Prompt: {s}")
        } else {
            let spaces = l.len() - l.trim_start_matches(' ').len();
            l[spaces.min(body_indent)..].to_string()
        };
        out.push(line);
    }
    super::rejoin(t, &out)
}

/// A heading line: its keyword, priority cookie and tags dropped. A keyword that says the
/// entry was dropped leads the title, where the section reader sees it.
fn heading(level: usize, text: &str, keywords: &[String]) -> String {
    let mut t = text;
    let mut dropped = false;
    if let Some((first, rest)) = t.split_once(' ').or(Some((t, "")))
        && (keywords.iter().any(|k| k == first) || lexicon::is_dropped_status(first))
        && first
            .chars()
            .all(|c| c.is_uppercase() || c == '_' || c == '-')
    {
        dropped = lexicon::is_dropped_status(first);
        t = rest.trim_start();
    }
    if t.starts_with("[#") {
        t = t.split_once(']').map_or(t, |(_, r)| r.trim_start());
    }
    // Trailing tags: `Title   :tag1:tag2:`.
    if let Some(i) = t.rfind(char::is_whitespace)
        && t[i..].trim().starts_with(':')
        && t.ends_with(':')
    {
        t = t[..i].trim_end();
    }
    let hashes = "#".repeat(level.min(6));
    if dropped {
        format!("{hashes} Dropped: {t}")
    } else {
        format!("{hashes} {t}")
    }
}
