//! Check resolution, roles and the verdict of one iteration, with the expected-versus-actual
//! analysis the trace shows. Pure: grading reads only a stored transcript, the case and the
//! declarations, so a regrade gives the same verdicts without calling anything.
//!
//! Standard checks: a suite's `standardChecks` ids, minus the case's
//! `suppressedSuiteStandardCheckIds`, expand to assertions by [`STANDARD_CHECKS`]:
//!
//! | id | assertions |
//! |---|---|
//! | discovery.description | toolDescriptionsPresent |
//! | discovery.annotations | toolAnnotationsPresent (require readOnlyHint, destructiveHint) |
//! | discovery.collisions | toolNamesUnique |
//! | discovery.deprecated | noDeprecatedToolExposed, noDeprecatedToolCalled |
//! | call.schema | toolInputSchemasWellFormed, argumentsMatchToolSchema |
//! | response.schema | toolOutputSchemasPresent, each structured result against its tool's declared outputSchema |
//! | selection.hops | toolCallCountUnder 8 |
//! | call.parameters | toolErrorNamesInput |
//! | call.repeated | noRepeatedIdenticalCall |
//! | response.performance | toolLatencyUnder 5000 ms |
//! | response.size | toolResultSizeUnder 65536 bytes |
//! | response.errors | noToolErrors |
//! | response.recovery | finalAssistantMessageNonEmpty (after tool errors the agent still answers) |
//! | response.pagination | fullPageHasContinuation |
//! | userValue.turns | turnCountUnder 8, noEndingQuestion |
//!
//! Standard-check assertions are `advisory`: they report on quality across every case but
//! do not decide a case unless the case lists the assertion itself.
//!
//! Resolution with the case's `checks`: `inherit` (or no `checks`) keeps the standard
//! assertions and also evaluates any listed ones; `extend` adds the list, and a listed
//! assertion replaces the standard ones of the same `type` (to tighten a threshold);
//! `replace` drops the standard assertions. Step (`assert`) assertions are always kept and
//! see only the transcript before their step.
//!
//! Roles: an assertion without `role` is `gating` (observation kinds must say `advisory`).
//! `advisory` never changes a verdict. A `gating` failure or evaluator error fails the
//! iteration. A `required` failure or error fails the iteration and the whole case,
//! whatever its pass threshold. `severity: "warn"` turns a gating or required failure into
//! a warning that does not fail anything. `isNegative` adds a gating "no tool is called"
//! check. The judge's `failed` is gating; `skipped` changes nothing.
//!
//! Widgets: an `interact` step is a gating result (passed when its action was performed);
//! DOM widget assertions use the verdict the runner took on the live view; the three widget
//! types read the recorded views. All of them carry `regradable: false`, and a regrade
//! ([`regrade`]) leaves them `undecided` (never gating) instead of judging them again.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::assertions::{self, Evidence, Outcome, Status, args_match};
use super::transcript::{Declarations, Transcript};
use crate::service::widgets::dom;
use crate::spec::assertion::EvalAssertion;
use crate::spec::case::{CheckMode, EvalCase, StepKind};

/// Default thresholds of the standard checks.
pub const HOPS: u64 = 8;
pub const LATENCY_MS: u64 = 5000;
pub const RESULT_BYTES: u64 = 65_536;
pub const TURNS: u64 = 8;

/// Each standard check id with the assertions it stands for.
pub fn standard_check(id: &str) -> Vec<EvalAssertion> {
    let a = |t: &str| EvalAssertion::new(t).with("role", "advisory");
    match id {
        "discovery.description" => vec![a("toolDescriptionsPresent")],
        "discovery.annotations" => vec![
            a("toolAnnotationsPresent").with("require", json!(["readOnlyHint", "destructiveHint"])),
        ],
        "discovery.collisions" => vec![a("toolNamesUnique")],
        "discovery.deprecated" => vec![a("noDeprecatedToolExposed"), a("noDeprecatedToolCalled")],
        "call.schema" => vec![
            a("toolInputSchemasWellFormed"),
            a("argumentsMatchToolSchema"),
        ],
        "response.schema" => vec![a("toolOutputSchemasPresent"), a("declaredOutputSchema")],
        "selection.hops" => vec![a("toolCallCountUnder").with("count", HOPS)],
        "call.parameters" => vec![a("toolErrorNamesInput")],
        "call.repeated" => vec![a("noRepeatedIdenticalCall")],
        "response.performance" => vec![a("toolLatencyUnder").with("ms", LATENCY_MS)],
        "response.size" => vec![a("toolResultSizeUnder").with("maxBytes", RESULT_BYTES)],
        "response.errors" => vec![a("noToolErrors")],
        "response.recovery" => vec![a("finalAssistantMessageNonEmpty")],
        "response.pagination" => vec![a("fullPageHasContinuation")],
        "userValue.turns" => vec![
            a("turnCountUnder").with("turns", TURNS),
            a("noEndingQuestion"),
        ],
        _ => Vec::new(),
    }
}

/// The ids in the table, for documentation and tests.
pub const STANDARD_CHECKS: &[&str] = crate::spec::case::STANDARD_CHECK_IDS;

/// One assertion to evaluate, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// `standard:<id>`, `case`, `step:<stepId>`, `negative`.
    pub source: String,
    pub assertion: EvalAssertion,
    /// Index into the transcript's steps: evaluated over the transcript before it.
    pub step: Option<usize>,
}

/// The effective role (see the module docs).
pub fn role(a: &EvalAssertion) -> &str {
    match a.role() {
        Some(r) => r,
        None if a.is_observation() => "advisory",
        None => "gating",
    }
}

/// The assertions a case is graded by.
pub fn resolve(case: &EvalCase, standard_ids: &[String]) -> Vec<Resolved> {
    let mut standard: Vec<Resolved> = standard_ids
        .iter()
        .filter(|id| !case.suppressed_suite_standard_check_ids.contains(id))
        .flat_map(|id| {
            standard_check(id).into_iter().map(move |a| Resolved {
                source: format!("standard:{id}"),
                assertion: a,
                step: None,
            })
        })
        .collect();
    let listed: Vec<Resolved> = case
        .checks
        .iter()
        .flat_map(|c| c.list.iter())
        .map(|a| Resolved {
            source: "case".into(),
            assertion: a.clone(),
            step: None,
        })
        .collect();
    let mode = case
        .checks
        .as_ref()
        .map(|c| c.mode)
        .unwrap_or(CheckMode::Inherit);
    match mode {
        CheckMode::Inherit => {}
        CheckMode::Extend => standard.retain(|s| {
            !listed
                .iter()
                .any(|l| l.assertion.kind() == s.assertion.kind())
        }),
        CheckMode::Replace => standard.clear(),
    }
    let mut out = standard;
    out.extend(listed);
    for (i, s) in case.steps.iter().enumerate() {
        if s.kind == StepKind::Assert
            && let Some(a) = &s.assertion
        {
            out.push(Resolved {
                source: format!("step:{}", s.id),
                assertion: EvalAssertion(Value::Object(a.clone())),
                step: Some(i),
            });
        }
    }
    if case.is_negative {
        out.push(Resolved {
            source: "negative".into(),
            assertion: EvalAssertion::new("toolCallCountUnder")
                .with("count", 1)
                .with("role", "gating"),
            step: None,
        });
    }
    out
}

/// One assertion's result in the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertionResult {
    pub source: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    /// `passed`, `failed`, `warned` (a failure downgraded by `severity: warn`), `error`, or
    /// `undecided` (a widget result a regrade could not judge again).
    pub status: String,
    /// Whether this result fails the iteration.
    pub gating: bool,
    pub assertion: Value,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// `false` for results judged on a live widget view; absent (true) otherwise.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub regradable: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A widget result a regrade leaves open.
fn undecided(source: String, a: &EvalAssertion) -> AssertionResult {
    let mut r = result(
        source,
        a,
        Outcome {
            status: Status::Error,
            expected: Value::Null,
            actual: Value::Null,
            message: format!("`{}` {UNDECIDED}", a.kind().unwrap_or_default()),
        },
    );
    r.status = "undecided".into();
    r.gating = false;
    r
}

/// The categorised difference between expected and actual tool calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallDiff {
    pub missing: Vec<Value>,
    pub extra: Vec<Value>,
    pub out_of_order: Vec<Value>,
    pub argument_mismatch: Vec<Value>,
}

/// An iteration's grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grade {
    pub passed: bool,
    /// A `required` assertion failed: the case fails whatever its threshold.
    pub required_failed: bool,
    pub assertions: Vec<AssertionResult>,
    pub expected_tool_calls: Vec<Value>,
    pub diff: ToolCallDiff,
    pub counts: Value,
}

/// An expected call: from `toolCall` steps and the explicit assertions naming tools.
fn expected_calls(case: &EvalCase, resolved: &[Resolved]) -> Vec<(String, Option<Value>, String)> {
    let mut out: Vec<(String, Option<Value>, String)> = Vec::new();
    let mut push = |name: &str, args: Option<Value>, matching: &str| {
        if name.is_empty() {
            return;
        }
        match out.iter_mut().find(|(n, _, _)| n == name) {
            Some(e) if e.1.is_none() && args.is_some() => {
                e.1 = args;
                e.2 = matching.into();
            }
            Some(_) => {}
            None => out.push((name.into(), args, matching.into())),
        }
    };
    for s in &case.steps {
        if s.kind == StepKind::ToolCall {
            push(
                s.tool_name.as_deref().unwrap_or_default(),
                s.arguments.clone().map(Value::Object),
                "exact",
            );
        }
    }
    for r in resolved
        .iter()
        .filter(|r| !r.source.starts_with("standard:"))
    {
        let a = &r.assertion;
        match a.kind().unwrap_or_default() {
            "toolCalledWith" => {
                let args = a.get("args");
                let matching = args
                    .and_then(|x| x["argumentMatching"].as_str())
                    .unwrap_or("partial");
                push(
                    a.tool_name().unwrap_or_default(),
                    (matching != "ignore")
                        .then(|| args.map(|x| x["args"].clone()))
                        .flatten(),
                    matching,
                );
            }
            "toolCalledAtLeastOnce" | "firstToolWas" => {
                push(a.tool_name().unwrap_or_default(), None, "ignore")
            }
            "toolCalledBefore" => {
                push(a.tool_name().unwrap_or_default(), None, "ignore");
                push(a.str("beforeToolName").unwrap_or_default(), None, "ignore");
            }
            _ => {}
        }
    }
    out
}

fn diff(
    expected: &[(String, Option<Value>, String)],
    t: &Transcript,
    negative: bool,
) -> ToolCallDiff {
    let mut d = ToolCallDiff::default();
    let actual: Vec<&str> = t.calls.iter().map(|c| c.tool_name.as_str()).collect();
    for (name, args, matching) in expected {
        let calls: Vec<_> = t.calls.iter().filter(|c| &c.tool_name == name).collect();
        if calls.is_empty() {
            d.missing.push(json!({"toolName": name, "arguments": args}));
        } else if let Some(want) = args
            && !calls
                .iter()
                .any(|c| args_match(matching, want, &c.arguments))
        {
            d.argument_mismatch.push(json!({
                "toolName": name, "expected": want, "argumentMatching": matching,
                "actual": calls.iter().map(|c| &c.arguments).collect::<Vec<_>>(),
            }));
        }
    }
    if !expected.is_empty() || negative {
        for (i, c) in t.calls.iter().enumerate() {
            if !expected.iter().any(|(n, _, _)| n == &c.tool_name)
                && !actual[..i].contains(&c.tool_name.as_str())
            {
                d.extra
                    .push(json!({"toolName": c.tool_name, "arguments": c.arguments}));
            }
        }
    }
    // Expected tools that were called, in expected order, against the order of their first
    // actual calls.
    let present: Vec<&str> = expected
        .iter()
        .map(|(n, _, _)| n.as_str())
        .filter(|n| actual.contains(n))
        .collect();
    let mut by_actual = present.clone();
    by_actual.sort_by_key(|n| actual.iter().position(|a| a == n));
    for (i, n) in present.iter().enumerate() {
        let j = by_actual.iter().position(|x| x == n).unwrap_or(i);
        if i != j {
            d.out_of_order
                .push(json!({"toolName": n, "expectedPosition": i + 1, "actualPosition": j + 1}));
        }
    }
    d
}

/// Evidence of the transcript before step `step` (or all of it).
/// The views opened before the `calls_end`-th call finished (they open in call order).
fn scoped(
    views: &[crate::service::widgets::ViewRecord],
    calls_end: usize,
) -> &[crate::service::widgets::ViewRecord] {
    let n = views
        .iter()
        .take_while(|v| v.calls_before < calls_end)
        .count();
    &views[..n]
}

fn evidence<'a>(
    t: &'a Transcript,
    step: Option<usize>,
    decl: Option<&'a Declarations>,
) -> Evidence<'a> {
    let prior = step
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| t.steps.get(i));
    match (step, prior) {
        (Some(_), Some(p)) => Evidence {
            messages: &t.messages[..p.messages_end.min(t.messages.len())],
            calls: &t.calls[..p.calls_end.min(t.calls.len())],
            usage: p.usage_end,
            turns: p.turns_end,
            declarations: decl,
            widgets: scoped(&t.widgets, p.calls_end),
        },
        (Some(_), None) => Evidence {
            messages: &[],
            calls: &[],
            usage: Default::default(),
            turns: 0,
            declarations: decl,
            widgets: &[],
        },
        _ => Evidence {
            messages: &t.messages,
            calls: &t.calls,
            usage: t.usage,
            turns: t.turns,
            declarations: decl,
            widgets: &t.widgets,
        },
    }
}

/// `toolResultMatchesSchema` against each called tool's declared `outputSchema`.
fn declared_output_schema(ev: &Evidence<'_>) -> Outcome {
    let Some(d) = ev.declarations else {
        return Outcome {
            status: Status::Error,
            expected: Value::Null,
            actual: Value::Null,
            message: "no raw tool declarations were captured; discovery evidence is missing".into(),
        };
    };
    let mut bad = Vec::new();
    for c in ev.calls {
        let (Some(t), Some(r)) = (d.find(&c.tool_name), &c.result) else {
            continue;
        };
        if let (Some(s), Some(sc)) = (t.get("outputSchema"), r.get("structuredContent"))
            && r["isError"] != true
        {
            let v = super::schema::validate(s, sc);
            if !v.is_empty() {
                bad.push(json!({"toolName": c.tool_name, "violations": v}));
            }
        }
    }
    Outcome {
        status: if bad.is_empty() {
            Status::Passed
        } else {
            Status::Failed
        },
        expected: json!("structured results valid against the declared outputSchema"),
        actual: json!({"mismatches": bad}),
        message: format!(
            "{} structured result(s) do not match their schema",
            bad.len()
        ),
    }
}

/// Grades one iteration as it ran.
pub fn grade(
    case: &EvalCase,
    standard_ids: &[String],
    t: &Transcript,
    decl: Option<&Declarations>,
) -> Grade {
    grade_as(case, standard_ids, t, decl, false)
}

/// Grades a stored iteration again: what needed a live view is left `undecided`.
pub fn regrade(
    case: &EvalCase,
    standard_ids: &[String],
    t: &Transcript,
    decl: Option<&Declarations>,
) -> Grade {
    grade_as(case, standard_ids, t, decl, true)
}

/// The message of a widget result a regrade cannot judge.
const UNDECIDED: &str = "was judged on a live widget view, which a regrade cannot see again; it is left undecided (see the run's original verdict)";

/// The verdict the runner took on the live view at step `step_id`.
fn live(t: &Transcript, step_id: &str) -> Outcome {
    t.live
        .iter()
        .find(|l| l.step_id == step_id)
        .map(|l| l.outcome.clone())
        .unwrap_or_else(|| Outcome {
            status: Status::Error,
            expected: Value::Null,
            actual: Value::Null,
            message: format!(
                "step `{step_id}` was not reached, so nothing was checked on the view"
            ),
        })
}

fn grade_as(
    case: &EvalCase,
    standard_ids: &[String],
    t: &Transcript,
    decl: Option<&Declarations>,
    again: bool,
) -> Grade {
    let resolved = resolve(case, standard_ids);
    let mut results = Vec::new();
    let step_id = |i: Option<usize>| i.and_then(|i| case.steps.get(i)).map(|s| s.id.as_str());
    for r in &resolved {
        let kind = r.assertion.kind().unwrap_or_default();
        let widget = dom::is_widget_type(kind);
        let mut res = if widget && again {
            undecided(r.source.clone(), &r.assertion)
        } else {
            let ev = evidence(t, r.step, decl);
            let outcome = if kind == "declaredOutputSchema" {
                declared_output_schema(&ev)
            } else if dom::DOM_TYPES.contains(&kind) {
                live(t, step_id(r.step).unwrap_or_default())
            } else {
                assertions::evaluate(&r.assertion, &ev)
            };
            result(r.source.clone(), &r.assertion, outcome)
        };
        res.regradable = !widget;
        results.push(res);
    }
    for s in case.steps.iter().filter(|s| s.kind == StepKind::Interact) {
        let a = EvalAssertion::new("interact").with("role", "gating");
        let mut res = if again {
            undecided(format!("step:{}", s.id), &a)
        } else {
            let mut o = live(t, &s.id);
            o.expected = json!({"action": s.action});
            result(format!("step:{}", s.id), &a, o)
        };
        res.regradable = false;
        results.push(res);
    }
    if let Some(j) = &t.judge {
        let status = match j.status.as_str() {
            "passed" => Status::Passed,
            "failed" => Status::Failed,
            _ => Status::Passed,
        };
        let mut r = result(
            "judge".into(),
            &EvalAssertion::new("goalCompletion").with("role", "gating"),
            Outcome {
                status,
                expected: json!({"goal": case.expected_output}),
                actual: json!({"judge": j}),
                message: j.reason.clone(),
            },
        );
        if j.status == "skipped" {
            r.status = "skipped".into();
            r.gating = false;
        }
        results.push(r);
    }
    let expected = expected_calls(case, &resolved);
    let d = diff(&expected, t, case.is_negative);
    let failing = results.iter().any(|r| r.gating);
    let required_failed = results.iter().any(|r| r.gating && r.role == "required");
    let count = |s: &str| results.iter().filter(|r| r.status == s).count();
    let counts = json!({
        "passed": count("passed"), "failed": count("failed"), "warned": count("warned"),
        "error": count("error"), "skipped": count("skipped"), "undecided": count("undecided"),
        "gatingFailures": results.iter().filter(|r| r.gating).count(),
    });
    Grade {
        passed: t.error.is_none() && !failing,
        required_failed,
        assertions: results,
        expected_tool_calls: expected
            .into_iter()
            .map(|(n, a, _)| match a {
                Some(a) => json!({"toolName": n, "arguments": a}),
                None => json!({"toolName": n}),
            })
            .collect(),
        diff: d,
        counts,
    }
}

fn result(source: String, a: &EvalAssertion, outcome: Outcome) -> AssertionResult {
    let role = role(a).to_string();
    let severity = a.severity().map(str::to_string);
    let warn = severity.as_deref() == Some("warn");
    let status = match outcome.status {
        Status::Passed => "passed",
        Status::Failed if warn && role != "advisory" => "warned",
        Status::Failed => "failed",
        Status::Error => "error",
    };
    let gating = role != "advisory"
        && match outcome.status {
            Status::Passed => false,
            Status::Failed => !warn,
            Status::Error => true,
        };
    AssertionResult {
        source,
        kind: a.kind().unwrap_or_default().to_string(),
        role,
        severity,
        status: status.into(),
        gating,
        assertion: a.0.clone(),
        outcome,
        regradable: true,
    }
}
