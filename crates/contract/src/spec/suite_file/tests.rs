use super::*;
use crate::spec::assertion::ASSERTION_TYPES;
use crate::spec::case::{CaseModel, EvalTestStep, decode, sha256_hex};
use crate::spec::suite::PassCriteria;
use serde_json::json;

/// One assertion of every type the spec defines, with its required fields.
fn every_assertion() -> Vec<Value> {
    let list = vec![
        json!({"type": "toolDescriptionsPresent", "role": "advisory", "minLength": 20}),
        json!({"type": "toolAnnotationsPresent", "role": "advisory", "require": ["readOnlyHint"]}),
        json!({"type": "toolNamesUnique", "role": "advisory"}),
        json!({"type": "noDeprecatedToolExposed", "role": "advisory", "severity": "warn"}),
        json!({"type": "toolInputSchemasWellFormed", "role": "advisory"}),
        json!({"type": "toolOutputSchemasPresent", "role": "advisory"}),
        json!({"type": "toolCalledWith", "toolName": "search", "minCount": 2,
               "args": {"args": {"q": "shoes", "n": 3, "price": 1.5}, "argumentMatching": "partial"}}),
        json!({"type": "toolCalledAtLeastOnce", "toolName": "search", "role": "required"}),
        json!({"type": "toolNeverCalled", "toolName": "delete"}),
        json!({"type": "onlyToolsCalled", "toolNames": ["search", "get-sum"]}),
        json!({"type": "firstToolWas", "toolName": "search"}),
        json!({"type": "responseContains", "needle": "yes", "caseSensitive": false}),
        json!({"type": "responseMatches", "pattern": "^total: \\d+$"}),
        json!({"type": "noToolErrors", "severity": "warn"}),
        json!({"type": "finalAssistantMessageNonEmpty"}),
        json!({"type": "tokenBudgetUnder", "tokens": 4000}),
        json!({"type": "widgetRendered", "toolName": "w"}),
        json!({"type": "widgetRenderLatencyUnder", "ms": 500}),
        json!({"type": "widgetNoConsoleErrors"}),
        json!({"type": "turnCountUnder", "turns": 3}),
        json!({"type": "noEndingQuestion"}),
        json!({"type": "toolLatencyUnder", "ms": 250, "toolName": "search"}),
        json!({"type": "toolResultContains", "needle": "42", "caseSensitive": true}),
        json!({"type": "toolResultMatchesSchema", "schema": {"type": "object", "required": ["sum"]}}),
        json!({"type": "toolResultSizeUnder", "maxBytes": 1024}),
        json!({"type": "argumentsMatchToolSchema"}),
        json!({"type": "noRepeatedIdenticalCall", "toolName": "search"}),
        json!({"type": "toolCallCountUnder", "count": 5}),
        json!({"type": "toolCalledBefore", "toolName": "search", "beforeToolName": "buy"}),
        json!({"type": "noDeprecatedToolCalled"}),
        json!({"type": "noDestructiveToolCalled", "role": "gating"}),
        json!({"type": "toolErrorNamesInput", "x-reviewer-note": {"why": ["kept", 1, null]}}),
        json!({"type": "fullPageHasContinuation", "toolName": "list"}),
    ];
    assert_eq!(list.len(), ASSERTION_TYPES.len());
    list
}

/// A case using every field a case holds.
fn rich_case() -> EvalCase {
    let excerpt = "## Checkout\n\n- Ask for shoes under $50\n- Expect `search` with max_price=50\n";
    decode(json!({
        "id": "",
        "declaredId": "TC-7",
        "title": "Finds shoes: \"cheap\" ones",
        "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Find shoes under $50.\nOnly red ones.\n",
             "timeoutMs": 5000, "meta": {"origin": "import", "tags": ["a", "yes", "12"]}},
            {"id": "t1", "kind": "toolCall", "serverName": "demo", "toolName": "get-sum",
             "arguments": {"a": 17, "b": 25.5, "nested": {"deep": [true, null, "on"]}}},
            {"id": "i1", "kind": "interact", "toolName": "widget", "action": {"click": "#buy"}},
            {"id": "a1", "kind": "assert", "assertion": {"type": "widgetVisible", "selector": "#x"},
             "x-custom": null, "": "empty key"}
        ],
        "expectedOutput": "A list of shoes",
        "iterations": 3,
        "repetitions": 2,
        "passThreshold": 0.5,
        "isNegative": false,
        "scenario": "A budget shopper",
        "intent": "checkout",
        "kind": "regression",
        "models": [{"model": "openai/gpt-4o", "provider": "openai"}, {"model": "builtin/baseline"}],
        "matchOptions": {"toolOrder": "any"},
        "checks": {"mode": "extend", "list": every_assertion()},
        "judge": {"enabled": false},
        "import": {"status": "exact", "sourceCaseKey": "TC-7", "note": "one row, one case"},
        "source": {"format": "markdown", "method": "ai", "fileName": "plan.md",
                   "fileHash": sha256_hex(excerpt), "excerpt": excerpt, "startLine": 3, "endLine": 6,
                   "extractorVersion": "evaldeck-extract/1"},
        "suppressedSuiteStandardCheckIds": ["call.schema", "response.size"],
        "createdAt": null, "updatedAt": null
    }))
    .expect("a valid case")
}

fn plain_case(title: &str) -> EvalCase {
    let mut c = EvalCase::new(
        "",
        title,
        vec![EvalTestStep::new_prompt("s1", format!("do {title}"))],
    );
    c.models = vec![CaseModel::new("builtin/baseline", None)];
    c
}

fn doc(cases: Vec<EvalCase>) -> SuiteDoc {
    let mut settings = SuiteSettings {
        pass_criteria: Some(PassCriteria {
            minimum_pass_rate: Some(80.0),
        }),
        tags: vec!["smoke".into(), "checkout".into()],
        ..SuiteSettings::default()
    };
    normalize_check_ids(&mut settings.standard_checks);
    SuiteDoc {
        name: "Checkout".into(),
        description: Some("Checkout flows\nsecond line".into()),
        servers: vec!["demo".into()],
        environments: vec!["local".into()],
        settings,
        cases: cases
            .into_iter()
            .map(|case| DocCase { id: None, case })
            .collect(),
    }
}

fn errors(text: &str) -> Vec<(String, String, usize, usize)> {
    match parse(text) {
        Ok(_) => vec![],
        Err(errs) => errs
            .into_iter()
            .map(|l| (l.violation.path, l.violation.rule, l.pos.line, l.pos.column))
            .collect(),
    }
}

#[test]
fn a_rich_suite_reads_back_exactly_and_stably() {
    let d = doc(vec![rich_case(), plain_case("Second")]);
    let text = export(&d).expect("lossless");
    assert!(text.starts_with(HEADER), "{text}");
    assert!(
        text.contains("\nevaldeck/suite: 1\nname: Checkout\n"),
        "{text}"
    );
    // Multi-line strings are literal blocks, diff-friendly.
    assert!(
        text.contains("prompt: |\n          Find shoes under $50.\n          Only red ones.\n"),
        "{text}"
    );
    let back = parse(&text).expect("valid");
    assert_eq!(back.doc, d);
    assert_eq!(export(&back.doc).unwrap(), text, "writing is deterministic");
    // Extra step keys and assertion keys survive.
    let step = &back.doc.cases[0].case.steps[3];
    assert_eq!(step.extra["x-custom"], Value::Null);
    assert_eq!(step.extra[""], json!("empty key"));
}

#[test]
fn ids_are_written_only_when_asked() {
    let mut d = doc(vec![plain_case("A")]);
    assert!(!export(&d).unwrap().contains("\n  - id:"));
    d.cases[0].id = Some("case_1".into());
    d.cases[0].case.id = "case_1".into();
    let text = export(&d).unwrap();
    assert!(
        text.contains("cases:\n  - id: case_1\n    title: A\n"),
        "{text}"
    );
    assert_eq!(parse(&text).unwrap().doc, d);
}

#[test]
fn export_refuses_what_yaml_cannot_hold() {
    let mut c = plain_case("Long key");
    c.steps[0].extra.insert("k".repeat(1100), json!(1));
    let e = export(&doc(vec![c])).unwrap_err();
    assert_eq!(e.code, crate::spec::Code::ValidationError);
    assert_eq!(e.reason(), Some("LOSSY_EXPORT"));
    assert!(e.message.contains("refusing to export"), "{}", e.message);
}

#[test]
fn export_refuses_a_suite_that_would_not_apply_back() {
    let mut c = plain_case("Bad");
    c.iterations = 0;
    let e = export(&doc(vec![c])).unwrap_err();
    assert_eq!(e.reason(), Some("LOSSY_EXPORT"));
    assert_eq!(e.violations()[0].path, "/cases/0/iterations");
}

#[test]
fn a_yaml_syntax_error_has_its_line() {
    let text = "evaldeck/suite: 1\nname: x\nservers: [demo\nsettings:\n  model: m\ncases: []\n";
    let errs = errors(text);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].1, "yaml");
    assert!(errs[0].2 >= 3, "{errs:?}");
}

#[test]
fn a_violation_deep_in_a_case_has_its_line_and_column() {
    let text = "\
evaldeck/suite: 1
name: x
servers: [demo]
settings:
  model: builtin/baseline
cases:
  - title: ok
    steps:
      - id: s1
        kind: prompt
        prompt: hi
  - title: broken
    iterations: 11
    steps:
      - id: s1
        kind: prompt
        prompt: hi
      - id: s2
        kind: toolCall
    checks:
      mode: extend
      list:
        - type: tokenBudgetUnder
          tokens: 0
";
    assert_eq!(
        errors(text),
        vec![
            ("/cases/1/iterations".into(), "range".into(), 13, 17),
            ("/cases/1/steps/1/toolName".into(), "required".into(), 18, 9),
            (
                "/cases/1/checks/list/0/tokens".into(),
                "positiveInteger".into(),
                24,
                19
            ),
        ]
    );
    let e = file_error("suite.yaml", &parse(text).unwrap_err());
    assert!(
        e.message
            .starts_with("suite.yaml:13:17: /cases/1/iterations: must be between 1 and 10"),
        "{}",
        e.message
    );
    let d = e.details.unwrap();
    assert_eq!(d["errors"][1]["line"], 18);
    assert_eq!(d["errors"][1]["column"], 9);
}

#[test]
fn shape_faults_are_named_where_they_are() {
    let text = "\
evaldeck/suite: 1
name: x
servers: [demo, demo]
settings:
  model: builtin/baseline
  pasThreshold: 0.5
  passThreshold: 2
cases:
  - title: t
    tittle: typo
    createdAt: 5
    steps: [{id: s, kind: prompt, prompt: p}]
";
    assert_eq!(
        errors(text),
        vec![
            ("/servers/1".into(), "uniqueItems".into(), 3, 17),
            (
                "/settings/pasThreshold".into(),
                "additionalProperties".into(),
                6,
                3
            ),
            ("/settings/passThreshold".into(), "range".into(), 7, 18),
            (
                "/cases/0/tittle".into(),
                "additionalProperties".into(),
                10,
                5
            ),
            (
                "/cases/0/createdAt".into(),
                "additionalProperties".into(),
                11,
                5
            ),
        ]
    );
}

#[test]
fn the_format_key_is_required() {
    assert_eq!(
        errors("name: x\n"),
        vec![("/evaldeck~1suite".into(), "required".into(), 1, 1)]
    );
    assert_eq!(
        errors("evaldeck/suite: 2\nname: x\n"),
        vec![("/evaldeck~1suite".into(), "enum".into(), 1, 17)]
    );
    assert_eq!(errors("- a\n")[0].1, "type");
    let missing = errors("evaldeck/suite: 1\n");
    let rules: Vec<_> = missing
        .iter()
        .map(|e| (e.0.as_str(), e.1.as_str()))
        .collect();
    assert_eq!(
        rules,
        [
            ("/name", "required"),
            ("/servers", "required"),
            ("/settings", "required"),
            ("/cases", "required")
        ]
    );
}

#[test]
fn a_hand_written_case_gets_the_apis_defaults() {
    let text = "\
evaldeck/suite: 1
name: x
servers: [demo]
settings: {model: openai/gpt-4o}
cases:
  - title: t
    steps: [{id: s, kind: prompt, prompt: p}]
";
    let d = parse(text).unwrap().doc;
    let c = &d.cases[0].case;
    assert_eq!(
        (c.iterations, c.is_negative, c.models.clone()),
        (1, false, vec![CaseModel::new("openai/gpt-4o", None)])
    );
    assert_eq!(d.settings.repetitions, 1);
    assert_eq!(d.environments, Vec::<String>::new());
}

fn live(cases: Vec<EvalCase>) -> Live {
    let d = doc(vec![]);
    Live {
        suite: EvalSuite {
            id: "sut_1".into(),
            project_id: "prj_1".into(),
            name: d.name.clone(),
            description: d.description.clone(),
            server_ids: vec!["srv_demo".into()],
            environment_ids: vec!["env_local".into()],
            settings: SuiteSettings {
                standard_checks: crate::spec::suite::default_standard_checks(),
                ..d.settings.clone()
            },
            schedule: None,
            case_count: cases.len() as i64,
            created_at: 1,
            updated_at: 2,
        },
        servers: vec!["demo".into()],
        environments: vec!["local".into()],
        cases,
    }
}

fn target() -> Target {
    Target {
        server_ids: vec!["srv_demo".into()],
        environment_ids: vec!["env_local".into()],
    }
}

fn stored(mut c: EvalCase, id: &str) -> EvalCase {
    c.id = id.into();
    c.created_at = Some(1);
    c.updated_at = Some(1);
    c
}

#[test]
fn the_same_suite_is_no_change() {
    let l = live(vec![
        stored(rich_case(), "case_1"),
        stored(plain_case("B"), "case_2"),
    ]);
    let d = SuiteDoc::from_live(
        &l.suite,
        l.servers.clone(),
        l.environments.clone(),
        &l.cases,
        false,
    );
    let p = plan(&d, &target(), Some(&l)).unwrap();
    assert!(p.is_empty(), "{:?}", p.changes);
    assert!(p.patch.is_none(), "standard checks compare as a set");
    assert!(!p.order_differs);
}

#[test]
fn the_diff_names_what_changes() {
    let mut renamed_src = rich_case();
    renamed_src.source.as_mut().unwrap().file_name = "other.md".into();
    let l = live(vec![
        stored(plain_case("Keep"), "case_1"),
        stored(plain_case("Edit"), "case_2"),
        stored(plain_case("Gone"), "case_3"),
        stored(rich_case(), "case_4"),
    ]);
    let mut edited = plain_case("Edit");
    edited.iterations = 4;
    edited.intent = Some("checkout".into());
    let mut d = doc(vec![
        plain_case("New first"),
        plain_case("Keep"),
        edited,
        renamed_src,
    ]);
    d.settings.model = "openai/gpt-4o".into();
    let p = plan(&d, &target(), Some(&l)).unwrap();
    assert_eq!(
        p.patch.as_ref().and_then(|p| p.model.clone()).as_deref(),
        Some("openai/gpt-4o")
    );
    let summary: Vec<String> = p
        .changes
        .iter()
        .map(|c| match c {
            Change::Setting { field, .. } => format!("set {field}"),
            Change::AddCase { title, .. } => format!("add {title}"),
            Change::UpdateCase { title, fields, .. } => format!("edit {title}: {fields:?}"),
            Change::ReplaceCase { title, fields, .. } => format!("replace {title}: {fields:?}"),
            Change::RemoveCase { title, .. } => format!("remove {title}"),
            Change::CreateSuite { name } => format!("create {name}"),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "set settings.model",
            "remove Gone",
            "edit Edit: [\"iterations\", \"intent\"]",
            "add New first",
            "replace Finds shoes: \"cheap\" ones: [\"source\"]",
        ]
    );
    let Change::UpdateCase { update, .. } = &p.changes[2] else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(update).unwrap(),
        json!({"iterations": 4, "intent": "checkout"})
    );
    assert!(p.order_differs, "the new first case is appended");
}

#[test]
fn clearing_a_field_is_an_edit_to_null() {
    let mut have = plain_case("A");
    have.scenario = Some("s".into());
    have.suppressed_suite_standard_check_ids = vec!["call.schema".into()];
    let l = live(vec![stored(have, "case_1")]);
    let p = plan(&doc(vec![plain_case("A")]), &target(), Some(&l)).unwrap();
    let [Change::UpdateCase { update, .. }] = p.changes.as_slice() else {
        panic!("{:?}", p.changes)
    };
    assert_eq!(
        serde_json::to_value(update).unwrap(),
        json!({"scenario": null, "suppressedSuiteStandardCheckIds": []})
    );
}

#[test]
fn matching_by_declared_id_title_order_and_id() {
    let mut a = plain_case("Same");
    a.declared_id = Some("TC-1".into());
    let l = live(vec![
        stored(plain_case("Dup"), "case_1"),
        stored(plain_case("Dup"), "case_2"),
        stored(a.clone(), "case_3"),
    ]);
    // Renaming a case with a declared id is an edit, not a remove and an add.
    let mut renamed = a.clone();
    renamed.title = "Renamed".into();
    let mut second_dup = plain_case("Dup");
    second_dup.iterations = 2;
    let d = doc(vec![plain_case("Dup"), second_dup, renamed]);
    let p = plan(&d, &target(), Some(&l)).unwrap();
    let ids: Vec<(&str, &Vec<String>)> = p
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::UpdateCase { id, fields, .. } => Some((id.as_str(), fields)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("case_2", &vec!["iterations".to_string()]),
            ("case_3", &vec!["title".to_string()])
        ]
    );
    assert_eq!(p.changes.len(), 2);

    // An id the suite does not have is an error, never a silent add.
    let mut d = doc(vec![plain_case("X")]);
    d.cases[0].id = Some("case_9".into());
    let errs = plan(&d, &target(), Some(&l)).unwrap_err();
    assert_eq!(
        (errs[0].path.as_str(), errs[0].rule.as_str()),
        ("/cases/0/id", "exists")
    );
    // A known id matches whatever the title says.
    d.cases[0].id = Some("case_1".into());
    let p = plan(&d, &target(), Some(&l)).unwrap();
    assert!(
        p.changes
            .iter()
            .any(|c| matches!(c, Change::UpdateCase { id, .. } if id == "case_1"))
    );
}

#[test]
fn creating_writes_exact_leading_cases_through_the_request() {
    let d = doc(vec![
        plain_case("A"),
        plain_case("B"),
        rich_case(),
        plain_case("C"),
    ]);
    let (body, written, placeholder) = creation(&d, &target());
    assert_eq!((written, placeholder), (2, false));
    assert_eq!(body.tests.len(), 2);
    assert_eq!(body.server_ids, ["srv_demo"]);
    assert_eq!(body.tags.as_deref(), Some(&d.settings.tags[..]));
    assert!(body.validate().is_ok());

    let d = doc(vec![rich_case()]);
    let (body, written, placeholder) = creation(&d, &target());
    assert_eq!((written, placeholder), (0, true));
    assert_eq!(body.tests[0].title, diff::PLACEHOLDER_TITLE);
    let (_, written, placeholder) = creation(&doc(vec![]), &target());
    assert_eq!((written, placeholder), (0, true));

    let p = plan(&d, &target(), None).unwrap();
    assert!(matches!(p.changes[0], Change::CreateSuite { .. }));
    assert!(matches!(p.changes[1], Change::AddCase { index: 0, .. }));
}

#[test]
fn a_file_with_ids_does_not_create_a_suite() {
    let mut d = doc(vec![plain_case("A")]);
    d.cases[0].id = Some("case_1".into());
    let errs = plan(&d, &target(), None).unwrap_err();
    assert_eq!(
        (errs[0].path.as_str(), errs[0].rule.as_str()),
        ("/cases/0/id", "exists")
    );
}
