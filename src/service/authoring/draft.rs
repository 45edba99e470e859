//! What an author proposes before grounding: a [`Draft`], and the shared reading of labelled
//! fields (a Markdown bullet, a table or CSV column, a JSON or YAML key) into one.
//!
//! Every reader turns its document shape into `(label, value)` pairs; [`Fields::into_draft`]
//! maps labels through one synonym table, so "Prompt", "query", "user_input" and
//! "Question" mean the same in every shape. A value read one-to-one from a labelled field
//! keeps the draft `exact`; anything read out of free wording (a tool named in an expected
//! result, a negative phrased as "should not call any tool", a quoted needle) is recorded
//! in `notes`, which makes the claim `approximated`.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A tool call a case expects (or, for a render-check, makes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectedCall {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Map<String, Value>>,
}

/// A response needle: `(text, caseSensitive)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Needle {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_sensitive: Option<bool>,
}

/// One proposed case with the lines it came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Draft {
    pub title: String,
    /// The case's identity in the source (`TC-004`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// User turns, in order (several make a multi-turn case).
    #[serde(default)]
    pub prompts: Vec<String>,
    #[serde(default)]
    pub negative: bool,
    #[serde(default)]
    pub expected_calls: Vec<ExpectedCall>,
    /// A deterministic, model-free call (a render-check) when the source has no prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call: Option<ExpectedCall>,
    #[serde(default)]
    pub never_called: Vec<String>,
    #[serde(default)]
    pub contains: Vec<Needle>,
    #[serde(default)]
    pub patterns: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    /// Iterations of the case (this API's suite `runs`), when the source sets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<i64>,
    /// The case's scenario text, when the source has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Assertions copied verbatim from a source that already speaks this API's types.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assertions: Vec<Value>,
    pub start_line: usize,
    pub end_line: usize,
    /// The case's own bytes, when they share their lines with other text (one object of
    /// a minified JSON array): the excerpt is exactly this range.
    #[serde(skip)]
    pub excerpt_range: Option<(usize, usize)>,
    /// The one-to-one mapping rule, when every part was read structurally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_rule: Option<String>,
    /// What had to be interpreted (any entry makes the claim `approximated`).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Source behaviour that cannot be represented (makes the claim `unsupported`).
    #[serde(default)]
    pub unsupported: Vec<String>,
}

impl Draft {
    /// Whether the draft holds something runnable: a prompt or a deterministic call.
    pub fn is_case(&self) -> bool {
        !self.prompts.is_empty() || self.tool_call.is_some()
    }

    /// Fills an empty title from the first prompt or the call.
    pub fn ensure_title(&mut self) {
        let t = self.title.trim();
        if !t.is_empty() {
            self.title = t.to_string();
            return;
        }
        self.title = if let Some(p) = self.prompts.first() {
            let one_line = p.split_whitespace().collect::<Vec<_>>().join(" ");
            if one_line.chars().count() > 72 {
                format!("{}…", one_line.chars().take(71).collect::<String>())
            } else {
                one_line
            }
        } else if let Some(c) = &self.tool_call {
            format!("Call {}", c.tool)
        } else {
            format!("Case at line {}", self.start_line)
        };
    }
}

/// What a field label means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Id,
    Title,
    Prompt,
    /// An additional, numbered turn (`Turn 2`, `Follow-up`): ordered by the number.
    Turn(u8),
    Prompts,
    Steps,
    Tool,
    Args,
    Expected,
    Contains,
    Pattern,
    Negative,
    ShouldCallTools,
    Forbidden,
    Type,
    Other,
}

/// Normalises a label: camelCase split, `_-./` as spaces, lowercase, `(s)` and
/// promptfoo's `__` prefix dropped, markup stripped.
pub fn normalize_label(label: &str) -> String {
    // `Expected tool(s)` keeps its plural; other parentheticals (`Expected result (text)`)
    // are comments on the label, not part of it.
    let owned;
    let label = if label.contains('(') {
        let l = label.replace("(s)", "s");
        let mut bare = String::with_capacity(l.len());
        let mut depth = 0;
        for ch in l.chars() {
            match ch {
                '(' => depth += 1,
                ')' if depth > 0 => depth -= 1,
                c if depth == 0 => bare.push(c),
                _ => {}
            }
        }
        owned = bare;
        owned.as_str()
    } else {
        label
    };
    let mut out = String::with_capacity(label.len() + 4);
    let mut prev_lower = false;
    let mut pending_space = false;
    for ch in label.trim().trim_start_matches('_').chars() {
        if ch.is_uppercase() && prev_lower {
            pending_space = true;
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        match ch {
            '_' | '-' | '.' | '/' | '\u{a0}' | ' ' | '\t' => pending_space = true,
            '*' | '`' | '(' | ')' | '[' | ']' | '?' | ':' => {}
            c => {
                if pending_space && !out.is_empty() {
                    out.push(' ');
                }
                pending_space = false;
                if c.is_ascii() {
                    out.push(c.to_ascii_lowercase());
                } else {
                    out.extend(c.to_lowercase());
                }
            }
        }
    }
    out
}

/// Maps a label to its role.
pub fn role_of(label: &str) -> Role {
    let l = normalize_label(label);
    let l = l.as_str();
    if let Some(n) = turn_number(l) {
        return if n <= 1 { Role::Prompt } else { Role::Turn(n) };
    }
    match l {
        "id" | "key" | "test id" | "case id" | "tc" | "tc id" | "#" | "no" | "test case id"
        | "ref" | "test no" | "case no" | "example id" => Role::Id,
        "title" | "name" | "test" | "test case" | "test name" | "case" | "case name"
        | "scenario" | "summary" | "description" | "test case name" | "objective"
        | "test title" | "case title" => Role::Title,
        "prompt" | "query" | "input" | "question" | "user" | "user input" | "user prompt"
        | "user message" | "user query" | "utterance" | "request" | "ask" | "instruction"
        | "user request" | "user says" | "input prompt" | "message to send" | "say" | "inputs" => {
            Role::Prompt
        }
        "follow up" | "followup" | "follow up prompt" | "second prompt" | "then ask" => {
            Role::Turn(2)
        }
        "prompts" | "turns" | "conversation" | "user turns" | "messages" | "dialogue" => {
            Role::Prompts
        }
        "steps" | "test steps" | "procedure" | "actions" => Role::Steps,
        "tool"
        | "tools"
        | "expected tool"
        | "expected tools"
        | "expected tool call"
        | "expected tool calls"
        | "tool call"
        | "tool calls"
        | "calls"
        | "should call"
        | "tool name"
        | "function"
        | "expected function"
        | "expected tools called"
        | "expected calls"
        | "tool to call"
        | "must call"
        | "tool used" => Role::Tool,
        "args"
        | "arguments"
        | "parameters"
        | "params"
        | "tool args"
        | "tool arguments"
        | "expected args"
        | "expected arguments"
        | "input parameters"
        | "tool input"
        | "tool parameters"
        | "expected parameters"
        | "with" => Role::Args,
        "expected"
        | "expected output"
        | "expected result"
        | "expected results"
        | "expected response"
        | "expected answer"
        | "expected behavior"
        | "expected behaviour"
        | "output"
        | "answer"
        | "ideal"
        | "ideal response"
        | "ideal answer"
        | "reference"
        | "reference answer"
        | "target"
        | "expectation"
        | "expect"
        | "pass criteria"
        | "acceptance criteria"
        | "result"
        | "response"
        | "expected reply"
        | "then"
        | "outcome"
        | "expected outcome"
        | "expected outcomes"
        | "desired outcome"
        | "desired behaviour"
        | "desired behavior"
        | "expected behaviours"
        | "expected behaviors"
        | "outputs"
        | "expected outputs" => Role::Expected,
        "response contains" | "must contain" | "should contain" | "contains" | "must include"
        | "expected text" | "expected contains" | "response includes" => Role::Contains,
        "pattern" | "regex" | "response pattern" | "matches" | "response matches"
        | "expected pattern" | "response regex" => Role::Pattern,
        "negative" | "is negative" | "negative test" | "is negative test" | "expect no tools"
        | "no tools" | "negative case" => Role::Negative,
        "should call tools" | "should call tool" | "calls tools" | "uses tools"
        | "expects tool call" | "tool expected" | "should use tools" | "expect tools" => {
            Role::ShouldCallTools
        }
        "forbidden tools" | "must not call" | "should not call" | "never call"
        | "disallowed tools" | "not called" | "forbidden tool" => Role::Forbidden,
        "type" | "category" | "kind" | "test type" | "case type" | "tags" | "tag" | "labels"
        | "polarity" => Role::Type,
        _ => Role::Other,
    }
}

/// Labels that describe a case without changing what it checks (priority, owner,
/// preconditions, timestamps, dataset bookkeeping): ignoring them keeps a claim exact.
pub fn is_metadata_label(label: &str) -> bool {
    let l = normalize_label(label);
    let l = l.as_str();
    if l.starts_with("metadata")
        || l.starts_with("meta ")
        || l.ends_with(" id")
        || l.ends_with(" at")
        || l.ends_with(" date")
        || l.ends_with(" time")
        || l.ends_with(" by")
    {
        return true;
    }
    matches!(
        l,
        "meta"
            | "priority"
            | "owner"
            | "status"
            | "author"
            | "authors"
            | "component"
            | "components"
            | "severity"
            | "precondition"
            | "preconditions"
            | "pre condition"
            | "pre conditions"
            | "prerequisite"
            | "prerequisites"
            | "notes"
            | "note"
            | "comment"
            | "comments"
            | "remarks"
            | "remark"
            | "created"
            | "updated"
            | "modified"
            | "date"
            | "version"
            | "module"
            | "feature"
            | "area"
            | "suite"
            | "requirement"
            | "requirements"
            | "jira"
            | "ticket"
            | "issue"
            | "link"
            | "links"
            | "url"
            | "reviewer"
            | "assignee"
            | "assigned to"
            | "estimate"
            | "automated"
            | "automation"
            | "risk"
            | "release"
            | "sprint"
            | "platform"
            | "environment"
            | "env"
            | "source"
            | "source file"
            | "origin"
            | "uuid"
            | "guid"
            | "index"
            | "idx"
            | "rationale"
            | "reason"
            | "why"
            | "difficulty"
            | "level"
            | "weight"
            | "order"
            | "group"
            | "section"
            | "test suite"
            | "test type"
            | "additional metadata"
            | "comments and notes"
            | "last run"
            | "last result"
            | "actual result"
            | "actual output"
            | "actual"
            | "pass fail"
            | "verdict"
            | "state"
            | "pagination key"
            | "object type"
            | "span parents"
            | "is root"
            | "scores"
            | "score"
    )
}

/// The note on a case whose source has a field the extractor did not read: the claim can
/// then not be exact.
pub fn unread_note(label: &str) -> String {
    format!("the field `{label}` was not read into the case; check what it asks")
}

fn turn_number(l: &str) -> Option<u8> {
    for prefix in ["turn ", "prompt ", "user turn ", "message ", "step prompt "] {
        if let Some(rest) = l.strip_prefix(prefix)
            && let Ok(n) = rest.trim().parse::<u8>()
        {
            return Some(n);
        }
    }
    None
}

static BACKTICKED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`([A-Za-z0-9_][A-Za-z0-9_.:/-]*)`(\s*\(([^)]*)\))?").unwrap());
static CALL_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:calls?|calling|invokes?|invoking|uses?|using|triggers?)\s+(?:the\s+)?(?:tool\s+)?`?([A-Za-z][A-Za-z0-9_]*(?:[-.:/][A-Za-z0-9_]+)+|[a-z][a-z0-9]*_[a-z0-9_]+)`?")
        .unwrap()
});
static NEGATIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?ix)
        \b(?:should|must|does|do|will|shall|may|can)\s*(?:not|n't|never)\s+(?:call|use|invoke|trigger|touch)\s+(?:any|a|the\s+)?\s*tools?\b
      | \bno\s+tools?\s*(?:calls?\s*)?(?:is|are|should\s+be|must\s+be|get|gets)?\s*(?:called|used|invoked|needed|required)\b
      | \bwithout\s+(?:calling|using|invoking)\s+(?:any\s+)?tools?\b
      | \bno\s+tool\s+calls?\b
      | \bnever\s+(?:calls?|uses?)\s+(?:any\s+)?tools?\b
      | \bmust\s+not\s+use\s+(?:any\s+)?tools?\b
      | \bdoes\s+not\s+(?:call|use)\s+(?:any\s+)?tools?\b
      | \bshould\s+not\s+call\s+anything\b
      | \bnot\s+call\s+any\s+tools?\b
      | \banswer(?:s|ed|ing)?\s+directly\b
      | \bwithout\s+(?:any\s+)?tools?\b")
    .unwrap()
});
/// "no tool(s)" anywhere ("needs no tool", "Expected: no tool", "No tools; it answers
/// from memory"), with the word after it: "no tool errors" or "no tools other than …"
/// are not negatives (the `regex` crate has no look-ahead, so the word is checked in code).
static NO_TOOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bno\s+tools?(?:[\s-]+calls?)?\b(?:\s*[-:]?\s*([A-Za-z]+))?").unwrap()
});
/// Words that, right after "no tool(s)", make it something other than a negative.
const NOT_NEGATIVE_AFTER: &[&str] = &[
    "error",
    "errors",
    "failure",
    "failures",
    "failed",
    "fails",
    "result",
    "results",
    "output",
    "outputs",
    "schema",
    "schemas",
    "description",
    "descriptions",
    "annotation",
    "annotations",
    "crash",
    "crashes",
    "timeout",
    "timeouts",
    "problem",
    "problems",
    "issue",
    "issues",
    "other",
    "others",
    "besides",
    "except",
    "but",
    "apart",
    "beyond",
    "than",
    "latency",
    "exception",
    "exceptions",
    "warning",
    "warnings",
    "name",
    "names",
];

fn no_tool_phrase(text: &str) -> Option<String> {
    NO_TOOL.captures_iter(text).find_map(|c| {
        let after = c.get(1).map(|m| m.as_str().to_lowercase());
        match after {
            Some(w) if NOT_NEGATIVE_AFTER.contains(&w.as_str()) => None,
            _ => {
                let m = c.get(0).unwrap();
                let end = c.get(1).map_or(m.end(), |w| w.start());
                Some(
                    text[m.start()..end]
                        .trim_end_matches([' ', '-', ':'])
                        .to_string(),
                )
            }
        }
    })
}

static NEVER_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:should|must|does|do|will)\s*(?:not|n't|never)\s+(?:call|use|invoke|trigger)\s+(?:the\s+)?`([A-Za-z0-9_][A-Za-z0-9_.:/-]*)`")
        .unwrap()
});
static QUOTED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:contains?|containing|includes?|including|mentions?|mentioning|says?|saying|returns?|returning|shows?|reply|replies|responds?\s+with|answer(?:s)?\s+with|outputs?|echo(?:es)?(?:\s+back)?|with\s+the\s+text)\s*:?\s*(?:the\s+(?:text|word|string|number|value)\s+)?(?:"([^"\n]+)"|“([^”\n]+)”|'([^'\n]+)'|«([^»\n]+)»)"#)
        .unwrap()
});
static SLASH_REGEX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:match(?:es|ing)?|pattern|regex)\s*:?\s*(?:/([^/\n]+)/|`([^`\n]+)`)")
        .unwrap()
});
static IDENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_][A-Za-z0-9_.:/-]*$").unwrap());
static CALL_FORM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^`?([A-Za-z0-9_][A-Za-z0-9_.:/-]*)`?\s*(?:\((.*)\)|with\s+(.*)|:\s*(\{.*\}))?$")
        .unwrap()
});

/// Words meaning "no tool" in a tool column.
pub fn is_none_word(s: &str) -> bool {
    let t = s
        .trim()
        .trim_matches(|c: char| c == '`' || c == '*' || c == '_' || c == '(' || c == ')')
        .trim_end_matches(['.', '!'])
        .to_lowercase();
    // `none (small talk)`: a comment after the word does not change it.
    if let Some((head, _)) = t.split_once(" (")
        && !head.trim().is_empty()
    {
        return is_none_word(head);
    }
    matches!(
        t.as_str(),
        "none"
            | "—"
            | "–"
            | "-"
            | "n/a"
            | "na"
            | "no tool"
            | "no tools"
            | "no tool call"
            | "no tool calls"
            | "no tool call expected"
            | "no tool needed"
            | "no tools needed"
            | "no call"
            | "no calls"
            | "(none)"
            | "nothing"
            | "no"
            | "[]"
            | "∅"
            | "null"
    )
}

/// A none-word that speaks of tools or calls (`no tool`, `No tool calls.`): in an
/// expectation field it makes the case negative, where a bare `none` could mean "no
/// particular reply".
pub fn is_no_tool_word(s: &str) -> bool {
    let l = s.to_lowercase();
    (l.contains("tool") || l.contains("call")) && is_none_word(s)
}

/// Cells that mean "nothing here" in any column.
pub fn is_blank(s: &str) -> bool {
    let t = s.trim();
    t.is_empty() || matches!(t, "—" | "–" | "-" | "n/a" | "N/A" | "~" | "null")
}

/// Strips matching quotes (straight, curly, guillemets) or one pair of backticks.
pub fn unquote(s: &str) -> String {
    let t = s.trim();
    let pairs = [
        ('"', '"'),
        ('“', '”'),
        ('\'', '\''),
        ('‘', '’'),
        ('«', '»'),
        ('`', '`'),
    ];
    for (a, b) in pairs {
        if t.len() >= 2 && t.starts_with(a) && t.ends_with(b) {
            let inner = &t[a.len_utf8()..t.len() - b.len_utf8()];
            if !inner.contains(a) || a != b {
                return inner.trim().to_string();
            }
        }
    }
    t.to_string()
}

/// Parses a truthy / falsy cell.
pub fn truthy(s: &str) -> Option<bool> {
    match s.trim().to_lowercase().as_str() {
        "true" | "yes" | "y" | "1" | "x" | "✓" | "✔" | "✅" | "negative" | "on" => Some(true),
        "false" | "no" | "n" | "0" | "" | "✗" | "❌" | "positive" | "off" | "-" | "—" => {
            Some(false)
        }
        _ => None,
    }
}

/// Parses argument text: a JSON object, a YAML-style flow map `{a: 2}`, or `a=2, b=3`.
pub fn parse_args(s: &str) -> Option<Map<String, Value>> {
    let t = s.trim().trim_matches('`').trim();
    if t.is_empty() {
        return None;
    }
    if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(t) {
        return Some(m);
    }
    if t.starts_with('{')
        && let Some(Value::Object(m)) = super::extract::yaml::parse_flow(t)
    {
        return Some(m);
    }
    let mut m = Map::new();
    for part in t.split([',', ';']) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (k, v) = part.split_once('=').or_else(|| part.split_once(':'))?;
        let k = k.trim().trim_matches(['`', '"', '\'']);
        if !IDENT.is_match(k) {
            return None;
        }
        m.insert(k.to_string(), scalar(v.trim()));
    }
    (!m.is_empty()).then_some(m)
}

/// A bare value read as JSON when it parses (numbers, booleans, arrays), else a string.
pub fn scalar(v: &str) -> Value {
    let t = v.trim().trim_matches('`');
    match serde_json::from_str::<Value>(t) {
        Ok(v) => v,
        Err(_) => Value::String(unquote(t)),
    }
}

/// A tool cell: names (with optional arguments) or a "none" word. `None` when the text is
/// not a list of calls.
pub fn parse_tool_cell(s: &str) -> Option<Vec<ExpectedCall>> {
    let t = s.trim();
    if t.is_empty() {
        return Some(Vec::new());
    }
    if let Ok(v) = serde_json::from_str::<Value>(t)
        && let Some(calls) = calls_from_value(&v)
    {
        return Some(calls);
    }
    let mut out = Vec::new();
    for piece in split_calls(t) {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let c = CALL_FORM.captures(piece)?;
        let tool = c[1].to_string();
        let args = match c.get(2).or(c.get(3)).or(c.get(4)) {
            Some(a) if !a.as_str().trim().is_empty() => Some(parse_args(a.as_str())?),
            _ => None,
        };
        out.push(ExpectedCall { tool, args });
    }
    Some(out)
}

/// An argument written `key=value`.
static KEY_VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*`?[A-Za-z_][A-Za-z0-9_]*`?\s*=").unwrap());

/// Splits `a, b then c` at separators outside brackets.
fn split_calls(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut in_str = false;
    for ch in t.chars() {
        match ch {
            '"' => in_str = !in_str,
            '{' | '(' | '[' if !in_str => depth += 1,
            '}' | ')' | ']' if !in_str => depth -= 1,
            _ => {}
        }
        if depth == 0 && !in_str && matches!(ch, ',' | ';' | '\n' | '→' | '+') {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(ch);
        }
    }
    out.push(cur);
    // `get-sum with a=2, b=3`: an argument after a comma belongs to the call before it.
    let mut merged: Vec<String> = Vec::new();
    for p in out {
        let continues = merged
            .last()
            .is_some_and(|prev: &String| prev.contains(" with ") || prev.contains('='));
        if continues && KEY_VALUE.is_match(&p) {
            let prev = merged.last_mut().unwrap();
            prev.push_str(", ");
            prev.push_str(p.trim());
        } else {
            merged.push(p);
        }
    }
    merged
        .into_iter()
        .flat_map(|p| {
            p.split(" then ")
                .flat_map(|q| q.split(" and "))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Expected calls from JSON: a name, a list of names, or objects with a name and arguments
/// (`name`/`tool`/`toolName`/`function`, and `args`/`arguments`/`parameters`/`input_parameters`).
pub fn calls_from_value(v: &Value) -> Option<Vec<ExpectedCall>> {
    match v {
        Value::String(s) => {
            if is_none_word(s) {
                Some(Vec::new())
            } else {
                parse_tool_cell(s)
            }
        }
        Value::Array(items) => {
            let mut out = Vec::new();
            for i in items {
                out.extend(calls_from_value(i)?);
            }
            Some(out)
        }
        Value::Object(o) => {
            let func = o.get("function").and_then(Value::as_object);
            let name = ["name", "tool", "toolName", "tool_name", "function"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_str))
                .or_else(|| func.and_then(|f| f.get("name")).and_then(Value::as_str))?;
            let raw_args = [
                "args",
                "arguments",
                "parameters",
                "params",
                "input_parameters",
                "input",
            ]
            .iter()
            .find_map(|k| o.get(*k))
            .or_else(|| func.and_then(|f| f.get("arguments")));
            let args = match raw_args {
                Some(Value::Object(m)) => Some(m.clone()),
                Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                    Ok(Value::Object(m)) => Some(m),
                    _ => None,
                },
                _ => None,
            };
            Some(vec![ExpectedCall {
                tool: name.to_string(),
                args,
            }])
        }
        Value::Null => Some(Vec::new()),
        _ => None,
    }
}

/// What free wording says about a case: read out of an expected result or a note.
#[derive(Debug, Default)]
pub struct Reading {
    pub negative: Option<String>,
    pub calls: Vec<ExpectedCall>,
    pub never: Vec<String>,
    pub contains: Vec<String>,
    pub patterns: Vec<String>,
}

/// Reads negative wording, named tools (with arguments), quoted needles and patterns.
pub fn read_wording(text: &str) -> Reading {
    let mut r = Reading::default();
    // Cheap substring checks first: most wording mentions none of these, and the
    // extractor reads hundreds of expectations per document.
    let lower = text.to_lowercase();
    let has = |w: &str| lower.contains(w);
    let toolish = has("call") || has("tool") || has("invok") || has("use") || has("trigger");
    if (has("tool") || has("anything") || has("directly"))
        && let Some(m) = NEGATIVE.find(text)
    {
        r.negative = Some(m.as_str().to_string());
    } else if has("tool") {
        r.negative = no_tool_phrase(text);
    }
    let mut never_spans = Vec::new();
    if has("not") || has("n't") || has("never") {
        for c in NEVER_NAMED.captures_iter(text) {
            r.never.push(c[1].to_string());
            never_spans.push(c.get(1).map(|m| m.range()).unwrap_or_default());
        }
    }
    let mut seen = std::collections::HashSet::new();
    let backticks = if toolish && text.contains('`') {
        BACKTICKED.captures_iter(text).collect::<Vec<_>>()
    } else {
        Vec::new()
    };
    for c in backticks {
        let m = c.get(1).unwrap();
        if never_spans.iter().any(|s| s.contains(&m.start())) || !toolish {
            continue;
        }
        let name = m.as_str();
        // A backticked number or plain word after "contains" is a needle, not a tool.
        let before = &text[..c.get(0).unwrap().start()];
        if QUOTE_CONTEXT.is_match(before) || name.chars().all(|ch| ch.is_ascii_digit()) {
            continue;
        }
        let mut args = c.get(3).and_then(|a| parse_args(a.as_str()));
        if args.is_none() {
            let after = &text[c.get(0).unwrap().end()..];
            args = args_after(after);
        }
        if seen.insert(name.to_string()) {
            r.calls.push(ExpectedCall {
                tool: name.to_string(),
                args,
            });
        }
    }
    let call_words = if toolish {
        CALL_WORD.captures_iter(text).collect::<Vec<_>>()
    } else {
        Vec::new()
    };
    for c in call_words {
        let m = c.get(1).unwrap();
        let name = m.as_str();
        if never_spans.iter().any(|s| s.contains(&m.start())) {
            continue;
        }
        if seen.insert(name.to_string()) {
            let args = args_after(&text[c.get(0).unwrap().end()..]);
            r.calls.push(ExpectedCall {
                tool: name.to_string(),
                args,
            });
        }
    }
    if has("tool") || has("call") || has("invok") {
        for c in BARE_TOOL.captures_iter(text) {
            let Some(m) = c.get(1).or(c.get(2)).or(c.get(3)) else {
                continue;
            };
            let name = m.as_str();
            let after = &text[m.end()..];
            // `call foo.bar`, `the get-sum tool`: a longer name CALL_WORD reads whole.
            let cut = after.starts_with(['-', ':', '/', '_'])
                || (after.starts_with('.')
                    && after[1..].starts_with(|ch: char| ch.is_ascii_alphanumeric()));
            // `the call succeeds`, `each tool call returns`: "call" as a noun names no tool.
            let noun_call = c.get(3).is_some() && {
                let before = text[..c.get(0).unwrap().start()].trim_end();
                let prev = before
                    .rsplit(|ch: char| !ch.is_alphanumeric())
                    .next()
                    .unwrap_or_default()
                    .to_lowercase();
                CALL_NOUN_BEFORE.contains(&prev.as_str())
            };
            if cut
                || noun_call
                || NOT_TOOL_WORDS.contains(&name.to_lowercase().as_str())
                || never_spans.iter().any(|s| s.contains(&m.start()))
                || r.never.iter().any(|n| n == name)
                || seen.iter().any(|s: &String| s.eq_ignore_ascii_case(name))
            {
                continue;
            }
            seen.insert(name.to_string());
            let args = if c.get(3).is_some() {
                args_after(after)
            } else {
                None
            };
            r.calls.push(ExpectedCall {
                tool: name.to_string(),
                args,
            });
        }
    }
    if r.negative.is_some() {
        r.calls.clear();
    }
    if text.contains(['"', '“', '\'', '«']) {
        for c in QUOTED_AFTER.captures_iter(text) {
            if let Some(m) = c.get(1).or(c.get(2)).or(c.get(3)).or(c.get(4)) {
                r.contains.push(m.as_str().to_string());
            }
        }
    }
    if has("match") || has("pattern") || has("regex") {
        for c in SLASH_REGEX.captures_iter(text) {
            if let Some(m) = c.get(1).or(c.get(2)) {
                r.patterns.push(m.as_str().to_string());
            }
        }
    }
    r
}

/// A tool named by a bare word: `the echo tool`, `echo tool`, `call echo`.
/// ASCII-only (`-u`): tool names are ASCII here, and ASCII word boundaries let the regex
/// run on its fast automaton instead of a backtracker, on every expectation read.
static BARE_TOOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i-u)\bthe\s+([A-Za-z][A-Za-z0-9_]*)\s+tool\b|\b([A-Za-z][A-Za-z0-9_]*)\s+tool\b|\b(?:call|calls|calling|invoke|invokes|invoking)\s+(?:the\s+)?([A-Za-z][A-Za-z0-9_]*)\b").unwrap()
});
/// Words before "call" that make it a noun (`the call`, `one tool call`).
const CALL_NOUN_BEFORE: &[&str] = &[
    "the", "a", "an", "each", "every", "one", "first", "second", "last", "tool", "no", "this",
    "that", "any", "same", "single", "function", "api", "its", "their", "my", "your",
];
/// Words in a tool's place that name no tool (`any tool`, `call it`).
const NOT_TOOL_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "any",
    "no",
    "one",
    "some",
    "each",
    "every",
    "all",
    "this",
    "that",
    "same",
    "right",
    "wrong",
    "correct",
    "other",
    "another",
    "single",
    "second",
    "first",
    "it",
    "them",
    "anything",
    "something",
    "nothing",
    "tool",
    "tools",
    "me",
    "for",
    "back",
    "out",
    "up",
    "to",
    "with",
    "both",
    "twice",
    "again",
    "once",
    "only",
    "more",
    "external",
    "functions",
    "function",
    "api",
    "apis",
    "which",
    "what",
    "its",
    "their",
    "expected",
    "mcp",
    "appropriate",
    "relevant",
    "matching",
    "named",
    "new",
    "old",
    "legacy",
    "is",
    "was",
    "be",
    "not",
    "never",
    "and",
    "or",
    "then",
    "made",
    "count",
    "counts",
    "result",
    "results",
    "of",
    "in",
    "on",
    "at",
];

static QUOTE_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:contains?|includes?|says?|returns?|text|string|reply|replies|matches|pattern|regex)\s*:?\s*$").unwrap()
});
static WITH_ARGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*(?:with\s+(?:arguments?\s+|args?\s+|parameters?\s+)?|\(|:\s*)(`?\{[^}\n]*\}`?|(?:`?[A-Za-z_][A-Za-z0-9_]*`?\s*[=:]\s*(?:"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[^,;)\s]+)(?:\s*,\s*|\s+and\s+)?)+)"#).unwrap()
});

fn args_after(after: &str) -> Option<Map<String, Value>> {
    let c = WITH_ARGS.captures(after)?;
    let raw = c[1].replace(" and ", ", ");
    parse_args(raw.trim_end_matches([',', ' ']))
}

/// Roles a label written inside another field's value may have (`"What is 4 + 4?"
/// Expected: …`): the expectation side of a case, never a title or a prompt, which prose
/// inside a prompt names far more often than a second field does.
fn splittable(role: Role) -> bool {
    matches!(
        role,
        Role::Expected
            | Role::Tool
            | Role::Args
            | Role::Contains
            | Role::Pattern
            | Role::Negative
            | Role::ShouldCallTools
            | Role::Forbidden
    )
}

/// First words of labels strong enough to split a value without punctuation before them.
const STRONG_LABEL_WORDS: &[&str] = &["Expected", "Expect", "Tool", "Tools", "Args", "Arguments"];

/// Whether some colon could end a label: a letter or `)` before it (bold markers aside)
/// and whitespace or the end after it. A cheap test before the real scan, which most
/// values (`{"a": 2}`, times, URLs) never need.
fn has_label_colon(value: &str) -> bool {
    value.match_indices([':', '：']).any(|(i, c)| {
        let before = value[..i].trim_end_matches(['*', '_']);
        let after = value[i + c.len()..].trim_start_matches(['*', '_']);
        before.ends_with(|ch: char| ch.is_ascii_alphabetic() || ch == ')')
            && (after.is_empty() || after.starts_with(char::is_whitespace))
    })
}

/// Byte ranges of `value` that are inside quotes or backticks.
fn quoted_mask(value: &str) -> Vec<bool> {
    let mut mask = vec![false; value.len()];
    let mut straight = false;
    let mut curly = 0i32;
    let mut code = false;
    for (i, c) in value.char_indices() {
        let inside_before = straight || curly > 0 || code;
        match c {
            '`' => code = !code,
            '"' if !code => straight = !straight,
            '“' | '«' if !code => curly += 1,
            '”' | '»' if !code => curly = (curly - 1).max(0),
            _ => {}
        }
        let inside = inside_before || straight || curly > 0 || code;
        for b in &mut mask[i..i + c.len_utf8()] {
            *b = inside;
        }
    }
    mask
}

/// A prompt written as a quotation followed by unlabelled words about it (`"Tell me a
/// joke" Should not call any tool.`): the quotation, and the words as its expectation.
pub fn split_quoted_prompt(value: &str) -> Option<(String, String)> {
    let close = match value.chars().next()? {
        '"' => '"',
        '“' => '”',
        _ => return None,
    };
    let open_len = value.chars().next()?.len_utf8();
    let end = value[open_len..].find(close)? + open_len + close.len_utf8();
    let rest = value[end..]
        .trim()
        .trim_start_matches(['—', '–', '-', '→', '>', ',', ';'])
        .trim();
    (!rest.is_empty()).then(|| (value[..end].to_string(), rest.to_string()))
}

/// Splits field labels written inline in a value: `"What is 4 + 4?" Expected: calls
/// `get-sum` Tool: get-sum` → the head `"What is 4 + 4?"` and `[("Expected", "calls
/// `get-sum`"), ("Tool", "get-sum")]`. A label counts when it is outside quotes, starts
/// with a capital (or is bold), has an expectation role, is followed by whitespace, and
/// follows punctuation that ends the previous part (a quote, `?`, `.`, `;`, `—`, `|`, …)
/// or is a strong label (`Expected …`, `Tool`, `Args`).
pub fn split_inline_fields(value: &str) -> (String, Vec<(String, String)>) {
    if !has_label_colon(value) {
        return (value.to_string(), Vec::new());
    }
    let mask = quoted_mask(value);
    // (label start, value start, label)
    let mut cuts: Vec<(usize, usize, String)> = Vec::new();
    for (ci, c) in value.char_indices() {
        if !(c == ':' || c == '：') || mask[ci] {
            continue;
        }
        let after = &value[ci + c.len_utf8()..];
        let after_trim = after.trim_start_matches(['*', '_']);
        if !(after_trim.is_empty() || after_trim.starts_with(char::is_whitespace)) {
            continue;
        }
        let before = &value[..ci];
        let bare = before.trim_end_matches(['*', '_']);
        let bold_close = bare.len() < before.len();
        let found = label_before(bare);
        let Some((start, label)) = found else {
            continue;
        };
        let prev = bare[..start].trim_end();
        let bold_open = prev.ends_with("**") || prev.ends_with("__");
        let prev = prev.trim_end_matches(['*', '_']).trim_end();
        if prev.is_empty() || mask.get(start).copied().unwrap_or(false) {
            // A label at the very start is the field's own, not an inline one.
            continue;
        }
        let capital = label.starts_with(|ch: char| ch.is_ascii_uppercase());
        let bold = bold_open && bold_close;
        let boundary = prev.ends_with([
            '"', '”', '\'', '’', '»', '?', '.', '!', ';', ',', ')', '|', '—', '–', '-', '`',
        ]);
        let strong = STRONG_LABEL_WORDS.contains(&label.split(' ').next().unwrap_or_default());
        if !(bold || (capital && (boundary || strong))) {
            continue;
        }
        let label_start = before[..start].trim_end_matches(['*', '_']).len();
        cuts.push((label_start, ci + c.len_utf8(), label.to_string()));
    }
    if cuts.is_empty() {
        return (value.to_string(), Vec::new());
    }
    let clean = |s: &str| {
        s.trim()
            .trim_start_matches(['*', '_'])
            .trim_end_matches(['*', '_', '—', '–', '|', ';', ','])
            .trim()
            .to_string()
    };
    let head = clean(&value[..cuts[0].0]);
    let mut fields = Vec::new();
    for (k, (_, vstart, label)) in cuts.iter().enumerate() {
        let vend = cuts.get(k + 1).map_or(value.len(), |c| c.0);
        fields.push((label.clone(), clean(&value[*vstart..vend])));
    }
    (head, fields)
}

/// The label ending `bare` (the text before a colon): the longest run of its last one to
/// four words that has an expectation role, with its start.
fn label_before(bare: &str) -> Option<(usize, &str)> {
    let mut words: Vec<usize> = Vec::new();
    let mut end = bare.len();
    for _ in 0..4 {
        let seg = &bare[..end];
        let start = seg
            .rfind(|ch: char| !(ch.is_ascii_alphabetic() || ch == '(' || ch == ')'))
            .map_or(0, |p| p + seg[p..].chars().next().map_or(1, char::len_utf8));
        if start == end {
            break;
        }
        words.push(start);
        if start == 0 || !bare[..start].ends_with(' ') {
            break;
        }
        end = start - 1;
    }
    words
        .iter()
        .rev()
        .map(|&start| (start, &bare[start..]))
        .find(|(_, label)| splittable(role_of(label)))
}

/// A field label left inside a prompt (`… Expected: 8`, a line `**Expected tool:** …`),
/// which means the reader did not find where the prompt ends.
fn embedded_label(prompt: &str) -> Option<String> {
    if let Some((label, _)) = split_inline_fields(prompt).1.into_iter().next() {
        return Some(label);
    }
    // Looser than splitting: any `expected…:` outside quotes, in any case.
    if !has_label_colon(prompt) {
        return None;
    }
    let mask = quoted_mask(prompt);
    for (ci, c) in prompt.char_indices() {
        if !(c == ':' || c == '：') || mask[ci] {
            continue;
        }
        let after = prompt[ci + c.len_utf8()..].trim_start_matches(['*', '_']);
        if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
            continue;
        }
        let bare = prompt[..ci].trim_end_matches(['*', '_']);
        if let Some((_, label)) = label_before(bare)
            && (label.starts_with(|ch: char| ch.is_ascii_uppercase())
                || label.to_ascii_lowercase().starts_with("expect"))
        {
            return Some(label.to_string());
        }
    }
    prompt.lines().skip(1).find_map(|l| {
        let t = l.trim().trim_start_matches(['-', '*', '_', ' ']);
        let (label, _) = t.split_once([':', '：'])?;
        let label = label.trim_end_matches(['*', '_']).trim();
        (label.split_whitespace().count() <= 4 && splittable(role_of(label)))
            .then(|| label.to_string())
    })
}

/// Collected `(label, value)` pairs of one candidate case, in document order.
#[derive(Debug, Default, Clone)]
pub struct Fields {
    /// `(label, value, role)`; the role is computed once, at push.
    pub items: Vec<(String, Value, Role)>,
    /// Where the fields came from, for the exact claim's note ("markdown table row").
    pub shape: String,
}

impl Fields {
    pub fn new(shape: impl Into<String>) -> Self {
        Fields {
            items: Vec::new(),
            shape: shape.into(),
        }
    }

    pub fn push(&mut self, label: impl Into<String>, value: impl Into<Value>) {
        let label = label.into();
        let role = role_of(&label);
        self.items.push((label, value.into(), role));
    }

    pub fn has_role(&self, want: &[Role]) -> bool {
        self.items.iter().any(|(_, _, r)| want.contains(r))
    }

    /// Whether these fields describe a case (a prompt, or a tool call to make).
    pub fn is_case(&self) -> bool {
        self.items.iter().any(|(_, v, r)| match *r {
            Role::Prompt | Role::Prompts | Role::Turn(_) => !value_is_blank(v),
            Role::Steps => {
                let mut d = Draft::default();
                steps_into(v, &mut d);
                !d.prompts.is_empty()
            }
            _ => false,
        })
    }

    /// Maps the fields into a draft spanning `start..=end`.
    pub fn into_draft(self, start: usize, end: usize) -> Draft {
        let mut d = Draft {
            start_line: start,
            end_line: end,
            ..Draft::default()
        };
        let mut rules: Vec<String> = Vec::new();
        let mut turns: Vec<(u8, String)> = Vec::new();
        let mut args: Option<Map<String, Value>> = None;
        let mut args_label = String::new();
        let mut title_rank = 0;
        // Rules of tool fields, named once the arguments are known: `(index, label)`.
        let mut tool_rules: Vec<(usize, String)> = Vec::new();
        for (label, value, role) in &self.items {
            let role = *role;
            if value_is_blank(value) && role != Role::Tool {
                continue;
            }
            let text = value_text(value);
            match role {
                Role::Id => {
                    if d.key.is_none() && !text.trim().is_empty() {
                        d.key = Some(text.trim().chars().take(512).collect());
                    }
                }
                Role::Title => {
                    let rank = match normalize_label(label).as_str() {
                        "title" | "name" | "test name" | "test case name" | "test title" => 3,
                        "description" | "summary" => 1,
                        _ => 2,
                    };
                    if rank > title_rank {
                        title_rank = rank;
                        d.title = text.lines().next().unwrap_or_default().trim().to_string();
                    }
                }
                Role::Prompt => {
                    let ps = prompts_of(value, &mut d.notes);
                    if !ps.is_empty() {
                        rules.push(format!("`{label}` → prompt step"));
                    }
                    d.prompts.extend(ps);
                }
                Role::Turn(n) => {
                    for p in prompts_of(value, &mut d.notes) {
                        turns.push((n, p));
                    }
                    rules.push(format!("`{label}` → prompt step {n}"));
                }
                Role::Prompts => {
                    let ps = prompts_of(value, &mut d.notes);
                    rules.push(format!("`{label}` → one prompt step per entry"));
                    d.prompts.extend(ps);
                }
                Role::Steps => {
                    let before = d.prompts.len();
                    steps_into(value, &mut d);
                    if d.prompts.len() > before {
                        d.notes
                            .push(format!("prompts read from the `{label}` list by wording"));
                    }
                }
                Role::Tool => {
                    match value {
                        Value::String(s) if is_none_word(s) => {
                            d.negative = true;
                            rules.push(format!("`{label}` = `{}` → isNegative", s.trim()));
                        }
                        Value::Bool(false) => d.negative = true,
                        Value::Array(a) if a.is_empty() => {
                            d.negative = true;
                            rules.push(format!("empty `{label}` list → isNegative"));
                        }
                        v => match calls_from_value(v) {
                            Some(calls) if calls.is_empty() && !value_is_blank(v) => {
                                d.negative = true;
                                rules.push(format!("empty `{label}` list → isNegative"));
                            }
                            Some(calls) if calls.is_empty() => {}
                            Some(calls) => {
                                tool_rules.push((rules.len(), label.clone()));
                                rules.push(String::new());
                                d.expected_calls.extend(calls);
                            }
                            None => {
                                let r = read_wording(&text);
                                d.notes.push(format!("tools read from the wording of `{label}`"));
                                apply_reading(&mut d, r, &text);
                            }
                        },
                    }
                }
                Role::Args => match value {
                    Value::Object(m) => {
                        args = Some(m.clone());
                        args_label = label.clone();
                    }
                    _ => match parse_args(&text) {
                        Some(m) => {
                            args = Some(m);
                            args_label = label.clone();
                        }
                        None => d.notes.push(format!(
                            "the `{label}` value could not be read as arguments; the call is expected without checking them"
                        )),
                    },
                },
                Role::Expected => {
                    if let Value::String(s) = value
                        && is_no_tool_word(s)
                    {
                        d.negative = true;
                        rules.push(format!("`{label}` = `{}` → isNegative", s.trim()));
                        continue;
                    }
                    let expected = match value {
                        Value::String(s) => s.trim().to_string(),
                        Value::Array(a) if a.iter().all(Value::is_string) => a
                            .first()
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        Value::Object(o) => o
                            .iter()
                            .find(|(k, _)| role_of(k) == Role::Expected)
                            .map(|(_, v)| value_text(v))
                            .unwrap_or_default(),
                        other => other.to_string(),
                    };
                    if let Some(calls) = value_calls(value) {
                        rules.push(format!("`{label}`.tool_calls → toolCalledWith"));
                        if calls.is_empty() {
                            d.negative = true;
                        }
                        d.expected_calls.extend(calls);
                    }
                    let r = read_wording(&expected);
                    let interpreted = r.negative.is_some()
                        || !r.calls.is_empty()
                        || !r.contains.is_empty()
                        || !r.patterns.is_empty()
                        || !r.never.is_empty();
                    if interpreted {
                        d.notes.push(format!("expectations read from the wording of `{label}`"));
                        apply_reading(&mut d, r, &expected);
                    }
                    if !expected.is_empty() && d.expected_output.is_none() {
                        d.expected_output = Some(expected);
                        rules.push(format!("`{label}` → expectedOutput"));
                    }
                }
                Role::Contains => {
                    for n in strings_of(value) {
                        d.contains.push(Needle {
                            text: unquote(&n),
                            case_sensitive: None,
                        });
                    }
                    rules.push(format!("`{label}` → responseContains"));
                }
                Role::Pattern => {
                    for p in strings_of(value) {
                        let p = p.trim().trim_matches('/').to_string();
                        d.patterns.push(p);
                    }
                    rules.push(format!("`{label}` → responseMatches"));
                }
                Role::Negative => {
                    let b = match value {
                        Value::Bool(b) => Some(*b),
                        _ => truthy(&text),
                    };
                    if b == Some(true) {
                        d.negative = true;
                        rules.push(format!("`{label}` → isNegative"));
                    }
                }
                Role::ShouldCallTools => {
                    let b = match value {
                        Value::Bool(b) => Some(*b),
                        _ => truthy(&text),
                    };
                    if b == Some(false) {
                        d.negative = true;
                        rules.push(format!("`{label}` = false → isNegative"));
                    }
                }
                Role::Forbidden => {
                    if let Some(calls) = calls_from_value(value) {
                        d.never_called.extend(calls.into_iter().map(|c| c.tool));
                        rules.push(format!("`{label}` → toolNeverCalled"));
                    }
                }
                Role::Type => {
                    let l = text.to_lowercase();
                    if l.contains("negative") {
                        d.negative = true;
                        rules.push(format!("`{label}` = negative → isNegative"));
                    }
                }
                Role::Other => {
                    if !is_metadata_label(label) {
                        d.notes.push(unread_note(label));
                    }
                }
            }
        }
        turns.sort_by_key(|(n, _)| *n);
        d.prompts.extend(turns.into_iter().map(|(_, p)| p));
        if let Some(a) = args {
            match d.expected_calls.len() {
                0 => d.notes.push(format!(
                    "`{args_label}` given without a tool; the arguments were not used"
                )),
                1 => {
                    if d.expected_calls[0].args.is_none() {
                        d.expected_calls[0].args = Some(a);
                        rules.push(format!("`{args_label}` → toolCalledWith.args"));
                    }
                }
                _ => {
                    if d.expected_calls[0].args.is_none() {
                        d.expected_calls[0].args = Some(a);
                    }
                    d.notes.push(format!(
                        "`{args_label}` attached to the first of several tools"
                    ));
                }
            }
        }
        if !tool_rules.is_empty() {
            let with = d.expected_calls.iter().filter(|c| c.args.is_some()).count();
            let rule = match with {
                0 => "toolCalledAtLeastOnce",
                n if n == d.expected_calls.len() => "toolCalledWith",
                _ => "toolCalledWith / toolCalledAtLeastOnce",
            };
            for (i, label) in tool_rules {
                rules[i] = format!("`{label}` → {rule}");
            }
        }
        if d.negative && !d.expected_calls.is_empty() {
            d.notes
                .push("the case is negative, so its expected tool calls were dropped".into());
            d.expected_calls.clear();
        }
        if d.prompts.is_empty() && d.expected_calls.len() == 1 && !d.negative {
            // A call with nothing to ask: a model-free render-check.
            d.tool_call = d.expected_calls.pop();
            rules.push("no prompt: the call becomes a toolCall step".into());
        }
        if let Some(label) = d.prompts.iter().find_map(|p| embedded_label(p)) {
            d.notes.push(format!(
                "a prompt still holds the field label `{label}:`; check where the prompt ends"
            ));
        }
        if d.notes.is_empty() && d.unsupported.is_empty() {
            rules.dedup();
            d.exact_rule = Some(format!("{}: {}", self.shape, rules.join("; ")));
        }
        d
    }
}

/// Whether a JSON value is an empty or "nothing" cell.
pub fn value_is_blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => is_blank(s),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// A value as text (strings verbatim, lists one per line, other JSON compact).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(value_text).collect::<Vec<_>>().join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn strings_of(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().map(value_text).collect(),
        other => vec![value_text(other)],
    }
}

/// `tool_calls` (or `toolCalls`, `expected_tools`) inside an expected object.
fn value_calls(v: &Value) -> Option<Vec<ExpectedCall>> {
    let o = v.as_object()?;
    [
        "tool_calls",
        "toolCalls",
        "tools",
        "expected_tools",
        "expectedTools",
    ]
    .iter()
    .find_map(|k| o.get(*k))
    .and_then(calls_from_value)
}

/// Prompts from a value: a string (lines starting `User:` make several turns), a list of
/// strings, or chat messages (`{role: user, content}`; other roles are dropped with a note).
pub fn prompts_of(v: &Value, notes: &mut Vec<String>) -> Vec<String> {
    match v {
        Value::String(s) => {
            let user_lines: Vec<&str> = s
                .lines()
                .filter_map(|l| {
                    let t = l.trim();
                    t.strip_prefix("User:")
                        .or_else(|| t.strip_prefix("user:"))
                        .or_else(|| t.strip_prefix("USER:"))
                })
                .collect();
            if user_lines.len() > 1 {
                notes.push("several `User:` lines read as turns".into());
                return user_lines.iter().map(|l| unquote(l)).collect();
            }
            let p = unquote(s);
            if p.is_empty() { vec![] } else { vec![p] }
        }
        Value::Array(a) => {
            let mut out = Vec::new();
            let mut dropped = false;
            for item in a {
                match item {
                    Value::Object(o) if o.contains_key("role") => {
                        let role = o.get("role").and_then(Value::as_str).unwrap_or_default();
                        let content = o.get("content").map(message_text).unwrap_or_default();
                        if role == "user" || role == "human" {
                            if !content.trim().is_empty() {
                                out.push(content.trim().to_string());
                            }
                        } else {
                            dropped = true;
                        }
                    }
                    other => {
                        let t = unquote(&value_text(other));
                        if !t.is_empty() {
                            out.push(t);
                        }
                    }
                }
            }
            if dropped {
                notes.push("system and assistant messages of the source were dropped".into());
            }
            out
        }
        Value::Object(o) => {
            // `{question: …}` or `{input: …}`, as dataset exports wrap inputs.
            let inner = o
                .iter()
                .find(|(k, _)| matches!(role_of(k), Role::Prompt | Role::Prompts));
            match inner {
                Some((_, v)) => prompts_of(v, notes),
                None => vec![],
            }
        }
        Value::Null => vec![],
        other => vec![other.to_string()],
    }
}

fn message_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

static ASK_STEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)^(?:\d+[.)]\s*)?(?:ask|say|send|type|enter|prompt|user(?:\s+says)?|then\s+ask|follow[- ]up)\b[^"“'«:]*:?\s*(?:"([^"]+)"|“([^”]+)”|«([^»]+)»|'([^']+)'|(.+))$"#).unwrap()
});
static QUOTED_ONLY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^(?:"([^"]+)"|“([^”]+)”|«([^»]+)»)\s*$"#).unwrap());

/// Reads prompts out of a QA plan's "Steps" list: items that ask, say or send something.
fn steps_into(v: &Value, d: &mut Draft) {
    for item in strings_of(v) {
        for line in item.lines() {
            let t = line.trim();
            if let Some(c) = ASK_STEP.captures(t).or_else(|| QUOTED_ONLY.captures(t)) {
                let m = (1..=5).find_map(|i| c.get(i)).map(|m| m.as_str().trim());
                if let Some(p) = m.filter(|p| !p.is_empty()) {
                    d.prompts.push(unquote(p));
                }
            } else {
                let r = read_wording(t);
                if r.negative.is_some() || !r.calls.is_empty() || !r.contains.is_empty() {
                    apply_reading(d, r, t);
                }
            }
        }
    }
}

/// Applies what wording says to a draft.
pub fn apply_reading(d: &mut Draft, r: Reading, _text: &str) {
    if let Some(n) = r.negative {
        d.negative = true;
        d.notes.push(format!("negative from the wording “{n}”"));
    }
    for c in r.calls {
        if !d.expected_calls.iter().any(|e| e.tool == c.tool) {
            d.expected_calls.push(c);
        }
    }
    for n in r.never {
        if !d.never_called.contains(&n) {
            d.never_called.push(n);
        }
    }
    for n in r.contains {
        if !d.contains.iter().any(|x| x.text == n) {
            d.contains.push(Needle {
                text: n,
                case_sensitive: None,
            });
        }
    }
    d.patterns.extend(r.patterns);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_map_across_shapes() {
        for (l, r) in [
            ("Prompt", Role::Prompt),
            ("**Prompt**", Role::Prompt),
            ("user_input", Role::Prompt),
            ("userInput", Role::Prompt),
            ("Question", Role::Prompt),
            ("Turn 2", Role::Turn(2)),
            ("Follow-up", Role::Turn(2)),
            ("Expected tool(s)", Role::Tool),
            ("expected_tools", Role::Tool),
            ("Expected Result", Role::Expected),
            ("__expected", Role::Expected),
            ("expected_output", Role::Expected),
            ("isNegativeTest", Role::Negative),
            ("should_call_tools", Role::ShouldCallTools),
            ("__description", Role::Title),
            ("Priority", Role::Other),
        ] {
            assert_eq!(role_of(l), r, "{l}");
        }
    }

    #[test]
    fn wording_reads_negatives_tools_and_needles() {
        let r = read_wording("The assistant should not call any tool and explains why.");
        assert!(r.negative.is_some());
        let r =
            read_wording("Calls `get-sum` with {\"a\": 2, \"b\": 3}; the reply contains \"5\".");
        assert_eq!(r.calls.len(), 1);
        assert_eq!(r.calls[0].tool, "get-sum");
        assert_eq!(r.calls[0].args.as_ref().unwrap()["a"], json!(2));
        assert_eq!(r.contains, ["5"]);
        let r = read_wording("Must not call `delete-item`; uses `list-items` with pageSize=3");
        assert_eq!(r.never, ["delete-item"]);
        assert_eq!(r.calls[0].tool, "list-items");
        assert_eq!(r.calls[0].args.as_ref().unwrap()["pageSize"], json!(3));
        let r = read_wording("A friendly greeting.");
        assert!(r.negative.is_none() && r.calls.is_empty() && r.contains.is_empty());
    }

    #[test]
    fn every_no_tool_phrasing_is_negative() {
        for t in [
            "no tool",
            "No tool.",
            "needs no tool",
            "Small talk needs no tool; it just chats.",
            "Expected result: no tool",
            "no tools should be called",
            "No tools should be called for this one.",
            "no tool calls",
            "Uses no tools and answers from memory.",
            "The assistant should not call any tool.",
            "must not use any tools",
            "without calling any tool",
            "requires no tool — a plain answer",
            "no\u{a0}tool",
        ] {
            let r = read_wording(t);
            assert!(r.negative.is_some(), "{t:?} is a negative");
            assert!(r.calls.is_empty(), "{t:?}");
        }
        // Phrases about tools that are not negatives.
        for (t, calls) in [
            ("Calls `get-sum`; no tool errors.", 1),
            ("Uses `echo` and no tools other than it.", 1),
            (
                "Calls `list-items` with pageSize=3 and reports no tool failures",
                1,
            ),
            ("The reply names the tool it used.", 0),
        ] {
            let r = read_wording(t);
            assert!(r.negative.is_none(), "{t:?} is not a negative");
            assert_eq!(r.calls.len(), calls, "{t:?}");
        }
        for w in [
            "no tool",
            "No tools.",
            "none (small talk)",
            "—",
            "no tool needed",
            "`none`",
        ] {
            assert!(is_none_word(w), "{w:?}");
        }
        assert!(is_no_tool_word("No tool calls.") && !is_no_tool_word("none"));
    }

    #[test]
    fn expectation_fields_saying_no_tool_make_negative_cases() {
        for label in [
            "Expected result",
            "Expected",
            "expected_output",
            "Expected behaviour",
        ] {
            let mut f = Fields::new("markdown");
            f.push("Prompt", "Tell me about your weekend");
            f.push(label, "no tool");
            let d = f.into_draft(1, 2);
            assert!(d.negative, "{label}: {d:?}");
            assert_eq!(d.expected_output, None, "{label}");
            assert!(d.expected_calls.is_empty());
            let rule = d.exact_rule.as_deref().unwrap_or_default();
            assert!(rule.contains("= `no tool` → isNegative"), "{rule}");
        }
        // Wording that says so is read, and said to be read.
        for text in [
            "needs no tool",
            "no tools should be called",
            "No tool; it answers from memory.",
        ] {
            let mut f = Fields::new("markdown");
            f.push("Prompt", "How are you?");
            f.push("Expected result", text);
            let d = f.into_draft(1, 2);
            assert!(d.negative, "{text}");
            assert!(d.exact_rule.is_none(), "{text}");
        }
        // A bare "none" as an expected reply is not a statement about tools.
        let mut f = Fields::new("markdown");
        f.push("Prompt", "Say nothing");
        f.push("Expected result", "none");
        assert!(!f.into_draft(1, 2).negative);
    }

    #[test]
    fn unread_fields_and_outcome_labels_are_never_exact() {
        let mut f = Fields::new("markdown");
        f.push("Prompt", "Tell me a joke");
        f.push("Priority", "High");
        f.push("Expected outcome", "Must not use any tool.");
        let d = f.into_draft(1, 3);
        assert!(d.negative, "{d:?}");
        assert!(d.exact_rule.is_none());
        let mut f = Fields::new("markdown");
        f.push("Prompt", "Tell me a joke");
        f.push("Owner", "Ana");
        f.push("Setup", "Log in as admin first");
        let d = f.into_draft(1, 3);
        assert!(d.exact_rule.is_none(), "{d:?}");
        assert!(
            d.notes.iter().any(|n| n.contains("`Setup`")),
            "{:?}",
            d.notes
        );
        let mut f = Fields::new("markdown");
        f.push("Prompt", "Tell me a joke");
        f.push("Owner", "Ana");
        f.push("Preconditions", "Server running");
        assert!(f.into_draft(1, 3).exact_rule.is_some());
    }

    #[test]
    fn answering_directly_is_negative() {
        for t in [
            "Answer directly",
            "Answers directly without tools.",
            "It answers without using any tool",
            "Replies without tools",
        ] {
            let r = read_wording(t);
            assert!(r.negative.is_some(), "{t:?}");
        }
    }

    #[test]
    fn plain_tool_names_and_argument_lists() {
        let c = parse_tool_cell("get-sum with a=2, b=3").unwrap();
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].tool, "get-sum");
        assert_eq!(c[0].args.as_ref().unwrap()["a"], json!(2));
        assert_eq!(c[0].args.as_ref().unwrap()["b"], json!(3));
        let c = parse_tool_cell("echo, get-stats").unwrap();
        assert_eq!(c.len(), 2);
        for (t, tool) in [
            ("Expect the echo tool.", "echo"),
            ("Uses the calculator tool to add them.", "calculator"),
            ("It should call echo with message=hi", "echo"),
        ] {
            let r = read_wording(t);
            assert_eq!(r.calls.len(), 1, "{t:?}: {:?}", r.calls);
            assert_eq!(r.calls[0].tool, tool, "{t:?}");
        }
        let r = read_wording("It should call echo with message=hi");
        assert_eq!(r.calls[0].args.as_ref().unwrap()["message"], json!("hi"));
        for t in [
            "Should not call any tool.",
            "The reply names the tool it used.",
            "Call it twice.",
            "The call succeeds and returns 5.",
            "Each tool call returns within a second.",
        ] {
            assert!(read_wording(t).calls.is_empty(), "{t:?}");
        }
    }

    #[test]
    fn tool_rules_name_the_assertion_produced() {
        let mut f = Fields::new("markdown table row");
        f.push("Prompt", "Add 2 and 3");
        f.push("Expected tool", "get-sum");
        let d = f.into_draft(1, 1);
        let rule = d.exact_rule.unwrap();
        assert!(rule.contains("→ toolCalledAtLeastOnce"), "{rule}");
        let mut f = Fields::new("tsv row");
        f.push("Prompt", "Add 2 and 3");
        f.push("Expected tool", "");
        let rule = f.into_draft(1, 1).exact_rule.unwrap();
        assert!(!rule.contains("toolCalled"), "{rule}");
        let mut f = Fields::new("markdown table row");
        f.push("Prompt", "Add 2 and 3");
        f.push("Expected tool", "get-sum");
        f.push("Arguments", "{\"a\": 2}");
        let rule = f.into_draft(1, 1).exact_rule.unwrap();
        assert!(rule.contains("`Expected tool` → toolCalledWith"), "{rule}");
    }

    #[test]
    fn tool_cells() {
        let c = parse_tool_cell("get-sum(a=2, b=3)").unwrap();
        assert_eq!(c[0].tool, "get-sum");
        assert_eq!(c[0].args.as_ref().unwrap()["b"], json!(3));
        let c = parse_tool_cell("`echo`, `get-stats`").unwrap();
        assert_eq!(c.len(), 2);
        assert!(parse_tool_cell("the assistant uses the echo tool").is_none());
        assert!(is_none_word("—") && is_none_word("None") && is_none_word("no tool"));
    }

    #[test]
    fn fields_make_exact_and_approximated_drafts() {
        let mut f = Fields::new("csv row");
        f.push("prompt", "What is 2 + 3?");
        f.push("tool", "get-sum");
        f.push("args", "{\"a\": 2, \"b\": 3}");
        f.push("expected", "5");
        let d = f.into_draft(2, 2);
        assert_eq!(d.prompts, ["What is 2 + 3?"]);
        assert_eq!(d.expected_calls[0].args.as_ref().unwrap()["a"], json!(2));
        assert_eq!(d.expected_output.as_deref(), Some("5"));
        assert!(d.exact_rule.is_some(), "{d:?}");

        let mut f = Fields::new("markdown");
        f.push("Prompt", "\"Delete all my items\"");
        f.push(
            "Expected result",
            "The assistant must not call any tool without confirmation.",
        );
        let d = f.into_draft(1, 3);
        assert!(d.negative);
        assert_eq!(d.prompts, ["Delete all my items"]);
        assert!(d.exact_rule.is_none());
    }
}
