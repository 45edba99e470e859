//! The evaluator: each of the 33 assertion types over a transcript (or the part of it
//! before an `assert` step) and the tool declarations captured at run start.
//!
//! Semantics (the spec gives names only; "calls" means the calls in scope, narrowed to
//! `toolName` when the type takes an optional one; "the response" is the last non-empty
//! assistant message in scope):
//!
//! | type | passes when |
//! |---|---|
//! | toolDescriptionsPresent | every declared tool has a description of at least `minLength` (default 1) characters, trimmed |
//! | toolAnnotationsPresent | every declared tool has an annotations object; with `require`, each listed hint is a boolean in it |
//! | toolNamesUnique | no two declared tools (across servers) share a name |
//! | noDeprecatedToolExposed | no declared tool is deprecated (see [`is_deprecated`]) |
//! | toolInputSchemasWellFormed | every input schema is an object schema whose `required` names declared properties |
//! | toolOutputSchemasPresent | every declared tool has an `outputSchema` object |
//! | toolCalledWith | at least `minCount` (default 1) calls of `toolName` match `args.args` (`exact`: equal; `partial`, the default: every given key equal, recursively; `ignore`: any) |
//! | toolCalledAtLeastOnce | `toolName` was called |
//! | toolNeverCalled | `toolName` was not called |
//! | onlyToolsCalled | every call is to one of `toolNames` |
//! | firstToolWas | the first call is to `toolName` |
//! | responseContains | the response contains `needle` (case-insensitive unless `caseSensitive`) |
//! | responseMatches | the response matches the regular expression `pattern` (Rust `regex` syntax; an invalid pattern is an evaluator error) |
//! | noToolErrors | no call returned `isError: true` or failed to complete |
//! | finalAssistantMessageNonEmpty | the last assistant message exists and has non-blank text |
//! | tokenBudgetUnder | total tokens used < `tokens` |
//! | widgetRendered | a view of `toolName` (any tool without it) was rendered and every such view said `ui/notifications/initialized` |
//! | widgetRenderLatencyUnder | every such view initialized in < `ms` (HTML delivered → `initialized`) |
//! | widgetNoConsoleErrors | such a view was rendered and none logged an error (console, uncaught exception, CSP violation) |
//! | turnCountUnder | model turns (model requests) < `turns` |
//! | noEndingQuestion | the response does not end with `?` (no response passes) |
//! | toolLatencyUnder | every call took < `ms` |
//! | toolResultContains | some call's result text contains `needle` |
//! | toolResultMatchesSchema | there is a call and every call's result (its `structuredContent`, else its text parsed as JSON, else the text) matches `schema` |
//! | toolResultSizeUnder | every call's serialized result is < `maxBytes` bytes |
//! | argumentsMatchToolSchema | every call's arguments match the tool's declared input schema |
//! | noRepeatedIdenticalCall | no two calls have the same tool and equal arguments |
//! | toolCallCountUnder | the number of calls < `count` |
//! | toolCalledBefore | both were called and the first call of `toolName` precedes the first of `beforeToolName` |
//! | noDeprecatedToolCalled | no call is to a deprecated tool |
//! | noDestructiveToolCalled | no call is to a tool annotated `destructiveHint: true` (explicitly: MCP's implicit default would flag every unannotated tool) |
//! | toolErrorNamesInput | every failed call's error text names one of its argument keys or declared input properties |
//! | fullPageHasContinuation | every full page carries a continuation: a result whose first array field has as many items as the call's `pageSize`/`limit`/`perPage`/`page_size` (or that property's schema default) has a non-empty `nextCursor`/`next_cursor`/`cursor`/`next` or `hasMore: true` |
//!
//! Types that read declarations (the six discovery types, `argumentsMatchToolSchema`,
//! `noDeprecatedToolCalled`, `noDestructiveToolCalled`, `toolErrorNamesInput`'s property
//! names) give an evaluator error when the declarations are missing or incomplete.
//! The three widget types read the views the run rendered ([`crate::service::widgets`]);
//! with no view of the tool they fail. An unknown `type` is an evaluator error (DOM widget
//! assertions are taken on the live view by the runner, not here).

use regex::RegexBuilder;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::schema;
use super::transcript::{CallRecord, Declarations};
use crate::service::models::{Message, Role};
use crate::service::widgets::ViewRecord;
use crate::spec::assertion::EvalAssertion;
use crate::spec::run::Usage;

/// What an assertion can see.
#[derive(Clone, Copy)]
pub struct Evidence<'a> {
    pub messages: &'a [Message],
    pub calls: &'a [CallRecord],
    pub usage: Usage,
    pub turns: u32,
    pub declarations: Option<&'a Declarations>,
    /// The views rendered so far.
    pub widgets: &'a [ViewRecord],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Passed,
    Failed,
    /// The evaluator could not decide (missing evidence, a bad pattern).
    Error,
}

/// The evaluator's answer: the verdict with expected and actual values for the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The evaluator's raw verdict (the result's `status` applies role and severity).
    #[serde(rename = "verdict")]
    pub status: Status,
    pub expected: Value,
    pub actual: Value,
    pub message: String,
}

fn pass(expected: Value, actual: Value, message: impl Into<String>) -> Outcome {
    Outcome {
        status: Status::Passed,
        expected,
        actual,
        message: message.into(),
    }
}

fn fail(expected: Value, actual: Value, message: impl Into<String>) -> Outcome {
    Outcome {
        status: Status::Failed,
        expected,
        actual,
        message: message.into(),
    }
}

fn error(message: impl Into<String>) -> Outcome {
    Outcome {
        status: Status::Error,
        expected: Value::Null,
        actual: Value::Null,
        message: message.into(),
    }
}

fn verdict(ok: bool, expected: Value, actual: Value, message: impl Into<String>) -> Outcome {
    if ok {
        pass(expected, actual, message)
    } else {
        fail(expected, actual, message)
    }
}

/// The three widget types, over the views rendered (of `toolName`, else of any tool).
fn widget_record(kind: &str, a: &EvalAssertion, ev: &Evidence<'_>) -> Outcome {
    let tool = a.0["toolName"].as_str().filter(|t| !t.is_empty());
    let which = tool.map_or("any tool".to_string(), |t| format!("`{t}`"));
    let views: Vec<&ViewRecord> = ev
        .widgets
        .iter()
        .filter(|v| tool.is_none_or(|t| v.tool_name == t))
        .collect();
    if views.is_empty() {
        return fail(
            json!({"view": which}),
            json!({"views": 0}),
            format!(
                "no view of {which} was rendered: the tool was not called, or it declares no UI resource"
            ),
        );
    }
    match kind {
        "widgetRendered" => {
            let broken: Vec<Value> = views
                .iter()
                .filter(|v| !v.initialized)
                .map(|v| json!({"toolName": v.tool_name, "error": v.error}))
                .collect();
            verdict(
                broken.is_empty(),
                json!({"rendered": which}),
                json!({"views": views.len(), "notInitialized": broken}),
                if broken.is_empty() {
                    format!(
                        "{} view(s) of {which} rendered and initialized",
                        views.len()
                    )
                } else {
                    format!(
                        "{} of {} view(s) of {which} never initialized",
                        broken.len(),
                        views.len()
                    )
                },
            )
        }
        "widgetRenderLatencyUnder" => {
            let max = u64_of(a, "ms").unwrap_or(0) as f64;
            let latencies: Vec<Option<f64>> = views.iter().map(|v| v.render_latency_ms).collect();
            let ok = latencies.iter().all(|l| l.is_some_and(|l| l < max));
            let worst = latencies.iter().flatten().fold(0.0f64, |a, b| a.max(*b));
            verdict(
                ok,
                json!({"msUnder": max}),
                json!({"renderLatencyMs": latencies}),
                if latencies.iter().any(Option::is_none) {
                    format!("a view of {which} never initialized")
                } else {
                    format!("slowest render of {which}: {worst:.0} ms")
                },
            )
        }
        _ => {
            let errors: Vec<Value> = views
                .iter()
                .flat_map(|v| v.console_errors())
                .map(|e| json!({"source": e.source, "text": e.text}))
                .collect();
            verdict(
                errors.is_empty(),
                json!({"consoleErrors": 0}),
                json!({"consoleErrors": errors.len(), "first": errors.iter().take(5).collect::<Vec<_>>()}),
                match errors.first() {
                    None => format!("no console errors in {} view(s) of {which}", views.len()),
                    Some(e) => format!(
                        "{} console error(s), first: {}",
                        errors.len(),
                        e["text"].as_str().unwrap_or_default()
                    ),
                },
            )
        }
    }
}

/// Whether a declared tool is deprecated: `_meta.deprecated` or `annotations.deprecated` is
/// true, or its description starts with "deprecated".
pub fn is_deprecated(tool: &Value) -> bool {
    tool["_meta"]["deprecated"] == true
        || tool["annotations"]["deprecated"] == true
        || tool["description"]
            .as_str()
            .is_some_and(|d| d.trim_start().to_lowercase().starts_with("deprecated"))
}

/// Loose JSON equality: numbers compare by value (2 == 2.0).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// `expected` is contained in `actual`: every key of an expected object matches,
/// recursively; other values compare with [`json_eq`].
pub fn json_partial(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|w| json_partial(v, w))),
        _ => json_eq(expected, actual),
    }
}

/// Whether a call's arguments satisfy `matching` against `expected`.
pub fn args_match(matching: &str, expected: &Value, actual: &Value) -> bool {
    match matching {
        "ignore" => true,
        "exact" => json_eq(expected, actual),
        _ => json_partial(expected, actual),
    }
}

fn response(messages: &[Message]) -> Option<&str> {
    messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && !m.content.trim().is_empty())
        .map(|m| m.content.as_str())
}

fn names(calls: &[&CallRecord]) -> Value {
    json!(
        calls
            .iter()
            .map(|c| c.tool_name.as_str())
            .collect::<Vec<_>>()
    )
}

fn decls<'a>(ev: &Evidence<'a>) -> Result<&'a Declarations, Box<Outcome>> {
    match ev.declarations {
        Some(d) if d.complete => Ok(d),
        Some(d) => Err(Box::new(error(format!(
            "the raw tool declarations captured at run start are incomplete ({}); discovery evidence is missing",
            d.errors.join("; ")
        )))),
        None => Err(Box::new(error(
            "no raw tool declarations were captured at run start; discovery evidence is missing",
        ))),
    }
}

fn u64_of(a: &EvalAssertion, k: &str) -> Option<u64> {
    a.get(k).and_then(Value::as_u64)
}

fn contains(hay: &str, needle: &str, case_sensitive: bool) -> bool {
    if case_sensitive {
        hay.contains(needle)
    } else {
        hay.to_lowercase().contains(&needle.to_lowercase())
    }
}

/// The result value checked by `toolResultMatchesSchema`.
fn result_value(c: &CallRecord) -> Value {
    match &c.result {
        Some(r) if r.get("structuredContent").is_some_and(|s| !s.is_null()) => {
            r["structuredContent"].clone()
        }
        Some(_) => {
            let t = c.result_text();
            serde_json::from_str(&t).unwrap_or(Value::String(t))
        }
        None => Value::Null,
    }
}

const PAGE_SIZE_KEYS: &[&str] = &["pageSize", "limit", "perPage", "page_size"];
const CONTINUATION_KEYS: &[&str] = &["nextCursor", "next_cursor", "cursor", "next"];

/// Evaluates one assertion.
pub fn evaluate(a: &EvalAssertion, ev: &Evidence<'_>) -> Outcome {
    let Some(kind) = a.kind() else {
        return error("the assertion has no `type`");
    };
    let tool = a.tool_name();
    let scoped: Vec<&CallRecord> = ev
        .calls
        .iter()
        .filter(|c| tool.is_none_or(|t| c.tool_name == t))
        .collect();
    let all: Vec<&CallRecord> = ev.calls.iter().collect();
    let case_sensitive = a.get("caseSensitive") == Some(&Value::Bool(true));
    match kind {
        "toolDescriptionsPresent" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let min = u64_of(a, "minLength").unwrap_or(1) as usize;
            let bad: Vec<&Value> = d
                .tools
                .iter()
                .filter(|t| {
                    t.tool["description"]
                        .as_str()
                        .is_none_or(|s| s.trim().chars().count() < min)
                })
                .map(|t| &t.tool["name"])
                .collect();
            verdict(
                bad.is_empty(),
                json!({"minLength": min}),
                json!({"withoutDescription": bad}),
                format!(
                    "{} tool(s) lack a description of {min}+ characters",
                    bad.len()
                ),
            )
        }
        "toolAnnotationsPresent" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let require: Vec<&str> = a
                .get("require")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let bad: Vec<Value> = d
                .tools
                .iter()
                .filter_map(|t| {
                    let ann = t.tool.get("annotations").and_then(Value::as_object);
                    let missing: Vec<&str> = match ann {
                        None => vec!["annotations"],
                        Some(m) => require
                            .iter()
                            .filter(|h| !m.get(**h).is_some_and(Value::is_boolean))
                            .copied()
                            .collect(),
                    };
                    (!missing.is_empty())
                        .then(|| json!({"tool": t.tool["name"], "missing": missing}))
                })
                .collect();
            verdict(
                bad.is_empty(),
                json!({"require": require}),
                json!({"lacking": bad}),
                format!("{} tool(s) lack annotations", bad.len()),
            )
        }
        "toolNamesUnique" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let mut seen = std::collections::BTreeMap::<&str, usize>::new();
            for t in &d.tools {
                *seen
                    .entry(t.tool["name"].as_str().unwrap_or_default())
                    .or_default() += 1;
            }
            let dup: Vec<&str> = seen
                .iter()
                .filter(|(_, n)| **n > 1)
                .map(|(k, _)| *k)
                .collect();
            verdict(
                dup.is_empty(),
                json!({"duplicates": []}),
                json!({"duplicates": dup}),
                format!("{} tool name(s) collide", dup.len()),
            )
        }
        "noDeprecatedToolExposed" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let dep: Vec<&Value> = d
                .tools
                .iter()
                .filter(|t| is_deprecated(&t.tool))
                .map(|t| &t.tool["name"])
                .collect();
            verdict(
                dep.is_empty(),
                json!({"deprecated": []}),
                json!({"deprecated": dep}),
                format!("{} deprecated tool(s) exposed", dep.len()),
            )
        }
        "toolInputSchemasWellFormed" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let bad: Vec<Value> = d
                .tools
                .iter()
                .filter_map(|t| {
                    let p = schema::input_schema_problems(t.tool.get("inputSchema"));
                    (!p.is_empty()).then(|| json!({"tool": t.tool["name"], "problems": p}))
                })
                .collect();
            verdict(
                bad.is_empty(),
                json!("object input schemas"),
                json!({"malformed": bad}),
                format!("{} malformed input schema(s)", bad.len()),
            )
        }
        "toolOutputSchemasPresent" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let bad: Vec<&Value> = d
                .tools
                .iter()
                .filter(|t| !t.tool.get("outputSchema").is_some_and(Value::is_object))
                .map(|t| &t.tool["name"])
                .collect();
            verdict(
                bad.is_empty(),
                json!("an outputSchema on every tool"),
                json!({"withoutOutputSchema": bad}),
                format!("{} tool(s) declare no output schema", bad.len()),
            )
        }
        "toolCalledWith" => {
            let t = tool.unwrap_or_default();
            let want = a
                .get("args")
                .map(|x| x["args"].clone())
                .unwrap_or(json!({}));
            let matching = a
                .get("args")
                .and_then(|x| x["argumentMatching"].as_str())
                .unwrap_or("partial")
                .to_string();
            let min = u64_of(a, "minCount").unwrap_or(1) as usize;
            let n = scoped
                .iter()
                .filter(|c| args_match(&matching, &want, &c.arguments))
                .count();
            verdict(
                n >= min,
                json!({"toolName": t, "args": want, "argumentMatching": matching, "minCount": min}),
                json!({"matchingCalls": n, "calls": scoped.iter().map(|c| &c.arguments).collect::<Vec<_>>()}),
                format!("{n} matching call(s) of `{t}`, {min} needed"),
            )
        }
        "toolCalledAtLeastOnce" => verdict(
            !scoped.is_empty(),
            json!({"toolName": tool, "calls": ">= 1"}),
            json!({"calls": scoped.len(), "called": names(&all)}),
            format!(
                "`{}` called {} time(s)",
                tool.unwrap_or_default(),
                scoped.len()
            ),
        ),
        "toolNeverCalled" => verdict(
            scoped.is_empty(),
            json!({"toolName": tool, "calls": 0}),
            json!({"calls": scoped.len()}),
            format!(
                "`{}` called {} time(s)",
                tool.unwrap_or_default(),
                scoped.len()
            ),
        ),
        "onlyToolsCalled" => {
            let allowed: Vec<&str> = a
                .get("toolNames")
                .and_then(Value::as_array)
                .map(|x| x.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let other: Vec<&str> = all
                .iter()
                .map(|c| c.tool_name.as_str())
                .filter(|n| !allowed.contains(n))
                .collect();
            verdict(
                other.is_empty(),
                json!({"toolNames": allowed}),
                json!({"others": other}),
                format!("{} call(s) to other tools", other.len()),
            )
        }
        "firstToolWas" => {
            let first = all.first().map(|c| c.tool_name.as_str());
            verdict(
                first.is_some() && first == tool,
                json!({"toolName": tool}),
                json!({"first": first}),
                format!("the first call was {first:?}"),
            )
        }
        "responseContains" => {
            let needle = a.str("needle").unwrap_or_default();
            let r = response(ev.messages);
            verdict(
                r.is_some_and(|r| contains(r, needle, case_sensitive)),
                json!({"needle": needle, "caseSensitive": case_sensitive}),
                json!({"response": r}),
                "the final response checked for the needle",
            )
        }
        "responseMatches" => {
            let pattern = a.str("pattern").unwrap_or_default();
            let re = match RegexBuilder::new(pattern).size_limit(1 << 20).build() {
                Ok(re) => re,
                Err(e) => {
                    return error(format!("`pattern` is not a valid regular expression: {e}"));
                }
            };
            let r = response(ev.messages);
            verdict(
                r.is_some_and(|r| re.is_match(r)),
                json!({"pattern": pattern}),
                json!({"response": r}),
                "the final response checked against the pattern",
            )
        }
        "noToolErrors" => {
            let bad: Vec<Value> = all
                .iter()
                .filter(|c| c.tool_error())
                .map(|c| json!({"toolName": c.tool_name, "error": c.result_text()}))
                .collect();
            verdict(
                bad.is_empty(),
                json!({"errors": 0}),
                json!({"errors": bad}),
                format!("{} call(s) failed", bad.len()),
            )
        }
        "finalAssistantMessageNonEmpty" => {
            let last = ev.messages.iter().rev().find(|m| m.role == Role::Assistant);
            verdict(
                last.is_some_and(|m| !m.content.trim().is_empty()),
                json!("a non-empty final assistant message"),
                json!({"final": last.map(|m| &m.content)}),
                "the last assistant message checked",
            )
        }
        "tokenBudgetUnder" => {
            let max = u64_of(a, "tokens").unwrap_or(0);
            verdict(
                ev.usage.total_tokens < max,
                json!({"tokensUnder": max}),
                json!({"tokens": ev.usage.total_tokens}),
                format!("{} tokens used", ev.usage.total_tokens),
            )
        }
        "widgetRendered" | "widgetRenderLatencyUnder" | "widgetNoConsoleErrors" => {
            widget_record(kind, a, ev)
        }
        "turnCountUnder" => {
            let max = u64_of(a, "turns").unwrap_or(0);
            verdict(
                (ev.turns as u64) < max,
                json!({"turnsUnder": max}),
                json!({"turns": ev.turns}),
                format!("{} model turn(s)", ev.turns),
            )
        }
        "noEndingQuestion" => {
            let r = response(ev.messages);
            verdict(
                !r.is_some_and(|r| r.trim_end().ends_with('?')),
                json!("a response that does not end with a question"),
                json!({"response": r}),
                "the final response checked for a trailing question",
            )
        }
        "toolLatencyUnder" => {
            let max = u64_of(a, "ms").unwrap_or(0) as f64;
            let slow: Vec<Value> = scoped
                .iter()
                .filter(|c| c.latency_ms >= max)
                .map(|c| json!({"toolName": c.tool_name, "latencyMs": c.latency_ms}))
                .collect();
            verdict(
                slow.is_empty(),
                json!({"msUnder": max}),
                json!({"slow": slow}),
                format!("{} call(s) at or over {max} ms", slow.len()),
            )
        }
        "toolResultContains" => {
            let needle = a.str("needle").unwrap_or_default();
            let hit = scoped
                .iter()
                .any(|c| contains(&c.result_text(), needle, case_sensitive));
            verdict(
                hit,
                json!({"needle": needle, "toolName": tool}),
                json!({"results": scoped.iter().map(|c| c.result_text().chars().take(500).collect::<String>()).collect::<Vec<_>>()}),
                format!(
                    "the needle was {}found in {} result(s)",
                    if hit { "" } else { "not " },
                    scoped.len()
                ),
            )
        }
        "toolResultMatchesSchema" => {
            let s = a.get("schema").cloned().unwrap_or(json!({}));
            let bad: Vec<Value> = scoped
                .iter()
                .filter_map(|c| {
                    let v = schema::validate(&s, &result_value(c));
                    (!v.is_empty()).then(|| json!({"toolName": c.tool_name, "violations": v}))
                })
                .collect();
            verdict(
                !scoped.is_empty() && bad.is_empty(),
                json!({"schema": s}),
                json!({"calls": scoped.len(), "mismatches": bad}),
                format!("{} of {} result(s) do not match", bad.len(), scoped.len()),
            )
        }
        "toolResultSizeUnder" => {
            let max = u64_of(a, "maxBytes").unwrap_or(0);
            let big: Vec<Value> = scoped
                .iter()
                .filter(|c| c.result_bytes >= max)
                .map(|c| json!({"toolName": c.tool_name, "bytes": c.result_bytes}))
                .collect();
            verdict(
                big.is_empty(),
                json!({"maxBytesUnder": max}),
                json!({"over": big}),
                format!("{} result(s) at or over {max} bytes", big.len()),
            )
        }
        "argumentsMatchToolSchema" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let bad: Vec<Value> = scoped
                .iter()
                .filter_map(|c| {
                    let v = match d.find(&c.tool_name) {
                        None => vec![format!("`{}` is not a declared tool", c.tool_name)],
                        Some(t) => schema::validate(&t["inputSchema"], &c.arguments),
                    };
                    (!v.is_empty()).then(|| json!({"toolName": c.tool_name, "arguments": c.arguments, "violations": v}))
                })
                .collect();
            verdict(
                bad.is_empty(),
                json!("arguments valid against each tool's input schema"),
                json!({"mismatches": bad}),
                format!("{} call(s) with invalid arguments", bad.len()),
            )
        }
        "noRepeatedIdenticalCall" => {
            let mut dup = Vec::new();
            for (i, c) in scoped.iter().enumerate() {
                if scoped[..i]
                    .iter()
                    .any(|p| p.tool_name == c.tool_name && json_eq(&p.arguments, &c.arguments))
                {
                    dup.push(json!({"toolName": c.tool_name, "arguments": c.arguments}));
                }
            }
            verdict(
                dup.is_empty(),
                json!({"repeats": 0}),
                json!({"repeats": dup}),
                format!("{} repeated identical call(s)", dup.len()),
            )
        }
        "toolCallCountUnder" => {
            let max = u64_of(a, "count").unwrap_or(0) as usize;
            verdict(
                scoped.len() < max,
                json!({"countUnder": max, "toolName": tool}),
                json!({"count": scoped.len(), "called": names(&scoped)}),
                format!("{} call(s)", scoped.len()),
            )
        }
        "toolCalledBefore" => {
            let before = a.str("beforeToolName").unwrap_or_default();
            let pos = |n: &str| all.iter().position(|c| c.tool_name == n);
            let (x, y) = (pos(tool.unwrap_or_default()), pos(before));
            verdict(
                matches!((x, y), (Some(x), Some(y)) if x < y),
                json!({"first": tool, "then": before}),
                json!({"order": names(&all)}),
                "the order of first calls checked",
            )
        }
        "noDeprecatedToolCalled" | "noDestructiveToolCalled" => {
            let d = match decls(ev) {
                Ok(d) => d,
                Err(e) => return *e,
            };
            let deprecated = kind == "noDeprecatedToolCalled";
            let bad: Vec<&str> = all
                .iter()
                .filter(|c| {
                    d.find(&c.tool_name).is_some_and(|t| {
                        if deprecated {
                            is_deprecated(t)
                        } else {
                            t["annotations"]["destructiveHint"] == true
                        }
                    })
                })
                .map(|c| c.tool_name.as_str())
                .collect();
            verdict(
                bad.is_empty(),
                json!({"calls": 0}),
                json!({"calls": bad}),
                format!(
                    "{} call(s) to {} tools",
                    bad.len(),
                    if deprecated {
                        "deprecated"
                    } else {
                        "destructive"
                    }
                ),
            )
        }
        "toolErrorNamesInput" => {
            let bad: Vec<Value> = scoped
                .iter()
                .filter(|c| c.tool_error())
                .filter(|c| {
                    let text = c.result_text().to_lowercase();
                    let mut keys: Vec<String> = c
                        .arguments
                        .as_object()
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default();
                    if let Some(t) = ev.declarations.and_then(|d| d.find(&c.tool_name))
                        && let Some(p) = t["inputSchema"]["properties"].as_object()
                    {
                        keys.extend(p.keys().cloned());
                    }
                    !keys.iter().any(|k| text.contains(&k.to_lowercase()))
                })
                .map(|c| json!({"toolName": c.tool_name, "error": c.result_text()}))
                .collect();
            verdict(
                bad.is_empty(),
                json!("errors that name the offending input"),
                json!({"vague": bad}),
                format!("{} error(s) name no input", bad.len()),
            )
        }
        "fullPageHasContinuation" => {
            let mut checked = 0;
            let mut bad = Vec::new();
            for c in &scoped {
                let size = PAGE_SIZE_KEYS.iter().find_map(|k| {
                    c.arguments.get(*k).and_then(Value::as_u64).or_else(|| {
                        ev.declarations
                            .and_then(|d| d.find(&c.tool_name))
                            .and_then(|t| t["inputSchema"]["properties"][*k]["default"].as_u64())
                    })
                });
                let v = result_value(c);
                let items = v
                    .as_object()
                    .and_then(|o| o.values().find_map(Value::as_array))
                    .map(Vec::len);
                let (Some(size), Some(items)) = (size, items) else {
                    continue;
                };
                if items as u64 != size {
                    continue;
                }
                checked += 1;
                let more = CONTINUATION_KEYS
                    .iter()
                    .any(|k| v[*k].as_str().is_some_and(|s| !s.is_empty()))
                    || v["hasMore"] == true;
                if !more {
                    bad.push(json!({"toolName": c.tool_name, "items": items}));
                }
            }
            verdict(
                bad.is_empty(),
                json!("a continuation on every full page"),
                json!({"fullPages": checked, "withoutContinuation": bad}),
                format!("{} full page(s) without a continuation", bad.len()),
            )
        }
        other => error(format!(
            "`{other}` is not an assertion type this evaluator knows"
        )),
    }
}
