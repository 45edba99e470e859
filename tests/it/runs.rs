//! Eval runs over the API, the embedded backend and the CLI, against the demo server with
//! the built-in baseline agent, and the model loop against a scripted OpenAI-compatible
//! server on loopback.

use std::time::{Duration, Instant};

use axum::Json;
use axum::routing::post;
use evaldeck::service::leases::LeaseOptions;
use evaldeck::service::models::{ModelCatalog, ProviderConfig};
use evaldeck::service::{Config, Service};
use reqwest::Method;
use serde_json::{Value, json};

use evaldeck_testkit::served::{Harness, Resp, demo_config};

pub(crate) fn prompt(id: &str, text: &str) -> Value {
    json!({"id": id, "kind": "prompt", "prompt": text})
}
pub(crate) fn check(id: &str, a: Value) -> Value {
    json!({"id": id, "kind": "assert", "assertion": a})
}
pub(crate) fn tool_call(id: &str, tool: &str, args: Value) -> Value {
    json!({"id": id, "kind": "toolCall", "toolName": tool, "arguments": args})
}

fn demo_tests() -> Value {
    json!([
        {"title": "echo", "steps": [
            prompt("p1", "Use echo to say 'hello evals'"),
            check("a1", json!({"type": "toolCalledWith", "toolName": "echo", "args": {"args": {"message": "hello evals"}}})),
            check("a2", json!({"type": "responseContains", "needle": "hello evals"}))
        ]},
        {"title": "sum", "runs": 2, "steps": [
            prompt("p1", "Use get-sum to add 2 and 3"),
            check("a1", json!({"type": "responseContains", "needle": "5"})),
            check("a2", json!({"type": "noToolErrors"}))
        ]},
        {"title": "no tool for geography", "isNegativeTest": true, "steps": [
            prompt("p1", "What is the capital of France")
        ]},
        {"title": "stats render-check", "steps": [
            tool_call("t1", "get-stats", json!({"numbers": [1, 2, 3]})),
            check("a1", json!({"type": "toolResultMatchesSchema", "schema": {"type": "object", "required": ["count", "mean"]}}))
        ]}
    ])
}

pub(crate) async fn create_suite(h: &Harness, name: &str, tests: Value) -> String {
    let r = h
        .call(
            Method::POST,
            &format!("/projects/{}/eval-suites", h.project),
            Some(&h.owner_key),
            Some(json!({"name": name, "serverIds": ["demo"], "model": "builtin/baseline", "tests": tests})),
        )
        .await;
    r.ok(201)["suiteId"].as_str().unwrap().to_string()
}

pub(crate) async fn start(h: &Harness, body: Value) -> Resp {
    h.call(
        Method::POST,
        &format!("/projects/{}/eval-runs", h.project),
        Some(&h.owner_key),
        Some(body),
    )
    .await
}

pub(crate) async fn wait(h: &Harness, run: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = h
            .get(
                &format!("/projects/{}/eval-runs/{run}", h.project),
                &h.owner_key,
            )
            .await;
        let v = r.ok(200).clone();
        if matches!(
            v["status"].as_str(),
            Some("completed" | "failed" | "cancelled")
        ) {
            return v;
        }
        assert!(Instant::now() < deadline, "the run did not finish: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(crate) async fn iterations(h: &Harness, run: &str) -> Vec<Value> {
    let r = h
        .get(
            &format!(
                "/projects/{}/eval-runs/{run}/iterations?limit=200",
                h.project
            ),
            &h.owner_key,
        )
        .await;
    r.ok(200)["items"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demo_suite_runs_end_to_end_over_the_api() {
    let h = Harness::with_config(demo_config()).await;
    let suite = create_suite(&h, "Demo evals", demo_tests()).await;
    let r = start(&h, json!({"suiteId": suite})).await;
    let created = r.ok(202).clone();
    assert_eq!(created["status"], "running");
    assert_eq!(created["servers"][0]["name"], "demo");
    assert_eq!(created["environment"], Value::Null);
    let run_id = created["runId"].as_str().unwrap().to_string();
    let run = wait(&h, &run_id).await;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["result"], "passed", "{run}");
    assert_eq!(run["source"], "api");
    assert_eq!(run["environment"], Value::Null);
    assert_eq!(
        run["summary"]["total"], 5,
        "echo 1 + sum 2 + negative 1 + render-check 1"
    );
    assert_eq!(run["summary"]["passed"], 5);
    assert_eq!(run["summary"]["cases"]["passed"], 4);
    assert!(run["summary"]["tokens"]["totalTokens"].as_u64().unwrap() > 0);

    let its = iterations(&h, &run_id).await;
    assert_eq!(its.len(), 5);
    let echo = &its[0];
    assert_eq!(echo["title"], "echo");
    assert_eq!(echo["model"], "builtin/baseline");
    assert_eq!(echo["actualToolCalls"][0]["toolName"], "echo");
    assert_eq!(echo["expectedToolCalls"][0]["toolName"], "echo");
    assert!(echo["usage"]["totalTokens"].as_u64().unwrap() > 0);
    let render = &its[4];
    assert_eq!(
        render["model"],
        Value::Null,
        "a render-check needs no model"
    );

    let trace = h
        .get(
            &format!(
                "/projects/{}/eval-runs/{run_id}/iterations/{}/trace",
                h.project,
                echo["id"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    let t = trace.ok(200);
    assert_eq!(t["messages"][0]["role"], "user");
    assert!(
        t["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool")
    );
    assert!(
        t["assertions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["source"] == "step:a1" && a["status"] == "passed")
    );
    assert!(t["toolCallDiff"]["missing"].as_array().unwrap().is_empty());
    assert_eq!(t["judge"]["status"], "skipped");
    assert!(!t["spans"].as_array().unwrap().is_empty());

    // Pagination of iterations.
    let p1 = h
        .get(
            &format!(
                "/projects/{}/eval-runs/{run_id}/iterations?limit=2",
                h.project
            ),
            &h.owner_key,
        )
        .await;
    let cursor = p1.ok(200)["nextCursor"].as_str().unwrap().to_string();
    let p2 = h
        .get(
            &format!(
                "/projects/{}/eval-runs/{run_id}/iterations?limit=2&cursor={cursor}",
                h.project
            ),
            &h.owner_key,
        )
        .await;
    assert_eq!(p2.ok(200)["items"][0]["id"], its[2]["id"]);

    // Regrade gives the same verdicts from the stored transcripts.
    let rg = h
        .call(
            Method::POST,
            &format!("/projects/{}/eval-runs/{run_id}/regrade", h.project),
            Some(&h.owner_key),
            Some(json!({})),
        )
        .await;
    let rg = rg.ok(200).clone();
    assert_eq!(rg["result"], "passed");
    assert!(rg["regradedAt"].is_number());
    let again = iterations(&h, &run_id).await;
    for (a, b) in its.iter().zip(&again) {
        assert_eq!(a["result"], b["result"]);
    }

    // A second run; the suite's runs newest first; the suite summary sees them.
    let second = start(&h, json!({"suiteId": suite, "iterationOverride": 1})).await;
    let second = second.ok(202)["runId"].as_str().unwrap().to_string();
    wait(&h, &second).await;
    let list = h
        .get(
            &format!("/projects/{}/eval-suites/{suite}/runs", h.project),
            &h.owner_key,
        )
        .await;
    let items = list.ok(200)["items"].as_array().unwrap().clone();
    assert_eq!(items[0]["id"], second.as_str());
    assert_eq!(items[1]["id"], run_id.as_str());
    assert_eq!(items[0]["runNumber"], 2);
    assert_eq!(items[0]["summary"]["total"], 4, "iterationOverride 1");

    // The embedded backend tags its runs `ui`.
    let emb = h.embedded(&h.owner);
    use evaldeck::client::Backend;
    let c = emb
        .create_run(
            &h.project,
            &serde_json::from_value(json!({"suiteId": suite})).unwrap(),
        )
        .await
        .unwrap();
    let run = wait(&h, &c.run_id).await;
    assert_eq!(run["source"], "ui");
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launch_rules_and_reasons() {
    let h = Harness::with_config(demo_config()).await;
    let p = h.project.clone();
    let suite = create_suite(
        &h,
        "Rules",
        json!([{"title": "echo", "steps": [prompt("p1", "Use echo to say 'x'")]}]),
    )
    .await;

    // Rule 1: shape.
    start(&h, json!({})).await.invalid("/suiteId", "required");
    start(
        &h,
        json!({"suiteName": "n", "tests": [{"title": "t", "steps": []}], "serverIds": ["demo"]}),
    )
    .await
    .invalid("/tests/0/steps", "minItems");
    start(&h, json!({"suiteId": "sut_nope"}))
        .await
        .err(404, "NOT_FOUND");

    // Rule 2: a model that cannot run lists the hosted ids.
    let r = start(&h, json!({"suiteId": suite, "model": "openai/gpt-native"})).await;
    r.invalid("/model", "model");
    assert!(r.body["details"]["hostedModels"].is_array());
    let r = start(&h, json!({"suiteId": suite, "model": "nope/x"})).await;
    assert!(
        r.body["details"]["hostedModels"]
            .as_array()
            .unwrap()
            .contains(&json!("builtin/baseline"))
    );

    // Rule 3.
    let patch = |body: Value| {
        let h = &h;
        let suite = suite.clone();
        async move {
            h.call(
                Method::PATCH,
                &format!("/projects/{}/eval-suites/{suite}", h.project),
                Some(&h.owner_key),
                Some(body),
            )
            .await
        }
    };
    patch(json!({"serverIds": []})).await.ok(200);
    let r = start(&h, json!({"suiteId": suite})).await;
    r.err(400, "VALIDATION_ERROR");
    assert_eq!(r.reason(), Some("NO_SAVED_SERVER_SELECTION"));
    patch(json!({"serverIds": ["demo"]})).await.ok(200);

    // Rule 4: an environment not attached, before anything connects.
    let envs = h
        .get(&format!("/projects/{p}/environments"), &h.owner_key)
        .await;
    let env = envs.ok(200)["items"][0].clone();
    let env_id = env["id"].as_str().unwrap().to_string();
    let r = start(&h, json!({"suiteId": suite, "environmentId": env_id})).await;
    r.err(400, "VALIDATION_ERROR");
    assert_eq!(r.reason(), Some("ENVIRONMENT_NOT_ATTACHED"));
    start(
        &h,
        json!({"suiteName": "x", "tests": [], "serverIds": ["demo"], "environmentId": env_id}),
    )
    .await
    .invalid("/environmentId", "requires");

    // Rule 5: one attached environment is used implicitly.
    patch(json!({"environmentIds": [env_id]})).await.ok(200);
    // Rule 6.
    let r = start(&h, json!({"suiteId": suite, "serverIds": ["demo"]})).await;
    assert_eq!(
        r.reason(),
        Some("ENVIRONMENT_SERVERS_NOT_OVERRIDABLE"),
        "{}",
        r.text
    );
    let r = start(
        &h,
        json!({"suiteId": suite, "environmentId": env_id, "serverIds": ["demo"]}),
    )
    .await;
    assert_eq!(r.reason(), Some("ENVIRONMENT_SERVERS_NOT_OVERRIDABLE"));
    // Rule 7: a pinned revision that is not the current one.
    let rev = env["revision"].as_i64().unwrap();
    start(
        &h,
        json!({"suiteId": suite, "expectedEnvironmentRevision": rev + 1}),
    )
    .await
    .err(409, "CONFLICT");
    let r = start(&h, json!({"suiteId": suite})).await;
    let created = r.ok(202).clone();
    assert_eq!(created["environment"]["id"], env_id.as_str());
    assert_eq!(created["environment"]["revision"], rev);
    let run = wait(&h, created["runId"].as_str().unwrap()).await;
    assert_eq!(run["environment"]["name"], "local");
    assert_eq!(run["result"], "passed", "{run}");

    // Rule 5: several attached environments need a choice.
    let second = h
        .call(Method::POST, &format!("/projects/{p}/environments"), Some(&h.owner_key),
            Some(json!({"name": "second", "hostId": env["hostId"], "serverAttachmentId": env["serverAttachmentId"]})))
        .await;
    let second_id = second.ok(201)["id"].as_str().unwrap().to_string();
    patch(json!({"environmentIds": [env_id, second_id]}))
        .await
        .ok(200);
    let r = start(&h, json!({"suiteId": suite})).await;
    assert_eq!(r.reason(), Some("ENVIRONMENT_REQUIRED"));
    assert_eq!(r.body["details"]["candidates"].as_array().unwrap().len(), 2);
    let r = start(&h, json!({"suiteId": suite, "environmentId": second_id})).await;
    let id = r.ok(202)["runId"].as_str().unwrap().to_string();
    wait(&h, &id).await;
    patch(json!({"environmentIds": null})).await.ok(200);

    // Import claims gate the run; approval is stored on the run, never on the case.
    let cases = format!("/projects/{p}/eval-suites/{suite}/cases");
    let add = |claim: &str| {
        let h = &h;
        let cases = cases.clone();
        let claim = claim.to_string();
        async move {
            let r = h
                .call(
                    Method::POST,
                    &cases,
                    Some(&h.owner_key),
                    Some(json!({
                "title": format!("{claim} case"), "steps": [prompt("p1", "Use echo to say 'y'")],
                "import": {"status": claim}})),
                )
                .await;
            r.ok(201)["id"].as_str().unwrap().to_string()
        }
    };
    let unsupported = add("unsupported").await;
    let r = start(&h, json!({"suiteId": suite})).await;
    assert_eq!(r.reason(), Some("CASE_NOT_RUNNABLE"));
    assert_eq!(r.body["details"]["caseIds"], json!([unsupported]));
    h.call(
        Method::DELETE,
        &format!("{cases}/{unsupported}"),
        Some(&h.owner_key),
        None,
    )
    .await
    .ok(200);
    let approx = add("approximated").await;
    let r = start(&h, json!({"suiteId": suite})).await;
    assert_eq!(r.reason(), Some("APPROXIMATION_NOT_APPROVED"));
    let r = start(&h, json!({"suiteId": suite, "approvedCaseIds": [approx]})).await;
    let id = r.ok(202)["runId"].as_str().unwrap().to_string();
    let run = wait(&h, &id).await;
    assert_eq!(run["approvedCaseIds"], json!([approx]));
    let case = h.get(&format!("{cases}/{approx}"), &h.owner_key).await;
    assert_eq!(
        case.ok(200)["import"],
        json!({"status": "approximated"}),
        "nothing stored on the case"
    );

    // A new suite from inline tests.
    let r = start(&h, json!({"suiteName": "Inline", "serverIds": ["demo"], "tests": [
        {"title": "t", "runs": 1, "model": "builtin/baseline", "provider": "builtin", "steps": [prompt("p1", "Use echo to say 'z'")]}]})).await;
    let created = r.ok(202).clone();
    assert_eq!(
        created["caseUpsert"]["committed"].as_array().unwrap().len(),
        1
    );
    wait(&h, created["runId"].as_str().unwrap()).await;

    // The spec's shape: inline tests without `runs`, `model` and `provider` run once on
    // the run's `model` (here none is given either: the built-in baseline).
    let r = start(
        &h,
        json!({"suiteName": "Inline minimal", "serverIds": ["demo"], "tests": [
        {"title": "t", "steps": [prompt("p1", "Use echo to say 'z'")]},
        {"title": "u", "steps": [prompt("p1", "Use echo to say 'y'")]}]}),
    )
    .await;
    let minimal = r.ok(202).clone();
    let run = wait(&h, minimal["runId"].as_str().unwrap()).await;
    assert_eq!(run["status"], "completed");
    let its = iterations(&h, minimal["runId"].as_str().unwrap()).await;
    assert_eq!(its.len(), 2, "one iteration per test");
    assert!(
        its.iter().all(|i| i["model"] == "builtin/baseline"),
        "{its:?}"
    );
    let r = start(&h, json!({"suiteName": "Inline run model", "serverIds": ["demo"], "model": "builtin/baseline", "tests": [
        {"title": "t", "steps": [prompt("p1", "Use echo to say 'z'")]}]})).await;
    wait(&h, r.ok(202)["runId"].as_str().unwrap()).await;

    // Trace of an unknown iteration; of a cancelled one.
    h.get(
        &format!("/projects/{p}/eval-runs/{id}/iterations/itr_nope/trace"),
        &h.owner_key,
    )
    .await
    .err(404, "NOT_FOUND");
    h.service.shutdown().await;
}

fn slow_suite() -> Value {
    json!([{"title": "slow", "runs": 3, "steps": [tool_call("t1", "slow", json!({"durationMs": 400, "progress": false}))]}])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iterations_of_a_run_overlap_up_to_the_configured_concurrency() {
    for (concurrency, overlapping) in [(4, true), (1, false)] {
        let mut config = demo_config();
        config.runs.iteration_concurrency = concurrency;
        let h = Harness::with_config(config).await;
        let suite = create_suite(&h, "Slow", slow_suite()).await;
        let id = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(wait(&h, &id).await["result"], "passed");
        let mut spans: Vec<(i64, i64)> = iterations(&h, &id)
            .await
            .iter()
            .map(|i| {
                let start = i["startedAt"].as_i64().unwrap();
                (start, start + i["durationMs"].as_f64().unwrap() as i64)
            })
            .collect();
        spans.sort();
        // Each slow call takes 400 ms: overlapping iterations start before the first ends.
        let overlap = spans.windows(2).any(|w| w[1].0 < w[0].1);
        assert_eq!(overlap, overlapping, "concurrency {concurrency}: {spans:?}");
        h.service.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrency_cap_and_cancel() {
    let h = Harness::with_config(demo_config()).await;
    let suite = create_suite(&h, "Slow", slow_suite()).await;
    let a = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let b = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let r = start(&h, json!({"suiteId": suite})).await;
    r.err(429, "RATE_LIMITED");
    assert_eq!(r.reason(), Some("CONCURRENT_RUN_LIMIT"));
    assert_eq!(r.headers.get("retry-after").unwrap(), "5");
    for id in [&a, &b] {
        let c = h
            .call(
                Method::POST,
                &format!("/projects/{}/eval-runs/{id}/cancel", h.project),
                Some(&h.owner_key),
                Some(json!({})),
            )
            .await;
        let c = c.ok(200);
        assert_eq!(c["status"], "cancelled", "{c}");
        assert_eq!(c["result"], Value::Null);
    }
    let its = iterations(&h, &a).await;
    assert!(its.iter().any(|i| i["status"] == "cancelled"));
    let cancelled = its.iter().find(|i| i["status"] == "cancelled").unwrap();
    let t = h
        .get(
            &format!(
                "/projects/{}/eval-runs/{a}/iterations/{}/trace",
                h.project,
                cancelled["id"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    t.err(404, "NOT_FOUND");
    assert_eq!(t.reason(), Some("TRACE_NOT_AVAILABLE"));
    // Cancelling again is a conflict; the cap is free again.
    h.call(
        Method::POST,
        &format!("/projects/{}/eval-runs/{a}/cancel", h.project),
        Some(&h.owner_key),
        Some(json!({})),
    )
    .await
    .err(409, "CONFLICT");
    let c = start(&h, json!({"suiteId": suite, "iterationOverride": 1})).await;
    let c = c.ok(202)["runId"].as_str().unwrap().to_string();
    assert_eq!(wait(&h, &c).await["result"], "passed");
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_interrupted_by_a_restart_is_resumed() {
    // One iteration at a time, so the "crash" lands between iterations; short leases.
    let lease = Duration::from_millis(300);
    let mut config = demo_config();
    config.runs.iteration_concurrency = 1;
    config.leases = LeaseOptions::from_lease(lease);
    let h = Harness::with_config(config.clone()).await;
    let suite = create_suite(&h, "Slow", slow_suite()).await;
    let id = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !iterations(&h, &id)
        .await
        .iter()
        .any(|i| i["status"] == "completed")
    {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The process "dies": it stops without recording or releasing anything.
    h.service.abandon();
    let second = Service::open(&h.db_path(), config.clone()).expect("reopen");
    // Its lease runs out, and the second process's sweep takes the run over.
    let deadline = Instant::now() + 2 * lease + Duration::from_millis(500);
    while !second.runs().is_running(&id) {
        assert!(
            Instant::now() < deadline,
            "the abandoned run was taken over"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let who = h.owner.clone();
    let deadline = Instant::now() + Duration::from_secs(30);
    let run = loop {
        let r = second.run(&who, &h.project, &id).unwrap();
        if r.is_terminal() {
            break r;
        }
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(run.status, "completed");
    assert_eq!(run.result.as_deref(), Some("passed"));
    assert_eq!(run.summary.unwrap().passed, 3);
    second.shutdown().await;

    // With resuming off, an abandoned run fails with a reason.
    let id2 = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    h.service.abandon();
    tokio::time::sleep(lease + Duration::from_millis(50)).await;
    let mut config = config.clone();
    config.runs.resume_interrupted = false;
    let third = Service::open(&h.db_path(), config).expect("reopen");
    let r = third.run(&who, &h.project, &id2).unwrap();
    assert_eq!(r.status, "failed");
    assert!(r.error.unwrap().contains("interrupted"));
    third.shutdown().await;
    h.service.shutdown().await;
}

/// A scripted OpenAI-compatible server: the first turn calls `echo`, the next answers.
async fn scripted_openai() -> String {
    async fn chat(Json(body): Json<Value>) -> Json<Value> {
        let has_tool_result = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool");
        assert!(
            body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["function"]["name"] == "echo")
        );
        if has_tool_result {
            let echoed = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find(|m| m["role"] == "tool")
                .unwrap()["content"]
                .clone();
            Json(
                json!({"choices": [{"message": {"role": "assistant", "content": format!("The server said {}", echoed.as_str().unwrap())}}],
                        "usage": {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}}),
            )
        } else {
            Json(
                json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "echo", "arguments": "{\"message\": \"scripted\"}"}}]}}],
                "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}}),
            )
        }
    }
    let app = axum::Router::new().route("/v1/chat/completions", post(chat));
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    format!("http://{addr}/v1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_loop_against_a_scripted_openai_compatible_server() {
    let base = scripted_openai().await;
    let mut p = ProviderConfig::openai_compatible("scripted", &base);
    p.hosted = vec!["m1".into()];
    p.api_key = Some("sk-test".into());
    let config = Config {
        models: ModelCatalog::builtin_only().with_provider(p),
        ..demo_config()
    };
    let h = Harness::with_config(config).await;
    let balance = |h: &Harness| {
        let h = h.service.clone();
        let org = h.local_principal().unwrap().org_id;
        h.store().org(&org).unwrap().credits
    };
    let before = balance(&h);
    let suite = create_suite(&h, "Scripted", json!([{"title": "echo", "model": "scripted/m1", "steps": [
        prompt("p1", "Say scripted"),
        check("a1", json!({"type": "toolCalledWith", "toolName": "echo", "args": {"args": {"message": "scripted"}, "argumentMatching": "exact"}})),
        check("a2", json!({"type": "responseContains", "needle": "server said scripted"})),
        check("a3", json!({"type": "turnCountUnder", "turns": 3})),
        check("a4", json!({"type": "tokenBudgetUnder", "tokens": 63}))
    ]}])).await;
    let id = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let run = wait(&h, &id).await;
    assert_eq!(run["result"], "passed", "{run}");
    let its = iterations(&h, &id).await;
    assert_eq!(its[0]["model"], "scripted/m1");
    assert_eq!(its[0]["usage"]["totalTokens"], 62);
    // A hosted id runs on the organization's credits: 62 tokens start one thousand.
    assert_eq!(balance(&h), before - 1);
    let credits = h.get("/credits", &h.owner_key).await;
    let entry = &credits.ok(200)["ledger"][0];
    assert_eq!(entry["kind"], "run", "{entry}");
    assert_eq!(entry["delta"], -1);
    // A provider-native id needs modelApiKeys; with them it runs.
    let r = start(&h, json!({"suiteId": suite, "model": "scripted/m2"})).await;
    assert_eq!(r.body["details"]["hostedModels"], json!(["scripted/m1"]));
    let r = start(
        &h,
        json!({"suiteId": suite, "model": "scripted/m2", "modelApiKeys": {"scripted": "k"}}),
    )
    .await;
    let id = r.ok(202)["runId"].as_str().unwrap().to_string();
    assert_eq!(wait(&h, &id).await["result"], "passed");
    // …on the caller's own key, which costs no credits.
    assert_eq!(balance(&h), before - 1);
    // With an empty balance a hosted run is refused at create time.
    let org = h.service.local_principal().unwrap().org_id;
    h.service.store().add_credits(&org, -balance(&h)).unwrap();
    let r = start(&h, json!({"suiteId": suite})).await;
    assert_eq!(
        r.err(403, "FORBIDDEN").reason(),
        Some("INSUFFICIENT_CREDITS")
    );
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_runs_a_demo_suite_and_writes_junit() {
    let dir = tempfile::tempdir().unwrap();
    let db = evaldeck_testkit::served::cli_db(
        dir.path(),
        &[
            json!({"name": "CLI demo", "serverIds": ["demo"], "model": "builtin/baseline", "tests": demo_tests()}),
            json!({"name": "CLI failing", "serverIds": ["demo"], "model": "builtin/baseline", "tests": [
                {"title": "wrong", "steps": [prompt("p1", "Use echo to say 'a'"), check("a1", json!({"type": "toolNeverCalled", "toolName": "echo"}))]}]}),
        ],
    );
    let bin = env!("CARGO_BIN_EXE_evaldeck");
    let junit = dir.path().join("junit.xml");
    let out = tokio::process::Command::new(bin)
        .args([
            "--db",
            db.to_str().unwrap(),
            "run",
            "--suite",
            "CLI demo",
            "--junit",
            junit.to_str().unwrap(),
        ])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("result passed"), "{stdout}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"5\" failures=\"0\""), "{xml}");

    let out = tokio::process::Command::new(bin)
        .args([
            "--db",
            db.to_str().unwrap(),
            "run",
            "--suite",
            "CLI failing",
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a failed verdict exits 1");

    // `--case` runs only the cases named, by title or id; an unknown one is refused.
    let first = demo_tests()[0]["title"].as_str().unwrap().to_string();
    let out = tokio::process::Command::new(bin)
        .args([
            "--db",
            db.to_str().unwrap(),
            "run",
            "--suite",
            "CLI demo",
            "--case",
            "nope",
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let one = dir.path().join("one.xml");
    let out = tokio::process::Command::new(bin)
        .args([
            "--db",
            db.to_str().unwrap(),
            "run",
            "--suite",
            "CLI demo",
            "--case",
            &first,
        ])
        .args(["--junit", one.to_str().unwrap()])
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xml = std::fs::read_to_string(&one).unwrap();
    assert!(xml.contains("tests=\"1\""), "{xml}");

    let out = tokio::process::Command::new(bin)
        .args([
            "--db",
            db.to_str().unwrap(),
            "--json",
            "runs",
            "list",
            "--suite",
            "CLI demo",
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let runs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run_id = runs[0]["id"].as_str().unwrap().to_string();
    assert_eq!(runs[0]["source"], "ui");

    let out = tokio::process::Command::new(bin)
        .args([
            "--db",
            db.to_str().unwrap(),
            "--json",
            "runs",
            "show",
            &run_id,
        ])
        .output()
        .await
        .unwrap();
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    let it = shown["iterations"][0]["id"].as_str().unwrap().to_string();
    let out = tokio::process::Command::new(bin)
        .args([
            "--db",
            db.to_str().unwrap(),
            "--json",
            "trace",
            &run_id,
            &it,
        ])
        .output()
        .await
        .unwrap();
    let trace: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(trace["messages"].is_array());
    let out = tokio::process::Command::new(bin)
        .args(["--db", db.to_str().unwrap(), "regrade", &run_id])
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A scripted Anthropic messages server: the first turn asks for `echo` with a `tool_use`
/// block, the next answers from the `tool_result` it was sent. It checks what the API
/// requires: the version and key headers, `max_tokens`, tools with `input_schema`, and the
/// tool result in a user turn that follows the assistant's `tool_use`.
async fn scripted_anthropic() -> String {
    async fn messages(headers: axum::http::HeaderMap, Json(body): Json<Value>) -> Json<Value> {
        assert_eq!(headers["anthropic-version"], "2023-06-01");
        assert_eq!(headers["x-api-key"], "sk-ant-test");
        assert!(body["max_tokens"].as_u64().unwrap() > 0);
        assert!(
            body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "echo" && t["input_schema"]["type"] == "object")
        );
        let msgs = body["messages"].as_array().unwrap();
        let result = msgs.iter().rev().find_map(|m| {
            m["content"].as_array().and_then(|blocks| {
                blocks
                    .iter()
                    .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == "toolu_1")
                    .cloned()
            })
        });
        match result {
            Some(r) => {
                let echoed = r["content"].to_string();
                Json(
                    json!({"content": [{"type": "text", "text": format!("Anthropic saw {echoed}")}],
                    "stop_reason": "end_turn", "usage": {"input_tokens": 40, "output_tokens": 9}}),
                )
            }
            None => Json(json!({"content": [
                    {"type": "text", "text": "Calling echo."},
                    {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"message": "from claude"}}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 30, "output_tokens": 6}})),
        }
    }
    let app = axum::Router::new().route("/v1/messages", post(messages));
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_loop_against_a_scripted_anthropic_server() {
    let base = scripted_anthropic().await;
    let mut catalog = ModelCatalog::builtin_only();
    let p = catalog
        .providers
        .iter_mut()
        .find(|p| p.name == "anthropic")
        .unwrap();
    p.base_url = base;
    p.api_key = Some("sk-ant-test".into());
    p.hosted = vec!["claude-test".into()];
    let h = Harness::with_config(Config {
        models: catalog,
        ..demo_config()
    })
    .await;
    let suite = create_suite(&h, "Claude", json!([{"title": "echo", "model": "anthropic/claude-test", "steps": [
        prompt("p1", "Say from claude"),
        check("a1", json!({"type": "toolCalledWith", "toolName": "echo", "args": {"args": {"message": "from claude"}, "argumentMatching": "exact"}})),
        check("a2", json!({"type": "responseContains", "needle": "from claude"}))
    ]}])).await;
    let id = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let run = wait(&h, &id).await;
    assert_eq!(run["result"], "passed", "{run}");
    let its = iterations(&h, &id).await;
    assert_eq!(its[0]["model"], "anthropic/claude-test");
    assert_eq!(its[0]["usage"]["totalTokens"], 85);
    assert_eq!(its[0]["actualToolCalls"][0]["toolName"], "echo");
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_project_lists_every_run_newest_first_across_suites_and_sources() {
    let h = Harness::with_config(demo_config()).await;
    let a = create_suite(&h, "First", demo_tests()).await;
    let run_a = start(&h, json!({"suiteId": a})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    wait(&h, &run_a).await;
    let ingested = h
        .call(
            Method::POST,
            &format!("/projects/{}/eval-ingest/report", h.project),
            Some(&h.owner_key),
            Some(
                json!({"suiteName": "From CI", "externalRunId": "ci-1", "results": [
                {"caseTitle": "adds", "passed": true, "externalIterationId": "1"}]}),
            ),
        )
        .await;
    let run_b = ingested.ok(200)["runId"].as_str().unwrap().to_string();
    let path = format!("/projects/{}/eval-runs?limit=1", h.project);
    let first = h.get(&path, &h.owner_key).await;
    let page = first.ok(200);
    assert_eq!(page["items"][0]["id"], run_b.as_str());
    assert_eq!(page["items"][0]["source"], "sdk");
    let cursor = page["nextCursor"].as_str().expect("a second page");
    let second = h
        .get(&format!("{path}&cursor={cursor}"), &h.owner_key)
        .await;
    let page = second.ok(200);
    assert_eq!(page["items"][0]["id"], run_a.as_str());
    assert_eq!(page["items"][0]["trigger"], "manual");
    assert!(page.get("nextCursor").is_none(), "{page}");
    // Another organization cannot list them.
    let (_, key, _) = h.other_org();
    h.get(&format!("/projects/{}/eval-runs", h.project), &key)
        .await
        .err(403, "FORBIDDEN");
}

/// A server killed with `kill -9` in the middle of a tool call leaves its iteration
/// without a verdict: `result: "error"`, counted under `summary.errored`, the run not
/// passed, and no tool-error assertion blaming the server for the lost connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_call_is_an_error_never_a_pass() {
    let h = Harness::with_config(demo_config()).await;
    let suite = create_suite(
        &h,
        "Crash",
        json!([{"title": "slow call", "steps": [
            tool_call("t1", "slow", json!({"durationMs": 20000, "progress": false})),
            check("a1", json!({"type": "toolLatencyUnder", "ms": 600000, "role": "advisory"}))
        ]}]),
    )
    .await;
    let run = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    // The pooled session serves a second call while the slow one is in flight.
    let info = h
        .call(
            Method::POST,
            &format!("/projects/{}/servers/demo/tools/call", h.project),
            Some(&h.owner_key),
            Some(json!({"toolName": "server-info"})),
        )
        .await;
    let pid = info.ok(200)["structuredContent"]["pid"].as_i64().unwrap();
    // Let the slow call get under way, then kill the server under it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());

    let done = wait(&h, &run).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"], "failed",
        "a run with a lost server never passes: {done}"
    );
    assert_eq!(done["summary"]["errored"], 1, "{done}");
    assert_eq!(done["summary"]["passed"], 0, "{done}");
    assert_eq!(
        done["summary"]["failed"], 0,
        "an error is not a failed assertion: {done}"
    );
    let its = iterations(&h, &run).await;
    assert_eq!(its[0]["result"], "error", "{its:?}");
    let error = its[0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("stopped answering") && error.contains("slow"),
        "the iteration says the server was lost: {error}"
    );
    let trace = h
        .get(
            &format!(
                "/projects/{}/eval-runs/{run}/iterations/{}/trace",
                h.project,
                its[0]["id"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    let trace = trace.ok(200).to_string();
    assert!(trace.contains("SERVER_UNREACHABLE"), "{trace}");
    assert!(
        !trace.contains("\"toolErrorNamesInput\",\"status\":\"failed\""),
        "no tool-error assertion blames the server: {trace}"
    );
    h.service.shutdown().await;
}

/// An environment's roots replace each server's own during its runs (and only there): the
/// server's `roots/list` answers them, then the saved server's again once they are cleared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_environments_roots_reach_its_servers_during_its_runs() {
    let h = Harness::with_config(demo_config()).await;
    let p = h.project.clone();
    let k = Some(h.owner_key.as_str());
    let bin = env!("CARGO_BIN_EXE_evaldeck");
    let server = h
        .call(Method::POST, &format!("/projects/{p}/servers"), k, Some(json!({
            "name": "rooted",
            "transport": {"type": "stdio", "command": bin, "args": ["demo-server", "--client-features", "--protocol", "2025-11-25"]},
            "client": {"roots": [{"uri": "file:///saved"}]}
        })))
        .await;
    let server_id = server.ok(201)["id"].as_str().unwrap().to_string();
    let group = h
        .call(
            Method::POST,
            &format!("/projects/{p}/server-groups"),
            k,
            Some(json!({"name": "rooted", "serverIds": [server_id]})),
        )
        .await;
    let group_id = group.ok(201)["id"].as_str().unwrap().to_string();
    let host_id = h
        .get(&format!("/projects/{p}/environments"), &h.owner_key)
        .await
        .ok(200)["items"][0]["hostId"]
        .clone();
    let envs = format!("/projects/{p}/environments");
    // Roots are validated like a server's: file:// URIs.
    h.call(
        Method::POST,
        &envs,
        k,
        Some(json!({"name": "bad", "hostId": host_id,
        "serverAttachmentId": group_id, "roots": [{"uri": "https://example.com"}]})),
    )
    .await
    .invalid("/roots/0/uri", "uri");
    let env = h
        .call(Method::POST, &envs, k, Some(json!({"name": "checkout", "hostId": host_id,
            "serverAttachmentId": group_id, "roots": [{"uri": "file:///srv/checkout", "name": "Checkout"}]})))
        .await;
    let env = env.ok(201).clone();
    let env_id = env["id"].as_str().unwrap().to_string();
    assert_eq!(
        env["roots"],
        json!([{"uri": "file:///srv/checkout", "name": "Checkout"}])
    );
    let resolved = h
        .get(&format!("{envs}/{env_id}/resolve"), &h.owner_key)
        .await;
    assert_eq!(resolved.ok(200)["roots"][0]["uri"], "file:///srv/checkout");

    let suite = h
        .call(
            Method::POST,
            &format!("/projects/{p}/eval-suites"),
            k,
            Some(json!({
                "name": "Roots", "serverIds": [server_id], "model": "builtin/baseline",
                "tests": [{"title": "roots", "steps": [tool_call("t1", "list-roots", json!({}))]}]
            })),
        )
        .await;
    let suite = suite.ok(201)["suiteId"].as_str().unwrap().to_string();
    h.call(
        Method::PATCH,
        &format!("/projects/{p}/eval-suites/{suite}"),
        k,
        Some(json!({"environmentIds": [env_id]})),
    )
    .await
    .ok(200);
    let roots_seen = |run: String| {
        let h = &h;
        async move {
            let run = wait(h, &run).await;
            assert_eq!(run["result"], "passed", "{run}");
            let it = iterations(h, run["id"].as_str().unwrap()).await[0].clone();
            let trace = h
                .get(
                    &format!(
                        "/projects/{}/eval-runs/{}/iterations/{}/trace",
                        h.project,
                        run["id"].as_str().unwrap(),
                        it["id"].as_str().unwrap()
                    ),
                    &h.owner_key,
                )
                .await;
            let text = trace.ok(200)["toolCalls"][0]["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string();
            serde_json::from_str::<Value>(&text).unwrap()["roots"].clone()
        }
    };
    let run = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        roots_seen(run).await,
        json!([{"uri": "file:///srv/checkout", "name": "Checkout"}])
    );

    // Cleared: the saved server's own roots again, on the same live session.
    let rev = h
        .get(&format!("{envs}/{env_id}"), &h.owner_key)
        .await
        .ok(200)["revision"]
        .clone();
    let cleared = h
        .call(
            Method::PATCH,
            &format!("{envs}/{env_id}"),
            k,
            Some(json!({"expectedRevision": rev, "roots": null})),
        )
        .await;
    assert_eq!(cleared.ok(200).get("roots"), None);
    let run = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(roots_seen(run).await, json!([{"uri": "file:///saved"}]));
}
