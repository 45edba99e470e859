//! Loose notes (meeting notes, a chat paste): a case is a bullet, numbered item or
//! `TODO`/`Test`/`Check` line holding a quoted prompt and an expectation marked by an
//! arrow (`→`, `->`, `=>`) or "should …"/"expect …". Under a heading that speaks of tests
//! (or in a document whose first line does), a list item may also give the prompt
//! unquoted, as an instruction whose next sentence is the expectation: `1. Echo hello
//! back. Expect the echo tool.` Every such case is `approximated`.
//!
//! Paragraph prose is never read, and lines saying an idea was dropped, struck through
//! (`~~…~~`), or that are action items for people are skipped.

use std::sync::LazyLock;

use regex::Regex;

use super::markdown::{CASE_HEADING, item_text};
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

/// Words that make an expectation about the assistant's behaviour: its tool calls, its
/// reply, or what it should or must (not) do.
static BEHAVIOUR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)`[^`]+`|\b(?:call(?:s|ed|ing)?|tools?|invok(?:e|es|ed|ing)|uses?|using|repl(?:y|ies|ied)|answers?|answered|answering|respon(?:se|ses|ds?|ding)|says?|said|saying|returns?|returning|outputs?|refus(?:e|es|ing)|asks?|confirm(?:s|ation)?|mentions?|contains?|includes?|echo(?:es|ed)?|should|must|never|expect(?:ed|s)?)\b").unwrap()
});
/// An expectation that hands work to a person (`Bo to profile it`, `Ana will check`).
static ASSIGNS_WORK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^@?([A-Z][\p{L}'-]*)(?:\s*(?:,|and|&|/)\s*@?[A-Z][\p{L}'-]*)*\s+(?:to|will|needs?\s+to|owns?|is\s+to|takes?|should)\s+\p{L}").unwrap()
});
/// First words of an expectation that name the system, not a person.
const NOT_PEOPLE: &[&str] = &[
    "It",
    "This",
    "That",
    "The",
    "Assistant",
    "Model",
    "Agent",
    "Bot",
    "Server",
    "Reply",
    "Answer",
    "Response",
    "Output",
    "Tool",
    "Should",
    "Must",
    "Expect",
    "Expected",
    "Never",
    "No",
    "Claude",
    "Then",
    "And",
];

/// Whether a line hands work to a person after one of its arrows (`… → Bo to profile it`)
/// or at the start of its expectation.
fn assigns_work(line: &str, expectation: &str) -> bool {
    let person = |t: &str| {
        ASSIGNS_WORK
            .captures(t.trim())
            .is_some_and(|c| !NOT_PEOPLE.contains(&&c[1]))
    };
    person(expectation)
        || line
            .split(['→', '⇒'])
            .flat_map(|p| p.split("->"))
            .flat_map(|p| p.split("=>"))
            .skip(1)
            .any(person)
}

/// Where an unquoted instruction ends and its expectation begins: a sentence break or an
/// arrow, then words that state what should happen.
static EXPECTATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:([.;!?])\s+|\s+[-—–]\s+|\s*[—–]\s*|\s*(?:→|->|=>|⇒)\s*)((?:expect(?:ed|s)?|should|must|never|no tool|(?:it|this|that) (?:should|must)|the (?:answer|reply|response|result|output|model|assistant|agent)\b).*)$").unwrap()
});

/// Extracts cases from notes.
pub fn extract(ix: &LineIndex) -> Vec<Draft> {
    let mut out = Vec::new();
    let mut under_tests = (1..=ix.len())
        .map(|no| ix.line(no).trim())
        .find(|l| !l.is_empty())
        .is_some_and(|l| CASE_HEADING.is_match(l));
    for no in 1..=ix.len() {
        let line = ix.line(no);
        if line.trim_start().starts_with('#') {
            under_tests = CASE_HEADING.is_match(line);
            continue;
        }
        if !CANDIDATE.is_match(line) || SKIP.is_match(line) {
            continue;
        }
        let (prompt, expectation, how) = if let Some((prompt, expectation)) = quoted(line) {
            (prompt, expectation, "a quoted prompt")
        } else if under_tests && let Some((prompt, expectation)) = instruction(line) {
            (prompt, expectation, "an instruction")
        } else {
            continue;
        };
        if assigns_work(line, expectation) || !BEHAVIOUR.is_match(expectation) {
            continue;
        }
        let mut d = Draft {
            start_line: no,
            end_line: no,
            prompts: vec![prompt],
            ..Draft::default()
        };
        d.notes.push(format!(
            "read from notes: {how} with its expectation on one line"
        ));
        let reading = read_wording(expectation);
        apply_reading(&mut d, reading, expectation);
        if !expectation.is_empty() {
            d.expected_output = Some(expectation.to_string());
        }
        out.push(d);
    }
    out
}

/// `(prompt, expectation)` of a line holding a quoted prompt followed by an expectation.
fn quoted(line: &str) -> Option<(String, &str)> {
    let q = QUOTED.captures(line)?;
    let m = (1..=3).find_map(|i| q.get(i))?;
    let after = &line[q.get(0)?.end()..];
    let marker = MARKER.find(after)?;
    let expectation = after[marker.start()..]
        .trim_start_matches(['→', '-', '>', '=', '⇒', ' '])
        .trim();
    Some((unquote(m.as_str()), expectation))
}

/// `(prompt, expectation)` of a list item written as an instruction of at least two words
/// followed by its expectation.
fn instruction(line: &str) -> Option<(String, &str)> {
    let text = item_text(line.trim_start())?;
    let found = EXPECTATION.captures(text)?;
    let mut prompt = text[..found.get(0)?.start()].trim().to_string();
    // A question or an exclamation keeps its mark; a period or semicolon only ends it.
    if let Some(p) = found.get(1).filter(|p| matches!(p.as_str(), "?" | "!")) {
        prompt.push_str(p.as_str());
    }
    let expectation = found.get(2)?.as_str().trim();
    (prompt.split_whitespace().count() >= 2).then_some((prompt, expectation))
}

#[cfg(test)]
mod tests {
    use crate::service::authoring::extract::extract;

    #[test]
    fn notes_yield_only_real_cases() {
        let t = "Weekly sync — 3 May\nAttendees: Ana, Bo\n\n- Bo: \"what's 2+3\" → should call `get-sum` and say 5\n- ~~\"tell a joke\" → no tool~~ (dropped)\n- Action item: Ana to update CI, \"urgent\" -> done\n- \"wipe all my items\" -> must not call any tool without confirmation\n- Customer feedback: \"the echo tool is too slow\" → Bo to profile it\n- Chen quoted the SLA: \"p95 under 200 ms\" -> agreed, Chen and Ana will monitor it\n- Chen quoted the SLA: \"p95 under 200 ms\" -> looks fine\nWe said \"hello\" and it should work.\n";
        let d = extract(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].prompts, ["what's 2+3"]);
        assert_eq!(d[0].expected_calls[0].tool, "get-sum");
        assert_eq!((d[0].start_line, d[0].end_line), (4, 4));
        assert!(d[1].negative);
        assert_eq!(d[1].start_line, 7);
    }

    /// An instruction keeps its `?` or `!`, and a dash may separate it from its
    /// expectation.
    #[test]
    fn instructions_keep_their_question_mark_and_accept_dashes() {
        let t = "## Tests\n\n1. Say hi — should not call any tool.\n2. What is 3 plus 4? Expect `get-sum` to be called.\n3. Wave at me - should not call any tool.\n4. Ping me – must not use any tools.\n5. Shout hello! Expect the reply to contain \"HELLO\".\n";
        let d = extract(t);
        assert_eq!(d.len(), 5, "{d:#?}");
        assert_eq!(d[0].prompts, ["Say hi"]);
        assert!(d[0].negative);
        assert_eq!(d[1].prompts, ["What is 3 plus 4?"]);
        assert_eq!(d[1].expected_calls[0].tool, "get-sum");
        assert_eq!(d[2].prompts, ["Wave at me"]);
        assert!(d[2].negative && d[3].negative);
        assert_eq!(d[4].prompts, ["Shout hello!"]);
    }

    /// Numbered instructions under a heading about tests are cases; the same items under
    /// a heading about set-up are not.
    #[test]
    fn unquoted_instructions_under_a_tests_heading() {
        let t = "# Echo server smoke tests\n\n1. Echo hello back. Expect the `echo` tool with message \"hello\".\n2. Add 2 and 3 with `get-sum`; the answer should contain 5.\n3. Ask what the weather is like. Should not call any tool.\n4. Ping.\n\n## Set-up\n\n1. Start the server. It should print ready.\n";
        let d = extract(t);
        assert_eq!(d.len(), 3, "{d:#?}");
        assert_eq!(d[0].prompts, ["Echo hello back"]);
        assert_eq!(d[0].expected_calls[0].tool, "echo");
        assert_eq!(d[1].prompts, ["Add 2 and 3 with `get-sum`"]);
        assert_eq!(
            d[1].expected_output.as_deref(),
            Some("the answer should contain 5.")
        );
        assert_eq!(d[2].prompts, ["Ask what the weather is like"]);
        assert!(d[2].negative);
        assert_eq!(
            d.iter().map(|d| d.start_line).collect::<Vec<_>>(),
            [3, 4, 5]
        );
        let prose = "# Release checklist\n\nWe tested it and it should work. Expect more later.\n";
        assert!(extract(prose).is_empty());
    }
}
