use super::*;
use serde_json::json;

fn pairs(e: &Error) -> Vec<(String, String)> {
    e.violations()
        .into_iter()
        .map(|v| (v.path, v.rule))
        .collect()
}

/// Decodes and validates a case body, returning every violation.
fn case_violations(v: Value) -> Vec<(String, String)> {
    match decode::<EvalCase>(v) {
        Err(e) => pairs(&e),
        Ok(case) => case.check().err().map(|e| pairs(&e)).unwrap_or_default(),
    }
}

fn source() -> Value {
    json!({
        "format": "markdown", "method": "ai", "fileName": "plan.md",
        "fileHash": sha256_hex("# plan"), "excerpt": "1. Search for shoes",
        "startLine": 3, "endLine": 5, "extractorVersion": "evaldeck-extract/1"
    })
}

fn base() -> Value {
    json!({
        "id": "case_1", "title": "Search works",
        "steps": [{"id": "s1", "kind": "prompt", "prompt": "Find shoes"}],
        "iterations": 1, "isNegative": false, "models": [{"model": "gpt-4o"}]
    })
}

/// `base()` with the value at `ptr` replaced (`Some`) or removed (`None`).
fn with(ptr: &str, new: Option<Value>) -> Value {
    let mut v = base();
    let (parent, key) = ptr.rsplit_once('/').unwrap();
    let slot = v.pointer_mut(parent).unwrap();
    match (slot, new) {
        (Value::Object(m), Some(n)) => {
            m.insert(key.to_string(), n);
        }
        (Value::Object(m), None) => {
            m.remove(key);
        }
        (Value::Array(a), Some(n)) => a[key.parse::<usize>().unwrap()] = n,
        _ => panic!("bad pointer {ptr}"),
    }
    v
}

#[test]
fn good_cases_are_accepted() {
    let sets: Vec<(&str, Value)> = vec![
        ("/iterations", json!(1)),
        ("/iterations", json!(10)),
        ("/repetitions", json!(1)),
        ("/repetitions", json!(MAX_SAFE_INTEGER)),
        ("/passThreshold", json!(0)),
        ("/passThreshold", json!(1)),
        ("/passThreshold", json!(0.75)),
        ("/intent", json!("a")),
        ("/intent", json!("checkout flow")),
        ("/intent", json!("x".repeat(64))),
        ("/intent", json!("é".repeat(64))),
        ("/kind", json!("capability")),
        ("/kind", json!("regression")),
        ("/matchOptions", json!({})),
        ("/matchOptions", json!({"ignoreOrder": true})),
        ("/checks", json!({"mode": "inherit"})),
        ("/checks", json!({"mode": "replace", "list": []})),
        (
            "/checks",
            json!({"mode": "extend", "list": [{"type": "noToolErrors"},
            {"type": "noDeprecatedToolExposed", "role": "advisory"}]}),
        ),
        ("/judge", json!({"enabled": false})),
        (
            "/import",
            json!({"status": "exact", "note": "numbered step -> prompt step"}),
        ),
        ("/import", json!({"status": "approximated"})),
        ("/import", json!({"status": "unsupported", "note": "n"})),
        (
            "/import",
            json!({"status": "unresolved", "sourceCaseKey": "k".repeat(512),
            "note": "n".repeat(2000)}),
        ),
        ("/source", source()),
        ("/createdAt", json!(null)),
        ("/createdAt", json!(1_700_000_000_000_i64)),
        ("/updatedAt", json!(1_700_000_000_000_i64)),
        ("/suppressedSuiteStandardCheckIds", json!([])),
        (
            "/suppressedSuiteStandardCheckIds",
            json!(STANDARD_CHECK_IDS),
        ),
        (
            "/suppressedSuiteStandardCheckIds",
            json!(["call.schema", "call.schema"]),
        ),
        ("/declaredId", json!("TC-12")),
        ("/expectedOutput", json!("A list of shoes")),
        ("/scenario", json!("A returning customer")),
        ("/models", json!([])),
        (
            "/models",
            json!([{"model": "claude-sonnet-4", "provider": "anthropic"}]),
        ),
        ("/isNegative", json!(true)),
        (
            "/steps",
            json!([
                {"id": "p", "kind": "prompt", "prompt": "hi", "attachments": ["a.png"]},
                {"id": "t", "kind": "toolCall", "toolName": "search", "serverName": "shop",
                 "arguments": {"q": "x"}},
                {"id": "i", "kind": "interact", "toolName": "cart", "action": {"click": "#buy"}},
                {"id": "a", "kind": "assert", "assertion": {"type": "responseContains", "needle": "x"}},
            ]),
        ),
        ("/title", json!("é")),
    ];
    for (ptr, v) in sets {
        let body = with(ptr, Some(v.clone()));
        assert_eq!(case_violations(body), vec![], "{ptr} = {v}");
    }
    assert_eq!(case_violations(base()), vec![]);
}

#[test]
fn bad_cases_name_path_and_rule() {
    let src = |k: &str, v: Option<Value>| {
        let mut s = source();
        match v {
            Some(v) => s[k] = v,
            None => {
                s.as_object_mut().unwrap().remove(k);
            }
        }
        s
    };
    let sets: Vec<(&str, Option<Value>, &str, &str)> = vec![
        ("/title", Some(json!("")), "/title", "minLength"),
        ("/title", None, "/title", "required"),
        ("/id", None, "/id", "required"),
        ("/steps", Some(json!([])), "/steps", "minItems"),
        ("/steps", None, "/steps", "required"),
        (
            "/steps/0",
            Some(json!({"id": "", "kind": "prompt", "prompt": "p"})),
            "/steps/0/id",
            "minLength",
        ),
        (
            "/steps/0",
            Some(json!({"kind": "prompt", "prompt": "p"})),
            "/steps/0/id",
            "required",
        ),
        (
            "/steps/0",
            Some(json!({"id": 5, "kind": "prompt", "prompt": "p"})),
            "/steps/0/id",
            "type",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "prompt": "p"})),
            "/steps/0/kind",
            "required",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "teleport"})),
            "/steps/0/kind",
            "enum",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "prompt"})),
            "/steps/0/prompt",
            "required",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "prompt", "prompt": ""})),
            "/steps/0/prompt",
            "minLength",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "toolCall"})),
            "/steps/0/toolName",
            "required",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "toolCall", "toolName": ""})),
            "/steps/0/toolName",
            "minLength",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "toolCall", "toolName": "t", "arguments": "q=1"})),
            "/steps/0/arguments",
            "type",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "interact", "toolName": "w"})),
            "/steps/0/action",
            "required",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "assert"})),
            "/steps/0/assertion",
            "required",
        ),
        (
            "/steps/0",
            Some(json!({"id": "s", "kind": "assert", "assertion": "x"})),
            "/steps/0/assertion",
            "type",
        ),
        (
            "/steps",
            Some(json!([{"id": "s", "kind": "prompt", "prompt": "a"},
            {"id": "s", "kind": "prompt", "prompt": "b"}])),
            "/steps/1/id",
            "uniqueItems",
        ),
        ("/iterations", Some(json!(0)), "/iterations", "range"),
        ("/iterations", Some(json!(11)), "/iterations", "range"),
        ("/iterations", Some(json!("1")), "/iterations", "type"),
        ("/iterations", Some(json!(1.5)), "/iterations", "type"),
        ("/iterations", None, "/iterations", "required"),
        (
            "/repetitions",
            Some(json!(0)),
            "/repetitions",
            "positiveInteger",
        ),
        (
            "/repetitions",
            Some(json!(-3)),
            "/repetitions",
            "positiveInteger",
        ),
        (
            "/repetitions",
            Some(json!(MAX_SAFE_INTEGER + 1)),
            "/repetitions",
            "positiveInteger",
        ),
        (
            "/passThreshold",
            Some(json!(-0.1)),
            "/passThreshold",
            "range",
        ),
        (
            "/passThreshold",
            Some(json!(1.01)),
            "/passThreshold",
            "range",
        ),
        (
            "/passThreshold",
            Some(json!("0.5")),
            "/passThreshold",
            "type",
        ),
        ("/isNegative", None, "/isNegative", "required"),
        ("/isNegative", Some(json!("no")), "/isNegative", "type"),
        ("/intent", Some(json!("")), "/intent", "minLength"),
        (
            "/intent",
            Some(json!("x".repeat(65))),
            "/intent",
            "maxLength",
        ),
        ("/intent", Some(json!(" checkout")), "/intent", "pattern"),
        ("/intent", Some(json!("checkout ")), "/intent", "pattern"),
        ("/intent", Some(json!("checkout\n")), "/intent", "pattern"),
        ("/kind", Some(json!("smoke")), "/kind", "enum"),
        ("/models", None, "/models", "required"),
        ("/models", Some(json!([{}])), "/models/0/model", "required"),
        (
            "/models",
            Some(json!([{"provider": "openai"}])),
            "/models/0/model",
            "required",
        ),
        (
            "/models",
            Some(json!([{"model": ""}])),
            "/models/0/model",
            "minLength",
        ),
        (
            "/models",
            Some(json!([{"model": "m", "provider": ""}])),
            "/models/0/provider",
            "minLength",
        ),
        ("/matchOptions", Some(json!([1])), "/matchOptions", "type"),
        (
            "/checks",
            Some(json!({"list": []})),
            "/checks/mode",
            "required",
        ),
        (
            "/checks",
            Some(json!({"mode": "merge"})),
            "/checks/mode",
            "enum",
        ),
        (
            "/checks",
            Some(json!({"mode": "extend", "list": [{"type": "nope"}]})),
            "/checks/list/0/type",
            "enum",
        ),
        (
            "/checks",
            Some(json!({"mode": "extend", "list": [{"type": "noDeprecatedToolExposed"}]})),
            "/checks/list/0/role",
            "observationRole",
        ),
        (
            "/checks",
            Some(json!({"mode": "extend", "list": [{"type": "noToolErrors"},
            {"type": "toolResultContains", "needle": "x".repeat(1001)}]})),
            "/checks/list/1/needle",
            "maxLength",
        ),
        (
            "/judge",
            Some(json!({"enabled": true, "weight": 1})),
            "/judge/weight",
            "additionalProperties",
        ),
        ("/judge", Some(json!({})), "/judge/enabled", "required"),
        (
            "/judge",
            Some(json!({"enabled": "yes"})),
            "/judge/enabled",
            "type",
        ),
        (
            "/import",
            Some(json!({"status": "exact"})),
            "/import/note",
            "required",
        ),
        (
            "/import",
            Some(json!({"status": "approved"})),
            "/import/status",
            "enum",
        ),
        (
            "/import",
            Some(json!({"note": "n"})),
            "/import/status",
            "required",
        ),
        (
            "/import",
            Some(json!({"status": "approximated", "approvedBy": "usr_1"})),
            "/import/approvedBy",
            "additionalProperties",
        ),
        (
            "/import",
            Some(json!({"status": "approximated", "approved": true})),
            "/import/approved",
            "additionalProperties",
        ),
        (
            "/import",
            Some(json!({"status": "exact", "note": "n", "approvedAt": 1})),
            "/import/approvedAt",
            "additionalProperties",
        ),
        (
            "/import",
            Some(json!({"status": "unresolved", "_internalDraftId": "d1"})),
            "/import/_internalDraftId",
            "additionalProperties",
        ),
        (
            "/import",
            Some(json!({"status": "approximated", "sourceCaseKey": ""})),
            "/import/sourceCaseKey",
            "minLength",
        ),
        (
            "/import",
            Some(json!({"status": "approximated", "sourceCaseKey": "k".repeat(513)})),
            "/import/sourceCaseKey",
            "maxLength",
        ),
        (
            "/import",
            Some(json!({"status": "exact", "note": ""})),
            "/import/note",
            "minLength",
        ),
        (
            "/import",
            Some(json!({"status": "approximated", "note": "n".repeat(2001)})),
            "/import/note",
            "maxLength",
        ),
        (
            "/source",
            Some(src("format", Some(json!("html")))),
            "/source/format",
            "enum",
        ),
        (
            "/source",
            Some(src("method", Some(json!("manual")))),
            "/source/method",
            "enum",
        ),
        (
            "/source",
            Some(src("fileName", Some(json!("")))),
            "/source/fileName",
            "minLength",
        ),
        (
            "/source",
            Some(src("fileName", Some(json!("f".repeat(256))))),
            "/source/fileName",
            "maxLength",
        ),
        (
            "/source",
            Some(src("fileHash", Some(json!(sha256_hex("x").to_uppercase())))),
            "/source/fileHash",
            "pattern",
        ),
        (
            "/source",
            Some(src("fileHash", Some(json!("a".repeat(63))))),
            "/source/fileHash",
            "pattern",
        ),
        (
            "/source",
            Some(src("fileHash", Some(json!("g".repeat(64))))),
            "/source/fileHash",
            "pattern",
        ),
        (
            "/source",
            Some(src(
                "fileHash",
                Some(json!(format!("{}\n", sha256_hex("x")))),
            )),
            "/source/fileHash",
            "pattern",
        ),
        (
            "/source",
            Some(src("excerpt", Some(json!("")))),
            "/source/excerpt",
            "minLength",
        ),
        (
            "/source",
            Some(src("excerpt", Some(json!("é".repeat(MAX_EXCERPT + 1))))),
            "/source/excerpt",
            "maxLength",
        ),
        (
            "/source",
            Some(src("startLine", Some(json!(0)))),
            "/source/startLine",
            "positiveInteger",
        ),
        (
            "/source",
            Some(src("endLine", Some(json!(0)))),
            "/source/endLine",
            "positiveInteger",
        ),
        (
            "/source",
            Some(src("endLine", Some(json!(2)))),
            "/source/endLine",
            "notBeforeStartLine",
        ),
        (
            "/source",
            Some(src("extractorVersion", Some(json!("")))),
            "/source/extractorVersion",
            "minLength",
        ),
        (
            "/source",
            Some(src("extractorVersion", Some(json!("v".repeat(101))))),
            "/source/extractorVersion",
            "maxLength",
        ),
        (
            "/source",
            Some(src("reviewedBy", Some(json!("usr_1")))),
            "/source/reviewedBy",
            "additionalProperties",
        ),
        (
            "/source",
            Some(src("excerpt", None)),
            "/source/excerpt",
            "required",
        ),
        (
            "/source",
            Some(src("extractorVersion", None)),
            "/source/extractorVersion",
            "required",
        ),
        (
            "/suppressedSuiteStandardCheckIds",
            Some(json!(["call.schema", "nope"])),
            "/suppressedSuiteStandardCheckIds/1",
            "enum",
        ),
        (
            "/suppressedSuiteStandardCheckIds",
            Some(json!(vec!["call.schema"; 65])),
            "/suppressedSuiteStandardCheckIds",
            "maxItems",
        ),
        ("/createdAt", Some(json!("yesterday")), "/createdAt", "type"),
    ];
    for (ptr, v, path, rule) in sets {
        let body = with(ptr, v.clone());
        assert_eq!(
            case_violations(body),
            vec![(path.to_string(), rule.to_string())],
            "{ptr} = {v:?}"
        );
    }
}

#[test]
fn boundaries_of_the_source_and_suppressed_ids() {
    let mut s = source();
    s["excerpt"] = json!("é".repeat(MAX_EXCERPT));
    s["fileName"] = json!("f".repeat(255));
    s["startLine"] = json!(7);
    s["endLine"] = json!(7);
    s["extractorVersion"] = json!("v".repeat(100));
    assert_eq!(case_violations(with("/source", Some(s))), vec![]);
    let ids = json!(vec!["call.schema"; 64]);
    assert_eq!(
        case_violations(with("/suppressedSuiteStandardCheckIds", Some(ids))),
        vec![]
    );
}

#[test]
fn every_violation_is_reported_at_once() {
    let mut v = base();
    v["title"] = json!("");
    v["iterations"] = json!(0);
    v["intent"] = json!(" x");
    v["import"] = json!({"status": "exact"});
    v["suppressedSuiteStandardCheckIds"] = json!(["nope"]);
    let got = case_violations(v);
    assert_eq!(
        got,
        [
            ("/title", "minLength"),
            ("/iterations", "range"),
            ("/intent", "pattern"),
            ("/import/note", "required"),
            ("/suppressedSuiteStandardCheckIds/0", "enum"),
        ]
        .map(|(p, r)| (p.to_string(), r.to_string()))
    );
    let e = decode::<EvalCase>(base()).unwrap();
    assert!(e.check().is_ok());
}

#[test]
fn none_fields_are_omitted_and_timestamps_are_null() {
    let case = EvalCase::new("case_1", "T", vec![EvalTestStep::new_prompt("s1", "hi")]);
    let v = serde_json::to_value(&case).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "title",
            "steps",
            "iterations",
            "isNegative",
            "models",
            "createdAt",
            "updatedAt"
        ]
    );
    assert_eq!(v["createdAt"], Value::Null);
    assert_eq!(
        v["steps"],
        json!([{"id": "s1", "kind": "prompt", "prompt": "hi"}])
    );
    // `matchOptions: null` on input is written back as omitted, never `null`.
    let mut with_null = base();
    with_null["matchOptions"] = Value::Null;
    let case: EvalCase = decode(with_null).unwrap();
    assert!(
        serde_json::to_value(&case)
            .unwrap()
            .get("matchOptions")
            .is_none()
    );
}

#[test]
fn step_extras_and_assertion_keys_survive_a_round_trip() {
    let mut v = base();
    v["steps"] = json!([
        {"id": "s1", "kind": "prompt", "prompt": "hi", "timeoutMs": 5000,
         "meta": {"origin": "import", "tags": ["a"]}},
        {"id": "s2", "kind": "assert", "assertion": {"type": "widgetVisible", "selector": "#x"},
         "x-custom": null}
    ]);
    v["checks"] = json!({"mode": "extend", "list": [
        {"type": "toolNeverCalled", "toolName": "rm", "x-reviewer-note": "keep me"}]});
    v["matchOptions"] = json!({"toolOrder": "any"});
    v["createdAt"] = json!(1);
    v["updatedAt"] = json!(2);
    let case: EvalCase = decode(v.clone()).unwrap();
    assert_eq!(case.steps[0].extra["timeoutMs"], json!(5000));
    assert_eq!(serde_json::to_value(&case).unwrap(), v);
}

#[test]
fn suppressed_ids_normalise_to_unique_sorted() {
    let mut ids = vec![
        "response.size".to_string(),
        "call.schema".into(),
        "response.size".into(),
    ];
    normalize_check_ids(&mut ids);
    assert_eq!(ids, ["call.schema", "response.size"]);
    let mut case: EvalCase = decode(with(
        "/suppressedSuiteStandardCheckIds",
        Some(json!([
            "userValue.turns",
            "call.repeated",
            "userValue.turns"
        ])),
    ))
    .unwrap();
    case.normalize();
    assert_eq!(
        case.suppressed_suite_standard_check_ids,
        ["call.repeated", "userValue.turns"]
    );
}

#[test]
fn claims_and_hashes() {
    assert_eq!(
        sha256_hex("abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert!(ClaimStatus::Exact.is_runnable());
    assert!(ClaimStatus::Approximated.is_runnable());
    assert!(!ClaimStatus::Unsupported.is_runnable());
    assert!(!ClaimStatus::Unresolved.is_runnable());
    let case: EvalCase = decode(with("/import", Some(json!({"status": "unresolved"})))).unwrap();
    assert!(!case.is_runnable());
}

fn update_violations(v: Value) -> Vec<(String, String)> {
    match decode::<EvalCaseUpdate>(v) {
        Err(e) => pairs(&e),
        Ok(u) => u.validate().err().map(|e| pairs(&e)).unwrap_or_default(),
    }
}

#[test]
fn update_rules() {
    let good = [
        json!({}),
        json!({"title": "New"}),
        json!({"intent": null, "repetitions": null, "passThreshold": null, "kind": null,
               "matchOptions": null, "checks": null, "judge": null, "import": null,
               "expectedOutput": null, "scenario": null}),
        json!({"suppressedSuiteStandardCheckIds": []}),
        json!({"iterations": 10, "repetitions": 2, "passThreshold": 0.5, "isNegative": true}),
        json!({"import": {"status": "exact", "note": "1:1"}}),
    ];
    for g in good {
        assert_eq!(update_violations(g.clone()), vec![], "{g}");
    }
    let bad = [
        (json!({"title": null}), "/title", "type"),
        (json!({"title": ""}), "/title", "minLength"),
        (json!({"steps": null}), "/steps", "type"),
        (json!({"steps": []}), "/steps", "minItems"),
        (json!({"iterations": null}), "/iterations", "type"),
        (json!({"iterations": 0}), "/iterations", "range"),
        (json!({"isNegative": null}), "/isNegative", "type"),
        (json!({"models": null}), "/models", "type"),
        (
            json!({"models": [{"model": ""}]}),
            "/models/0/model",
            "minLength",
        ),
        (json!({"repetitions": 0}), "/repetitions", "positiveInteger"),
        (json!({"passThreshold": 2}), "/passThreshold", "range"),
        (json!({"intent": " x"}), "/intent", "pattern"),
        (json!({"kind": "smoke"}), "/kind", "enum"),
        (
            json!({"checks": {"mode": "extend", "list": [{}]}}),
            "/checks/list/0/type",
            "required",
        ),
        (
            json!({"judge": {"enabled": true, "x": 1}}),
            "/judge/x",
            "additionalProperties",
        ),
        (
            json!({"import": {"status": "exact"}}),
            "/import/note",
            "required",
        ),
        (
            json!({"import": {"status": "exact", "note": "n", "approvedBy": "u"}}),
            "/import/approvedBy",
            "additionalProperties",
        ),
        (
            json!({"suppressedSuiteStandardCheckIds": null}),
            "/suppressedSuiteStandardCheckIds",
            "type",
        ),
        (
            json!({"suppressedSuiteStandardCheckIds": ["x"]}),
            "/suppressedSuiteStandardCheckIds/0",
            "enum",
        ),
        (json!({"id": "case_2"}), "/id", "additionalProperties"),
        (json!({"source": {}}), "/source", "additionalProperties"),
        (json!({"titel": "typo"}), "/titel", "additionalProperties"),
    ];
    for (v, path, rule) in bad {
        assert_eq!(
            update_violations(v.clone()),
            vec![(path.into(), rule.into())],
            "{v}"
        );
    }
}

#[test]
fn update_apply_keeps_clears_and_normalises() {
    let mut case: EvalCase = decode(base()).unwrap();
    case.intent = Some("checkout".into());
    case.repetitions = Some(2);
    case.suppressed_suite_standard_check_ids = vec!["call.schema".into()];
    case.created_at = Some(1);

    let u: EvalCaseUpdate =
        decode(json!({"title": "New", "intent": null, "repetitions": 3})).unwrap();
    assert!(!u.is_empty());
    u.apply(&mut case);
    assert_eq!(case.title, "New");
    assert_eq!(case.intent, None);
    assert_eq!(case.repetitions, Some(3));
    assert_eq!(
        case.suppressed_suite_standard_check_ids,
        ["call.schema"],
        "omitted preserves"
    );
    assert_eq!(case.created_at, Some(1));
    assert_eq!(case.id, "case_1");

    let u: EvalCaseUpdate = decode(json!({"suppressedSuiteStandardCheckIds":
        ["response.size", "call.repeated", "response.size"]}))
    .unwrap();
    u.apply(&mut case);
    assert_eq!(
        case.suppressed_suite_standard_check_ids,
        ["call.repeated", "response.size"]
    );

    let u: EvalCaseUpdate = decode(json!({"suppressedSuiteStandardCheckIds": []})).unwrap();
    u.apply(&mut case);
    assert!(
        case.suppressed_suite_standard_check_ids.is_empty(),
        "[] clears"
    );

    let empty: EvalCaseUpdate = decode(json!({})).unwrap();
    assert!(empty.is_empty());
    let before = case.clone();
    empty.apply(&mut case);
    assert_eq!(case, before);
}

#[test]
fn update_serialises_clears_as_null_and_omits_the_rest() {
    let u = EvalCaseUpdate {
        intent: Some(None),
        title: Some("T".into()),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&u).unwrap(),
        json!({"title": "T", "intent": null})
    );
    let back: EvalCaseUpdate = decode(json!({"title": "T", "intent": null})).unwrap();
    assert_eq!(back, u);
}

#[test]
fn decode_body_names_body_faults() {
    let e = decode_body::<EvalCase>(b"\xff").unwrap_err();
    assert_eq!(pairs(&e), [("".to_string(), "utf8".to_string())]);
    let e = decode_body::<EvalCase>(b"{\"id\":").unwrap_err();
    assert_eq!(pairs(&e)[0].1, "json");
    let e = decode_body::<EvalCase>(b"[]").unwrap_err();
    assert_eq!(pairs(&e), [("".to_string(), "type".to_string())]);
}

#[test]
fn schemas_generate() {
    for v in [
        serde_json::to_value(schemars::schema_for!(EvalCase)).unwrap(),
        serde_json::to_value(schemars::schema_for!(EvalCaseUpdate)).unwrap(),
    ] {
        assert!(v.get("properties").is_some(), "{v}");
    }
}
