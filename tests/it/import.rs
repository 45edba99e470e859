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

use crate::common::{Harness, Resp};
use crate::scripted_model::{model_server, script};

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
        assert_eq!(s["extractorVersion"], "evaldeck-extract/1.0");
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
    assert_eq!(body["generationModel"], "evaldeck-extract/1");
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
    // An argument the tool's schema does not have.
    let stats = by_title(&body, "Compute statistics for 3, 3, 3");
    assert_eq!(stats["import"]["status"], "unresolved");
    assert!(
        stats["import"]["note"]
            .as_str()
            .unwrap()
            .contains("`values` is not a parameter of `get-stats`")
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
        // Each header spelling, and the body field, carry the same key.
        let header = [
            "x-evaldeck-idempotency-key",
            "x-service-idempotency-key",
            "Idempotency-Key",
        ][i % 3];
        tasks.push(tokio::spawn(async move {
            let path = import_path(&h);
            h.post_with(
                &path,
                &h.owner_key,
                &[(header, "plan-v1")],
                json!({"content": content}),
            )
            .await
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
    let r = import(
        &h,
        json!({"content": DOC, "caseModels": [{"model": "gpt-4o", "provider": "openai"}]}),
    )
    .await;
    let b = r.ok(202).clone();
    assert_eq!(b["status"], "pending");
    assert_eq!(b["created"], json!([]));
    let job = b["jobId"].as_str().unwrap().to_string();
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
    assert_eq!(s.calls.load(Ordering::SeqCst), 1);
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

    // With recovery off (or no runtime), a pending job is failed with an error instead.
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
