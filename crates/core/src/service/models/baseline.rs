//! The built-in offline baseline agent (`builtin/baseline`): deterministic, no network.
//! It is a yardstick, not a model: a case that only this agent passes says the prompt
//! names its tool plainly.
//!
//! How it decides, for the latest user message:
//! - Tools whose exact name appears in the prompt are all called, in order of mention.
//! - Otherwise each tool is scored against the prompt's words: +3 per name part, +2 per
//!   input property name, +1 per description word (4+ letters, not a stop word); the best
//!   tool is called when it scores at least 3 (ties go to the first declared). Nothing
//!   scoring that is a plain answer with no tool call (so negative cases can pass).
//! - Arguments: `key=value` (or `key: value`) pairs for any property; then for required
//!   properties only, quoted strings fill string properties in order, numbers fill number
//!   and integer properties in order, an array of numbers takes every number; a required
//!   string with no quoted text takes the text after the first `:` or the whole prompt.
//! - Once tool results are back it answers with a summary of them, never a question.
//! - Tokens are estimated at 4 characters a token.

use async_trait::async_trait;
use regex::Regex;
use serde_json::{Map, Value, json};
use std::sync::LazyLock;

use super::{
    BASELINE_ID, Model, ModelReply, ModelRequest, ModelToolCall, Role, ToolSpec, estimate_tokens,
};
use crate::spec::Result;
use crate::spec::run::Usage;

pub struct Baseline;

const STOP: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "your", "you", "are", "was",
    "get", "use", "call", "tool", "please", "then", "what", "which", "when", "return", "returns",
    "give", "tell", "about", "some", "have", "has", "will", "would", "could", "should", "can",
    "its", "it's", "not", "but", "all", "any", "one", "two", "out", "via", "using", "back",
];

static KV: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"([A-Za-z_][\w-]*)\s*[=:]\s*("([^"]*)"|'([^']*)'|[^\s,;]+)"#).expect("regex")
});
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""([^"]+)"|(?:^|[\s(\[:=,])'([^']+)'|“([^”]+)”|`([^`]+)`"#).expect("regex")
});
static NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"-?\d+(?:\.\d+)?").expect("regex"));
static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[a-z0-9]+").expect("regex"));

fn words(s: &str) -> Vec<String> {
    WORD.find_iter(&s.to_lowercase())
        .map(|m| m.as_str().to_string())
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .collect()
}

fn similar(a: &str, b: &str) -> bool {
    a == b || (a.len() >= 4 && b.len() >= 4 && (a.starts_with(b) || b.starts_with(a)))
}

/// Position of `name` in `text` as a whole token (not part of a longer name).
fn mention(text: &str, name: &str) -> Option<usize> {
    let lower = text.to_lowercase();
    let name = name.to_lowercase();
    let is_name_char = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut from = 0;
    while let Some(i) = lower[from..].find(&name) {
        let at = from + i;
        let before = lower[..at].chars().next_back();
        let after = lower[at + name.len()..].chars().next();
        if !before.is_some_and(is_name_char) && !after.is_some_and(is_name_char) {
            return Some(at);
        }
        from = at + name.len().max(1);
    }
    None
}

fn properties(t: &ToolSpec) -> Vec<(String, Value)> {
    t.input_schema["properties"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

fn score(t: &ToolSpec, prompt_words: &[String]) -> i64 {
    let hit = |w: &str| prompt_words.iter().any(|p| similar(p, w));
    let mut s = 0;
    for part in words(&t.name.replace(['-', '_'], " ")) {
        if hit(&part) {
            s += 3;
        }
    }
    for (k, _) in properties(t) {
        if words(&k).iter().any(|w| hit(w)) {
            s += 2;
        }
    }
    let mut seen = Vec::new();
    for w in words(t.description.as_deref().unwrap_or_default()) {
        if w.len() >= 4 && !seen.contains(&w) && hit(&w) {
            s += 1;
            seen.push(w);
        }
    }
    s
}

/// The tools to call for `prompt`, in order.
pub fn choose<'a>(prompt: &str, tools: &'a [ToolSpec]) -> Vec<&'a ToolSpec> {
    let mut named: Vec<(usize, &ToolSpec)> = tools
        .iter()
        .filter_map(|t| mention(prompt, &t.name).map(|i| (i, t)))
        .collect();
    if !named.is_empty() {
        named.sort_by_key(|(i, _)| *i);
        return named.into_iter().map(|(_, t)| t).collect();
    }
    let pw = words(prompt);
    let mut best: Option<(i64, &ToolSpec)> = None;
    for t in tools {
        let s = score(t, &pw);
        if s >= 3 && best.is_none_or(|(b, _)| s > b) {
            best = Some((s, t));
        }
    }
    best.map(|(_, t)| vec![t]).unwrap_or_default()
}

fn typed(v: &str, schema: &Value) -> Value {
    match schema["type"].as_str() {
        Some("integer") => v
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| json!(v)),
        Some("number") => v
            .parse::<f64>()
            .map(|f| json!(f))
            .unwrap_or_else(|_| json!(v)),
        Some("boolean") => match v {
            "true" | "yes" => json!(true),
            "false" | "no" => json!(false),
            _ => json!(v),
        },
        Some("array") | Some("object") => serde_json::from_str(v).unwrap_or_else(|_| json!(v)),
        _ => json!(v),
    }
}

fn number(s: &str, integer: bool) -> Value {
    if (integer || !s.contains('.'))
        && let Ok(i) = s.parse::<i64>()
    {
        return json!(i);
    }
    s.parse::<f64>().map(|f| json!(f)).unwrap_or(Value::Null)
}

/// Fills a tool's arguments from the prompt (see the module docs).
pub fn arguments(prompt: &str, tool: &ToolSpec) -> Map<String, Value> {
    let props = properties(tool);
    let required: Vec<&str> = tool.input_schema["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    let mut rest = prompt.to_string();
    for c in KV.captures_iter(prompt) {
        let key = &c[1];
        if let Some((_, schema)) = props.iter().find(|(k, _)| k == key) {
            let raw = c
                .get(3)
                .or(c.get(4))
                .or(c.get(2))
                .map(|m| m.as_str())
                .unwrap_or_default();
            out.insert(key.to_string(), typed(raw, schema));
            rest = rest.replacen(&c[0], " ", 1);
        }
    }
    let mut quoted: Vec<String> = Vec::new();
    for c in QUOTED.captures_iter(&rest) {
        if let Some(m) = (1..=4).find_map(|i| c.get(i)) {
            quoted.push(m.as_str().to_string());
        }
    }
    let unquoted = QUOTED.replace_all(&rest, " ").to_string();
    let mut numbers: Vec<&str> = NUMBER.find_iter(&unquoted).map(|m| m.as_str()).collect();
    let mut quoted = quoted.into_iter();
    for (k, schema) in &props {
        if out.contains_key(k) || !required.contains(&k.as_str()) {
            continue;
        }
        let ty = schema["type"].as_str().unwrap_or("string");
        let v = match ty {
            "number" | "integer" if !numbers.is_empty() => {
                Some(number(numbers.remove(0), ty == "integer"))
            }
            "array" if !numbers.is_empty() => Some(json!(
                numbers
                    .drain(..)
                    .map(|n| number(n, false))
                    .collect::<Vec<_>>()
            )),
            "string" => quoted
                .next()
                .or_else(|| {
                    let text = prompt
                        .split_once(':')
                        .map(|(_, r)| r)
                        .unwrap_or(prompt)
                        .trim();
                    (!text.is_empty()).then(|| text.to_string())
                })
                .map(Value::String),
            _ => None,
        };
        if let Some(v) = v {
            out.insert(k.clone(), v);
        }
    }
    out
}

fn summarize(content: &str) -> String {
    let one_line = content.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s: String = one_line.chars().take(200).collect();
    if one_line.chars().count() > 200 {
        s.push('…');
    }
    s.trim_end_matches('?').to_string()
}

#[async_trait]
impl Model for Baseline {
    fn id(&self) -> &str {
        BASELINE_ID
    }

    async fn complete(&self, req: &ModelRequest<'_>) -> Result<ModelReply> {
        Ok(reply(req))
    }
}

/// The baseline's turn, synchronously.
pub fn reply(req: &ModelRequest<'_>) -> ModelReply {
    let last_user = req
        .messages
        .iter()
        .rposition(|m| m.role == Role::User)
        .unwrap_or(0);
    let after = &req.messages[(last_user + 1).min(req.messages.len())..];
    let input: usize = req.messages.iter().map(|m| m.content.len()).sum();
    let mut reply = ModelReply::default();
    let results: Vec<_> = after.iter().filter(|m| m.role == Role::Tool).collect();
    if !results.is_empty() {
        let parts: Vec<String> = results
            .iter()
            .map(|m| {
                let name = m.name.clone().unwrap_or_else(|| "tool".into());
                if m.is_error == Some(true) {
                    format!("`{name}` failed: {}", summarize(&m.content))
                } else {
                    format!("`{name}` returned: {}", summarize(&m.content))
                }
            })
            .collect();
        reply.text = format!("[baseline agent] {}.", parts.join("; "));
    } else {
        let prompt = req
            .messages
            .get(last_user)
            .map(|m| m.content.as_str())
            .unwrap_or_default();
        let prior = req
            .messages
            .iter()
            .map(|m| m.tool_calls.len())
            .sum::<usize>();
        for (i, t) in choose(prompt, req.tools).into_iter().enumerate() {
            reply.tool_calls.push(ModelToolCall {
                id: format!("call_{}", prior + i + 1),
                name: t.name.clone(),
                arguments: Value::Object(arguments(prompt, t)),
            });
        }
        if reply.tool_calls.is_empty() {
            reply.text =
                "[baseline agent] No tool matches this request, so none was called.".into();
        }
    }
    let output = estimate_tokens(&reply.text)
        + reply
            .tool_calls
            .iter()
            .map(|c| estimate_tokens(&c.arguments.to_string()) + estimate_tokens(&c.name))
            .sum::<u64>();
    let input = (input as u64).div_ceil(4);
    reply.usage = Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
    };
    reply
}

#[cfg(test)]
mod tests {
    use super::super::Message;
    use super::*;

    fn tool(name: &str, desc: &str, schema: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: Some(desc.into()),
            input_schema: schema,
        }
    }

    fn demo() -> Vec<ToolSpec> {
        vec![
            tool(
                "echo",
                "Echo a message back unchanged.",
                json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}),
            ),
            tool(
                "get-sum",
                "Add two numbers and return the sum.",
                json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
            ),
            tool(
                "get-stats",
                "Count, sum, mean, min and max of a list of numbers.",
                json!({"type": "object", "properties": {"numbers": {"type": "array", "items": {"type": "number"}}}, "required": ["numbers"]}),
            ),
            tool(
                "slow",
                "Waits durationMs.",
                json!({"type": "object", "properties": {"durationMs": {"type": "integer"}}}),
            ),
        ]
    }

    fn names(prompt: &str) -> Vec<String> {
        choose(prompt, &demo())
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    #[test]
    fn picks_tools() {
        assert_eq!(names("Use echo to say 'hi'"), ["echo"]);
        assert_eq!(names("Call get-stats then echo"), ["get-stats", "echo"]);
        assert_eq!(names("What is the sum of 2 and 3"), ["get-sum"]);
        assert_eq!(names("What is the capital of France"), Vec::<String>::new());
        assert_eq!(names("the mean of these numbers: 1 2 3"), ["get-stats"]);
    }

    #[test]
    fn fills_arguments() {
        let t = demo();
        assert_eq!(
            Value::Object(arguments("Use echo to say 'hello world'", &t[0])),
            json!({"message": "hello world"})
        );
        assert_eq!(
            Value::Object(arguments("echo: plain text", &t[0])),
            json!({"message": "plain text"})
        );
        assert_eq!(
            Value::Object(arguments("get-sum 2 and 3.5", &t[1])),
            json!({"a": 2, "b": 3.5})
        );
        assert_eq!(
            Value::Object(arguments("get-sum a=4 b=5", &t[1])),
            json!({"a": 4.0, "b": 5.0})
        );
        assert_eq!(
            Value::Object(arguments("stats of 1, 2 and 3", &t[2])),
            json!({"numbers": [1, 2, 3]})
        );
        assert_eq!(
            Value::Object(arguments("slow durationMs=20", &t[3])),
            json!({"durationMs": 20})
        );
        assert_eq!(Value::Object(arguments("slow please", &t[3])), json!({}));
    }

    #[test]
    fn answers_after_results_and_is_deterministic() {
        let tools = demo();
        let msgs = vec![Message::new(Role::User, "Use echo to say 'hi'")];
        let req = ModelRequest {
            system: None,
            messages: &msgs,
            tools: &tools,
        };
        let a = reply(&req);
        assert_eq!(a, reply(&req));
        assert_eq!(a.tool_calls[0].name, "echo");
        let mut msgs2 = msgs.clone();
        let mut asst = Message::new(Role::Assistant, "");
        asst.tool_calls = a.tool_calls.clone();
        msgs2.push(asst);
        let mut t = Message::new(Role::Tool, "hi");
        t.name = Some("echo".into());
        msgs2.push(t);
        let b = reply(&ModelRequest {
            system: None,
            messages: &msgs2,
            tools: &tools,
        });
        assert!(b.tool_calls.is_empty());
        assert!(b.text.contains("`echo` returned: hi"));
        assert!(b.usage.total_tokens > 0);
    }
}
