//! What an author proposes before grounding: a [`Draft`] (prompts, expected and forbidden
//! tools, needles, the lines it came from, and what was interpreted), the model every
//! reader fills and [`super::ground::build_case`] turns into a case.

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
        self.prompts.iter().any(|p| !is_placeholder(p)) || self.tool_call.is_some()
    }

    /// Adds tools never to call, each once.
    pub fn forbid(&mut self, names: impl IntoIterator<Item = String>) {
        for n in names {
            if !self.never_called.contains(&n) {
                self.never_called.push(n);
            }
        }
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

/// A prompt that only holds the place of one (`<what the user says>`, `{{question}}`,
/// `[your prompt]`, `...`): a template's, to be filled in, in any language.
pub fn is_placeholder(p: &str) -> bool {
    let t = unquote(p);
    let wrapped = |a: &str, b: &str| {
        t.len() > a.len() + b.len()
            && t.starts_with(a)
            && t.ends_with(b)
            && !t[a.len()..t.len() - b.len()].contains([a.chars().last().unwrap_or(' '), '\n'])
    };
    t.is_empty()
        || wrapped("<", ">")
        || wrapped("{{", "}}")
        || wrapped("${", "}")
        || wrapped("[", "]")
        || wrapped("(", ")")
        || wrapped("（", "）")
        || t.chars()
            .all(|c| matches!(c, '.' | '…' | '_' | '-' | ' ' | '?'))
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
