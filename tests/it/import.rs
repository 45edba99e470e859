//! `cases/import` end to end: the request rules, every document shape against the real demo
//! server (exact line spans, hashes, claims), duplicate policies, the review of skipped
//! drafts, idempotency under concurrency, credits, and the model author against a scripted
//! OpenAI-compatible server on loopback (202, poll, commit, cancel, failure, restart).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use evaldeck::client::{Backend, Embedded};
use evaldeck::service::authoring::{AuthorConfig, AuthoringConfig};
use evaldeck::service::{Config, Service};
use evaldeck::spec::authoring::{CommitRequest, DraftQuery, DraftState};
use evaldeck::spec::case::sha256_hex;
use evaldeck::spec::import::{EvalCaseImportRequest, ImportResponse, JobStatus};
use serde_json::{Value, json};

use crate::scripted_model::{model_server, script};
use evaldeck_testkit::served::{Harness, Resp};

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn config() -> Config {
    Config {
        demo_command: BIN.into(),
        authoring: AuthoringConfig {
            author: AuthorConfig::Builtin,
            ..AuthoringConfig::default()
        },
        ..Config::default()
    }
}

fn plan(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/assets/plans/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("the plan exists")
}

fn import_path(h: &Harness) -> String {
    format!("/projects/{}/eval-suites/Smoke/cases/import", h.project)
}

async fn import(h: &Harness, body: Value) -> Resp {
    h.post_with(&import_path(h), &h.owner_key, &[], body).await
}

fn lines(text: &str, a: i64, b: i64) -> String {
    let all: Vec<&str> = text.split('\n').collect();
    all[(a - 1) as usize..b as usize]
        .iter()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect::<Vec<_>>()
        .join(if text.contains("\r\n") { "\r\n" } else { "\n" })
}

/// Every created case points at exactly its lines, with the document's hash.
fn check_provenance(body: &Value, content: &str, file_name: &str) {
    for c in body["created"].as_array().unwrap() {
        let s = &c["source"];
        assert_eq!(s["format"], "markdown");
        assert_eq!(s["method"], "ai");
        assert_eq!(s["fileName"], file_name);
        assert_eq!(s["fileHash"], sha256_hex(content));
        let (a, b) = (
            s["startLine"].as_i64().unwrap(),
            s["endLine"].as_i64().unwrap(),
        );
        assert!(a >= 1 && b >= a, "{s}");
        assert_eq!(s["excerpt"], lines(content, a, b), "{}", c["title"]);
        assert_eq!(s["extractorVersion"], "evaldeck-extract/2.0");
    }
}

fn by_title<'a>(body: &'a Value, title: &str) -> &'a Value {
    body["created"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["title"] == title)
        .unwrap_or_else(|| panic!("no case {title:?} in {body:#}"))
}

fn span(c: &Value) -> (i64, i64) {
    (
        c["source"]["startLine"].as_i64().unwrap(),
        c["source"]["endLine"].as_i64().unwrap(),
    )
}

#[tokio::test]
async fn request_rules_are_validation_errors() {
    let h = Harness::with_config(config()).await;
    let path = import_path(&h);
    let cases = [
        (json!({}), "/content", "required"),
        (json!({"content": 1}), "/content", "type"),
        (
            json!({"content": "x", "fileName": ""}),
            "/fileName",
            "minLength",
        ),
        (
            json!({"content": "x", "fileName": "f".repeat(256)}),
            "/fileName",
            "maxLength",
        ),
        (
            json!({"content": "x", "servers": ["demo"], "environmentId": "local"}),
            "/environmentId",
            "mutuallyExclusive",
        ),
        (
            json!({"content": "x", "duplicatePolicy": "skip"}),
            "/duplicatePolicy",
            "enum",
        ),
        (
            json!({"content": "x", "duplicatePolicy": "warn"}),
            "/overrideReason",
            "required",
        ),
        (
            json!({"content": "x", "duplicatePolicy": "create_anyway", "overrideReason": ""}),
            "/overrideReason",
            "minLength",
        ),
        (
            json!({"content": "x", "idempotencyKey": ""}),
            "/idempotencyKey",
            "minLength",
        ),
        (
            json!({"content": "x", "idempotencyKey": "k".repeat(257)}),
            "/idempotencyKey",
            "maxLength",
        ),
        (
            json!({"content": "x", "caseModels": [{"provider": "openai"}]}),
            "/caseModels/0/model",
            "required",
        ),
        (
            json!({"content": "x", "servers": ["nope"]}),
            "/servers/0",
            "exists",
        ),
    ];
    for (body, p, rule) in cases {
        import(&h, body).await.invalid(p, rule);
    }
    // Characters, not bytes: 102400 multi-byte characters pass, one more does not.
    let ok = "é".repeat(102_400);
    let r = import(&h, json!({"content": ok})).await;
    assert_eq!(r.ok(200)["created"], json!([]));
    import(&h, json!({"content": format!("{ok}é")}))
        .await
        .invalid("/content", "maxLength");
    // Not UTF-8, not JSON.
    h.raw(
        reqwest::Method::POST,
        &path,
        Some(&h.owner_key),
        Some("application/json"),
        b"{\"content\":\"\xff\"}".to_vec(),
    )
    .await
    .invalid_rule("utf8");
    h.raw(
        reqwest::Method::POST,
        &path,
        Some(&h.owner_key),
        Some("application/json"),
        b"content: x".to_vec(),
    )
    .await
    .invalid_rule("json");
    // An idempotency header over 256 characters.
    h.post_with(
        &path,
        &h.owner_key,
        &[("Idempotency-Key", &"k".repeat(257))],
        json!({"content": "x"}),
    )
    .await
    .invalid("/idempotencyKey", "maxLength");
    // Unknown suite, no key.
    h.post_with(
        &format!("/projects/{}/eval-suites/nope/cases/import", h.project),
        &h.owner_key,
        &[],
        json!({"content": "x"}),
    )
    .await
    .err(404, "NOT_FOUND");
    h.call(
        reqwest::Method::POST,
        &path,
        None,
        Some(json!({"content": "x"})),
    )
    .await
    .err(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn markdown_qa_plan_against_the_demo_server() {
    let h = Harness::with_config(config()).await;
    let content = plan("qa-plan.md");
    let r = import(&h, json!({"content": content, "fileName": "qa-plan.md"})).await;
    let body = r.ok(200).clone();
    assert_eq!(body["generationModel"], "evaldeck-extract/2");
    // Six headed cases and three table rows; no document-info, environment or exit-criteria row.
    assert_eq!(body["created"].as_array().unwrap().len(), 9, "{body:#}");
    assert_eq!(body["counts"], json!({"normal": 7, "negative": 2}));
    assert!(body.get("skipped").is_none() && body.get("reviewUrl").is_none());
    check_provenance(&body, &content, "qa-plan.md");

    let add = by_title(&body, "Add two numbers");
    assert_eq!(span(add), (23, 28));
    assert_eq!(add["import"]["sourceCaseKey"], "TC-001");
    assert_eq!(add["import"]["status"], "approximated");
    assert_eq!(
        add["steps"][0],
        json!({"id": "prompt-1", "kind": "prompt", "prompt": "What is 2 + 3? Use the calculator."})
    );
    assert_eq!(
        add["steps"][1]["assertion"],
        json!({"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 2, "b": 3}, "argumentMatching": "partial"}})
    );
    assert_eq!(
        add["steps"][2]["assertion"],
        json!({"type": "responseContains", "needle": "5"})
    );
    assert_eq!(add["models"], json!([{"model": "builtin/baseline"}]));

    let echo = by_title(&body, "Echo a greeting with emoji");
    assert_eq!(echo["import"]["status"], "exact");
    assert!(
        echo["import"]["note"]
            .as_str()
            .unwrap()
            .contains("markdown section")
    );

    let neg = by_title(&body, "Refuse to delete without confirmation (negative)");
    assert_eq!(neg["isNegative"], true);
    assert_eq!(span(neg), (42, 46));

    let multi = by_title(&body, "Running total across turns");
    let prompts: Vec<&str> = multi["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["prompt"].as_str())
        .collect();
    assert_eq!(prompts, ["Add 10 and 5.", "Now add 7 to that result."]);

    // A renamed tool does not resolve against the live server.
    let legacy = by_title(&body, "Legacy sum tool");
    assert_eq!(legacy["import"]["status"], "unresolved");
    assert!(
        legacy["import"]["note"]
            .as_str()
            .unwrap()
            .contains("`sum` is not offered"),
        "{legacy}"
    );

    let row = by_title(&body, "Echo a|b literally");
    assert_eq!(span(row), (67, 67));
    assert_eq!(row["import"]["status"], "exact");
    let joke = by_title(&body, "Tell me a joke about cats");
    assert_eq!(joke["isNegative"], true);

    // The cases are in the suite.
    let cases = h
        .get(
            &format!("/projects/{}/eval-suites/Smoke/cases", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(cases.ok(200)["items"].as_array().unwrap().len(), 9);
}

#[tokio::test]
async fn spreadsheet_json_notes_and_yaml_shapes() {
    let h = Harness::with_config(config()).await;
    // CSV with a quoted multi-line cell, in LF and CRLF: the same spans.
    for crlf in [false, true] {
        let mut content = plan("spreadsheet-export.csv");
        if crlf {
            content = content.replace('\n', "\r\n");
        }
        let r = import(&h, json!({"content": content, "fileName": "export.csv", "duplicatePolicy": "create_anyway", "overrideReason": "twice on purpose"})).await;
        let body = r.ok(200).clone();
        assert_eq!(
            body["counts"],
            json!({"normal": 4, "negative": 1}),
            "{body:#}"
        );
        check_provenance(&body, &content, "export.csv");
        let multi = by_title(&body, "Echo a multi-line note");
        assert_eq!(span(multi), (3, 5));
        assert_eq!(span(by_title(&body, "No tools for small talk")), (6, 6));
        assert_eq!(
            by_title(&body, "Sum of two numbers")["import"]["status"],
            "exact"
        );
    }

    let content = plan("dataset-export.json");
    let body = import(&h, json!({"content": content, "fileName": "goldens.json"}))
        .await
        .ok(200)
        .clone();
    assert_eq!(
        body["counts"],
        json!({"normal": 3, "negative": 1}),
        "{body:#}"
    );
    check_provenance(&body, &content, "goldens.json");
    let first = by_title(&body, "Add 1.5 and 2.25");
    assert_eq!(span(first), (5, 12));
    assert_eq!(first["import"]["status"], "exact");
    // `list_items` is the live `list-items`, spelled differently: mapped, said so.
    let page = by_title(&body, "Show me page 2 of the catalogue, 5 items per page");
    assert_eq!(page["import"]["status"], "approximated");
    assert_eq!(page["steps"][1]["assertion"]["toolName"], "list-items");
    // An argument under a name the tool does not have, whose value only one of its
    // parameters takes: read as that parameter, said so, and approximated.
    let stats = by_title(&body, "Compute statistics for 3, 3, 3");
    assert_eq!(stats["import"]["status"], "approximated");
    assert_eq!(
        stats["steps"][1]["assertion"]["args"]["args"],
        json!({"numbers": [3, 3, 3]}),
        "{stats:#}"
    );
    assert!(
        stats["import"]["note"]
            .as_str()
            .unwrap()
            .contains("`values` read as the parameter `numbers` of `get-stats`"),
        "{stats:#}"
    );

    let content = plan("meeting-notes.md");
    let body = import(&h, json!({"content": content, "fileName": "notes.md"}))
        .await
        .ok(200)
        .clone();
    assert_eq!(
        body["counts"],
        json!({"normal": 3, "negative": 1}),
        "{body:#}"
    );
    check_provenance(&body, &content, "notes.md");
    for c in body["created"].as_array().unwrap() {
        assert_ne!(c["import"]["status"], "exact");
    }
    assert_eq!(span(by_title(&body, "what's 12 plus 30")), (7, 7));
    assert_eq!(
        by_title(&body, "add 2 and 2 with sum")["import"]["status"],
        "unresolved"
    );

    let content = plan("promptfoo.yaml");
    let body = import(
        &h,
        json!({"content": content, "fileName": "promptfooconfig.yaml"}),
    )
    .await
    .ok(200)
    .clone();
    assert_eq!(body["created"].as_array().unwrap().len(), 3, "{body:#}");
    check_provenance(&body, &content, "promptfooconfig.yaml");
    let adds = by_title(&body, "Adds two numbers");
    assert_eq!(span(adds), (12, 17));
    assert_eq!(
        adds["steps"][0]["prompt"],
        "You are testing a calculator. What is 40 + 2?"
    );
    assert_eq!(
        by_title(&body, "Custom check")["import"]["status"],
        "unsupported"
    );
}

#[tokio::test]
async fn jsonl_tsv_and_crlf_markdown_keep_exact_spans() {
    let h = Harness::with_config(config()).await;
    let create_anyway = |content: &str, file: &str| json!({"content": content, "fileName": file, "duplicatePolicy": "create_anyway", "overrideReason": "each shape on purpose"});
    // JSONL: one case per object line, a blank line skipped, each excerpt its line.
    let content = plan("openai-samples.jsonl");
    let body = import(&h, create_anyway(&content, "samples.jsonl"))
        .await
        .ok(200)
        .clone();
    assert_eq!(
        body["counts"],
        json!({"normal": 2, "negative": 1}),
        "{body:#}"
    );
    check_provenance(&body, &content, "samples.jsonl");
    assert_eq!(span(by_title(&body, "Echo back: ping")), (1, 1));
    let owls = by_title(&body, "Tell me a joke about owls");
    assert_eq!(span(owls), (4, 4));
    assert_eq!(owls["isNegative"], true);
    assert_eq!(owls["import"]["status"], "exact");

    // TSV: one case per row; an empty tool cell is no tool rule at all.
    let content = plan("checklist.tsv");
    let body = import(&h, create_anyway(&content, "checklist.tsv"))
        .await
        .ok(200)
        .clone();
    assert_eq!(
        body["counts"],
        json!({"normal": 3, "negative": 1}),
        "{body:#}"
    );
    check_provenance(&body, &content, "checklist.tsv");
    let sum = by_title(&body, "Add 4 and 5");
    assert_eq!(span(sum), (2, 2));
    assert_eq!(
        sum["steps"][1]["assertion"]["args"]["args"],
        json!({"a": 4, "b": 5})
    );
    let hello = by_title(&body, "Say hello to Ana");
    assert_eq!(span(hello), (3, 3));
    assert!(
        !hello["import"]["note"]
            .as_str()
            .unwrap()
            .contains("toolCalled"),
        "{hello:#}"
    );
    assert_eq!(by_title(&body, "How are you today?")["isNegative"], true);

    // Markdown with Windows line endings: the same cases and spans as with LF, and
    // excerpts that keep the document's own `\r\n`.
    let lf = plan("qa-plan.md");
    let crlf = lf.replace('\n', "\r\n");
    let a = import(&h, create_anyway(&lf, "plan.md"))
        .await
        .ok(200)
        .clone();
    let b = import(&h, create_anyway(&crlf, "plan-crlf.md"))
        .await
        .ok(200)
        .clone();
    check_provenance(&b, &crlf, "plan-crlf.md");
    assert_eq!(a["counts"], b["counts"]);
    let spans = |v: &Value| {
        v["created"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["title"].clone(), span(c), c["import"]["status"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(spans(&a), spans(&b));
    let multi = b["created"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| span(c).1 > span(c).0)
        .unwrap();
    assert!(
        multi["source"]["excerpt"]
            .as_str()
            .unwrap()
            .contains("\r\n")
    );

    // Minified JSON: each object's excerpt is the object's own text.
    let content =
        r#"[{"input":"Echo one","expected":"one"},{"input":"Echo two","expected":"two"}]"#;
    let body = import(&h, create_anyway(content, "min.json"))
        .await
        .ok(200)
        .clone();
    let two = by_title(&body, "Echo two");
    assert_eq!(span(two), (1, 1));
    assert_eq!(
        two["source"]["excerpt"],
        r#"{"input":"Echo two","expected":"two"}"#
    );
    assert_eq!(two["source"]["fileHash"], sha256_hex(content));
}

#[tokio::test]
async fn plan_sections_and_meeting_quotes_make_no_case() {
    let h = Harness::with_config(config()).await;
    let content = plan("qa-plan-with-setup.md");
    let body = import(&h, json!({"content": content, "fileName": "setup.md"}))
        .await
        .ok(200)
        .clone();
    check_provenance(&body, &content, "setup.md");
    let titles: Vec<&str> = body["created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Refuse small talk tools",
            "Answer directly",
            "Sum with a plain tool cell",
            "Echo by name"
        ],
        "{body:#}"
    );
    let refuse = by_title(&body, "Refuse small talk tools");
    assert_eq!(refuse["isNegative"], true);
    assert_ne!(refuse["import"]["status"], "exact");
    let direct = by_title(&body, "Answer directly");
    assert_eq!(direct["isNegative"], true);
    let sum = by_title(&body, "Sum with a plain tool cell");
    assert_eq!(
        sum["steps"][1]["assertion"]["args"]["args"],
        json!({"a": 2, "b": 3})
    );
    let echo = by_title(&body, "Echo by name");
    assert_eq!(echo["steps"][1]["assertion"]["toolName"], "echo");
    // The rule ends the last case: the sign-off after it is not in its excerpt.
    assert!(
        !echo["source"]["excerpt"]
            .as_str()
            .unwrap()
            .contains("Signed off")
    );
}

#[tokio::test]
async fn prose_makes_no_case() {
    let h = Harness::with_config(config()).await;
    let prose = "# Retro\n\nThe assistant said \"hello\" and it should be fine. We will write tests later;\nnobody knows which tool the calculator uses yet.\n";
    let body = import(&h, json!({"content": prose})).await.ok(200).clone();
    assert_eq!(body["created"], json!([]));
    assert_eq!(body["counts"], json!({"normal": 0, "negative": 0}));
}

#[tokio::test]
async fn duplicate_policies_and_review_of_skipped_drafts() {
    let h = Harness::with_config(config()).await;
    let content = plan("spreadsheet-export.csv");
    let first = import(&h, json!({"content": content}))
        .await
        .ok(200)
        .clone();
    assert_eq!(first["created"].as_array().unwrap().len(), 5);
    let balance = |h: &Harness| h.service.store().org(&h.owner.org_id).unwrap().credits;
    let before = balance(&h);

    // block: every draft duplicates a case; all are skipped, with a reviewUrl.
    let blocked = import(&h, json!({"content": content}))
        .await
        .ok(200)
        .clone();
    assert_eq!(blocked["created"], json!([]));
    let skipped = blocked["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 5);
    for s in skipped {
        assert_eq!(s["code"], "DUPLICATE");
        assert!(s["draftId"].as_str().unwrap().starts_with("drf_"));
        assert!(
            s["title"].is_string() && s["reason"].as_str().unwrap().contains("duplicates case")
        );
        assert!(s["duplicateOf"].as_str().unwrap().starts_with("case_"));
    }
    let job = blocked["jobId"].as_str().unwrap();
    let url = blocked["reviewUrl"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "evaldeck://review/{}/{job}?drafts=drf_",
            h.project
        )),
        "{url}"
    );
    assert_eq!(url.matches("drf_").count(), 5);
    // Authoring the second import was charged (5 drafts), once.
    assert_eq!(balance(&h), before - 5);

    // The review lists exactly the skipped drafts; finishing one (edited) costs nothing.
    let drafts = h
        .get(
            &format!(
                "/projects/{}/authoring-jobs/{job}/drafts?state=skipped",
                h.project
            ),
            &h.owner_key,
        )
        .await;
    let items = drafts.ok(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 5);
    let d0 = items[0]["id"].as_str().unwrap();
    let finished = h
        .post_with(
            &format!(
                "/projects/{}/authoring-jobs/{job}/drafts/{d0}/finish",
                h.project
            ),
            &h.owner_key,
            &[],
            json!({"title": "Sum, reviewed"}),
        )
        .await;
    let case = finished.ok(200).clone();
    assert_eq!(case["title"], "Sum, reviewed");
    assert_eq!(balance(&h), before - 5, "finishing is free");
    h.post_with(
        &format!(
            "/projects/{}/authoring-jobs/{job}/drafts/{d0}/finish",
            h.project
        ),
        &h.owner_key,
        &[],
        json!({}),
    )
    .await
    .err(409, "CONFLICT");
    let left = h
        .get(
            &format!(
                "/projects/{}/authoring-jobs/{job}/drafts?state=skipped",
                h.project
            ),
            &h.owner_key,
        )
        .await;
    assert_eq!(left.ok(200)["items"].as_array().unwrap().len(), 4);

    // warn: created, each with a warning; create_anyway: created silently.
    let warned = import(
        &h,
        json!({"content": content, "duplicatePolicy": "warn", "overrideReason": "re-import"}),
    )
    .await
    .ok(200)
    .clone();
    assert_eq!(warned["created"].as_array().unwrap().len(), 5);
    assert_eq!(warned["warnings"].as_array().unwrap().len(), 5);
    assert!(warned.get("skipped").is_none());
    let anyway = import(&h, json!({"content": content, "duplicatePolicy": "create_anyway", "overrideReason": "load test"})).await.ok(200).clone();
    assert_eq!(anyway["created"].as_array().unwrap().len(), 5);
    assert!(anyway.get("warnings").is_none());
    let cases = h
        .get(
            &format!("/projects/{}/eval-suites/Smoke/cases", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(
        cases.ok(200)["items"].as_array().unwrap().len(),
        5 + 1 + 5 + 5
    );
}

#[tokio::test]
async fn idempotency_one_job_one_charge_under_concurrent_retries() {
    let h = Arc::new(Harness::with_config(config()).await);
    let content = plan("qa-plan.md");
    let before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    let mut tasks = Vec::new();
    for i in 0..8 {
        let h = h.clone();
        let content = content.clone();
        // Each header spelling, and the body field alone, carry the same key.
        let header = [
            "x-evaldeck-idempotency-key",
            "x-service-idempotency-key",
            "Idempotency-Key",
            "",
        ][i % 4];
        tasks.push(tokio::spawn(async move {
            let path = import_path(&h);
            if header.is_empty() {
                h.post_with(
                    &path,
                    &h.owner_key,
                    &[],
                    json!({"content": content, "idempotencyKey": "plan-v1"}),
                )
                .await
            } else {
                h.post_with(
                    &path,
                    &h.owner_key,
                    &[(header, "plan-v1")],
                    json!({"content": content}),
                )
                .await
            }
        }));
    }
    let mut jobs = std::collections::HashSet::new();
    for t in tasks {
        let r = t.await.unwrap();
        let b = r.ok(200);
        assert_eq!(b["created"].as_array().unwrap().len(), 9, "{b:#}");
        jobs.insert(b["jobId"].as_str().unwrap().to_string());
    }
    assert_eq!(jobs.len(), 1, "one job for one key");
    let after = h.service.store().org(&h.owner.org_id).unwrap().credits;
    assert_eq!(before - after, 9, "one charge: 9 drafts at 1 credit");
    let ledger = h.service.store().ledger(&h.owner.org_id, 50).unwrap();
    assert_eq!(ledger.iter().filter(|e| e.kind == "authoring").count(), 1);
    let cases = h
        .get(
            &format!("/projects/{}/eval-suites/Smoke/cases", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(cases.ok(200)["items"].as_array().unwrap().len(), 9);

    // The body key replays too; a header wins over a different body key.
    let replay = import(&h, json!({"content": content, "idempotencyKey": "plan-v1"})).await;
    assert_eq!(
        replay.ok(200)["jobId"].as_str().unwrap(),
        jobs.iter().next().unwrap()
    );
    let path = import_path(&h);
    let r = h
        .post_with(
            &path,
            &h.owner_key,
            &[("Idempotency-Key", "plan-v1")],
            json!({"content": content, "idempotencyKey": "other"}),
        )
        .await;
    assert_eq!(
        r.ok(200)["jobId"].as_str().unwrap(),
        jobs.iter().next().unwrap()
    );

    // Same key, different request.
    let r = h
        .post_with(
            &path,
            &h.owner_key,
            &[("Idempotency-Key", "plan-v1")],
            json!({"content": "# another plan"}),
        )
        .await;
    r.err(409, "CONFLICT");
    assert_eq!(r.reason(), Some("IDEMPOTENCY_KEY_REUSED"));
    assert!(r.body["details"]["jobId"].is_string());

    // Keys are scoped to the organization: another org may use the same key.
    let (_, key, project) = h.other_org();
    h.service
        .store()
        .create_suite(
            &project,
            &evaldeck::service::store::suites::NewSuite {
                name: "S".into(),
                ..Default::default()
            },
            &[],
        )
        .unwrap();
    let r = h
        .post_with(
            &format!("/projects/{project}/eval-suites/S/cases/import"),
            &key,
            &[("Idempotency-Key", "plan-v1")],
            json!({"content": "# nothing", "servers": ["demo"]}),
        )
        .await;
    // Not a conflict: the request goes on to fail on its own (no `demo` server there).
    r.invalid("/servers/0", "exists");
    assert_eq!(
        h.service.store().org(&h.owner.org_id).unwrap().credits,
        after,
        "no new charge"
    );
}

#[tokio::test]
async fn credits_run_out_and_are_granted_locally() {
    let h = Harness::with_config(config()).await;
    let org = h.owner.org_id.clone();
    let balance = h.service.store().org(&org).unwrap().credits;
    h.service.store().add_credits(&org, -balance).unwrap();
    let r = import(&h, json!({"content": plan("qa-plan.md")})).await;
    r.err(403, "FORBIDDEN");
    assert_eq!(r.reason(), Some("INSUFFICIENT_CREDITS"));
    // 3 credits do not pay for 9 drafts: the job fails, nothing is charged or written.
    h.service
        .store()
        .grant_credits(&org, 3, Some("test"))
        .unwrap();
    let r = import(&h, json!({"content": plan("qa-plan.md")})).await;
    let b = r.ok(200);
    assert_eq!(b["status"], "failed");
    assert!(
        b["error"]
            .as_str()
            .unwrap()
            .starts_with("INSUFFICIENT_CREDITS"),
        "{b}"
    );
    assert_eq!(b["created"], json!([]));
    let c = h.get("/credits", &h.owner_key).await;
    let c = c.ok(200);
    assert_eq!(c["balance"], 3);
    assert_eq!(c["ledger"][0]["kind"], "grant");
    // Grants are not an API operation.
    h.post_with("/credits", &h.owner_key, &[], json!({"amount": 5}))
        .await
        .err(404, "NOT_FOUND");
}

#[tokio::test]
async fn unreachable_server_is_502_and_embedded_backend_imports() {
    let h = Harness::with_config(config()).await;
    let mut c =
        evaldeck::spec::server::ServerConfig::new(evaldeck::spec::server::Transport::Stdio {
            command: "/nonexistent/evaldeck-server".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
        });
    c.connect_timeout_ms = 5_000;
    h.service
        .create_server(
            &h.owner,
            &h.project,
            &evaldeck::spec::server::ServerCreate::new("broken", c),
        )
        .unwrap();
    import(&h, json!({"content": "x", "servers": ["broken"]}))
        .await
        .err(502, "SERVER_UNREACHABLE");

    // The same operation through the Embedded backend, with the environment's servers.
    let b = h.embedded(&h.owner);
    let mut req = EvalCaseImportRequest::new(plan("dataset-export.json"));
    let env = h
        .service
        .store()
        .environments(&h.project, &Default::default())
        .unwrap()
        .items[0]
        .id
        .clone();
    req.environment_id = Some(env);
    match b.import_cases(&h.project, "Smoke", &req).await.unwrap() {
        ImportResponse::Imported(i) => assert_eq!(i.created.len(), 4),
        other => panic!("{other:?}"),
    }
    let credits = b.credits().await.unwrap();
    assert_eq!(credits.ledger[0].delta, -4);
}

// ---------------------------------------------------------------------------------------
// The model author against a scripted OpenAI-compatible server.
// ---------------------------------------------------------------------------------------

const DOC: &str = "Plan for the calculator\n- ask it what 2 + 3 is; it should use get-sum\n- small talk needs no tool\n";
const GOOD: &str = r#"{"cases": [{"title": "Sum", "prompts": ["What is 2 + 3?"], "negative": false, "expectedTools": [{"name": "get-sum", "arguments": {"a": 2, "b": 3}}], "startLine": 2, "endLine": 2}, {"title": "Small talk", "prompts": ["How are you?"], "negative": true, "expectedTools": [], "startLine": 3, "endLine": 3}]}"#;

fn model_config(base: &str, wait_ms: u64) -> Config {
    let mut c = config();
    c.authoring.author = AuthorConfig::OpenAi {
        base_url: base.into(),
        api_key: Some("sk-test".into()),
        model: "scripted-1".into(),
    };
    c.authoring.wait = Duration::from_millis(wait_ms);
    c
}

async fn poll(h: &Harness, job: &str) -> Value {
    for _ in 0..200 {
        let r = h
            .get(
                &format!("/projects/{}/authoring-jobs/{job}", h.project),
                &h.owner_key,
            )
            .await;
        let b = r.ok(200).clone();
        if b["status"] != "pending" {
            return b;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the job never finished");
}

#[tokio::test]
async fn slow_model_answers_202_then_poll_and_commit() {
    let s = script(800, GOOD);
    let base = model_server(s.clone()).await;
    let h = Harness::with_config(model_config(&base, 100)).await;
    let before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    let body = json!({"content": DOC, "caseModels": [{"model": "gpt-4o", "provider": "openai"}]});
    let keyed = [("Idempotency-Key", "slow-plan-1")];
    let r = h
        .post_with(&import_path(&h), &h.owner_key, &keyed, body.clone())
        .await;
    let b = r.ok(202).clone();
    assert_eq!(b["status"], "pending");
    assert_eq!(b["created"], json!([]));
    let job = b["jobId"].as_str().unwrap().to_string();
    // A replay while the job is still authoring: 202 again, the same job, no new authoring.
    let replay = h
        .post_with(&import_path(&h), &h.owner_key, &keyed, body.clone())
        .await;
    let rb = replay.ok(202);
    assert_eq!(rb["jobId"], job.as_str());
    assert_eq!(rb["status"], "pending");
    let done = poll(&h, &job).await;
    // Finished after the window: completed, not committed; nothing written yet.
    assert_eq!(done["status"], "completed");
    assert_eq!(done["generationModel"], "scripted-1");
    assert_eq!(done["counts"], json!({"normal": 1, "negative": 1}));
    assert!(
        h.service
            .store()
            .cases(&h.service.suite(&h.owner, &h.project, "Smoke").unwrap().id)
            .unwrap()
            .is_empty()
    );
    // 2 drafts + 1500 tokens (2 started thousands) at 1 credit each.
    assert_eq!(
        before - h.service.store().org(&h.owner.org_id).unwrap().credits,
        4
    );
    let committed = h
        .post_with(
            &format!("/projects/{}/authoring-jobs/{job}/commit", h.project),
            &h.owner_key,
            &[],
            json!({}),
        )
        .await;
    let c = committed.ok(200).clone();
    assert_eq!(c["created"].as_array().unwrap().len(), 2);
    let sum = &c["created"][0];
    assert_eq!(
        sum["models"],
        json!([{"model": "gpt-4o", "provider": "openai"}])
    );
    assert_eq!(sum["import"]["status"], "approximated");
    assert_eq!(
        sum["source"]["excerpt"],
        "- ask it what 2 + 3 is; it should use get-sum"
    );
    assert_eq!(
        sum["source"]["extractorVersion"],
        "evaldeck-model-author/1 (scripted-1)"
    );
    // Polling and committing again return the recorded result.
    let again = h
        .get(
            &format!("/projects/{}/authoring-jobs/{job}", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(again.ok(200)["created"], c["created"]);
    // A replay after the commit answers the recorded result.
    let replay = h
        .post_with(&import_path(&h), &h.owner_key, &keyed, body)
        .await;
    assert_eq!(replay.ok(200)["created"], c["created"]);
    assert_eq!(s.calls.load(Ordering::SeqCst), 1);
    assert_eq!(
        before - h.service.store().org(&h.owner.org_id).unwrap().credits,
        4,
        "replays are free"
    );
}

#[tokio::test]
async fn cancel_and_failed_jobs() {
    let s = script(1500, GOOD);
    let base = model_server(s.clone()).await;
    let h = Harness::with_config(model_config(&base, 100)).await;
    let before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    let b = import(&h, json!({"content": DOC})).await.ok(202).clone();
    let job = b["jobId"].as_str().unwrap();
    let c = h
        .post_with(
            &format!("/projects/{}/authoring-jobs/{job}/cancel", h.project),
            &h.owner_key,
            &[],
            json!({}),
        )
        .await;
    assert_eq!(c.ok(200)["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(1700)).await;
    assert_eq!(poll(&h, job).await["status"], "cancelled");
    assert_eq!(
        h.service.store().org(&h.owner.org_id).unwrap().credits,
        before,
        "a cancelled job is not charged"
    );
    h.post_with(
        &format!("/projects/{}/authoring-jobs/{job}/commit", h.project),
        &h.owner_key,
        &[],
        json!({}),
    )
    .await
    .err(409, "CONFLICT");

    // Output that is invalid twice fails the job, with the reason; inside the window the
    // request answers 200 with the job body.
    let s = script(0, "Sorry, I can't produce JSON today.");
    let base = model_server(s.clone()).await;
    let h = Harness::with_config(model_config(&base, 5_000)).await;
    let r = import(&h, json!({"content": DOC})).await;
    let b = r.ok(200);
    assert_eq!(b["status"], "failed");
    assert!(
        b["error"]
            .as_str()
            .unwrap()
            .contains("invalid drafts twice"),
        "{b}"
    );
    assert_eq!(
        b["generationModel"], "scripted-1",
        "the failed job names its model"
    );
    assert_eq!(b["created"], json!([]));
    assert_eq!(s.calls.load(Ordering::SeqCst), 2, "retried once");
}

#[tokio::test]
async fn a_pending_job_survives_a_restart() {
    let s = script(3_000, GOOD);
    let base = model_server(s.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let first = Service::open(&db, model_config(&base, 50)).unwrap();
    let b = Embedded::new(first.clone()).unwrap();
    let who = first.local_principal().unwrap();
    let project = first.store().default_project(&who.org_id).unwrap().unwrap();
    let job = match b
        .import_cases(&project, "Smoke", &EvalCaseImportRequest::new(DOC))
        .await
        .unwrap()
    {
        ImportResponse::Job(j) => {
            assert_eq!(j.status, JobStatus::Pending);
            j.job_id
        }
        other => panic!("{other:?}"),
    };
    first.shutdown().await;
    drop(b);
    drop(first);

    // The next process resumes it (the model answers quickly now) and leaves it completed.
    s.delay_ms.store(0, Ordering::SeqCst);
    let second = Service::open(&db, model_config(&base, 50)).unwrap();
    let b = Embedded::new(second.clone()).unwrap();
    let mut status = JobStatus::Pending;
    for _ in 0..100 {
        if let ImportResponse::Job(j) = b.authoring_job(&project, &job).await.unwrap() {
            status = j.status;
            if status != JobStatus::Pending {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, JobStatus::Completed);
    let done = b
        .commit_authoring_job(&project, &job, &CommitRequest::default())
        .await
        .unwrap();
    assert_eq!(done.created.len(), 2);
    let drafts = b
        .authoring_drafts(
            &project,
            &job,
            &DraftQuery {
                state: Some(DraftState::Created),
            },
        )
        .await
        .unwrap();
    assert_eq!(drafts.items.len(), 2);
    second.shutdown().await;

    // With recovery off, a pending job is failed with an error instead.
    s.delay_ms.store(3_000, Ordering::SeqCst);
    let third = Service::open(&db, model_config(&base, 50)).unwrap();
    let b = Embedded::new(third.clone()).unwrap();
    let job = match b
        .import_cases(&project, "Smoke", &EvalCaseImportRequest::new("another\n"))
        .await
        .unwrap()
    {
        ImportResponse::Job(j) => j.job_id,
        other => panic!("{other:?}"),
    };
    third.shutdown().await;
    let mut cfg = model_config(&base, 50);
    cfg.authoring.resume_jobs = false;
    let fourth = Service::open(&db, cfg).unwrap();
    let b = Embedded::new(fourth.clone()).unwrap();
    match b.authoring_job(&project, &job).await.unwrap() {
        ImportResponse::Job(j) => {
            assert_eq!(j.status, JobStatus::Failed);
            assert!(j.error.unwrap().contains("interrupted"));
        }
        other => panic!("{other:?}"),
    }
    fourth.shutdown().await;
}

// ---------------------------------------------------------------------------------------
// One-line test cases, grounding of copied assertions, negatives from wording.
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn one_line_checklist_makes_one_case_per_item() {
    let h = Harness::with_config(config()).await;
    let content = plan("regression-checklist.md");
    let body = import(
        &h,
        json!({"content": content, "fileName": "regression-checklist.md"}),
    )
    .await
    .ok(200)
    .clone();
    // Five one-line items, three reviewer's picks, one two-turn conversation; nothing
    // from the preamble or the sign-off table.
    assert_eq!(body["created"].as_array().unwrap().len(), 9, "{body:#}");
    assert_eq!(body["counts"], json!({"normal": 7, "negative": 2}));
    check_provenance(&body, &content, "regression-checklist.md");
    for c in body["created"].as_array().unwrap() {
        for s in c["steps"].as_array().unwrap() {
            if let Some(p) = s["prompt"].as_str() {
                assert!(
                    !p.contains("Expected") && !p.contains("Tool:"),
                    "a field label left in a prompt: {p:?}"
                );
            }
        }
    }

    let four = by_title(&body, "What is 4 + 4?");
    assert_eq!(span(four), (9, 9));
    assert_eq!(
        four["steps"][1]["assertion"],
        json!({"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 4, "b": 4}, "argumentMatching": "partial"}})
    );
    assert_eq!(four["import"]["status"], "approximated");

    let echo = by_title(&body, "Echo the word pineapple");
    assert_eq!(span(echo), (10, 10));
    assert_eq!(echo["import"]["status"], "exact");
    assert_eq!(
        echo["steps"][1]["assertion"]["args"]["args"],
        json!({"message": "pineapple"})
    );

    // `Expected: no tool` is a negative case, not an expected output.
    let weekend = by_title(&body, "Tell me about your weekend");
    assert_eq!(weekend["isNegative"], true);
    assert!(weekend.get("expectedOutput").is_none(), "{weekend}");
    assert_eq!(weekend["import"]["status"], "exact");
    assert!(
        weekend["import"]["note"]
            .as_str()
            .unwrap()
            .contains("`Expected` = `no tool` → isNegative")
    );

    // `list_items` is the live `list-items`: the assertion holds the live name.
    let items = by_title(&body, "Show me the first 2 items of the catalogue");
    assert_eq!(span(items), (12, 12));
    assert_eq!(items["steps"][1]["assertion"]["toolName"], "list-items");
    assert_eq!(items["import"]["status"], "approximated");
    assert!(
        items["import"]["note"]
            .as_str()
            .unwrap()
            .contains("`list_items` mapped to the live tool `list-items`")
    );

    // A bullet whose expectation is on the next line: two lines, prompt alone.
    let add = by_title(&body, "Add 19 and 23 for me, please.");
    assert_eq!(span(add), (17, 18));
    assert_eq!(add["steps"][0]["prompt"], "Add 19 and 23 for me, please.");
    assert_eq!(add["import"]["status"], "exact");
    let reset = by_title(&body, "How do I reset my password?");
    assert_eq!(span(reset), (19, 20));
    assert_eq!(reset["isNegative"], true);
    let hola = by_title(&body, "Repeat after me: ¡buenos días!");
    assert_eq!(span(hola), (21, 23));

    // The section that says "conversation" keeps its prompts as turns of one case.
    let total = by_title(&body, "Conversation: running total");
    let prompts: Vec<&str> = total["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["prompt"].as_str())
        .collect();
    assert_eq!(prompts, ["Add 2 and 3", "Now add 10 to that"]);
    assert_eq!(span(total), (25, 29));
}

#[tokio::test]
async fn copied_assertions_are_grounded_in_the_live_tools() {
    let h = Harness::with_config(config()).await;
    // This API's own suite JSON, written against tool names that have since changed.
    let suite = json!({"tests": [
        {"title": "Sum, old spelling", "steps": [
            {"id": "p", "kind": "prompt", "prompt": "What is 2 + 3?"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledAtLeastOnce", "toolName": "get_sum"}},
            {"id": "a2", "kind": "assert", "assertion": {"type": "onlyToolsCalled", "toolNames": ["get_sum"]}},
            {"id": "a3", "kind": "assert", "assertion": {"type": "toolCalledBefore", "toolName": "list_items", "beforeToolName": "get_sum"}}]},
        {"title": "Called with a parameter it lacks", "steps": [
            {"id": "p", "kind": "prompt", "prompt": "Add 1 and 2"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "get_sum", "args": {"args": {"x": 1}}}}]},
        {"title": "Exact match needs every required argument", "steps": [
            {"id": "p", "kind": "prompt", "prompt": "Add 1 and 2, exactly"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 1}, "argumentMatching": "exact"}}}]},
        {"title": "Renamed away", "steps": [
            {"id": "p", "kind": "prompt", "prompt": "Sum 1 and 1"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "onlyToolsCalled", "toolNames": ["get-sum", "sum"]}}]},
        {"title": "Spelled right", "steps": [
            {"id": "p", "kind": "prompt", "prompt": "Echo hi"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "echo", "args": {"args": {"message": "hi"}}}}]}
    ]});
    let content = serde_json::to_string_pretty(&suite).unwrap();
    let body = import(&h, json!({"content": content, "fileName": "suite.json"}))
        .await
        .ok(200)
        .clone();
    assert_eq!(body["created"].as_array().unwrap().len(), 5, "{body:#}");
    check_provenance(&body, &content, "suite.json");

    let old = by_title(&body, "Sum, old spelling");
    assert_eq!(old["import"]["status"], "approximated");
    assert_eq!(old["steps"][1]["assertion"]["toolName"], "get-sum");
    assert_eq!(
        old["steps"][2]["assertion"]["toolNames"],
        json!(["get-sum"])
    );
    assert_eq!(old["steps"][3]["assertion"]["toolName"], "list-items");
    assert_eq!(old["steps"][3]["assertion"]["beforeToolName"], "get-sum");
    let note = old["import"]["note"].as_str().unwrap();
    assert!(
        note.contains("`get_sum` mapped to the live tool `get-sum`"),
        "{note}"
    );

    let lacks = by_title(&body, "Called with a parameter it lacks");
    assert_eq!(lacks["import"]["status"], "unresolved");
    assert!(
        lacks["import"]["note"]
            .as_str()
            .unwrap()
            .contains("`x` is not a parameter of `get-sum`")
    );
    let exact = by_title(&body, "Exact match needs every required argument");
    assert_eq!(exact["import"]["status"], "unresolved");
    assert!(
        exact["import"]["note"]
            .as_str()
            .unwrap()
            .contains("`get-sum` needs `b`")
    );
    let gone = by_title(&body, "Renamed away");
    assert_eq!(gone["import"]["status"], "unresolved");
    assert!(
        gone["import"]["note"]
            .as_str()
            .unwrap()
            .contains("tool `sum` is not offered")
    );
    assert_eq!(
        by_title(&body, "Spelled right")["import"]["status"],
        "exact"
    );
}

#[tokio::test]
async fn no_tool_wordings_make_negative_cases() {
    let h = Harness::with_config(config()).await;
    let content = "# Small talk\n\n### ST-1: Weekend\n- **Prompt:** How was your weekend?\n- **Expected result:** no tool\n\n### ST-2: Greeting\n- **Prompt:** Hello there!\n- **Expected result:** Needs no tool; a friendly greeting.\n\n### ST-3: Thanks\n- **Prompt:** Thanks, that's all.\n- **Expected:** No tools should be called.\n\n### ST-4: Sum\n- **Prompt:** What is 2 + 3?\n- **Expected result:** Calls `get-sum`; no tool errors.\n";
    let body = import(&h, json!({"content": content}))
        .await
        .ok(200)
        .clone();
    assert_eq!(
        body["counts"],
        json!({"normal": 1, "negative": 3}),
        "{body:#}"
    );
    check_provenance(&body, content, "document");
    let weekend = by_title(&body, "Weekend");
    assert_eq!(weekend["isNegative"], true);
    assert_eq!(weekend["import"]["status"], "exact");
    assert!(weekend.get("expectedOutput").is_none());
    for t in ["Greeting", "Thanks"] {
        let c = by_title(&body, t);
        assert_eq!(c["isNegative"], true, "{c}");
        assert_eq!(c["import"]["status"], "approximated", "{c}");
    }
    let sum = by_title(&body, "Sum");
    assert_eq!(sum["isNegative"], false);
    assert_eq!(sum["steps"][1]["assertion"]["toolName"], "get-sum");
}

// ---------------------------------------------------------------------------------------
// Discovery failures.
// ---------------------------------------------------------------------------------------

/// `evaldeck demo-server --http 127.0.0.1:0 ARGS`, killed on drop.
async fn http_demo(args: &[&str]) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(BIN)
        .args(["demo-server", "--http", "127.0.0.1:0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let url = line
        .strip_prefix("listening on ")
        .unwrap()
        .trim()
        .to_string();
    (child, url)
}

#[tokio::test]
async fn discovery_timeout_is_504_and_oauth_is_401() {
    use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
    let h = Harness::with_config(config()).await;
    let before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    // A server that connects and never answers.
    let mut c = ServerConfig::new(Transport::Stdio {
        command: BIN.into(),
        args: vec!["demo-server".into(), "--hang".into()],
        env: Default::default(),
        cwd: None,
    });
    c.connect_timeout_ms = 400;
    h.service
        .create_server(&h.owner, &h.project, &ServerCreate::new("hanging", c))
        .unwrap();
    let started = std::time::Instant::now();
    import(&h, json!({"content": DOC, "servers": ["hanging"]}))
        .await
        .err(504, "TIMEOUT");
    assert!(started.elapsed() < Duration::from_secs(5));

    // A server that needs an OAuth grant.
    let (_demo, url) = http_demo(&["--require-token", "good-token"]).await;
    let mut c = ServerConfig::new(Transport::Http {
        url,
        headers: Default::default(),
    });
    c.use_oauth = true;
    h.service
        .create_server(&h.owner, &h.project, &ServerCreate::new("guarded", c))
        .unwrap();
    import(&h, json!({"content": DOC, "servers": ["guarded"]}))
        .await
        .err(401, "OAUTH_REQUIRED");

    // Neither started a job nor spent a credit.
    assert_eq!(
        h.service.store().org(&h.owner.org_id).unwrap().credits,
        before
    );
    assert!(h.service.store().pending_jobs().unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------
// The model author: invalid drafts, Anthropic, several chunks.
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_draft_that_fails_validation_is_skipped_as_invalid() {
    // The model gives a case with nothing to ask, and again when told so.
    let reply = r#"{"cases": [{"title": "Sum", "prompts": ["What is 2 + 3?"], "negative": false, "expectedTools": [{"name": "get-sum", "arguments": {"a": 2, "b": 3}}], "startLine": 2, "endLine": 2}, {"title": "Nothing to ask", "prompts": [], "startLine": 3, "endLine": 3}]}"#;
    let s = script(0, reply);
    let base = model_server(s.clone()).await;
    let h = Harness::with_config(model_config(&base, 5_000)).await;
    let before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    let body = import(&h, json!({"content": DOC})).await.ok(200).clone();
    assert_eq!(s.calls.load(Ordering::SeqCst), 2, "told once, then kept");
    assert!(
        s.received()[1]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["content"]
                .as_str()
                .is_some_and(|c| c.contains("cases[1] has no prompt"))),
        "the retry lists the problem"
    );
    assert_eq!(body["created"].as_array().unwrap().len(), 1, "{body:#}");
    let skipped = body["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["code"], "INVALID_DRAFT");
    assert_eq!(skipped[0]["title"], "Nothing to ask");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("not a valid case"),
        "{}",
        skipped[0]
    );
    let draft = skipped[0]["draftId"].as_str().unwrap();
    let url = body["reviewUrl"].as_str().unwrap();
    assert!(url.ends_with(&format!("?drafts={draft}")), "{url}");
    // 2 drafts + 2 × 1500 tokens (3 started thousands).
    let after = h.service.store().org(&h.owner.org_id).unwrap().credits;
    assert_eq!(before - after, 5);

    // Finished with a prompt, it is written, free of charge.
    let job = body["jobId"].as_str().unwrap();
    let finished = h
        .post_with(
            &format!(
                "/projects/{}/authoring-jobs/{job}/drafts/{draft}/finish",
                h.project
            ),
            &h.owner_key,
            &[],
            json!({"steps": [{"id": "p1", "kind": "prompt", "prompt": "How are you?"}]}),
        )
        .await;
    assert_eq!(finished.ok(200)["title"], "Nothing to ask");
    assert_eq!(
        h.service.store().org(&h.owner.org_id).unwrap().credits,
        after
    );
}

/// What a scripted authoring model received: the user message of every request.
#[derive(Default)]
struct Seen {
    requests: std::sync::Mutex<Vec<(axum::http::HeaderMap, Value)>>,
}

/// The numbered lines of a user message (`N| text`).
fn numbered(user: &str) -> Vec<(usize, String)> {
    user.lines()
        .filter_map(|l| {
            let (n, rest) = l.split_once("| ")?;
            Some((n.trim().parse().ok()?, rest.to_string()))
        })
        .collect()
}

/// A scripted authoring model that reads the chunk it is sent and answers one case per
/// line starting `- ask:` in it, with that line's number: OpenAI-compatible
/// (`/v1/chat/completions`) or Anthropic (`/v1/messages`).
async fn authoring_model(anthropic: bool) -> (String, Arc<Seen>) {
    use axum::routing::post;
    let seen = Arc::new(Seen::default());
    let s = seen.clone();
    let handler = move |headers: axum::http::HeaderMap, axum::Json(body): axum::Json<Value>| {
        let s = s.clone();
        async move {
            s.requests.lock().unwrap().push((headers, body.clone()));
            let user = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find(|m| m["role"] == "user")
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_string();
            let cases: Vec<Value> = numbered(&user)
                .into_iter()
                .filter_map(|(n, text)| {
                    let p = text.strip_prefix("- ask: ")?;
                    Some(
                        json!({"title": format!("Line {n}"), "prompts": [p], "negative": false,
                        "expectedTools": [{"name": "echo", "arguments": {"message": p}}],
                        "startLine": n, "endLine": n}),
                    )
                })
                .collect();
            let text = json!({"cases": cases}).to_string();
            axum::Json(if anthropic {
                json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                       "usage": {"input_tokens": 700, "output_tokens": 100}})
            } else {
                json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 700, "completion_tokens": 100}})
            })
        }
    };
    let path = if anthropic {
        "/v1/messages"
    } else {
        "/v1/chat/completions"
    };
    let app = axum::Router::new().route(path, post(handler));
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(l, app).await;
    });
    (format!("http://{addr}/v1"), seen)
}

/// A plan of `n` one-line asks between filler lines, `size` bytes or more.
fn long_plan(n: usize) -> String {
    let mut s = String::from("# Echo checks\n\n");
    for i in 0..n {
        s.push_str(&format!("- ask: echo check number {i}\n"));
        s.push_str("  Some context the reviewer wrote about why this check matters to us.\n");
        s.push_str("  More of it, so that the document needs several chunks to send.\n\n");
    }
    s
}

#[tokio::test]
async fn anthropic_messages_author() {
    let (base, seen) = authoring_model(true).await;
    let mut cfg = config();
    cfg.authoring.author = AuthorConfig::Anthropic {
        base_url: base,
        api_key: Some("sk-ant-test".into()),
        model: "claude-scripted".into(),
    };
    let h = Harness::with_config(cfg).await;
    let before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    let content = long_plan(2);
    let body = import(&h, json!({"content": content, "fileName": "echo.md"}))
        .await
        .ok(200)
        .clone();
    assert_eq!(body["generationModel"], "claude-scripted");
    assert_eq!(body["created"].as_array().unwrap().len(), 2, "{body:#}");
    let first = by_title(&body, "Line 3");
    assert_eq!(span(first), (3, 3));
    assert_eq!(first["source"]["excerpt"], "- ask: echo check number 0");
    assert_eq!(first["source"]["fileHash"], sha256_hex(&content));
    assert_eq!(
        first["source"]["extractorVersion"],
        "evaldeck-model-author/1 (claude-scripted)"
    );
    assert_eq!(first["import"]["status"], "approximated");
    assert_eq!(first["steps"][1]["assertion"]["toolName"], "echo");
    let reqs = seen.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 1);
    let (headers, req) = &reqs[0];
    assert_eq!(headers["x-api-key"], "sk-ant-test");
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert_eq!(req["model"], "claude-scripted");
    assert!(req["max_tokens"].as_u64().unwrap() > 0);
    assert!(req["system"].as_str().unwrap().contains("ONE JSON object"));
    assert!(
        req["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("\"get-sum\""),
        "the discovered tools go in"
    );
    // 2 drafts + 800 tokens (1 started thousand).
    assert_eq!(
        before - h.service.store().org(&h.owner.org_id).unwrap().credits,
        3
    );
}

#[tokio::test]
async fn a_long_document_is_authored_in_chunks() {
    let (base, seen) = authoring_model(false).await;
    let mut cfg = model_config(&base, 5_000);
    cfg.authoring.chunk_chars = 1024;
    let h = Harness::with_config(cfg).await;
    let before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    let content = long_plan(30);
    assert!(content.len() > 4 * 1024);
    let body = import(&h, json!({"content": content}))
        .await
        .ok(200)
        .clone();
    let reqs = seen.requests.lock().unwrap().clone();
    assert!(reqs.len() >= 4, "{} chunk(s)", reqs.len());
    // The chunks cover every line once, in order, each at most the chunk size.
    let mut next = 1;
    for (_, r) in &reqs {
        let user = r["messages"][1]["content"].as_str().unwrap();
        let lines = numbered(user);
        assert_eq!(lines[0].0, next, "chunks are contiguous");
        let bytes: usize = lines.iter().map(|(_, t)| t.len() + 1).sum();
        assert!(bytes <= 1024, "{bytes} bytes in a chunk");
        next = lines.last().unwrap().0 + 1;
    }
    assert_eq!(next, content.lines().count() + 1, "every line was sent");
    // One case per ask, wherever the chunk boundaries fell, each at its own line.
    let created = body["created"].as_array().unwrap();
    assert_eq!(created.len(), 30, "{body:#}");
    for (i, c) in created.iter().enumerate() {
        let line = 3 + 4 * i as i64;
        assert_eq!(span(c), (line, line));
        assert_eq!(
            c["source"]["excerpt"],
            format!("- ask: echo check number {i}")
        );
    }
    // 30 drafts + 800 tokens per chunk, charged once.
    let tokens = 800 * reqs.len() as i64;
    assert_eq!(
        before - h.service.store().org(&h.owner.org_id).unwrap().credits,
        30 + (tokens + 999) / 1000
    );
}

// ---------------------------------------------------------------------------------------
// The CLI: `evaldeck import` against a served API, and `evaldeck credits`.
// ---------------------------------------------------------------------------------------

struct Cli {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary with `args` (and `stdin`), isolated from the caller's settings.
async fn evaldeck(dir: &std::path::Path, args: &[&str], stdin: Option<&str>) -> Cli {
    use tokio::io::AsyncWriteExt;
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(args)
        .env("EVALDECK_CONFIG_DIR", dir)
        .env("EVALDECK_LOG", "off")
        .env_remove("EVALDECK_DB")
        .env_remove("EVALDECK_BASE_URL")
        .env_remove("EVALDECK_API_KEY")
        .env_remove("EVALDECK_PROJECT")
        .env_remove("EVALDECK_AUTHOR_PROVIDER")
        .env_remove("EVALDECK_AUTHOR_BASE_URL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("run the CLI");
    let mut input = child.stdin.take().unwrap();
    if let Some(s) = stdin {
        input.write_all(s.as_bytes()).await.unwrap();
    }
    drop(input);
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the CLI finishes")
        .unwrap();
    Cli {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Cli {
    fn ok(&self) -> &Self {
        assert_eq!(
            self.code,
            Some(0),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

fn remote<'a>(h: &'a Harness, args: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "--base-url",
        h.base.as_str(),
        "--api-key",
        h.owner_key.as_str(),
    ];
    v.extend_from_slice(args);
    v
}

fn plan_path(name: &str) -> String {
    format!("{}/assets/plans/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_import_prints_counts_skipped_drafts_and_the_review_url() {
    let h = Harness::with_config(config()).await;
    let dir = tempfile::tempdir().unwrap();
    let qa = plan_path("qa-plan.md");
    let first = evaldeck(
        dir.path(),
        &remote(&h, &["import", "--suite", "Smoke", &qa]),
        None,
    )
    .await;
    first.ok();
    assert!(
        first.stdout.contains(
            "created 9 case(s) (7 normal, 2 negative) with evaldeck-extract/2; skipped 0"
        ),
        "{}",
        first.stdout
    );
    assert!(first.stdout.contains("Add two numbers"), "{}", first.stdout);
    assert!(!first.stdout.contains("review:"));

    // The same document again, without a terminal to ask: refused before any credit is
    // spent, naming the earlier job and `--again`.
    let refused = evaldeck(
        dir.path(),
        &remote(&h, &["import", "--suite", "Smoke", &qa]),
        None,
    )
    .await;
    assert_eq!(
        refused.code,
        Some(6),
        "{}{}",
        refused.stdout,
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("already has 1 authoring job(s) for this document")
            && refused.stderr.contains("--again"),
        "{}",
        refused.stderr
    );

    // With `--again`: every draft duplicates a case; each is listed with its reason, then
    // the link.
    let again = evaldeck(
        dir.path(),
        &remote(&h, &["import", "--again", "--suite", "Smoke", &qa]),
        None,
    )
    .await;
    again.ok();
    assert!(
        again.stdout.contains("created 0 case(s)") && again.stdout.contains("skipped 9"),
        "{}",
        again.stdout
    );
    let skipped: Vec<&str> = again
        .stdout
        .lines()
        .filter(|l| l.starts_with("skipped drf_"))
        .collect();
    assert_eq!(skipped.len(), 9, "{}", again.stdout);
    assert!(
        skipped
            .iter()
            .all(|l| l.contains("[DUPLICATE]") && l.contains("duplicates case `case_")),
        "{skipped:?}"
    );
    assert!(
        skipped.iter().any(|l| l.contains("“Add two numbers”")),
        "{skipped:?}"
    );
    let review = again
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("review: "))
        .expect("a review link");
    assert!(
        review.starts_with(&format!("evaldeck://review/{}/job_", h.project))
            && review.matches("drf_").count() == 9,
        "{review}"
    );

    // `--json`, the document on standard input: the API's body, `fileName` defaulted.
    let csv = plan("spreadsheet-export.csv");
    let j = evaldeck(
        dir.path(),
        &remote(&h, &["--json", "import", "--suite", "Smoke", "-"]),
        Some(&csv),
    )
    .await;
    j.ok();
    let v = j.json();
    assert_eq!(v["created"].as_array().unwrap().len(), 5, "{v:#}");
    assert_eq!(v["counts"], json!({"normal": 4, "negative": 1}));
    assert_eq!(v["created"][0]["source"]["fileName"], "document");
    assert_eq!(v["created"][0]["source"]["fileHash"], sha256_hex(&csv));
    // `--json` refuses the same document again unless `--again` is given: a conflict whose
    // details name the earlier job.
    let j = evaldeck(
        dir.path(),
        &remote(&h, &["--json", "import", "--suite", "Smoke", "-"]),
        Some(&csv),
    )
    .await;
    assert_eq!(j.code, Some(6), "{}{}", j.stdout, j.stderr);
    let err: Value = serde_json::from_str(if j.stdout.trim().is_empty() {
        &j.stderr
    } else {
        &j.stdout
    })
    .unwrap_or_else(|e| panic!("{e}: {}{}", j.stdout, j.stderr));
    assert_eq!(
        err["details"]["reason"], "DOCUMENT_ALREADY_IMPORTED",
        "{err:#}"
    );
    assert_eq!(err["details"]["jobs"][0]["fileHash"], sha256_hex(&csv));
    let j = evaldeck(
        dir.path(),
        &remote(
            &h,
            &["--json", "import", "--again", "--suite", "Smoke", "-"],
        ),
        Some(&csv),
    )
    .await;
    let v = j.ok().json();
    assert_eq!(v["skipped"].as_array().unwrap().len(), 5);
    assert_eq!(v["skipped"][0]["code"], "DUPLICATE");
    assert!(
        v["reviewUrl"]
            .as_str()
            .unwrap()
            .starts_with("evaldeck://review/")
    );

    // `--duplicate-policy warn` needs `--reason`; the API's rule comes back as exit 2.
    let bad = evaldeck(
        dir.path(),
        &remote(
            &h,
            &[
                "import",
                "--again",
                "--suite",
                "Smoke",
                &qa,
                "--duplicate-policy",
                "warn",
            ],
        ),
        None,
    )
    .await;
    assert_eq!(bad.code, Some(2), "{}{}", bad.stdout, bad.stderr);
    assert!(bad.stderr.contains("VALIDATION_ERROR"), "{}", bad.stderr);
    let warned = evaldeck(
        dir.path(),
        &remote(
            &h,
            &[
                "import",
                "--again",
                "--suite",
                "Smoke",
                &qa,
                "--duplicate-policy",
                "warn",
                "--reason",
                "second pass",
            ],
        ),
        None,
    )
    .await;
    warned.ok();
    assert_eq!(
        warned
            .stdout
            .lines()
            .filter(|l| l.starts_with("warning case_"))
            .count(),
        9,
        "{}",
        warned.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_import_polls_a_slow_model_and_exits_3_on_a_failed_job() {
    let s = script(700, GOOD);
    let base = model_server(s.clone()).await;
    let h = Harness::with_config(model_config(&base, 100)).await;
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("plan.md");
    std::fs::write(&doc, DOC).unwrap();
    let doc = doc.to_str().unwrap().to_string();

    // The request answers 202; the CLI polls the job and commits it.
    let done = evaldeck(
        dir.path(),
        &remote(&h, &["import", "--suite", "Smoke", &doc]),
        None,
    )
    .await;
    done.ok();
    assert!(
        done.stdout
            .contains("created 2 case(s) (1 normal, 1 negative) with scripted-1; skipped 0"),
        "{}",
        done.stdout
    );
    let suite = h.service.suite(&h.owner, &h.project, "Smoke").unwrap();
    assert_eq!(h.service.store().cases(&suite.id).unwrap().len(), 2);

    // `--no-wait`: the job is left authoring; `--json` gives its body.
    let other = dir.path().join("other.md");
    std::fs::write(&other, "- ask it what 4 + 4 is; it should use get-sum\n").unwrap();
    let nw = evaldeck(
        dir.path(),
        &remote(
            &h,
            &[
                "--json",
                "import",
                "--suite",
                "Smoke",
                other.to_str().unwrap(),
                "--no-wait",
            ],
        ),
        None,
    )
    .await;
    let v = nw.ok().json();
    assert_eq!(v["status"], "pending");
    let job = v["jobId"].as_str().unwrap().to_string();
    assert!(job.starts_with("job_"));
    let nw = evaldeck(
        dir.path(),
        &remote(
            &h,
            &[
                "import",
                "--suite",
                "Smoke",
                other.to_str().unwrap(),
                "--no-wait",
                "--key",
                "cli-no-wait",
            ],
        ),
        None,
    )
    .await;
    nw.ok();
    assert!(
        nw.stdout.contains("authoring job job_") && nw.stdout.contains("is pending"),
        "{}",
        nw.stdout
    );
    assert_eq!(poll(&h, &job).await["status"], "completed");

    // A model that never gives valid drafts: the job fails, the CLI exits 3 with the error.
    let bad = script(0, "Sorry, I can't produce JSON today.");
    let bad_base = model_server(bad).await;
    let h2 = Harness::with_config(model_config(&bad_base, 5_000)).await;
    let failed = evaldeck(
        dir.path(),
        &remote(&h2, &["import", "--suite", "Smoke", &doc]),
        None,
    )
    .await;
    assert_eq!(failed.code, Some(3), "{}{}", failed.stdout, failed.stderr);
    assert!(
        failed.stderr.contains("failed") && failed.stderr.contains("invalid drafts twice"),
        "{}",
        failed.stderr
    );
    let failed = evaldeck(
        dir.path(),
        &remote(
            &h2,
            &["--json", "import", "--again", "--suite", "Smoke", &doc],
        ),
        None,
    )
    .await;
    assert_eq!(failed.code, Some(3));
    let v = failed.json();
    assert_eq!(v["status"], "failed");
    assert_eq!(v["generationModel"], "scripted-1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_credits_show_the_ledger_and_grant_only_locally() {
    let dir = tempfile::tempdir().unwrap();
    let db = evaldeck_testkit::served::cli_db(dir.path(), &[]);
    let db = db.to_str().unwrap().to_string();
    let shown = evaldeck(dir.path(), &["--db", &db, "--json", "credits"], None).await;
    let before = shown.ok().json()["balance"].as_i64().unwrap();

    let granted = evaldeck(
        dir.path(),
        &["--db", &db, "credits", "grant", "25", "--note", "top-up"],
        None,
    )
    .await;
    granted.ok();
    assert!(
        granted.stdout.contains("granted 25 credit(s)"),
        "{}",
        granted.stdout
    );
    assert!(granted.stdout.contains(&format!("balance {}", before + 25)));
    let v = evaldeck(dir.path(), &["--db", &db, "--json", "credits"], None)
        .await
        .ok()
        .json();
    assert_eq!(v["balance"], before + 25);
    assert_eq!(v["ledger"][0]["kind"], "grant");
    assert_eq!(v["ledger"][0]["delta"], 25);
    assert_eq!(v["ledger"][0]["note"], "top-up");
    let table = evaldeck(dir.path(), &["--db", &db, "credits"], None).await;
    table.ok();
    assert!(
        table.stdout.contains(&format!("{} credit(s)", before + 25))
            && table.stdout.contains("+25")
            && table.stdout.contains("top-up"),
        "{}",
        table.stdout
    );
    let zero = evaldeck(dir.path(), &["--db", &db, "credits", "grant", "0"], None).await;
    assert_eq!(zero.code, Some(2), "{}", zero.stderr);

    // Over a remote API: the balance is shown, a grant is refused before any request.
    let h = Harness::with_config(config()).await;
    let v = evaldeck(dir.path(), &remote(&h, &["--json", "credits"]), None)
        .await
        .ok()
        .json();
    let remote_before = h.service.store().org(&h.owner.org_id).unwrap().credits;
    assert_eq!(v["balance"], remote_before);
    let refused = evaldeck(dir.path(), &remote(&h, &["credits", "grant", "5"]), None).await;
    assert_eq!(
        refused.code,
        Some(4),
        "{}{}",
        refused.stdout,
        refused.stderr
    );
    assert!(
        refused.stderr.contains("without --base-url"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        h.service.store().org(&h.owner.org_id).unwrap().credits,
        remote_before
    );
}

// ---------------------------------------------------------------------------------------
// The review's backend: saving an edited draft; the same-document lookup.
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_saved_draft_edit_is_regrounded_and_its_claim_recomputed_on_both_backends() {
    let h = Harness::with_config(config()).await;
    let content =
        "### TC-1 Sum\n- **Prompt:** \"What is 2 + 3?\"\n- **Expected tool:** `get-sum`\n";
    // Twice: the second job's draft is skipped as a duplicate, so it waits for review.
    for _ in 0..2 {
        import(&h, json!({"content": content})).await.ok(200);
    }
    for (label, b) in h.backends(&h.owner, &h.owner_key) {
        let jobs = b
            .earlier_imports(&h.project, "Smoke", &sha256_hex(content))
            .await
            .unwrap()
            .items;
        assert_eq!(jobs.len(), 2, "{label}");
        let job = &jobs[0].job_id;
        let drafts = b
            .authoring_drafts(&h.project, job, &DraftQuery::default())
            .await
            .unwrap()
            .items;
        let d = &drafts[0];
        assert_eq!(d.state, DraftState::Skipped, "{label}");
        // A spelling of a live tool: rewritten to the live name, the claim approximated.
        let mut steps = serde_json::to_value(&d.case.steps).unwrap();
        steps[1]["assertion"]["toolName"] = json!("get_sum");
        let edit: evaldeck::spec::case::EvalCaseUpdate =
            serde_json::from_value(json!({"steps": steps})).unwrap();
        let saved = b.save_draft(&h.project, job, &d.id, &edit).await.unwrap();
        let claim = saved.case.import.clone().unwrap();
        assert_eq!(
            saved.case.steps[1].assertion.as_ref().unwrap()["toolName"],
            "get-sum",
            "{label}"
        );
        assert_eq!(claim.status.as_str(), "approximated", "{label}");
        assert!(
            claim
                .note
                .unwrap()
                .contains("`get_sum` mapped to the live tool `get-sum`"),
            "{label}"
        );
        assert_eq!(
            saved.state,
            DraftState::Skipped,
            "{label}: a saved edit stays a draft"
        );
        // A tool the target lacks: unresolved.
        steps[1]["assertion"]["toolName"] = json!("get_total");
        let edit: evaldeck::spec::case::EvalCaseUpdate =
            serde_json::from_value(json!({"steps": steps})).unwrap();
        let saved = b.save_draft(&h.project, job, &d.id, &edit).await.unwrap();
        assert_eq!(
            saved.case.import.unwrap().status.as_str(),
            "unresolved",
            "{label}"
        );
        // The list shows the saved edit; the source stays the document's.
        let again = b
            .authoring_drafts(&h.project, job, &DraftQuery::default())
            .await
            .unwrap()
            .items;
        assert_eq!(
            again[0].case.steps[1].assertion.as_ref().unwrap()["toolName"],
            "get_total"
        );
        assert_eq!(again[0].case.source, d.case.source);
    }
}

#[tokio::test]
async fn earlier_imports_of_the_same_document_are_found_on_both_backends() {
    let h = Harness::with_config(config()).await;
    let content = plan("qa-plan.md");
    import(&h, json!({"content": content, "fileName": "qa-plan.md"}))
        .await
        .ok(200);
    for (label, b) in h.backends(&h.owner, &h.owner_key) {
        let found = b
            .earlier_imports(&h.project, "Smoke", &sha256_hex(&content))
            .await
            .unwrap()
            .items;
        assert_eq!(found.len(), 1, "{label}");
        assert!(
            found[0].committed && found[0].created == 9,
            "{label}: {found:?}"
        );
        assert_eq!(found[0].file_name.as_deref(), Some("qa-plan.md"));
        assert!(found[0].credits_charged > 0);
        let none = b
            .earlier_imports(&h.project, "Smoke", &sha256_hex("another document"))
            .await
            .unwrap()
            .items;
        assert!(none.is_empty(), "{label}");
        let bad = b
            .earlier_imports(&h.project, "Smoke", "not-a-hash")
            .await
            .unwrap_err();
        assert_eq!(bad.code.as_str(), "VALIDATION_ERROR", "{label}");
    }
    // The API itself keeps the spec's behaviour: the same document is authored again.
    let r = import(
        &h,
        json!({"content": content, "duplicatePolicy": "create_anyway", "overrideReason": "again"}),
    )
    .await;
    assert_eq!(r.ok(200)["created"].as_array().unwrap().len(), 9);
}
