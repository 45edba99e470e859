//! Loose notes (meeting notes, a chat paste): a case is a bullet, numbered item or
//! `TODO`/`Test`/`Check` line holding a quoted prompt and an expectation marked by an
//! arrow (`→`, `->`, `=>`) or "should …"/"expect …". Every such case is `approximated`.
//!
//! Paragraph prose is never read, and lines saying an idea was dropped, struck through
//! (`~~…~~`), or that are action items for people are skipped.

use std::sync::LazyLock;

use regex::Regex;

use crate::service::authoring::draft::{Draft, apply_reading, read_wording, unquote};
use crate::service::authoring::lines::LineIndex;

static CANDIDATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:[-*+•]|\d{1,3}[.)]|\[[ x]\]|todo\b|test\b|check\b|case\b|idea\b|q:)")
        .unwrap()
});
static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""([^"\n]{2,})"|“([^”\n]{2,})”|«([^»\n]{2,})»"#).unwrap());
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(→|->|=>|⇒|\bshould\b|\bexpect(?:ed|s)?\b|\bmust\b|\breturns?\b|\bcalls?\b)")
        .unwrap()
});
static SKIP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)~~|\bdropped\b|\bscrapped\b|\bdiscarded\b|\bwon'?t do\b|\bnot doing\b|\bout of scope\b|\bparked\b|\baction items?\b|^\s*(?:[-*+•]\s*)?(?:ai|owner)\s*:|\bdecided against\b").unwrap()
});

/// Extracts cases from notes.
pub fn extract(ix: &LineIndex) -> Vec<Draft> {
    let mut out = Vec::new();
    for no in 1..=ix.len() {
        let line = ix.line(no);
        if !CANDIDATE.is_match(line) || SKIP.is_match(line) {
            continue;
        }
        let Some(q) = QUOTED.captures(line) else {
            continue;
        };
        let m = (1..=3).find_map(|i| q.get(i)).expect("one group matched");
        let after = &line[q.get(0).unwrap().end()..];
        let Some(marker) = MARKER.find(after) else {
            continue;
        };
        let expectation = after[marker.start()..]
            .trim_start_matches(['→', '-', '>', '=', '⇒', ' '])
            .trim();
        let mut d = Draft {
            start_line: no,
            end_line: no,
            prompts: vec![unquote(m.as_str())],
            ..Draft::default()
        };
        d.notes
            .push("read from notes: a quoted prompt with its expectation on one line".into());
        let reading = read_wording(expectation);
        apply_reading(&mut d, reading, expectation);
        if !expectation.is_empty() {
            d.expected_output = Some(expectation.to_string());
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::service::authoring::extract::extract;

    #[test]
    fn notes_yield_only_real_cases() {
        let t = "Weekly sync — 3 May\nAttendees: Ana, Bo\n\n- Bo: \"what's 2+3\" → should call `get-sum` and say 5\n- ~~\"tell a joke\" → no tool~~ (dropped)\n- Action item: Ana to update CI, \"urgent\" -> done\n- \"wipe all my items\" -> must not call any tool without confirmation\nWe said \"hello\" and it should work.\n";
        let d = extract(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].prompts, ["what's 2+3"]);
        assert_eq!(d[0].expected_calls[0].tool, "get-sum");
        assert_eq!((d[0].start_line, d[0].end_line), (4, 4));
        assert!(d[1].negative);
        assert_eq!(d[1].start_line, 7);
    }
}
