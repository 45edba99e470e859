//! Grounding: every tool a draft names is looked up among the tools discovered over a live
//! MCP connection, and every argument set is checked against that tool's input schema;
//! then the draft becomes a persisted-shape [`EvalCase`] with its claim and provenance.
//!
//! Claims, strongest finding first:
//! - `unresolved`: a named tool (in a `toolCall` step or an expectation) is not offered by
//!   the target, or its arguments name parameters the tool's schema lacks, have the wrong
//!   JSON type, or (for a `toolCall` step, which must run as written) miss required ones.
//! - `unsupported`: the source states behaviour no step or assertion can express.
//! - `approximated`: the author interpreted wording, or a tool name was mapped to the
//!   live one by spelling (`get_sum` → `get-sum`, `demo.get-sum`, `mcp__demo__get-sum`).
//! - `exact`: every part came from a labelled field one-to-one; the note cites the rule.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::draft::Draft;
use super::lines::LineIndex;
use crate::spec::case::{
    CaseModel, ClaimStatus, EvalCase, EvalCaseImportClaim, EvalCaseSource, EvalTestStep,
    MAX_CLAIM_NOTE, SourceFormat, SourceMethod,
};
use crate::spec::primitives::ToolItem;

/// A tool as discovered, with the saved server offering it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredTool {
    pub server_id: String,
    pub server_name: String,
    pub tool: ToolItem,
}

/// What a case is built with besides its draft.
pub struct CaseContext<'a> {
    pub file_name: &'a str,
    pub file_hash: &'a str,
    pub ix: &'a LineIndex<'a>,
    pub extractor_version: &'a str,
    pub models: &'a [CaseModel],
    pub tools: &'a [DiscoveredTool],
}

enum Found<'a> {
    Exact(&'a DiscoveredTool),
    Mapped(&'a DiscoveredTool),
    Missing,
}

fn spelling(s: &str) -> String {
    s.trim().to_lowercase().replace(['_', ' '], "-")
}

fn find<'a>(tools: &'a [DiscoveredTool], name: &str) -> Found<'a> {
    if let Some(t) = tools.iter().find(|t| t.tool.name == name) {
        return Found::Exact(t);
    }
    let mut candidates = vec![name.to_string()];
    if let Some((_, last)) = name.rsplit_once("__") {
        candidates.push(last.to_string());
    }
    for sep in ['.', ':', '/'] {
        if let Some((server, rest)) = name.split_once(sep)
            && tools.iter().any(|t| t.server_name == server)
        {
            candidates.push(rest.to_string());
        }
    }
    for c in candidates {
        let want = spelling(&c);
        if let Some(t) = tools.iter().find(|t| spelling(&t.tool.name) == want) {
            return Found::Mapped(t);
        }
    }
    Found::Missing
}

fn type_ok(schema: &Value, v: &Value) -> bool {
    let Some(ty) = schema.get("type") else {
        return true;
    };
    let one = |t: &str| match t {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    };
    match ty {
        Value::String(t) => one(t),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(one),
        _ => true,
    }
}

/// Problems of an argument set against a tool's input schema.
pub fn check_args(tool: &ToolItem, args: &Map<String, Value>, need_required: bool) -> Vec<String> {
    let mut issues = Vec::new();
    let Some(schema) = tool.input_schema.as_ref() else {
        return issues;
    };
    let props = schema.get("properties").and_then(Value::as_object);
    if let Some(props) = props {
        let known: Vec<&str> = props.keys().map(String::as_str).collect();
        for (k, v) in args {
            match props.get(k) {
                None => issues.push(format!(
                    "`{k}` is not a parameter of `{}` (parameters: {})",
                    tool.name,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )),
                Some(s) if !type_ok(s, v) => issues.push(format!(
                    "`{k}` of `{}` must be {}, got {v}",
                    tool.name,
                    s.get("type").map(|t| t.to_string()).unwrap_or_default()
                )),
                Some(_) => {}
            }
        }
    }
    if need_required {
        for r in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(r) = r.as_str()
                && !args.contains_key(r)
            {
                issues.push(format!("`{}` needs `{r}`", tool.name));
            }
        }
    }
    issues
}

fn assertion(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// Builds the case a draft describes, grounded in the discovered tools.
pub fn build_case(d: &Draft, id: &str, ctx: &CaseContext) -> EvalCase {
    let mut unresolved: Vec<String> = Vec::new();
    let mut mapped: Vec<String> = Vec::new();
    let mut resolve = |name: &str,
                       args: Option<&Map<String, Value>>,
                       required: bool|
     -> (String, Option<String>) {
        match find(ctx.tools, name) {
            Found::Exact(t) | Found::Mapped(t) => {
                if t.tool.name != name {
                    mapped.push(format!(
                        "`{name}` mapped to the live tool `{}`",
                        t.tool.name
                    ));
                }
                if let Some(a) = args {
                    unresolved.extend(check_args(&t.tool, a, required));
                } else if required {
                    unresolved.extend(check_args(&t.tool, &Map::new(), true));
                }
                (t.tool.name.clone(), Some(t.server_name.clone()))
            }
            Found::Missing => {
                let offered: Vec<&str> = ctx.tools.iter().map(|t| t.tool.name.as_str()).collect();
                unresolved.push(format!(
                    "tool `{name}` is not offered by the target ({})",
                    if offered.is_empty() {
                        "it lists no tools".to_string()
                    } else {
                        format!("tools: {}", offered.join(", "))
                    }
                ));
                (name.to_string(), None)
            }
        }
    };
    let mut steps = Vec::new();
    for (i, p) in d.prompts.iter().enumerate() {
        steps.push(EvalTestStep::new_prompt(
            format!("prompt-{}", i + 1),
            p.clone(),
        ));
    }
    let mut asserts: Vec<Map<String, Value>> = Vec::new();
    let render_tool = if let Some(call) = &d.tool_call {
        let args = call.args.clone().unwrap_or_default();
        let (name, server) = resolve(&call.tool, Some(&args), true);
        let mut step = EvalTestStep::new_tool_call("call-1", name.clone(), args);
        step.server_name = server;
        steps.push(step);
        Some(name)
    } else {
        None
    };
    if !d.negative {
        for c in &d.expected_calls {
            let (name, _) = resolve(&c.tool, c.args.as_ref(), false);
            asserts.push(match &c.args {
                Some(a) => assertion(json!({"type": "toolCalledWith", "toolName": name,
                    "args": {"args": a, "argumentMatching": "partial"}})),
                None => assertion(json!({"type": "toolCalledAtLeastOnce", "toolName": name})),
            });
        }
    }
    for n in &d.never_called {
        let (name, _) = resolve(n, None, false);
        asserts.push(assertion(
            json!({"type": "toolNeverCalled", "toolName": name}),
        ));
    }
    for n in d.contains.iter().filter(|n| !n.text.is_empty()) {
        let mut a = match &render_tool {
            Some(t) => {
                json!({"type": "toolResultContains", "needle": n.text.chars().take(1000).collect::<String>(), "toolName": t})
            }
            None => json!({"type": "responseContains", "needle": n.text}),
        };
        if let Some(cs) = n.case_sensitive {
            a["caseSensitive"] = json!(cs);
        }
        asserts.push(assertion(a));
    }
    for p in d.patterns.iter().filter(|p| !p.is_empty()) {
        asserts.push(assertion(json!({"type": "responseMatches", "pattern": p})));
    }
    for raw in &d.assertions {
        if let Some(name) = raw.get("toolName").and_then(Value::as_str) {
            resolve(name, None, false);
        }
        asserts.push(assertion(raw.clone()));
    }
    for (i, a) in asserts.into_iter().enumerate() {
        steps.push(EvalTestStep::new_assert(format!("assert-{}", i + 1), a));
    }

    let mut status = if !d.unsupported.is_empty() {
        ClaimStatus::Unsupported
    } else if d.notes.is_empty() && d.exact_rule.is_some() && mapped.is_empty() {
        ClaimStatus::Exact
    } else {
        ClaimStatus::Approximated
    };
    if !unresolved.is_empty() {
        status = ClaimStatus::Unresolved;
    }
    let note = match status {
        ClaimStatus::Exact => d.exact_rule.clone().unwrap_or_default(),
        _ => unresolved
            .iter()
            .chain(&d.unsupported)
            .chain(&mapped)
            .chain(&d.notes)
            .cloned()
            .collect::<Vec<_>>()
            .join("; "),
    };
    let note = (!note.is_empty()).then(|| truncate(&note, MAX_CLAIM_NOTE));
    let (s, e) = (d.start_line.max(1), d.end_line.max(d.start_line.max(1)));
    let excerpt = ctx.ix.excerpt(s, e);
    let mut case = EvalCase::new(id, truncate(&d.title, 500), steps);
    case.is_negative = d.negative;
    case.expected_output = d.expected_output.clone().filter(|o| !o.is_empty());
    case.models = ctx.models.to_vec();
    case.import = Some(EvalCaseImportClaim {
        status,
        source_case_key: d
            .key
            .clone()
            .filter(|k| !k.is_empty())
            .map(|k| truncate(&k, 512)),
        note,
    });
    case.source = Some(EvalCaseSource {
        format: SourceFormat::Markdown,
        method: SourceMethod::Ai,
        file_name: ctx.file_name.to_string(),
        file_hash: ctx.file_hash.to_string(),
        excerpt: if excerpt.is_empty() {
            " ".into()
        } else {
            excerpt.to_string()
        },
        start_line: s as i64,
        end_line: e as i64,
        extractor_version: truncate(ctx.extractor_version, 100),
    });
    case
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}
