//! Labelled fields of the structured readers (a JSON or YAML key, a promptfoo variable)
//! read into a [`Draft`].
//!
//! Every reader turns its shape into `(label, value)` pairs; [`Fields::into_draft`] maps
//! labels through one synonym table (extended by the multilingual
//! [`lexicon`](super::lexicon)), so "Prompt", "query", "user_input", "pergunta" and "問題"
//! mean the same in every shape. A value read one-to-one from a labelled field keeps the
//! draft `exact`; anything read out of free wording (grounded in the catalog by
//! [`reading`]) is recorded in `notes`, which makes the claim `approximated`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::catalog::Catalog;
use super::draft::{Draft, ExpectedCall, Needle, unquote, value_is_blank, value_text};
use super::lexicon::{self, LabelRole};
use super::reading;

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
    /// Remarks: read for negatives and forbidden tools only.
    Notes,
    /// A status: a dropped one means no case.
    Status,
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
    // Go's table tests name expectations `wantTool`, `wantArgs`.
    let l = match l.strip_prefix("want") {
        Some("") => "expected".to_string(),
        Some(rest) if rest.starts_with(' ') => format!("expected{rest}"),
        _ => l,
    };
    let l = l.as_str();
    if let Some(n) = turn_number(l) {
        return if n <= 1 { Role::Prompt } else { Role::Turn(n) };
    }
    // `expect_no_tool`, `assert no tool calls`, `without tools`: a yes or no to no tool.
    let words: Vec<&str> = l.split(' ').collect();
    if words.len() <= 5
        && words.windows(2).any(|w| {
            matches!(w[0], "no" | "without")
                && matches!(
                    w[1],
                    "tool" | "tools" | "call" | "calls" | "tool call" | "function"
                )
        })
    {
        return Role::Negative;
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
        "steps" | "step" | "test steps" | "test step" | "steps separated" | "procedure"
        | "actions" => Role::Steps,
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
        "negative"
        | "is negative"
        | "negative test"
        | "is negative test"
        | "expect no tools"
        | "no tools"
        | "negative case"
        | "no calls"
        | "no tool calls"
        | "no tool call"
        | "no tool"
        | "expect no calls"
        | "expect no tool calls"
        | "no tool expected" => Role::Negative,
        "should call tools" | "should call tool" | "calls tools" | "uses tools"
        | "expects tool call" | "tool expected" | "should use tools" | "expect tools" => {
            Role::ShouldCallTools
        }
        "forbidden tools" | "must not call" | "should not call" | "never call"
        | "disallowed tools" | "not called" | "forbidden tool" | "forbid" | "forbids"
        | "must not use" | "never use" | "do not call" | "dont call" | "avoid" | "not allowed"
        | "never" | "never called" => Role::Forbidden,
        "type" | "category" | "kind" | "test type" | "case type" | "tags" | "tag" | "labels"
        | "polarity" => Role::Type,
        _ => match lexicon::label_role(label) {
            Some(LabelRole::Prompt) => Role::Prompt,
            Some(LabelRole::Steps) => Role::Steps,
            Some(LabelRole::Tool) => Role::Tool,
            Some(LabelRole::Args) => Role::Args,
            Some(LabelRole::Expected) => Role::Expected,
            Some(LabelRole::Contains) => Role::Contains,
            Some(LabelRole::Forbidden) => Role::Forbidden,
            Some(LabelRole::Negative) => Role::Negative,
            Some(LabelRole::Type) => Role::Type,
            Some(LabelRole::Id) => Role::Id,
            Some(LabelRole::Title) => Role::Title,
            Some(LabelRole::Notes) => Role::Notes,
            Some(LabelRole::Status) => Role::Status,
            Some(LabelRole::Metadata) | None => Role::Other,
        },
    }
}

/// Whether a record's keys name what makes a case: a prompt, turns, steps or a tool.
pub fn names_a_case<'a>(keys: impl IntoIterator<Item = &'a str>) -> bool {
    keys.into_iter().any(|k| {
        matches!(
            role_of(k),
            Role::Prompt | Role::Prompts | Role::Turn(_) | Role::Tool | Role::Steps
        )
    })
}

/// A user id, handle or address (`U01PRIYA`, `@tom`, `tom@example.com`): one token of
/// capitals and digits, or an address.
fn is_speaker_id(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty()
        && s.len() <= 64
        && !s.contains(char::is_whitespace)
        && (s.starts_with('@')
            || s.contains('@') && s.contains('.')
            || s.chars().any(|c| c.is_ascii_digit())
                && s.chars().any(|c| c.is_ascii_uppercase())
                && s.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_-".contains(c)))
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
/// A key that turns the case off: `skip: "won't do: …"`, `disabled: true`,
/// `enabled: false`.
fn is_off_switch(label: &str, value: &str) -> bool {
    let v = value.trim();
    let set = !v.is_empty() && v != "null" && truthy(v) != Some(false);
    match normalize_label(label).as_str() {
        l if lexicon::listed(lexicon::ON_SWITCHES, l) => truthy(v) == Some(false),
        // (`wip: true` is a status of its own; as a key it switches nothing off.)
        l => l != "wip" && lexicon::listed(lexicon::OFF_SWITCHES, l) && set,
    }
}

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

static IDENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_][A-Za-z0-9_.:/-]*$").unwrap());
static CALL_FORM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^`?([A-Za-z0-9_][A-Za-z0-9_.:/-]*)`?\s*(?:\((.*)\)|with\s+(.*)|:\s*(\{.*\}))?$")
        .unwrap()
});

/// Words meaning "no tool" in a tool column, in every language of the lexicon.
pub fn is_none_word(s: &str) -> bool {
    lexicon::is_none_word(s)
}

/// A none-word that speaks of tools or calls (`no tool`, `No tool calls.`): in an
/// expectation field it makes the case negative, where a bare `none` could mean "no
/// particular reply".
pub fn is_no_tool_word(s: &str) -> bool {
    let l = s.to_lowercase();
    (l.contains("tool") || l.contains("call")) && is_none_word(s)
}

/// Parses a truthy / falsy cell.
pub fn truthy(s: &str) -> Option<bool> {
    match lexicon::fold(s).trim() {
        "negative" => Some(true),
        "positive" | "" | "-" | "—" => Some(false),
        _ => lexicon::truthy(s),
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
        && let Some(Value::Object(m)) = super::yaml_values::parse_flow(t)
    {
        return Some(m);
    }
    let mut m = Map::new();
    // `a=0,5; b=0,25`: with semicolons between the pairs, a comma is a decimal comma.
    let parts: Vec<&str> = if t.contains(';') {
        t.split(';').collect()
    } else {
        t.split(',').collect()
    };
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (k, v) = part.split_once('=').or_else(|| part.split_once(':'))?;
        let k = k.trim().trim_matches(['`', '"', '\'']);
        if !IDENT.is_match(k) {
            return None;
        }
        let v = v.trim();
        let decimal_comma = t.contains(';')
            && v.split_once(',').is_some_and(|(a, b)| {
                !a.is_empty()
                    && a.trim_start_matches('-')
                        .bytes()
                        .all(|c| c.is_ascii_digit())
                    && !b.is_empty()
                    && b.bytes().all(|c| c.is_ascii_digit())
            });
        m.insert(
            k.to_string(),
            if decimal_comma {
                scalar(&v.replace(',', "."))
            } else {
                scalar(v)
            },
        );
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

/// Collected `(label, value)` pairs of one candidate case, in document order.
#[derive(Debug, Default, Clone)]
pub struct Fields {
    /// `(label, value, role)`; the role is computed once, at push.
    items: Vec<(String, Value, Role)>,
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
        let value = value.into();
        let mut role = role_of(&label);
        // A chat export's `"user": "U01PRIYA"` names who spoke, not what was said.
        // Nor does `"user_profile": {"real_name": …}` hold a prompt.
        let said = match &value {
            Value::String(s) => !is_speaker_id(s),
            Value::Object(m) => m.keys().any(|k| {
                matches!(k.as_str(), "content" | "text" | "role")
                    || matches!(role_of(k), Role::Prompt | Role::Prompts | Role::Turn(_))
            }),
            _ => true,
        };
        if role == Role::Prompt && !said {
            role = Role::Other;
        }
        // `expect_tools = ["createEvent"]`: the tools, not a yes or no.
        let yes_or_no = match &value {
            Value::Bool(_) | Value::Null => true,
            Value::String(s) => lexicon::truthy(s).is_some(),
            _ => false,
        };
        if role == Role::ShouldCallTools && !yes_or_no {
            role = Role::Tool;
        }
        self.items.push((label, value, role));
    }

    /// A field whose role the shape of its value settled, not its label.
    pub fn push_as(&mut self, label: impl Into<String>, value: impl Into<Value>, role: Role) {
        self.items.push((label.into(), value.into(), role));
    }

    /// The longest free text of the fields no role claims (a chat message's `text`):
    /// where a message that proposes a case in words keeps it.
    pub fn free_text(&self) -> Option<&str> {
        self.items
            .iter()
            .filter(|(l, _, r)| *r == Role::Other && !is_metadata_label(l))
            .filter_map(|(_, v, _)| v.as_str())
            .filter(|t| t.split_whitespace().count() >= 4)
            .max_by_key(|t| t.len())
    }

    /// A record that keeps its prompt in the prose of its description (a test tool's
    /// `summary`: `L'utente chiede: "…"`, `Prompt: …`): that prose and the record's
    /// expectations, as the text of one unit.
    pub fn described_case(&self) -> Option<String> {
        let said = self.items.iter().find_map(|(_, v, r)| match (r, v) {
            (Role::Title, Value::String(t))
                if t.lines()
                    .any(|l| super::unit::leading_role(l) == Some(LabelRole::Prompt))
                    || reading::quotes(t)
                        .iter()
                        .any(|&(a, b)| reading::utterance_like(&t[a..b])) =>
            {
                Some(t.as_str())
            }
            _ => None,
        })?;
        let mut text = said.to_string();
        for (label, v, r) in &self.items {
            if matches!(
                r,
                Role::Expected | Role::Tool | Role::Args | Role::Forbidden | Role::Negative
            ) {
                text.push_str(&format!("\n{label}: {}", value_text(v)));
            }
        }
        Some(text)
    }

    pub fn has_role(&self, want: &[Role]) -> bool {
        self.items.iter().any(|(_, _, r)| want.contains(r))
    }

    /// Whether these fields describe a case (a prompt, or a tool call to make).
    pub fn is_case(&self) -> bool {
        self.items.iter().any(|(_, v, r)| match *r {
            Role::Prompt | Role::Prompts | Role::Turn(_) => !value_is_blank(v),
            Role::Steps => !step_prompts(v).is_empty(),
            _ => false,
        })
    }

    /// Maps the fields into a draft spanning `start..=end`.
    pub fn into_draft(self, start: usize, end: usize, cat: &Catalog) -> Draft {
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
        let mut args_text: Option<String> = None;
        let mut dropped = false;
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
                    // (A prompt struck through, `~~…~~` or a cell in `<s>`, was taken back.)
                    let t = text.trim();
                    if t.len() > 4 && t.starts_with("~~") && t.ends_with("~~") {
                        dropped = true;
                    }
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
                    let ps = step_prompts(value);
                    if !ps.is_empty() {
                        d.notes
                            .push(format!("prompts read from the `{label}` list by wording"));
                    }
                    d.prompts.extend(ps);
                    let r = reading::read(&text, cat);
                    if !r.is_empty() {
                        d.notes.push(format!("expectations read from the wording of `{label}`"));
                        apply_reading(&mut d, r);
                    }
                }
                Role::Tool => {
                    match value {
                        Value::Null => {
                            d.negative = true;
                            rules.push(format!("`{label}` = null → isNegative"));
                        }
                        Value::String(s) if s.trim().is_empty() => {}
                        Value::String(s) if is_none_word(s) => {
                            d.negative = true;
                            rules.push(format!("`{label}` = `{}` → isNegative", s.trim()));
                        }
                        Value::Bool(false) => d.negative = true,
                        // (Not when another tool field says which: `tools: []` beside a
                        // `toolDescription` of it.)
                        Value::Array(a) if a.is_empty() => {
                            let described = self.items.iter().any(|(l, v, r)| {
                                *r == Role::Tool && l != label && !value_is_blank(v)
                            });
                            if !described {
                                d.negative = true;
                                rules.push(format!("empty `{label}` list → isNegative"));
                            }
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
                                let r = reading::read(&text, cat);
                                d.notes.push(format!("tools read from the wording of `{label}`"));
                                apply_reading(&mut d, r);
                            }
                        },
                    }
                }
                Role::Args => match value {
                    Value::Object(m) => {
                        args = Some(m.clone());
                        args_label = label.clone();
                    }
                    Value::String(s) => match serde_json::from_str::<Value>(s.trim()) {
                        Ok(Value::Object(m)) => {
                            args = Some(m);
                            args_label = label.clone();
                        }
                        _ => {
                            // (`state=open; never merge_pull_request`: what the arguments'
                            // cell forbids besides.)
                            d.forbid(reading::read(s, cat).never);
                            args_text = Some(s.clone());
                            args_label = label.clone();
                        }
                    },
                    _ => d.notes.push(format!(
                        "the `{label}` value could not be read as arguments; the call is expected without checking them"
                    )),
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
                    let r = reading::read(&expected, cat);
                    if !r.is_empty() {
                        d.notes.push(format!("expectations read from the wording of `{label}`"));
                        apply_reading(&mut d, r);
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
                // (A note that says the case was set aside, `UTSATT venter på …`.)
                Role::Notes if super::unit::says_dropped(&text) => dropped = true,
                Role::Notes => {
                    let r = reading::read(&text, cat);
                    if r.negative.is_some() || !r.never.is_empty() {
                        d.notes.push(format!("expectations read from the wording of `{label}`"));
                        apply_reading(
                            &mut d,
                            reading::Reading {
                                calls: Vec::new(),
                                ..r
                            },
                        );
                    }
                }
                Role::Status => {
                    if lexicon::is_dropped_status(&text) {
                        dropped = true;
                    }
                }
                Role::Other if is_off_switch(label, &text) => dropped = true,
                Role::Other => {
                    if !is_metadata_label(label) {
                        d.notes.push(unread_note(label));
                    }
                }
            }
        }
        if let Some(t) = args_text {
            match d
                .expected_calls
                .first()
                .and_then(|c| reading::read_args_field(&t, &c.tool, cat).or_else(|| parse_args(&t)))
            {
                Some(m) => args = Some(m),
                None if d.expected_calls.is_empty() => {}
                None => d.notes.push(format!(
                    "the `{args_label}` value could not be read as arguments; the call is expected without checking them"
                )),
            }
        }
        turns.sort_by_key(|(n, _)| *n);
        d.prompts.extend(turns.into_iter().map(|(_, p)| p));
        if let Some(a) = args {
            match d.expected_calls.len() {
                // No tool read, but arguments only one live tool takes (a tool field that
                // describes it in words no lexicon has): that tool.
                0 if !d.negative
                    && let Some((t, own)) =
                        cat.tool_by_args(&Value::Object(a.clone()).to_string()) =>
                {
                    d.notes.push(format!(
                        "no tool named; `{}` is the one live tool that takes the arguments given",
                        cat.name(t)
                    ));
                    d.expected_calls.push(ExpectedCall {
                        tool: cat.name(t).to_string(),
                        args: Some(own),
                    });
                }
                0 => d.notes.push(format!(
                    "`{args_label}` given without a tool; the arguments were not used"
                )),
                1 => {
                    if d.expected_calls[0].args.is_none() {
                        d.expected_calls[0].args = Some(a);
                        rules.push(format!("`{args_label}` → toolCalledWith.args"));
                    }
                }
                // Arguments keyed by the tool they belong to (`{get-item: {…}, get-time:
                // {…}}`): each call its own.
                _ if a.values().all(Value::is_object)
                    && a.keys().all(|k| {
                        let live = cat.resolve(k).map(|(i, _)| cat.name(i));
                        d.expected_calls
                            .iter()
                            .any(|c| c.tool == *k || Some(c.tool.as_str()) == live)
                    }) =>
                {
                    for (k, v) in a {
                        let live = cat.resolve(&k).map(|(i, _)| cat.name(i).to_string());
                        if let Some(c) = d
                            .expected_calls
                            .iter_mut()
                            .find(|c| c.tool == k || Some(&c.tool) == live.as_ref())
                            && c.args.is_none()
                        {
                            c.args = v.as_object().cloned();
                        }
                    }
                    rules.push(format!("`{args_label}` → toolCalledWith.args, per tool"));
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
        if dropped {
            // A status that says the case was dropped: no case.
            d.prompts.clear();
            d.tool_call = None;
        }
        if d.notes.is_empty() && d.unsupported.is_empty() {
            rules.dedup();
            d.exact_rule = Some(format!("{}: {}", self.shape, rules.join("; ")));
        }
        d
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
/// A message written as `{speaker: text}`: its role (`user` for a human) and text.
fn speaker(o: &Map<String, Value>) -> Option<(&'static str, &Value)> {
    let (k, v) = o.iter().next().filter(|_| o.len() == 1)?;
    // `- usuario: "…"`, `- 用户: "…"`: the speakers of every language of the lexicon.
    let k = lexicon::fold(k);
    let role = match k.as_str() {
        "user" | "human" | "customer" | "me" => "user",
        "assistant" | "ai" | "bot" | "model" | "agent" => "assistant",
        "system" => "system",
        w if lexicon::USER_SPEAKERS.contains(&w) => "user",
        w if lexicon::ASSISTANT_SPEAKERS.contains(&w) => "assistant",
        _ => return None,
    };
    Some((role, v))
}

/// A conversation written on one line (`Utente: … Assistente: … Utente: …`, as a table
/// cell holds it), a turn a line.
pub fn turns_on_one_line(s: &str) -> Option<String> {
    if s.contains('\n') {
        return None;
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut turns = 0;
    for (i, w) in s.split_inclusive(' ').enumerate() {
        let word = w.trim_end();
        let speaker = word.strip_suffix([':', '：']).is_some_and(|name| {
            let f = lexicon::fold(name);
            lexicon::USER_SPEAKERS.contains(&f.as_str())
                || lexicon::ASSISTANT_SPEAKERS.contains(&f.as_str())
        });
        if speaker {
            turns += 1;
            if i > 0 {
                out.push('\n');
            }
        }
        out.push_str(w);
    }
    (turns >= 2).then_some(out)
}

pub fn prompts_of(v: &Value, notes: &mut Vec<String>) -> Vec<String> {
    match v {
        Value::String(s) => {
            // (A conversation on one line, `Utente: … Assistente: …`: its turns.)
            if let Some(turns) = turns_on_one_line(s) {
                return prompts_of(&Value::String(turns), notes);
            }
            // `user: …` lines, in any language of the lexicon; the assistant's say nothing.
            let user_lines: Vec<&str> = s
                .lines()
                .filter_map(crate::service::authoring::unit::user_said)
                .collect();
            if user_lines.len() > 1 {
                notes.push("several `User:` lines read as turns".into());
                return user_lines.iter().map(|l| unquote(l)).collect();
            }
            // One turn of several (`turn.2 = "assistant: …"`): the speaker's label is no
            // part of what is said, and the assistant's turn is no prompt.
            if s.lines().count() == 1 {
                if crate::service::authoring::unit::assistant_line(s).is_some() {
                    return vec![];
                }
                if let [one] = user_lines[..] {
                    let p = unquote(one);
                    return if p.is_empty() { vec![] } else { vec![p] };
                }
            }
            let p = unquote(s);
            if p.is_empty() { vec![] } else { vec![p] }
        }
        Value::Array(a) => {
            let mut out = Vec::new();
            let mut dropped = false;
            for item in a {
                match item {
                    Value::Object(o) if o.contains_key("role") || speaker(o).is_some() => {
                        let (role, content) = match speaker(o) {
                            // `{user: "…"}`, `{assistant: "…"}`: the speaker is the key.
                            Some((r, c)) => (r, message_text(c)),
                            // (`content`, or as some harnesses write it `text`.)
                            None => (
                                o.get("role").and_then(Value::as_str).unwrap_or_default(),
                                ["content", "text", "message"]
                                    .iter()
                                    .find_map(|k| o.get(*k))
                                    .map(message_text)
                                    .unwrap_or_default(),
                            ),
                        };
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

/// Prompts in a QA plan's "Steps" list, by what each step has the tester say.
fn step_prompts(v: &Value) -> Vec<String> {
    strings_of(v)
        .iter()
        .flat_map(|item| crate::service::authoring::unit::said_in_steps(item))
        .collect()
}

/// Applies what wording says to a draft.
pub fn apply_reading(d: &mut Draft, r: reading::Reading) {
    if let Some(n) = r.negative {
        d.negative = true;
        d.notes.push(format!("negative from the wording “{n}”"));
    }
    for c in r.calls {
        if !d.expected_calls.iter().any(|e| e.tool == c.tool) {
            d.expected_calls.push(c);
        }
    }
    d.forbid(r.never);
    for n in r.notes {
        if !d.notes.contains(&n) {
            d.notes.push(n);
        }
    }
}
