//! The built-in extractor: deterministic, offline, and honest about what it read.
//!
//! [`sniff`] decides the document's shape from its text alone (the spec declares no
//! format), then one reader turns it into [`Draft`]s with exact line spans:
//!
//! | shape | recognised by | one case is |
//! |---|---|---|
//! | JSON | the text parses as JSON | an object of the case array (top-level, or the first array of objects under `tests`, `cases`, `examples`, `data`, `goldens`, `samples`, `items`, …) |
//! | JSONL | every non-blank line parses as a JSON object | a line |
//! | YAML | a `tests:`/`cases:` key, or a top-level `- ` list of `key: value` maps | an item of that list (promptfoo's `defaultTest` is merged into each, never a case) |
//! | CSV / TSV | the first line is a header of delimiter-separated labels, one of them a prompt or tool column | a record (quoted multi-line cells included) |
//! | Markdown | anything else | a heading section, list item, table row or paragraph group with a prompt field |
//! | notes | Markdown with no structured case | a bullet with a quoted prompt and an arrow or "should …" |
//!
//! Nothing becomes a case without a prompt (or, in tabular data, a tool call to make):
//! prose yields no case.

pub mod json;
pub mod markdown;
pub mod notes;
pub mod table;
pub mod yaml;

use super::draft::Draft;
use super::lines::LineIndex;

/// The version recorded as each case's `source.extractorVersion`.
pub const EXTRACTOR_VERSION: &str = "evaldeck-extract/1.0";
/// `generationModel` when the built-in extractor authored the cases.
pub const GENERATION_MODEL: &str = "evaldeck-extract/1";

/// The document shapes the extractor tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Json,
    Jsonl,
    Yaml,
    Csv(u8),
    Markdown,
}

/// Decides the shape of a document.
pub fn sniff(text: &str) -> Shape {
    let t = text.trim_start_matches('\u{feff}').trim();
    if (t.starts_with('{') || t.starts_with('['))
        && serde_json::from_str::<serde_json::Value>(t).is_ok()
    {
        return Shape::Json;
    }
    let mut lines = t
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .peekable();
    if lines.peek().is_some_and(|l| l.starts_with('{'))
        && t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .all(|l| l.starts_with('{') && serde_json::from_str::<serde_json::Value>(l).is_ok())
    {
        return Shape::Jsonl;
    }
    if yaml::looks_like_yaml(t) {
        return Shape::Yaml;
    }
    if let Some(d) = table::sniff_delimiter(t) {
        return Shape::Csv(d);
    }
    Shape::Markdown
}

/// Extracts every case of a document.
pub fn extract(text: &str) -> Vec<Draft> {
    let ix = LineIndex::new(text);
    let mut drafts = match sniff(text) {
        Shape::Json => json::extract(&ix),
        Shape::Jsonl => json::extract_lines(&ix),
        Shape::Yaml => yaml::extract(&ix),
        Shape::Csv(d) => table::extract(&ix, d),
        Shape::Markdown => {
            let mut d = markdown::extract(&ix);
            d.retain(Draft::is_case);
            if d.is_empty() { notes::extract(&ix) } else { d }
        }
    };
    drafts.retain(Draft::is_case);
    for d in &mut drafts {
        d.ensure_title();
    }
    drafts
}
