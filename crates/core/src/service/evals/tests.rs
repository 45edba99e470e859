//! Evaluator tests: for every assertion type a transcript that passes and one that fails;
//! roles and severity; check resolution; negative cases; in-place step assertions.

use serde_json::{Value, json};

use super::assertions::{Evidence, Status, evaluate};
use super::grade::{self, resolve, standard_check};
use super::transcript::{CallRecord, Declarations, DeclaredTool, StepRecord, Transcript};
use crate::service::models::{Message, Role};
use crate::service::widgets::{ConsoleEntry, ViewRecord};
use crate::spec::assertion::{ASSERTION_TYPES, EvalAssertion};
use crate::spec::case::{CheckMode, Checks, EvalCase, EvalTestStep, STANDARD_CHECK_IDS};
use crate::spec::run::Usage;

fn call(name: &str, args: Value, result: Value) -> CallRecord {
    CallRecord {
        id: format!("c_{name}"),
        step_id: "s1".into(),
        origin: "model".into(),
        tool_name: name.into(),
        server_id: Some("srv_1".into()),
        server_name: Some("demo".into()),
        arguments: args,
        is_error: result["isError"] == true,
        result_bytes: result.to_string().len() as u64,
        result: Some(result),
        error: None,
        transport_failed: false,
        events: vec![],
        latency_ms: 12.0,
    }
}

fn text(s: &str) -> Value {
    json!({"content": [{"type": "text", "text": s}]})
}

fn decl(tools: Value) -> Declarations {
    Declarations {
        tools: tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| DeclaredTool {
                server_id: "srv_1".into(),
                server_name: "demo".into(),
                tool: t.clone(),
            })
            .collect(),
        complete: true,
        errors: vec![],
    }
}

fn good_tools() -> Declarations {
    decl(json!([
        {"name": "search", "description": "Search the catalogue by query.",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "pageSize": {"type": "integer", "default": 2}}, "required": ["q"]},
         "outputSchema": {"type": "object", "properties": {"items": {"type": "array"}}},
         "annotations": {"readOnlyHint": true, "destructiveHint": false}},
        {"name": "fetch", "description": "Fetch one item by id.",
         "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
         "outputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": true, "destructiveHint": false}}
    ]))
}

fn bad_tools() -> Declarations {
    decl(json!([
        {"name": "purge", "description": "DEPRECATED: old", "inputSchema": {"type": "string", "required": ["x"]},
         "annotations": {"destructiveHint": true}},
        {"name": "purge", "inputSchema": {"type": "object"}},
        {"name": "search", "description": "Search things.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    ]))
}

struct T {
    messages: Vec<Message>,
    calls: Vec<CallRecord>,
    usage: Usage,
    turns: u32,
    decl: Declarations,
    widgets: Vec<ViewRecord>,
}

/// A view of `search` as the runtime records it: initialized in `ms`, with `errors`.
fn view(initialized: bool, ms: f64, errors: &[&str]) -> ViewRecord {
    ViewRecord {
        tool_name: "search".into(),
        resource_uri: "ui://shop/results".into(),
        initialized,
        render_latency_ms: initialized.then_some(ms),
        console: errors
            .iter()
            .map(|e| ConsoleEntry {
                level: "error".into(),
                source: "console".into(),
                text: e.to_string(),
                at_ms: 1.0,
            })
            .collect(),
        ..Default::default()
    }
}

impl T {
    fn ev(&self) -> Evidence<'_> {
        Evidence {
            messages: &self.messages,
            calls: &self.calls,
            usage: self.usage,
            turns: self.turns,
            declarations: Some(&self.decl),
            widgets: &self.widgets,
        }
    }
}

fn good() -> T {
    T {
        messages: vec![
            Message::new(Role::User, "find shoes"),
            Message::new(Role::Assistant, "Found 2 shoes: Red and Blue."),
        ],
        calls: vec![
            call(
                "search",
                json!({"q": "shoes", "pageSize": 2}),
                json!({"content": [{"type": "text", "text": "{\"items\": [1, 2]}"}],
                       "structuredContent": {"items": [1, 2], "nextCursor": "2"}}),
            ),
            call("fetch", json!({"id": "1"}), text("Red shoe")),
        ],
        usage: Usage {
            input_tokens: 50,
            output_tokens: 50,
            total_tokens: 100,
        },
        turns: 2,
        decl: good_tools(),
        widgets: vec![view(true, 40.0, &[])],
    }
}

fn bad() -> T {
    let mut err = call(
        "purge",
        json!({"id": 1}),
        json!({"content": [{"type": "text", "text": "something broke"}], "isError": true}),
    );
    err.latency_ms = 9000.0;
    err.result_bytes = 100_000;
    T {
        messages: vec![
            Message::new(Role::User, "find shoes"),
            Message::new(Role::Assistant, "Which color do you want?"),
            Message::new(Role::Assistant, ""),
        ],
        calls: vec![
            err.clone(),
            call(
                "search",
                json!({"q": "boots", "pageSize": 2}),
                json!({"structuredContent": {"items": [1, 2]}}),
            ),
            err,
        ],
        usage: Usage {
            input_tokens: 500,
            output_tokens: 500,
            total_tokens: 1000,
        },
        turns: 9,
        decl: bad_tools(),
        widgets: vec![view(false, 0.0, &["TypeError: rows is undefined"])],
    }
}

/// One assertion of each type that `good()` passes and `bad()` fails.
fn table() -> Vec<Value> {
    vec![
        json!({"type": "toolDescriptionsPresent", "role": "advisory", "minLength": 5}),
        json!({"type": "toolAnnotationsPresent", "role": "advisory", "require": ["readOnlyHint"]}),
        json!({"type": "toolNamesUnique", "role": "advisory"}),
        json!({"type": "noDeprecatedToolExposed", "role": "advisory"}),
        json!({"type": "toolInputSchemasWellFormed", "role": "advisory"}),
        json!({"type": "toolOutputSchemasPresent", "role": "advisory"}),
        json!({"type": "toolCalledWith", "toolName": "search", "args": {"args": {"q": "shoes"}}}),
        json!({"type": "toolCalledAtLeastOnce", "toolName": "fetch"}),
        json!({"type": "toolNeverCalled", "toolName": "fetch"}),
        json!({"type": "onlyToolsCalled", "toolNames": ["search", "fetch"]}),
        json!({"type": "firstToolWas", "toolName": "search"}),
        json!({"type": "responseContains", "needle": "red"}),
        json!({"type": "responseMatches", "pattern": "Found \\d+"}),
        json!({"type": "noToolErrors"}),
        json!({"type": "finalAssistantMessageNonEmpty"}),
        json!({"type": "tokenBudgetUnder", "tokens": 500}),
        json!({"type": "widgetRendered"}),
        json!({"type": "widgetRenderLatencyUnder", "ms": 100}),
        json!({"type": "widgetNoConsoleErrors"}),
        json!({"type": "turnCountUnder", "turns": 3}),
        json!({"type": "noEndingQuestion"}),
        json!({"type": "toolLatencyUnder", "ms": 1000}),
        json!({"type": "toolResultContains", "needle": "red shoe"}),
        json!({"type": "toolResultMatchesSchema", "toolName": "search", "schema": {"type": "object", "required": ["nextCursor"]}}),
        json!({"type": "toolResultSizeUnder", "maxBytes": 10000}),
        json!({"type": "argumentsMatchToolSchema"}),
        json!({"type": "noRepeatedIdenticalCall"}),
        json!({"type": "toolCallCountUnder", "count": 3}),
        json!({"type": "toolCalledBefore", "toolName": "search", "beforeToolName": "fetch"}),
        json!({"type": "noDeprecatedToolCalled"}),
        json!({"type": "noDestructiveToolCalled"}),
        json!({"type": "toolErrorNamesInput"}),
        json!({"type": "fullPageHasContinuation", "toolName": "search"}),
    ]
}

#[test]
fn every_type_has_a_passing_and_a_failing_transcript() {
    let t = table();
    let types: Vec<&str> = t.iter().map(|a| a["type"].as_str().unwrap()).collect();
    assert_eq!(
        types, ASSERTION_TYPES,
        "the table covers every type in order"
    );
    let (g, b) = (good(), bad());
    for a in &t {
        let a = EvalAssertion(a.clone());
        let kind = a.kind().unwrap();
        let on_good = evaluate(&a, &g.ev());
        let on_bad = evaluate(&a, &b.ev());
        // toolNeverCalled is the inverse: "fetch" is called in both transcripts.
        if kind == "toolNeverCalled" {
            assert_eq!(on_good.status, Status::Failed);
            let mut none = good();
            none.calls.retain(|c| c.tool_name != "fetch");
            assert_eq!(evaluate(&a, &none.ev()).status, Status::Passed);
            continue;
        }
        assert_eq!(
            on_good.status,
            Status::Passed,
            "{kind} on the good transcript: {on_good:?}"
        );
        assert_eq!(
            on_bad.status,
            Status::Failed,
            "{kind} on the bad transcript: {on_bad:?}"
        );
    }
}

#[test]
fn discovery_without_declarations_is_an_evaluator_error() {
    let g = good();
    let ev = Evidence {
        declarations: None,
        ..g.ev()
    };
    let a = EvalAssertion(json!({"type": "toolNamesUnique", "role": "advisory"}));
    let o = evaluate(&a, &ev);
    assert_eq!(o.status, Status::Error);
    assert!(o.message.contains("missing"));
    let incomplete = Declarations {
        complete: false,
        errors: vec!["`demo`: unreachable".into()],
        ..good_tools()
    };
    let ev = Evidence {
        declarations: Some(&incomplete),
        ..g.ev()
    };
    assert_eq!(evaluate(&a, &ev).status, Status::Error);
    let bad_pattern = EvalAssertion(json!({"type": "responseMatches", "pattern": "("}));
    assert_eq!(evaluate(&bad_pattern, &g.ev()).status, Status::Error);
    let unknown = EvalAssertion(json!({"type": "widgetVisible", "selector": "#x"}));
    assert_eq!(evaluate(&unknown, &g.ev()).status, Status::Error);
}

#[test]
fn argument_matching_modes() {
    let g = good();
    let with = |m: &str, args: Value| {
        evaluate(
            &EvalAssertion(json!({"type": "toolCalledWith", "toolName": "search",
                "args": {"args": args, "argumentMatching": m}})),
            &g.ev(),
        )
        .status
    };
    assert_eq!(with("partial", json!({"q": "shoes"})), Status::Passed);
    assert_eq!(with("exact", json!({"q": "shoes"})), Status::Failed);
    assert_eq!(
        with("exact", json!({"q": "shoes", "pageSize": 2.0})),
        Status::Passed
    );
    assert_eq!(with("ignore", json!({"q": "nope"})), Status::Passed);
    assert_eq!(with("partial", json!({"q": "nope"})), Status::Failed);
    let min = EvalAssertion(json!({"type": "toolCalledWith", "toolName": "search",
        "args": {"args": {}}, "minCount": 2}));
    assert_eq!(evaluate(&min, &g.ev()).status, Status::Failed);
}

fn transcript(t: T) -> Transcript {
    let steps = vec![StepRecord {
        step_id: "s1".into(),
        kind: "prompt".into(),
        messages_end: t.messages.len(),
        calls_end: t.calls.len(),
        turns_end: t.turns,
        usage_end: t.usage,
        turn_cap_reached: false,
        error: None,
    }];
    Transcript {
        messages: t.messages,
        calls: t.calls,
        steps,
        usage: t.usage,
        turns: t.turns,
        widgets: t.widgets,
        ..Default::default()
    }
}

fn case_with(list: Vec<Value>, mode: CheckMode) -> EvalCase {
    let mut c = EvalCase::new(
        "case_1",
        "T",
        vec![EvalTestStep::new_prompt("s1", "find shoes")],
    );
    c.checks = Some(Checks {
        mode,
        list: list.into_iter().map(EvalAssertion).collect(),
    });
    c
}

#[test]
fn roles_and_severity_change_verdicts() {
    let t = transcript(bad());
    let d = bad_tools();
    let verdict =
        |a: Value| grade::grade(&case_with(vec![a], CheckMode::Replace), &[], &t, Some(&d));
    let g = verdict(json!({"type": "noToolErrors"}));
    assert!(!g.passed && !g.required_failed, "no role means gating");
    let g = verdict(json!({"type": "noToolErrors", "role": "advisory"}));
    assert!(g.passed, "advisory never fails");
    assert_eq!(g.assertions[0].status, "failed");
    let g = verdict(json!({"type": "noToolErrors", "role": "required"}));
    assert!(!g.passed && g.required_failed);
    let g = verdict(json!({"type": "noToolErrors", "severity": "warn"}));
    assert!(g.passed);
    assert_eq!(g.assertions[0].status, "warned");
    let g = verdict(json!({"type": "responseMatches", "pattern": "("}));
    assert!(!g.passed, "an evaluator error is never a silent pass");
    let g = verdict(json!({"type": "responseMatches", "pattern": "(", "role": "advisory"}));
    assert!(g.passed);
    assert_eq!(g.assertions[0].status, "error");
}

#[test]
fn check_resolution() {
    let suite: Vec<String> = vec!["response.errors".into(), "userValue.turns".into()];
    let mut c = case_with(vec![], CheckMode::Inherit);
    let kinds = |c: &EvalCase| {
        resolve(c, &suite)
            .iter()
            .map(|r| format!("{}={}", r.source, r.assertion.kind().unwrap()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        kinds(&c),
        [
            "standard:response.errors=noToolErrors",
            "standard:userValue.turns=turnCountUnder",
            "standard:userValue.turns=noEndingQuestion"
        ]
    );
    c.suppressed_suite_standard_check_ids = vec!["userValue.turns".into()];
    assert_eq!(kinds(&c), ["standard:response.errors=noToolErrors"]);
    // extend: a listed type replaces the standard one of that type.
    let mut e = case_with(
        vec![
            json!({"type": "noToolErrors", "role": "required"}),
            json!({"type": "firstToolWas", "toolName": "x"}),
        ],
        CheckMode::Extend,
    );
    e.steps.push(EvalTestStep::new_assert(
        "s2",
        json!({"type": "toolCalledAtLeastOnce", "toolName": "x"})
            .as_object()
            .unwrap()
            .clone(),
    ));
    assert_eq!(
        kinds(&e),
        [
            "standard:userValue.turns=turnCountUnder",
            "standard:userValue.turns=noEndingQuestion",
            "case=noToolErrors",
            "case=firstToolWas",
            "step:s2=toolCalledAtLeastOnce"
        ]
    );
    // replace: no standard checks; explicit and step assertions kept.
    e.checks.as_mut().unwrap().mode = CheckMode::Replace;
    assert_eq!(
        kinds(&e),
        [
            "case=noToolErrors",
            "case=firstToolWas",
            "step:s2=toolCalledAtLeastOnce"
        ]
    );
    // inherit keeps the standard checks and still evaluates listed ones.
    e.checks.as_mut().unwrap().mode = CheckMode::Inherit;
    assert_eq!(kinds(&e).len(), 6);
    // standard checks are advisory
    for id in STANDARD_CHECK_IDS {
        let a = standard_check(id);
        assert!(!a.is_empty(), "{id} maps to assertions");
        assert!(a.iter().all(|x| x.role() == Some("advisory")));
    }
}

#[test]
fn negative_cases_pass_only_without_tool_calls() {
    let mut c = case_with(vec![], CheckMode::Replace);
    c.is_negative = true;
    let g = grade::grade(&c, &[], &transcript(good()), Some(&good_tools()));
    assert!(!g.passed);
    assert_eq!(
        g.diff.extra.len(),
        2,
        "every call is extra in a negative case"
    );
    let mut none = good();
    none.calls.clear();
    assert!(grade::grade(&c, &[], &transcript(none), Some(&good_tools())).passed);
}

#[test]
fn step_assertions_see_only_what_came_before() {
    let mut t = transcript(good());
    // Step 1 made the first call only; step 2 (assert) sits between; step 3 made the second.
    t.steps = vec![
        StepRecord {
            step_id: "s1".into(),
            kind: "prompt".into(),
            messages_end: 1,
            calls_end: 1,
            turns_end: 1,
            usage_end: Usage::default(),
            turn_cap_reached: false,
            error: None,
        },
        StepRecord {
            step_id: "s2".into(),
            kind: "assert".into(),
            messages_end: 1,
            calls_end: 1,
            turns_end: 1,
            usage_end: Usage::default(),
            turn_cap_reached: false,
            error: None,
        },
        StepRecord {
            step_id: "s3".into(),
            kind: "prompt".into(),
            messages_end: 2,
            calls_end: 2,
            turns_end: 2,
            usage_end: Usage::default(),
            turn_cap_reached: false,
            error: None,
        },
    ];
    let mut c = case_with(vec![], CheckMode::Replace);
    c.steps = vec![
        EvalTestStep::new_prompt("s1", "a"),
        EvalTestStep::new_assert(
            "s2",
            json!({"type": "toolNeverCalled", "toolName": "fetch"})
                .as_object()
                .unwrap()
                .clone(),
        ),
        EvalTestStep::new_prompt("s3", "b"),
    ];
    let g = grade::grade(&c, &[], &t, Some(&good_tools()));
    assert!(g.passed, "{:?}", g.assertions);
}

#[test]
fn tool_error_assertions_judge_the_server_not_the_connection() {
    let mut lost = call("get-sum", json!({"a": 1}), json!({}));
    lost.result = None;
    lost.error =
        Some("SERVER_UNREACHABLE: tools/call: the server closed the connection (signal: 9)".into());
    lost.transport_failed = true;
    let mut t = good();
    t.calls = vec![lost.clone()];
    for ty in ["noToolErrors", "toolErrorNamesInput"] {
        let a: EvalAssertion = serde_json::from_value(json!({"type": ty})).unwrap();
        let r = evaluate(&a, &t.ev());
        assert_eq!(
            r.status,
            Status::Passed,
            "{ty}: a transport failure is not a tool error"
        );
    }
    // The server's own error answers are still judged.
    let mut refused = lost;
    refused.transport_failed = false;
    refused.error =
        Some("VALIDATION_ERROR: tools/call: the server answered with an error: bad".into());
    t.calls = vec![refused];
    let a: EvalAssertion = serde_json::from_value(json!({"type": "noToolErrors"})).unwrap();
    assert_eq!(evaluate(&a, &t.ev()).status, Status::Failed);
}

#[test]
fn tool_call_diff_is_categorised() {
    let mut c = case_with(
        vec![
            json!({"type": "toolCalledWith", "toolName": "fetch", "args": {"args": {"id": "9"}}}),
            json!({"type": "toolCalledAtLeastOnce", "toolName": "search"}),
            json!({"type": "toolCalledAtLeastOnce", "toolName": "delete"}),
        ],
        CheckMode::Replace,
    );
    c.steps.push(EvalTestStep::new_tool_call(
        "s2",
        "fetch",
        Default::default(),
    ));
    let mut t = good();
    t.calls.push(call("other", json!({}), text("x")));
    let g = grade::grade(&c, &[], &transcript(t), Some(&good_tools()));
    let names = |v: &Vec<Value>| {
        v.iter()
            .map(|x| x["toolName"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&g.diff.missing), ["delete"]);
    assert_eq!(names(&g.diff.extra), ["other"]);
    assert_eq!(names(&g.diff.argument_mismatch), ["fetch"]);
    assert_eq!(names(&g.diff.out_of_order), ["fetch", "search"]);
}

#[test]
fn interact_steps_and_judge() {
    let mut c = case_with(vec![], CheckMode::Replace);
    c.steps
        .push(EvalTestStep::new_interact("s2", None, Default::default()));
    let g = grade::grade(&c, &[], &transcript(good()), None);
    assert!(!g.passed);
    assert!(
        g.assertions
            .iter()
            .any(|a| a.outcome.message.contains("was not reached") && !a.regradable)
    );
    let mut t = transcript(good());
    t.judge = Some(super::transcript::JudgeRecord {
        status: "skipped".into(),
        reason: "none".into(),
        model: None,
    });
    let c = case_with(vec![], CheckMode::Replace);
    assert!(
        grade::grade(&c, &[], &t, None).passed,
        "a skipped judge is never a failure"
    );
    t.judge.as_mut().unwrap().status = "failed".into();
    assert!(!grade::grade(&c, &[], &t, None).passed);
}

#[test]
fn repetitions_with_a_pass_threshold() {
    use super::runner::{RunBody, Timing, summarize};
    use crate::service::store::runs::StoredIteration;
    let mut case = case_with(vec![], CheckMode::Replace);
    case.repetitions = Some(4);
    let body = |threshold: Option<f64>, min_rate: Option<f64>| {
        let mut c = case.clone();
        c.pass_threshold = threshold;
        RunBody {
            suite_name: "s".into(),
            user_id: "u".into(),
            org_role: "owner".into(),
            servers: vec![],
            environment: None,
            roots: None,
            cases: vec![c],
            standard_checks: vec![],
            pass_threshold: 1.0,
            pass_criteria: min_rate.map(|m| crate::spec::suite::PassCriteria {
                minimum_pass_rate: Some(m),
            }),
            model: None,
            models: Default::default(),
            needs_keys: false,
            approved_case_ids: vec![],
            notes: None,
            trigger: "manual".into(),
            declarations: None,
            summary: None,
            timing: Timing::default(),
            regraded_at: None,
        }
    };
    let its: Vec<StoredIteration> = (0..4)
        .map(|i| StoredIteration {
            id: format!("itr_{i}"),
            run_id: "run_1".into(),
            seq: i,
            case_id: "case_1".into(),
            status: "completed".into(),
            result: Some(if i < 2 { "passed" } else { "failed" }.into()),
            body: json!({"id": format!("itr_{i}"), "iterationNumber": 1, "repetition": i + 1,
                "status": "completed", "model": "builtin/baseline", "actualToolCalls": [], "expectedToolCalls": []}),
            transcript: None,
            grade: Some(json!({"requiredFailed": false})),
        })
        .collect();
    let (s, passed) = summarize(&body(Some(0.5), None), &its);
    assert!(passed, "2 of 4 trials meet a 0.5 threshold");
    assert_eq!(
        (s.total, s.passed, s.failed, s.pass_rate),
        (4, 2, 2, Some(0.5))
    );
    assert_eq!(s.cases.passed, 1);
    assert!(!summarize(&body(Some(0.75), None), &its).1);
    assert!(
        !summarize(&body(None, None), &its).1,
        "the suite default is 1.0"
    );
    assert!(
        !summarize(&body(Some(0.5), Some(60.0)), &its).1,
        "minimumPassRate is a percent"
    );
    let mut req = its.clone();
    req[0].grade = Some(json!({"requiredFailed": true}));
    assert!(
        !summarize(&body(Some(0.25), None), &req).1,
        "a required failure fails the case"
    );
    // A trial that ended as an error (its server stopped answering) is counted apart and
    // leaves the run without a pass, however lenient the threshold.
    let mut lost = its.clone();
    lost[3].result = Some("error".into());
    lost[3].status = "failed".into();
    let (s, passed) = summarize(&body(Some(0.25), None), &lost);
    assert!(!passed, "an errored trial never passes the run");
    assert_eq!(
        (s.total, s.passed, s.failed, s.errored, s.pass_rate),
        (4, 2, 1, 1, Some(2.0 / 3.0))
    );
    assert_eq!((s.cases.errored, s.cases.passed, s.cases.failed), (1, 0, 0));
}
