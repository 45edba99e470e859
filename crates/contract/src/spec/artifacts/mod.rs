//! Test-report artifacts turned into ingestion results: JUnit XML ([`junit`]) and the Jest
//! `--json` / Vitest `--reporter=json` shape ([`jest`]). Pure functions over the file's
//! bytes, so the server (upload URLs) and the CLI (`evaldeck ingest`, offline) read a file
//! the same way.
//!
//! Decisions:
//! - One test case is one result. Skipped, pending, todo and disabled tests are counted in
//!   `not_run` and become no iteration (they were not run, so they neither pass nor fail).
//! - `externalIterationId` is derived from the suite, the case's identity and its
//!   occurrence in the file, so uploading the same file to a run twice adds nothing.
//! - Titles longer than the result bounds are cut; a file is at most [`MAX_CASES`] cases.
//! - HTML widget snapshots ([`widget`]) are stored, not read into results.
//! - The kind is sniffed when not given: an HTML document is a widget; `<` starts JUnit XML; a JSON object with
//!   `testResults` is Jest, or Vitest when it lacks Jest's own top-level keys
//!   (`wasInterrupted`, `openHandles`) or its assertions carry Vitest's `meta`.

pub mod jest;
pub mod junit;
pub mod widget;

use super::error::Error;
use super::ingest::{ArtifactKind, IngestResult, MAX_CASE_TITLE, MAX_ERROR, MAX_EXTERNAL_ID};

/// Most test cases one artifact may hold.
pub const MAX_CASES: usize = 10_000;

/// What the accepted formats are, for error messages.
pub const ACCEPTED: &str =
    "JUnit XML, Jest JSON (`jest --json`) or Vitest JSON (`vitest --reporter=json`)";

/// An artifact read into results.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedArtifact {
    pub kind: ArtifactKind,
    /// The suite name the file gives (JUnit `testsuites`/first `testsuite` name).
    pub suite_name: Option<String>,
    pub results: Vec<IngestResult>,
    /// Test cases marked skipped, pending, todo or disabled.
    pub not_run: usize,
}

impl ParsedArtifact {
    pub fn failed(&self) -> usize {
        self.results.iter().filter(|r| !r.passed).count()
    }
}

/// A 400 `VALIDATION_ERROR` about the file, naming the accepted formats.
pub fn invalid(message: impl std::fmt::Display) -> Error {
    let mut e = Error::invalid("", "artifact", format!("{message}; accepted: {ACCEPTED}"));
    if let Some(d) = e.details.as_mut() {
        d["accepted"] = serde_json::json!(["junit", "jest", "vitest"]);
    }
    e
}

/// The file's kind from its first bytes, if it looks like one this module reads.
pub fn sniff(bytes: &[u8]) -> Option<ArtifactKind> {
    let text = std::str::from_utf8(strip_bom(bytes)).ok()?;
    let t = text.trim_start();
    if widget::looks_like_html(t.as_bytes()) {
        return Some(ArtifactKind::Widget);
    }
    if t.starts_with('<') {
        return Some(ArtifactKind::Junit);
    }
    if t.starts_with('{') {
        let v: serde_json::Value = serde_json::from_str(t).ok()?;
        return jest::sniff(&v);
    }
    None
}

/// Reads an artifact of `kind`, or of the sniffed kind when `None`.
pub fn parse(kind: Option<ArtifactKind>, bytes: &[u8]) -> Result<ParsedArtifact, Error> {
    let bytes = strip_bom(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(invalid("the file is empty"));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| invalid(format!("the file is not UTF-8 text ({e})")))?;
    let kind = match kind {
        Some(k) => k,
        None => sniff(bytes)
            .ok_or_else(|| invalid("the file is not a test report this service reads"))?,
    };
    let parsed = match kind {
        ArtifactKind::Junit => junit::parse(text)?,
        ArtifactKind::Jest | ArtifactKind::Vitest => jest::parse(text, kind)?,
        ArtifactKind::Widget => {
            return Err(invalid("a widget snapshot holds no test results"));
        }
    };
    if parsed.results.len() + parsed.not_run > MAX_CASES {
        return Err(invalid(format!(
            "the file holds {} test cases; at most {MAX_CASES} are accepted",
            parsed.results.len() + parsed.not_run
        )));
    }
    Ok(parsed)
}

pub(crate) fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

/// `s` cut to at most `max` characters (an ellipsis marks the cut).
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

pub(crate) fn title(s: &str) -> String {
    let t = clip(s.trim(), MAX_CASE_TITLE);
    if t.is_empty() {
        "(unnamed test)".into()
    } else {
        t
    }
}

pub(crate) fn error_text(s: &str) -> String {
    clip(s.trim(), MAX_ERROR)
}

/// A stable id for the `n`th (1-based) occurrence of a case identity in one file.
pub(crate) fn external_id(kind: ArtifactKind, parts: &[&str], n: usize) -> String {
    let key = format!("{}\u{0}{n}", parts.join("\u{0}"));
    let id = format!("{}:{}", kind.as_str(), &super::case::sha256_hex(&key)[..32]);
    debug_assert!(id.len() <= MAX_EXTERNAL_ID);
    id
}

/// Counts occurrences of each case identity, for [`external_id`].
#[derive(Default)]
pub(crate) struct Occurrences(std::collections::HashMap<String, usize>);

impl Occurrences {
    pub fn next(&mut self, parts: &[&str]) -> usize {
        let n = self.0.entry(parts.join("\u{0}")).or_insert(0);
        *n += 1;
        *n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_each_format() {
        assert_eq!(
            sniff(b"\xEF\xBB\xBF  <?xml version=\"1.0\"?><testsuites/>"),
            Some(ArtifactKind::Junit)
        );
        assert_eq!(
            sniff(br#"{"testResults": [], "wasInterrupted": false}"#),
            Some(ArtifactKind::Jest)
        );
        assert_eq!(
            sniff(br#"{"testResults": [], "numTotalTests": 0}"#),
            Some(ArtifactKind::Vitest)
        );
        assert_eq!(
            sniff(b"\n<!DOCTYPE html><html></html>"),
            Some(ArtifactKind::Widget)
        );
        assert_eq!(sniff(br#"{"hello": 1}"#), None);
        assert_eq!(sniff(b"name,passed\na,true"), None);
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        for bad in [&b""[..], b"   ", b"\xff\xfe", b"just text", b"{\"a\": 1}"] {
            let e = parse(None, bad).unwrap_err();
            assert_eq!(e.code, crate::spec::Code::ValidationError);
            assert!(e.message.contains("JUnit XML"), "{}", e.message);
            assert_eq!(e.violations()[0].rule, "artifact");
        }
    }

    #[test]
    fn ids_are_stable_and_bounded() {
        let a = external_id(ArtifactKind::Junit, &["s", "c", "n"], 1);
        assert_eq!(a, external_id(ArtifactKind::Junit, &["s", "c", "n"], 1));
        assert_ne!(a, external_id(ArtifactKind::Junit, &["s", "c", "n"], 2));
        assert!(a.starts_with("junit:") && a.len() <= MAX_EXTERNAL_ID);
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(title("  "), "(unnamed test)");
    }
}
