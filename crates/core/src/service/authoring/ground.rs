//! Grounding: every tool a draft names is looked up among the tools discovered over a live
//! MCP connection, and every argument set is checked against that tool's input schema;
//! then the draft becomes a persisted-shape [`EvalCase`] with its claim and provenance.
//!
//! Claims, strongest finding first:
//! - `unresolved`: a named tool (in a `toolCall` step, an expectation, or any tool-naming
//!   field of a copied assertion: `toolName`, `beforeToolName`, `toolNames`, …) is not
//!   offered by the target, or its arguments name parameters the tool's schema lacks, have
//!   the wrong JSON type, or (for a `toolCall` step, which must run as written, and a
//!   `toolCalledWith` matched `exact`ly) miss required ones.
//! - `unsupported`: the source states behaviour no step or assertion can express.
//! - `approximated`: the author interpreted wording, or a tool name was mapped to the
//!   live one by spelling (`get_sum` → `get-sum`, `demo.get-sum`, `mcp__demo__get-sum`);
//!   the live name is then what the case's steps and assertions hold.
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
    s.trim().to_lowercase().replace(['_', ' ', '-'], "")
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

/// What the tool's input schema (validated with `jsonschema`) says against argument values
/// that [`check_args`] finds no fault with (ranges, lengths, patterns, enums, formats…),
/// each `` `tool` argument /pointer: message``. Missing parameters are not reported when
/// the match is partial; a schema that cannot be compiled reports nothing.
pub fn schema_violations(
    tool: &ToolItem,
    args: &Map<String, Value>,
    need_required: bool,
) -> Vec<String> {
    let Some(schema) = tool.input_schema.as_ref() else {
        return Vec::new();
    };
    // Arguments check_args already faults (unknown name, wrong type) are not said twice.
    let props = schema.get("properties").and_then(Value::as_object);
    let flagged = |key: &str| {
        props.is_some_and(|p| {
            p.get(key)
                .is_none_or(|s| args.get(key).is_some_and(|v| !type_ok(s, v)))
        })
    };
    let schema = if need_required {
        std::borrow::Cow::Borrowed(schema)
    } else {
        let mut partial = schema.clone();
        if let Some(o) = partial.as_object_mut() {
            o.remove("required");
        }
        std::borrow::Cow::Owned(partial)
    };
    crate::service::evals::schema::validate(&schema, &Value::Object(args.clone()))
        .into_iter()
        .filter(|v| {
            // Root errors (unknown or missing names) are check_args' to report.
            let Some(rest) = v.strip_prefix('/') else {
                return false;
            };
            let key = rest.split(['/', ':']).next().unwrap_or_default();
            !key.is_empty() && !flagged(key)
        })
        .map(|v| format!("`{}` argument {v}", tool.name))
        .collect()
}

fn assertion(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// Whether an assertion key names one tool (`toolName`, `beforeToolName`, …).
fn names_a_tool(key: &str) -> bool {
    key == "toolName" || key.ends_with("ToolName")
}

/// Whether an assertion key names a list of tools (`toolNames`, …).
fn names_tools(key: &str) -> bool {
    key == "toolNames" || key.ends_with("ToolNames")
}

/// Grounds an assertion copied from the source: every tool it names is resolved against
/// the live tools and the resolved name written back (so a case mapped from `get_sum` to
/// `get-sum` can pass), and `toolCalledWith`-style expected arguments (`args.args`) are
/// checked against the tool's input schema; with `argumentMatching: exact` the required
/// parameters must be there too, since the call could never match otherwise.
fn ground_assertion(
    a: &mut Map<String, Value>,
    resolve: &mut impl FnMut(&str, Option<&Map<String, Value>>, bool) -> (String, Option<String>),
) {
    let expected_args = a
        .get("args")
        .and_then(|v| v.get("args"))
        .and_then(Value::as_object)
        .cloned();
    let exact = a
        .get("args")
        .and_then(|v| v.get("argumentMatching"))
        .and_then(Value::as_str)
        == Some("exact");
    let keys: Vec<String> = a.keys().cloned().collect();
    for k in keys {
        if names_a_tool(&k) {
            let Some(name) = a
                .get(&k)
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
            else {
                continue;
            };
            let args = (k == "toolName")
                .then_some(expected_args.as_ref())
                .flatten();
            let (resolved, _) = resolve(&name, args, exact && args.is_some());
            a.insert(k, Value::String(resolved));
        } else if names_tools(&k)
            && let Some(Value::Array(items)) = a.get_mut(&k)
        {
            for item in items.iter_mut() {
                if let Some(name) = item.as_str().filter(|n| !n.is_empty()).map(str::to_string) {
                    let (resolved, _) = resolve(&name, None, false);
                    *item = Value::String(resolved);
                }
            }
        }
    }
}

/// Builds the case a draft describes, grounded in the discovered tools.
pub fn build_case(d: &Draft, id: &str, ctx: &CaseContext) -> EvalCase {
    let mut unresolved: Vec<String> = Vec::new();
    let mut mapped: Vec<String> = Vec::new();
    // Argument values the tool's schema rejects: the case is kept, the claim is not exact.
    let mut violations: Vec<String> = Vec::new();
    let mut resolve = |name: &str,
                       args: Option<&Map<String, Value>>,
                       required: bool|
     -> (String, Option<String>) {
        match find(ctx.tools, name) {
            Found::Exact(t) | Found::Mapped(t) => {
                let note = format!("`{name}` mapped to the live tool `{}`", t.tool.name);
                if t.tool.name != name && !mapped.contains(&note) {
                    mapped.push(note);
                }
                if let Some(a) = args {
                    unresolved.extend(check_args(&t.tool, a, required));
                    for v in schema_violations(&t.tool, a, required) {
                        if !violations.contains(&v) {
                            violations.push(v);
                        }
                    }
                } else if required {
                    unresolved.extend(check_args(&t.tool, &Map::new(), true));
                }
                (t.tool.name.clone(), Some(t.server_name.clone()))
            }
            Found::Missing => {
                let offered: Vec<&str> = ctx.tools.iter().map(|t| t.tool.name.as_str()).collect();
                let note = format!(
                    "tool `{name}` is not offered by the target ({})",
                    if offered.is_empty() {
                        "it lists no tools".to_string()
                    } else {
                        format!("tools: {}", offered.join(", "))
                    }
                );
                if !unresolved.contains(&note) {
                    unresolved.push(note);
                }
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
        let mut a = assertion(raw.clone());
        ground_assertion(&mut a, &mut resolve);
        asserts.push(a);
    }
    for (i, a) in asserts.into_iter().enumerate() {
        steps.push(EvalTestStep::new_assert(format!("assert-{}", i + 1), a));
    }

    let mut status = if !d.unsupported.is_empty() {
        ClaimStatus::Unsupported
    } else if d.notes.is_empty()
        && d.exact_rule.is_some()
        && mapped.is_empty()
        && violations.is_empty()
    {
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
            .chain(&violations)
            .chain(&mapped)
            .chain(&d.notes)
            .cloned()
            .collect::<Vec<_>>()
            .join("; "),
    };
    let note = (!note.is_empty()).then(|| truncate(&note, MAX_CLAIM_NOTE));
    let (s, e) = (d.start_line.max(1), d.end_line.max(d.start_line.max(1)));
    let text = ctx.ix.text();
    let excerpt = match d.excerpt_range {
        Some((a, b))
            if a < b && b <= text.len() && text.is_char_boundary(a) && text.is_char_boundary(b) =>
        {
            &text[a..b]
        }
        _ => ctx.ix.excerpt(s, e),
    };
    let mut case = EvalCase::new(id, truncate(&d.title, 500), steps);
    case.is_negative = d.negative;
    case.expected_output = d.expected_output.clone().filter(|o| !o.is_empty());
    if let Some(n) = d.iterations {
        case.iterations = n;
    }
    case.scenario = d.scenario.clone().filter(|s| !s.trim().is_empty());
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

/// Re-grounds a case a person edited (the review form saving a draft): every tool its
/// steps and assertions name is resolved against the discovered tools (rewritten to the
/// live name when spelled differently), arguments are checked against the input schemas,
/// and the claim is recomputed: `unresolved` when a tool or an argument does not resolve,
/// `unsupported` when it was and still has a note saying so, else `approximated` (an edit
/// made in review is no structural one-to-one mapping). Provenance (`source`) is kept.
pub fn reground_case(case: &mut EvalCase, tools: &[DiscoveredTool]) {
    let mut unresolved: Vec<String> = Vec::new();
    let mut mapped: Vec<String> = Vec::new();
    let mut violations: Vec<String> = Vec::new();
    let mut resolve = |name: &str,
                       args: Option<&Map<String, Value>>,
                       required: bool|
     -> (String, Option<String>) {
        match find(tools, name) {
            Found::Exact(t) | Found::Mapped(t) => {
                if t.tool.name != name {
                    let note = format!("`{name}` mapped to the live tool `{}`", t.tool.name);
                    if !mapped.contains(&note) {
                        mapped.push(note);
                    }
                }
                let a = args.cloned().unwrap_or_default();
                if args.is_some() || required {
                    for i in check_args(&t.tool, &a, required) {
                        if !unresolved.contains(&i) {
                            unresolved.push(i);
                        }
                    }
                    for v in schema_violations(&t.tool, &a, required) {
                        if !violations.contains(&v) {
                            violations.push(v);
                        }
                    }
                }
                (t.tool.name.clone(), Some(t.server_name.clone()))
            }
            Found::Missing => {
                let note = format!("tool `{name}` is not offered by the target");
                if !unresolved.contains(&note) {
                    unresolved.push(note);
                }
                (name.to_string(), None)
            }
        }
    };
    for step in &mut case.steps {
        match step.kind {
            crate::spec::case::StepKind::ToolCall => {
                if let Some(name) = step.tool_name.clone() {
                    let args = step.arguments.clone().unwrap_or_default();
                    let (live, server) = resolve(&name, Some(&args), true);
                    step.tool_name = Some(live);
                    if server.is_some() {
                        step.server_name = server;
                    }
                }
            }
            crate::spec::case::StepKind::Assert => {
                if let Some(a) = step.assertion.as_mut() {
                    ground_assertion(a, &mut resolve);
                }
            }
            _ => {}
        }
    }
    let was_unsupported = case
        .import
        .as_ref()
        .is_some_and(|c| c.status == ClaimStatus::Unsupported);
    let status = if !unresolved.is_empty() {
        ClaimStatus::Unresolved
    } else if was_unsupported {
        ClaimStatus::Unsupported
    } else {
        ClaimStatus::Approximated
    };
    let mut notes: Vec<String> = unresolved;
    if was_unsupported && let Some(n) = case.import.as_ref().and_then(|c| c.note.clone()) {
        notes.push(n);
    }
    notes.extend(violations);
    notes.extend(mapped);
    notes.push("edited in review; re-grounded against the discovered tools".into());
    let key = case.import.as_ref().and_then(|c| c.source_case_key.clone());
    case.import = Some(EvalCaseImportClaim {
        status,
        source_case_key: key,
        note: Some(truncate(&notes.join("; "), MAX_CLAIM_NOTE)),
    });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::authoring::draft::ExpectedCall;

    fn tool(name: &str, schema: Value) -> DiscoveredTool {
        DiscoveredTool {
            server_id: "srv_1".into(),
            server_name: "demo".into(),
            tool: serde_json::from_value(json!({"name": name, "inputSchema": schema})).unwrap(),
        }
    }

    fn live() -> Vec<DiscoveredTool> {
        vec![
            tool(
                "get-sum",
                json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
            ),
            tool(
                "echo",
                json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}),
            ),
            tool(
                "list-items",
                json!({"type": "object", "properties": {"pageSize": {"type": "integer", "minimum": 1}}}),
            ),
        ]
    }

    fn built(d: &Draft) -> EvalCase {
        let text = "line one\nline two\n";
        let ix = LineIndex::new(text);
        let tools = live();
        let ctx = CaseContext {
            file_name: "plan.json",
            file_hash: "00",
            ix: &ix,
            extractor_version: "test/1",
            models: &[],
            tools: &tools,
        };
        build_case(d, "drf_1", &ctx)
    }

    fn draft(assertions: Vec<Value>) -> Draft {
        Draft {
            title: "t".into(),
            prompts: vec!["What is 2 + 3?".into()],
            assertions,
            start_line: 1,
            end_line: 2,
            exact_rule: Some("json: evaldeck steps copied one-to-one".into()),
            ..Draft::default()
        }
    }

    fn asserted(c: &EvalCase) -> Vec<Value> {
        c.steps
            .iter()
            .filter_map(|s| s.assertion.clone().map(Value::Object))
            .collect()
    }

    fn claim(c: &EvalCase) -> (ClaimStatus, String) {
        let i = c.import.as_ref().unwrap();
        (i.status, i.note.clone().unwrap_or_default())
    }

    #[test]
    fn mapped_names_are_written_into_every_tool_field() {
        let c = built(&draft(vec![
            json!({"type": "toolCalledAtLeastOnce", "toolName": "get_sum"}),
            json!({"type": "toolCalledBefore", "toolName": "demo.list_items", "beforeToolName": "GET_SUM"}),
            json!({"type": "onlyToolsCalled", "toolNames": ["get_sum", "mcp__demo__echo"]}),
            json!({"type": "firstToolWas", "toolName": "get sum"}),
            json!({"type": "toolNeverCalled", "toolName": "list_items"}),
            json!({"type": "toolResultContains", "needle": "5", "toolName": "get_sum"}),
            json!({"type": "toolCalledBefore", "toolName": "echo", "afterToolName": "list_items"}),
            json!({"type": "responseContains", "needle": "5"}),
        ]));
        let a = asserted(&c);
        assert_eq!(a[0]["toolName"], "get-sum");
        assert_eq!(a[1]["toolName"], "list-items");
        assert_eq!(a[1]["beforeToolName"], "get-sum");
        assert_eq!(a[2]["toolNames"], json!(["get-sum", "echo"]));
        assert_eq!(a[3]["toolName"], "get-sum");
        assert_eq!(a[4]["toolName"], "list-items");
        assert_eq!(a[5]["toolName"], "get-sum");
        assert_eq!(a[6]["afterToolName"], "list-items");
        assert_eq!(a[7], json!({"type": "responseContains", "needle": "5"}));
        let (status, note) = claim(&c);
        assert_eq!(status, ClaimStatus::Approximated, "{note}");
        assert!(
            note.contains("`get_sum` mapped to the live tool `get-sum`"),
            "{note}"
        );
        // Each mapping is said once, however often the name occurs.
        assert_eq!(note.matches("`get_sum` mapped").count(), 1, "{note}");
    }

    #[test]
    fn exact_names_stay_exact() {
        let c = built(&draft(vec![
            json!({"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 2, "b": 3}}}),
            json!({"type": "onlyToolsCalled", "toolNames": ["get-sum"]}),
        ]));
        assert_eq!(claim(&c).0, ClaimStatus::Exact);
    }

    #[test]
    fn an_unknown_name_in_any_tool_field_is_unresolved() {
        for a in [
            json!({"type": "toolCalledAtLeastOnce", "toolName": "sum"}),
            json!({"type": "toolCalledBefore", "toolName": "get-sum", "beforeToolName": "sum"}),
            json!({"type": "onlyToolsCalled", "toolNames": ["get-sum", "sum"]}),
            json!({"type": "toolLatencyUnder", "ms": 100, "toolName": "sum"}),
        ] {
            let c = built(&draft(vec![a.clone()]));
            let (status, note) = claim(&c);
            assert_eq!(status, ClaimStatus::Unresolved, "{a}");
            assert!(note.contains("tool `sum` is not offered"), "{note}");
            // The name the source gave is kept when nothing resolves it.
            assert!(asserted(&c)[0].to_string().contains("\"sum\""));
        }
    }

    #[test]
    fn called_with_arguments_are_checked_against_the_schema() {
        // A parameter the tool lacks, and one of the wrong type.
        for (args, want) in [
            (
                json!({"a": 2, "c": 3}),
                "`c` is not a parameter of `get-sum`",
            ),
            (json!({"a": "two", "b": 3}), "`a` of `get-sum` must be"),
        ] {
            let c = built(&draft(vec![
                json!({"type": "toolCalledWith", "toolName": "get_sum", "args": {"args": args}}),
            ]));
            let (status, note) = claim(&c);
            assert_eq!(status, ClaimStatus::Unresolved);
            assert!(note.contains(want), "{note}");
            assert_eq!(asserted(&c)[0]["toolName"], "get-sum");
        }
        // Partial matching needs no required parameter; exact matching does.
        let partial = built(&draft(vec![
            json!({"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 2}, "argumentMatching": "partial"}}),
        ]));
        assert_eq!(claim(&partial).0, ClaimStatus::Exact);
        let exact = built(&draft(vec![
            json!({"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 2}, "argumentMatching": "exact"}}),
        ]));
        let (status, note) = claim(&exact);
        assert_eq!(status, ClaimStatus::Unresolved);
        assert!(note.contains("`get-sum` needs `b`"), "{note}");
    }

    #[test]
    fn argument_values_are_validated_against_the_schema() {
        let c = built(&draft(vec![
            json!({"type": "toolCalledWith", "toolName": "list-items", "args": {"args": {"pageSize": 0}}}),
        ]));
        let (status, note) = claim(&c);
        assert_eq!(status, ClaimStatus::Approximated, "{note}");
        assert!(note.contains("`list-items` argument /pageSize"), "{note}");
        assert!(note.contains("minimum"), "{note}");
        let ok = built(&draft(vec![
            json!({"type": "toolCalledWith", "toolName": "list-items", "args": {"args": {"pageSize": 3}}}),
        ]));
        assert_eq!(claim(&ok).0, ClaimStatus::Exact);
        // A wrong type is said once, as before.
        let c = built(&draft(vec![
            json!({"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": "two"}}}),
        ]));
        let note = claim(&c).1;
        assert!(!note.contains("argument /a"), "{note}");
    }

    #[test]
    fn steps_and_expectations_carry_the_live_name() {
        let mut d = draft(vec![]);
        d.prompts.clear();
        d.tool_call = Some(ExpectedCall {
            tool: "ECHO".into(),
            args: Some(json!({"message": "hi"}).as_object().unwrap().clone()),
        });
        let c = built(&d);
        assert_eq!(c.steps[0].tool_name.as_deref(), Some("echo"));
        assert_eq!(c.steps[0].server_name.as_deref(), Some("demo"));

        let mut d = draft(vec![]);
        d.expected_calls = vec![ExpectedCall {
            tool: "get_sum".into(),
            args: Some(json!({"a": 1}).as_object().unwrap().clone()),
        }];
        d.never_called = vec!["list_items".into()];
        let c = built(&d);
        let a = asserted(&c);
        assert_eq!(a[0]["toolName"], "get-sum");
        assert_eq!(a[1]["toolName"], "list-items");
        assert_eq!(claim(&c).0, ClaimStatus::Approximated);
    }
}
