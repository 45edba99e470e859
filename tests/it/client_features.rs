//! evaldeck as a complete MCP client, in both protocol eras: sampling, elicitation, roots
//! and logging answered as configured (per call, saved on the server, or declined), the
//! revision negotiated and shown, roots changes announced to a live session, protocol
//! events recorded and served, calls cancelled through their `callId`, and time caps.

use std::collections::BTreeMap;
use std::time::Duration;

use evaldeck::service::mcp::{McpPool, PoolOptions, Target};
use evaldeck::spec::Code;
use evaldeck::spec::client_features::{
    ClientFeatures, ElicitationAction, ElicitationAnswer, LogLevel, Root, SamplingPolicy,
};
use evaldeck::spec::primitives::ToolCallRequest;
use evaldeck::spec::server::{ServerConfig, Transport};
use reqwest::Method;
use serde_json::{Value, json};

use evaldeck_testkit::served::{Harness, demo_config};

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");
const ERAS: [&str; 2] = ["2026-07-28", "2025-11-25"];

fn demo(args: &[&str], client: ClientFeatures) -> ServerConfig {
    let mut a = vec!["demo-server".to_string(), "--client-features".into()];
    a.extend(args.iter().map(|s| s.to_string()));
    let mut c = ServerConfig::new(Transport::Stdio {
        command: BIN.into(),
        args: a,
        env: BTreeMap::new(),
        cwd: None,
    });
    c.client = client;
    c
}

fn target(id: &str, config: ServerConfig) -> Target {
    Target {
        server_id: id.into(),
        revision: 1,
        config,
        access_token: None,
    }
}

fn pool() -> McpPool {
    McpPool::new(PoolOptions {
        close_grace: Duration::from_millis(300),
        ..Default::default()
    })
}

fn text(v: &Value) -> String {
    v["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn call(tool: &str, args: Value) -> ToolCallRequest {
    ToolCallRequest::new(tool, args.as_object().cloned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_era_is_negotiated_and_shown() {
    let pool = pool();
    for era in ERAS {
        let t = target(
            &format!("srv_era_{era}"),
            demo(&["--protocol", era], Default::default()),
        );
        let v = pool.validate(&t).await.unwrap();
        assert_eq!(v.init_info.unwrap().protocol_version, era);
        // The doctor tries every revision on its own connection.
        let report = pool.doctor(&t).await;
        let matrix = report.revisions.unwrap();
        let accepted: Vec<&str> = matrix
            .iter()
            .filter(|r| r.accepted)
            .map(|r| r.revision.as_str())
            .collect();
        assert_eq!(accepted, [era], "{matrix:?}");
        assert_eq!(
            report.checks.revisions.unwrap().status,
            evaldeck::spec::primitives::CheckStatus::Ok
        );
    }
    // A server that speaks no current revision is flagged.
    let old = target(
        "srv_era_old",
        demo(&["--protocol", "2025-06-18"], Default::default()),
    );
    let report = pool.doctor(&old).await;
    let check = report.checks.revisions.unwrap();
    assert_eq!(check.status, evaldeck::spec::primitives::CheckStatus::Error);
    assert!(
        check.detail.contains("none of the current"),
        "{}",
        check.detail
    );
    assert_eq!(
        report.status,
        evaldeck::spec::primitives::DoctorStatus::Partial
    );
    pool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_is_declined_unless_an_answer_is_configured() {
    let pool = pool();
    for era in ERAS {
        let t = target(
            &format!("srv_sample_{era}"),
            demo(&["--protocol", era], Default::default()),
        );
        let declined = pool
            .call_tool(
                &t,
                &call("ask-llm", json!({"question": "Capital of France?"})),
            )
            .await;
        match era {
            // From 2026-07-28 the request cannot go on without the answer.
            "2026-07-28" => {
                let e = declined.unwrap_err();
                assert_eq!(e.code, Code::FeatureNotSupported);
                assert_eq!(e.reason(), Some("SAMPLING_DECLINED"));
            }
            // In the handshake era the server hears "no" and decides.
            _ => assert!(text(&declined.unwrap()).starts_with("no answer"), "{era}"),
        }
        let notes = pool.traffic(&t.server_id, 0, 500).items;
        assert!(
            notes
                .iter()
                .any(|e| e.kind == "note"
                    && e.message.as_str().unwrap_or_default().contains("declined")),
            "{era}: the decline is a protocol event"
        );
        let mut req = call("ask-llm", json!({"question": "Capital of France?"}));
        req.sampling = Some(SamplingPolicy::Scripted {
            text: "Paris".into(),
        });
        let r = pool.call_tool(&t, &req).await.unwrap();
        assert_eq!(text(&r), "the model said: Paris", "{era}");
    }
    pool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_answers_come_from_the_call_or_the_saved_server() {
    let pool = pool();
    for era in ERAS {
        let saved = ClientFeatures {
            elicitation: Some(ElicitationAnswer {
                action: ElicitationAction::Accept,
                content: json!({"name": "Saved"}).as_object().cloned(),
            }),
            ..Default::default()
        };
        let plain = target(
            &format!("srv_elicit_{era}"),
            demo(&["--protocol", era], Default::default()),
        );
        let r = pool
            .call_tool(&plain, &call("ask-user", json!({})))
            .await
            .unwrap();
        assert_eq!(
            text(&r),
            "the user chose decline",
            "{era}: declined by default"
        );

        let mut req = call("ask-user", json!({}));
        req.elicitation = Some(ElicitationAnswer {
            action: ElicitationAction::Accept,
            content: json!({"name": "Ada", "subscribe": true})
                .as_object()
                .cloned(),
        });
        let r = pool.call_tool(&plain, &req).await.unwrap();
        assert_eq!(
            text(&r),
            r#"accepted: {"name":"Ada","subscribe":true}"#,
            "{era}"
        );

        let with = target(
            &format!("srv_elicit_saved_{era}"),
            demo(&["--protocol", era], saved),
        );
        let r = pool
            .call_tool(&with, &call("ask-user", json!({})))
            .await
            .unwrap();
        assert_eq!(text(&r), r#"accepted: {"name":"Saved"}"#, "{era}");
        let mut cancel = call("ask-user", json!({}));
        cancel.elicitation = Some(ElicitationAnswer {
            action: ElicitationAction::Cancel,
            content: None,
        });
        let r = pool.call_tool(&with, &cancel).await.unwrap();
        assert_eq!(text(&r), "the user chose cancel", "{era}: the call wins");
    }
    pool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_and_log_levels_reach_the_server() {
    let pool = pool();
    for era in ERAS {
        let features = ClientFeatures {
            roots: vec![Root::parse("/srv/app=App")],
            log_level: Some(LogLevel::Warning),
            ..Default::default()
        };
        let t = target(
            &format!("srv_roots_{era}"),
            demo(&["--protocol", era], features),
        );
        let r = pool
            .call_tool(&t, &call("list-roots", json!({})))
            .await
            .unwrap();
        let roots: Value = serde_json::from_str(&text(&r)).unwrap();
        assert_eq!(
            roots["roots"],
            json!([{"uri": "file:///srv/app", "name": "App"}]),
            "{era}"
        );

        let quiet = pool
            .call_tool(
                &t,
                &call("log", json!({"level": "info", "message": "hush"})),
            )
            .await
            .unwrap();
        assert_eq!(text(&quiet), "below the requested level; not sent", "{era}");
        let loud = pool
            .call_tool(
                &t,
                &call("log", json!({"level": "error", "message": "loud"})),
            )
            .await
            .unwrap();
        assert_eq!(text(&loud), "logged", "{era}");
        let events = pool.traffic(&t.server_id, 0, 500).items;
        assert!(
            events
                .iter()
                .any(|e| e.method.as_deref() == Some("notifications/message")
                    && e.message["params"]["data"] == "loud"),
            "{era}: the log message is a protocol event"
        );
    }
    pool.shutdown().await;
}

/// Editing a saved server's roots tells its live session (`notifications/roots/list_changed`)
/// instead of starting another process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_roots_are_announced_to_the_live_session() {
    let h = Harness::with_config(demo_config()).await;
    let p = h.project.clone();
    let created = h
        .call(
            Method::POST,
            &format!("/projects/{p}/servers"),
            Some(&h.owner_key),
            Some(json!({
                "name": "rooted",
                "transport": {"type": "stdio", "command": BIN, "args": ["demo-server", "--client-features", "--protocol", "2025-11-25"]},
                "client": {"roots": [{"uri": "file:///one"}]}
            })),
        )
        .await;
    let id = created.ok(201)["id"].as_str().unwrap().to_string();
    let call = |tool: &'static str| {
        let h = &h;
        let p = p.clone();
        async move {
            h.call(
                Method::POST,
                &format!("/projects/{p}/servers/rooted/tools/call"),
                Some(&h.owner_key),
                Some(json!({"toolName": tool})),
            )
            .await
            .ok(200)
            .clone()
        }
    };
    let pid = call("server-info").await["structuredContent"]["pid"].clone();
    let before: Value = serde_json::from_str(&text(&call("list-roots").await)).unwrap();
    assert_eq!(
        before,
        json!({"roots": [{"uri": "file:///one"}], "listChanged": 0})
    );

    h.call(
        Method::PATCH,
        &format!("/projects/{p}/servers/{id}"),
        Some(&h.owner_key),
        Some(json!({"client": {"roots": [{"uri": "file:///one"}, {"uri": "file:///two", "name": "Two"}]}})),
    )
    .await
    .ok(200);
    // The change reaches the session in the background.
    let mut after = Value::Null;
    for _ in 0..50 {
        after = serde_json::from_str(&text(&call("list-roots").await)).unwrap();
        if after["listChanged"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        after,
        json!({"roots": [{"uri": "file:///one"}, {"uri": "file:///two", "name": "Two"}], "listChanged": 1})
    );
    assert_eq!(
        call("server-info").await["structuredContent"]["pid"],
        pid,
        "the same process: no reconnect"
    );
    // The protocol events are served too, including the announcement.
    let traffic = h
        .get(
            &format!("/projects/{p}/servers/{id}/traffic?after=0"),
            &h.owner_key,
        )
        .await;
    let traffic = traffic.ok(200).clone();
    let items = traffic["items"].as_array().unwrap();
    assert!(
        items
            .iter()
            .any(|e| e["method"] == "notifications/roots/list_changed" && e["direction"] == "out")
    );
    assert!(
        items
            .iter()
            .any(|e| e["method"] == "roots/list" && e["direction"] == "in")
    );
    assert!(traffic["lastSeq"].as_u64().unwrap() >= items.len() as u64);
    let later = h
        .get(
            &format!(
                "/projects/{p}/servers/{id}/traffic?after={}",
                traffic["lastSeq"]
            ),
            &h.owner_key,
        )
        .await;
    assert_eq!(later.ok(200)["items"], json!([]));
    h.service.shutdown().await;
}

/// A call that names itself is cancelled through the API: the caller gets 409
/// `CALL_CANCELLED` at once and the server is sent `notifications/cancelled`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_call_is_cancelled_through_the_api() {
    let h = Harness::with_config(demo_config()).await;
    let p = h.project.clone();
    let base = h.base.clone();
    let key = h.owner_key.clone();
    let started = std::time::Instant::now();
    let slow = tokio::spawn(async move {
        reqwest::Client::new()
            .post(format!("{base}/projects/{p}/servers/demo/tools/call"))
            .bearer_auth(key)
            .json(
                &json!({"toolName": "slow", "parameters": {"durationMs": 20000}, "callId": "c-1"}),
            )
            .send()
            .await
            .unwrap()
    });
    let p = h.project.clone();
    let mut cancelled = json!(null);
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancelled = h
            .call(
                Method::POST,
                &format!("/projects/{p}/servers/demo/calls/c-1/cancel"),
                Some(&h.owner_key),
                Some(json!({})),
            )
            .await
            .ok(200)
            .clone();
        if cancelled["cancelled"] == true {
            break;
        }
    }
    assert_eq!(cancelled, json!({"cancelled": true}));
    let answer = slow.await.unwrap();
    assert_eq!(answer.status(), 409);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["details"]["reason"], "CALL_CANCELLED", "{body}");
    assert!(started.elapsed() < Duration::from_secs(15));
    // The cancellation goes out as the call is dropped.
    let mut told = false;
    let mut seen = vec![];
    for _ in 0..100 {
        let traffic = h
            .get(
                &format!("/projects/{p}/servers/demo/traffic?after=0"),
                &h.owner_key,
            )
            .await;
        let items = traffic.ok(200)["items"].as_array().unwrap().clone();
        told = items
            .iter()
            .any(|e| e["method"] == "notifications/cancelled" && e["direction"] == "out");
        seen = items
            .iter()
            .map(|e| format!("{} {}", e["direction"], e["method"]))
            .collect();
        if told {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(told, "the server was told: {seen:?}");
    // Nothing left to cancel.
    let again = h
        .call(
            Method::POST,
            &format!("/projects/{p}/servers/demo/calls/c-1/cancel"),
            Some(&h.owner_key),
            Some(json!({})),
        )
        .await;
    assert_eq!(again.ok(200), &json!({"cancelled": false}));
    h.service.shutdown().await;
}

/// Progress restarts the request timeout, up to the server's configured cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_extends_a_call_only_up_to_the_cap() {
    let pool = pool();
    let mut c = demo(
        &[],
        ClientFeatures {
            max_total_timeout_ms: Some(900),
            ..Default::default()
        },
    );
    c.request_timeout_ms = 400;
    let t = target("srv_capped", c);
    let started = std::time::Instant::now();
    let e = pool
        .call_tool(&t, &call("slow", json!({"durationMs": 5000, "steps": 25})))
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Timeout, "{e:?}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(800) && took < Duration::from_millis(3000),
        "{took:?}"
    );
    pool.shutdown().await;
}

/// `--verbose` prints the traffic; an unsaved target leaves nothing saved.
#[test]
fn the_cli_shows_its_traffic_and_runs_unsaved_targets() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let cli = |args: &[&str]| {
        std::process::Command::new(BIN)
            .arg("--db")
            .arg(&db)
            .args(args)
            .env_remove("EVALDECK_BASE_URL")
            .env_remove("EVALDECK_PROJECT")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = cli(&[
        "--verbose",
        "tools",
        "call",
        "demo",
        "get-sum",
        "--arg",
        "a=2",
        "--arg",
        "b=3",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("→ request tools/call"), "{err}");
    assert!(err.contains("← response"), "{err}");

    let out = cli(&[
        "tools",
        "call",
        "get-sum",
        "--arg",
        "a=2",
        "--arg",
        "b=40",
        "--",
        BIN,
        "demo-server",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("42"));
    let out = cli(&[
        "resources",
        "read",
        "demo://items/{id}",
        "--var",
        "id=item-3",
        "--",
        BIN,
        "demo-server",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Item 3"));
    let listed = cli(&["--json", "servers", "list"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        !listed.contains("adhoc-"),
        "the unsaved target is gone: {listed}"
    );
}

/// A case's scripted elicitation answer is what a run gives the server; the trace records
/// that the server asked and what it was told. The field round-trips through suite files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_elicitation_answer_comes_from_the_case() {
    let h = Harness::with_config(demo_config()).await;
    let p = h.project.clone();
    h.call(
        Method::POST,
        &format!("/projects/{p}/servers"),
        Some(&h.owner_key),
        Some(json!({
            "name": "asker",
            "transport": {"type": "stdio", "command": BIN, "args": ["demo-server", "--client-features"]}
        })),
    )
    .await
    .ok(201);
    let suite = h
        .call(
            Method::POST,
            &format!("/projects/{p}/eval-suites"),
            Some(&h.owner_key),
            Some(json!({"name": "Ask", "serverIds": ["asker"], "model": "builtin/baseline", "tests": [
                {"title": "asks", "steps": [
                    {"id": "t1", "kind": "toolCall", "toolName": "ask-user", "arguments": {}},
                    {"id": "a1", "kind": "assert", "assertion": {"type": "toolResultContains", "needle": "Grace"}}
                ]}
            ]})),
        )
        .await;
    let suite = suite.ok(201)["suiteId"].as_str().unwrap().to_string();
    let cases = h
        .get(
            &format!("/projects/{p}/eval-suites/{suite}/cases"),
            &h.owner_key,
        )
        .await;
    let case = cases.ok(200)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let updated = h
        .call(
            Method::PATCH,
            &format!("/projects/{p}/eval-suites/{suite}/cases/{case}"),
            Some(&h.owner_key),
            Some(json!({"elicitation": {"action": "accept", "content": {"name": "Grace"}}})),
        )
        .await;
    assert_eq!(
        updated.ok(200)["elicitation"],
        json!({"action": "accept", "content": {"name": "Grace"}})
    );
    let bad = h
        .call(
            Method::PATCH,
            &format!("/projects/{p}/eval-suites/{suite}/cases/{case}"),
            Some(&h.owner_key),
            Some(json!({"elicitation": {"action": "decline", "content": {"name": "x"}}})),
        )
        .await;
    bad.invalid("/elicitation/content", "requires");

    let run = h
        .call(
            Method::POST,
            &format!("/projects/{p}/eval-runs"),
            Some(&h.owner_key),
            Some(json!({"suiteId": suite})),
        )
        .await;
    let run = run.ok(202)["runId"].as_str().unwrap().to_string();
    let mut done = json!(null);
    for _ in 0..200 {
        done = h
            .get(&format!("/projects/{p}/eval-runs/{run}"), &h.owner_key)
            .await
            .ok(200)
            .clone();
        if done["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(done["result"], "passed", "{done}");
    let its = h
        .get(
            &format!("/projects/{p}/eval-runs/{run}/iterations"),
            &h.owner_key,
        )
        .await;
    let it = its.ok(200)["items"][0]["id"].as_str().unwrap().to_string();
    let trace = h
        .get(
            &format!("/projects/{p}/eval-runs/{run}/iterations/{it}/trace"),
            &h.owner_key,
        )
        .await;
    let trace = trace.ok(200).to_string();
    assert!(trace.contains("the scripted answer is accept"), "{trace}");

    // Suite files keep the field.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ask.yaml");
    let out = std::process::Command::new(BIN)
        .args([
            "--base-url",
            &h.base,
            "--api-key",
            &h.owner_key,
            "suite",
            "export",
            "Ask",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("elicitation:") && text.contains("Grace"),
        "{text}"
    );
    std::fs::write(&file, &text).unwrap();
    let plan = std::process::Command::new(BIN)
        .args([
            "--base-url",
            &h.base,
            "--api-key",
            &h.owner_key,
            "suite",
            "apply",
            "--dry-run",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let plan = String::from_utf8_lossy(&plan.stdout);
    assert!(
        plan.contains("no changes") || plan.contains("unchanged"),
        "{plan}"
    );
    h.service.shutdown().await;
}

/// A `2026-07-28` call the server turns into a task is followed to its end — its
/// elicitation answered on the way — and comes back as the tool's result; a task can be
/// listed and cancelled while it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_followed_listed_and_cancelled() {
    let h = Harness::with_config(demo_config()).await;
    let p = h.project.clone();
    h.call(
        Method::POST,
        &format!("/projects/{p}/servers"),
        Some(&h.owner_key),
        Some(json!({
            "name": "jobs",
            "transport": {"type": "stdio", "command": BIN, "args": ["demo-server", "--client-features", "--protocol", "2026-07-28"]}
        })),
    )
    .await
    .ok(201);
    let done = h
        .call(
            Method::POST,
            &format!("/projects/{p}/servers/jobs/tools/call"),
            Some(&h.owner_key),
            Some(
                json!({"toolName": "long-job", "parameters": {"durationMs": 300, "ask": true},
                "elicitation": {"action": "accept", "content": {"name": "Lin"}}}),
            ),
        )
        .await;
    assert_eq!(text(done.ok(200)), "job done in 4 steps for Lin");
    let traffic = h
        .get(
            &format!("/projects/{p}/servers/jobs/traffic?after=0"),
            &h.owner_key,
        )
        .await;
    let items = traffic.ok(200)["items"].as_array().unwrap().clone();
    for method in ["tasks/get", "tasks/update"] {
        assert!(
            items
                .iter()
                .any(|e| e["method"] == method && e["direction"] == "out"),
            "{method} was sent"
        );
    }

    // A long one, cancelled through the task list.
    let base = h.base.clone();
    let key = h.owner_key.clone();
    let p2 = p.clone();
    let running = tokio::spawn(async move {
        reqwest::Client::new()
            .post(format!("{base}/projects/{p2}/servers/jobs/tools/call"))
            .bearer_auth(key)
            .json(
                &json!({"toolName": "long-job", "parameters": {"durationMs": 20000, "steps": 40}}),
            )
            .send()
            .await
            .unwrap()
    });
    let mut task = String::new();
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let list = h
            .get(&format!("/projects/{p}/servers/jobs/tasks"), &h.owner_key)
            .await;
        if let Some(t) = list.ok(200)["items"].as_array().and_then(|a| a.first()) {
            assert_eq!(t["source"], "followed");
            assert_eq!(t["toolName"], "long-job");
            task = t["taskId"].as_str().unwrap().to_string();
            break;
        }
    }
    assert!(!task.is_empty(), "the task is listed while it runs");
    let cancelled = h
        .call(
            Method::POST,
            &format!("/projects/{p}/servers/jobs/tasks/{task}/cancel"),
            Some(&h.owner_key),
            Some(json!({})),
        )
        .await;
    assert_eq!(cancelled.ok(200)["acknowledged"], true);
    let answer = running.await.unwrap();
    assert_eq!(answer.status(), 409);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["details"]["reason"], "CALL_CANCELLED", "{body}");
    let list = h
        .get(&format!("/projects/{p}/servers/jobs/tasks"), &h.owner_key)
        .await;
    assert_eq!(
        list.ok(200)["items"],
        json!([]),
        "a finished task is no longer followed"
    );
    h.service.shutdown().await;
}

/// A resource subscription in either era: updates arrive as protocol events
/// (`resources/subscribe` in the handshake era, a `subscriptions/listen` stream from
/// `2026-07-28`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_updates_arrive_after_a_subscription() {
    let pool = pool();
    for era in ERAS {
        let t = target(
            &format!("srv_sub_{era}"),
            demo(&["--protocol", era], Default::default()),
        );
        pool.subscribe(&t, "demo://items/item-2")
            .await
            .unwrap_or_else(|e| panic!("{era}: {e:?}"));
        let r = pool
            .call_tool(&t, &call("touch-item", json!({"id": "item-2"})))
            .await
            .unwrap();
        assert!(text(&r).contains("1 subscriber"), "{era}: {}", text(&r));
        let mut seen = false;
        for _ in 0..50 {
            seen = pool.traffic(&t.server_id, 0, 2000).items.iter().any(|e| {
                e.method.as_deref() == Some("notifications/resources/updated")
                    && e.message["params"]["uri"] == "demo://items/item-2"
            });
            if seen {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(seen, "{era}: the update is a protocol event");
    }
    // A server without subscriptions says so.
    let plain = target("srv_sub_none", {
        let mut c = demo(&[], Default::default());
        if let Transport::Stdio { args, .. } = &mut c.transport {
            args.retain(|a| a != "--client-features");
        }
        c
    });
    let e = pool.subscribe(&plain, "demo://readme").await.unwrap_err();
    assert_eq!(e.code, Code::FeatureNotSupported);
    pool.shutdown().await;
}
