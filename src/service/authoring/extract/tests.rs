//! The reader against the demo server's catalog: the defects the issue names, promptfoo's
//! metadata columns and trajectory assertions, negatives in every lexicon language.

use serde_json::{Value, json};

use crate::service::authoring::author_builtin;
use crate::service::authoring::catalog::demo_tools;
use crate::spec::case::{ClaimStatus, EvalCase};

fn cases(doc: &str) -> Vec<EvalCase> {
    author_builtin(doc, "plan.md", &demo_tools(), &[])
}

fn asserts(c: &EvalCase) -> Vec<Value> {
    c.steps
        .iter()
        .filter_map(|s| s.assertion.clone())
        .map(Value::Object)
        .collect()
}

fn of_type(c: &EvalCase, t: &str) -> Vec<Value> {
    asserts(c).into_iter().filter(|a| a["type"] == t).collect()
}

fn positive_tools(c: &EvalCase) -> Vec<String> {
    asserts(c)
        .iter()
        .filter(|a| {
            matches!(
                a["type"].as_str(),
                Some("toolCalledAtLeastOnce" | "toolCalledWith")
            )
        })
        .filter_map(|a| a["toolName"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_negative_naming_a_tool_stays_negative() {
    let doc = "### TC-05 Trivial arithmetic\n- **Prompt:** \"Quick one: what's 2 + 2?\"\n- **Expected:** Must not use get-sum or any other tool; answers 4 directly.\n";
    let c = cases(doc);
    assert_eq!(c.len(), 1);
    assert!(c[0].is_negative);
    assert!(positive_tools(&c[0]).is_empty(), "{:?}", asserts(&c[0]));
}

#[test]
fn must_not_use_alone_forbids_the_tool() {
    let doc = "### Echo\n- **Prompt:** \"Say hi back\"\n- **Expected tool:** echo\n- **Notes:** must not use `legacy-echo`.\n";
    let c = &cases(doc)[0];
    assert!(!c.is_negative);
    assert_eq!(positive_tools(c), ["echo"]);
    assert_eq!(of_type(c, "toolNeverCalled")[0]["toolName"], "legacy-echo");
}

#[test]
fn a_parameter_is_never_a_tool() {
    let doc = "### TC-02 Echo round trip\n- **Prompt:** \"Please echo back exactly: hello world\"\n- **Expected tool:** calls `echo` with `message` = \"hello world\"\n";
    let c = &cases(doc)[0];
    assert_eq!(positive_tools(c), ["echo"]);
    let w = &of_type(c, "toolCalledWith")[0];
    assert_eq!(w["args"]["args"], json!({"message": "hello world"}));
    assert_ne!(c.import.as_ref().unwrap().status, ClaimStatus::Unresolved);
}

#[test]
fn numbers_lose_sentence_punctuation() {
    let doc = "### TC-01 Sum\n- **Prompt:** \"What is 17 + 25?\"\n- **Expected:** get-sum with a=17, b=25. Answer mentions 42.\n";
    let c = &cases(doc)[0];
    let w = &of_type(c, "toolCalledWith")[0];
    assert_eq!(w["args"]["args"], json!({"a": 17, "b": 25}));
    assert_ne!(c.import.as_ref().unwrap().status, ClaimStatus::Unresolved);
}

#[test]
fn promptfoo_metadata_columns_name_the_tool_and_its_arguments() {
    let doc = "question,__expected,__description,__metadata:expected_tool,__metadata:expected_args\nWhat is 120 plus 380?,contains: 500,basic sum,get-sum,\"{\"\"a\"\": 120, \"\"b\"\": 380}\"\nHow much is 9 times 7?,contains: 63,no multiply tool; should answer directly without tools,,\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2);
    let w = &of_type(&c[0], "toolCalledWith")[0];
    assert_eq!(w["toolName"], "get-sum");
    assert_eq!(w["args"]["args"], json!({"a": 120, "b": 380}));
    assert!(c[1].is_negative);
}

fn promptfoo(asserts_yaml: &str) -> EvalCase {
    let doc = format!(
        "prompts:\n  - '{{{{question}}}}'\ntests:\n  - description: t\n    vars:\n      question: Compute the mean of 2, 4 and 9, then echo done\n    assert:\n{asserts_yaml}"
    );
    let c = cases(&doc);
    assert_eq!(c.len(), 1, "{doc}");
    c.into_iter().next().unwrap()
}

#[test]
fn every_promptfoo_trajectory_assertion_maps_onto_tool_assertions() {
    // tool-used: a name, a list, an object with min and max.
    let c = promptfoo("      - type: trajectory:tool-used\n        value: get-stats\n");
    assert_eq!(positive_tools(&c), ["get-stats"]);
    assert_ne!(c.import.as_ref().unwrap().status, ClaimStatus::Unsupported);
    let c = promptfoo("      - type: trajectory:tool-used\n        value: [get-stats, echo]\n");
    assert_eq!(positive_tools(&c), ["get-stats", "echo"]);
    let c = promptfoo(
        "      - type: trajectory:tool-used\n        value:\n          name: echo\n          min: 2\n          max: 3\n",
    );
    assert!(
        of_type(&c, "toolCalledWith")
            .iter()
            .any(|a| a["minCount"] == 2)
    );
    assert_eq!(of_type(&c, "toolCallCountUnder")[0]["count"], 4);
    // not-trajectory:tool-used forbids; over every tool it is a negative case.
    let c = promptfoo("      - type: not-trajectory:tool-used\n        value: legacy-echo\n");
    assert_eq!(of_type(&c, "toolNeverCalled")[0]["toolName"], "legacy-echo");
    let all: Vec<String> = demo_tools().iter().map(|t| t.tool.name.clone()).collect();
    let c = promptfoo(&format!(
        "      - type: not-trajectory:tool-used\n        value: [{}]\n",
        all.join(", ")
    ));
    assert!(c.is_negative);
    // tool-args-match, partial and exact.
    let c = promptfoo(
        "      - type: trajectory:tool-args-match\n        value:\n          name: echo\n          args: { message: done }\n",
    );
    let w = &of_type(&c, "toolCalledWith")[0];
    assert_eq!(
        (&w["args"]["args"], &w["args"]["argumentMatching"]),
        (&json!({"message": "done"}), &json!("partial"))
    );
    let c = promptfoo(
        "      - type: trajectory:tool-args-match\n        value:\n          name: echo\n          args: { message: done }\n          mode: exact\n",
    );
    assert!(
        of_type(&c, "toolCalledWith")
            .iter()
            .any(|a| a["args"]["argumentMatching"] == "exact")
    );
    // tool-sequence: order, and in exact mode the set of tools.
    let c = promptfoo(
        "      - type: trajectory:tool-sequence\n        value:\n          steps: [get-stats, echo]\n",
    );
    let b = &of_type(&c, "toolCalledBefore")[0];
    assert_eq!(
        (&b["toolName"], &b["beforeToolName"]),
        (&json!("get-stats"), &json!("echo"))
    );
    let c = promptfoo(
        "      - type: trajectory:tool-sequence\n        value:\n          mode: exact\n          steps: [get-stats, echo]\n",
    );
    assert_eq!(
        of_type(&c, "onlyToolsCalled")[0]["toolNames"],
        json!(["get-stats", "echo"])
    );
    // step-count: max 0 tool steps is a negative case; a maximum caps the calls.
    let c = promptfoo(
        "      - type: trajectory:step-count\n        value:\n          type: tool\n          max: 0\n",
    );
    assert!(c.is_negative);
    let c = promptfoo(
        "      - type: trajectory:step-count\n        value:\n          type: tool\n          max: 3\n",
    );
    assert_eq!(of_type(&c, "toolCallCountUnder")[0]["count"], 4);
    // goal-success is graded by the judge.
    let c = promptfoo(
        "      - type: trajectory:goal-success\n        value: Reports the mean and echoes done\n",
    );
    assert_eq!(
        c.expected_output.as_deref(),
        Some("Reports the mean and echoes done")
    );
}

#[test]
fn negatives_in_every_language_of_the_lexicon() {
    for (lang, expectation) in [
        ("en", "Should not call any tool."),
        ("de", "Darf kein Werkzeug aufrufen."),
        ("fr", "Le modèle ne doit appeler aucun outil."),
        ("es", "Responde sin usar herramientas."),
        ("pt", "Não deve chamar nenhuma ferramenta."),
        ("it", "Nessuno strumento: risponde da solo."),
        ("nl", "Geen enkele tool aanroepen."),
        ("ja", "ツールを呼び出さずに回答する"),
        ("zh", "不应调用任何工具，直接回答。"),
        ("ko", "도구를 호출하지 않아야 함"),
    ] {
        let doc = format!("- \"Tell me something nice\" → {expectation}\n");
        let c = cases(&doc);
        assert_eq!(c.len(), 1, "{lang}: {doc}");
        assert!(c[0].is_negative, "{lang}: {expectation}");
    }
}

#[test]
fn forbidden_tools_in_every_language() {
    for (lang, expectation) in [
        ("en", "echo, and it must not call legacy-echo"),
        ("de", "echo; legacy-echo wird nicht aufgerufen"),
        ("fr", "echo. Surtout pas legacy-echo."),
        ("es", "echo. No debe llamar a legacy-echo."),
        ("ja", "echo。legacy-echo は使わないこと"),
        ("zh", "echo，注意不能用 legacy-echo"),
        ("ko", "echo 호출 (legacy-echo 사용 금지)"),
    ] {
        let doc = format!("- \"Repeat hello\" → {expectation}\n");
        let c = &cases(&doc)[0];
        assert_eq!(positive_tools(c), ["echo"], "{lang}");
        assert_eq!(
            of_type(c, "toolNeverCalled")[0]["toolName"],
            "legacy-echo",
            "{lang}"
        );
    }
}

#[test]
fn tools_named_by_spelling_or_description_are_mapped_with_an_honest_claim() {
    let doc = "1. “what’s 19 plus 23” Expected: call the sum tool with a = 19, b = 23.\n2. “Mean of 1.5 and 2.5?” → GetStats, numbers = [1.5, 2.5]\n";
    let c = cases(doc);
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert_eq!(positive_tools(&c[1]), ["get-stats"]);
    for x in &c {
        assert_eq!(x.import.as_ref().unwrap().status, ClaimStatus::Approximated);
    }
}

#[test]
fn documents_without_cases_yield_none() {
    for doc in [
        "# Changelog\n\n## [1.0]\n- `get-sum` no longer rounds (`a=0.1, b=0.2`).\n",
        "# Set-up\n\n1. Start the server with `demo --stdio`.\n2. Call `get-sum` with a = 1 and b = 2 to check it works.\n",
        "## Actions\n- Ana: add the \"echo twice\" case → Bo reviews\n",
    ] {
        assert!(cases(doc).is_empty(), "{doc}");
    }
}

#[test]
fn odd_input_never_panics() {
    let odd = [
        "",
        "~~",
        "|",
        "||a||b||\n|x|",
        "---\n---",
        "\"",
        "“unclosed",
        "İstanbul İİ ẞ → get-sum a=1",
        "- \"İİİ ẞẞ\" → the İ tool, a=İ",
        "# 见\n- 用户输入：“「」”\n- 预期工具：\n",
        "question,__expected\n\"a\nb",
        "Feature: x\n  Scenario Outline: y\n    When \"<a>\"\n    Examples:\n      | a |\n      | \"|",
        "{\"tests\": [{\"prompt\": null, \"tool\": {}}]}",
        "tests:\n  - vars: {q: [}\n",
        "- \"Ask 3,\" → get-sum a=3,,,, b=..5",
        "\u{feff}\r\n\r\n- \"x y\" → `echo` message=\"\u{a0}\"\r\n",
    ];
    for doc in odd {
        let _ = cases(doc);
        // Every prefix, cut at character boundaries, too.
        for (i, _) in doc.char_indices() {
            let _ = cases(&doc[..i]);
        }
    }
}
