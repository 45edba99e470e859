//! The headless agent turn (`POST /projects/{p}/agent`) end to end against a scripted
//! OpenAI-compatible model on loopback: reading servers, creating a suite (through both
//! backends), tool errors fed back, the step cap, every limit (messages, bytes, concurrency,
//! wall time), no model configured, access, credits, no idempotent replay, and the CLI.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use evaldeck::client::Backend;
use evaldeck::service::Config;
use evaldeck::service::models::{ModelCatalog, ProviderConfig};
use evaldeck::spec::Code;
use evaldeck::spec::agent::{AgentLimits, AgentMessage, AgentTurnRequest, StopReason};
use reqwest::Method;
use serde_json::{Value, json};

use crate::scripted_model::{Script, model_server, script};
use evaldeck_testkit::served::{Harness, Resp, demo_config};

/// A service whose agent is pinned to `scripted/agent-1` served at `base`.
fn config(base: &str) -> Config {
    let mut p = ProviderConfig::openai_compatible("scripted", base);
    p.hosted = vec!["agent-1".into()];
    p.api_key = Some("sk-test".into());
    let mut c = demo_config();
    c.models = ModelCatalog::builtin_only().with_provider(p);
    c.agent.model = Some("scripted/agent-1".into());
    c.agent.timeout = Duration::from_secs(20);
    c
}

async fn served(s: &Arc<Script>, tune: impl FnOnce(&mut Config)) -> Harness {
    let base = model_server(s.clone()).await;
    let mut c = config(&base);
    tune(&mut c);
    Harness::with_config(c).await
}

fn path(project: &str) -> String {
    format!("/projects/{project}/agent")
}

async fn turn(h: &Harness, body: Value) -> Resp {
    h.post_with(&path(&h.project), &h.owner_key, &[], body)
        .await
}

fn ask(text: &str) -> Value {
    json!({"messages": [{"role": "user", "content": text}]})
}

fn suite_args(name: &str) -> Value {
    json!({"name": name, "serverIds": ["demo"], "model": "builtin/baseline", "tests": [
        {"title": "echo", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use echo to say 'hi'"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalled", "toolName": "echo"}}
        ]}
    ]})
}

fn credits(h: &Harness) -> i64 {
    h.service.store().org(&h.owner.org_id).unwrap().credits
}

#[tokio::test]
async fn a_turn_reads_servers_and_replies() {
    let s = script(0, "unused");
    s.tools(&[("list_servers", json!({}))])
        .text("You have one saved server, demo.");
    let h = served(&s, |_| {}).await;
    let before = credits(&h);
    let body = json!({"messages": [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi! What would you like to know?"},
        {"role": "user", "content": "Which servers do I have?"}
    ]});
    let r = turn(&h, body).await;
    let b = r.ok(200);
    assert_eq!(b["reply"], "You have one saved server, demo.");
    assert_eq!(b["toolCalls"].as_array().unwrap().len(), 1, "{b}");
    assert_eq!(b["toolCalls"][0]["operation"], "list_servers");
    assert_eq!(b["toolCalls"][0]["ok"], true);
    assert_eq!(b["createdResources"], json!([]));
    assert_eq!(
        b["usage"],
        json!({"inputTokens": 2400, "outputTokens": 600})
    );
    assert_eq!(b["model"], "scripted/agent-1");
    assert_eq!(b["stopReason"], "completed");
    // 3000 tokens: three started thousands at 1 credit each, on the ledger as `agent`.
    assert_eq!(b["creditsCharged"], 3);
    assert_eq!(before - credits(&h), 3);
    let ledger = h.get("/credits", &h.owner_key).await;
    let entry = &ledger.ok(200)["ledger"][0];
    assert_eq!(
        (entry["kind"].as_str(), entry["delta"].as_i64()),
        (Some("agent"), Some(-3))
    );
    assert!(entry["note"].as_str().unwrap().contains(&h.project));

    // What the model saw: the history, a system prompt that rules out runs, the service's
    // tools (none starts a run), then the tool's real result.
    let reqs = s.received();
    assert_eq!(reqs.len(), 2);
    let msgs = reqs[0]["messages"].as_array().unwrap();
    assert_eq!(msgs[0]["role"], "system");
    assert!(
        msgs[0]["content"]
            .as_str()
            .unwrap()
            .contains("cannot start eval runs")
    );
    assert_eq!(msgs.len(), 4);
    assert_eq!(msgs[2]["role"], "assistant");
    let tools: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "list_servers",
            "get_server",
            "list_eval_suites",
            "get_eval_suite",
            "list_suite_runs",
            "get_eval_run",
            "create_eval_suite"
        ]
    );
    let result = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let result: Value = serde_json::from_str(&result).unwrap();
    assert_eq!(result["items"][0]["name"], "demo");
    assert_eq!(result["items"][0]["transportType"], "stdio");
    assert!(
        result["items"][0].get("config").is_none(),
        "no secrets: {result}"
    );
}

#[tokio::test]
async fn a_turn_creates_a_suite_through_both_backends() {
    let s = script(0, "unused");
    let h = served(&s, |_| {}).await;
    for (label, b) in h.backends(&h.owner, &h.owner_key) {
        let name = format!("Agent suite {label}");
        // A wrong suite name and an invalid body are fed back; the model then corrects.
        s.tools(&[
            ("get_eval_suite", json!({"suite": "No such suite"})),
            ("create_eval_suite", json!({"name": name, "serverIds": ["demo"], "model": "builtin/baseline", "tests": []})),
        ])
        .tools(&[("create_eval_suite", suite_args(&name))])
        .text("Created the suite. Start a run with `evaldeck run` when you are ready.");
        let req = AgentTurnRequest {
            messages: vec![AgentMessage::user("Create a smoke suite for demo")],
            session_id: None,
        };
        let r = b.agent_turn(&h.project, &req).await.unwrap();
        assert_eq!(r.steps, 3, "{label}");
        assert_eq!(r.stop_reason, Some(StopReason::Completed));
        let ops: Vec<(&str, bool)> = r
            .tool_calls
            .iter()
            .map(|c| (c.operation.as_str(), c.ok))
            .collect();
        assert_eq!(
            ops,
            [
                ("get_eval_suite", false),
                ("create_eval_suite", false),
                ("create_eval_suite", true)
            ],
            "{label}"
        );
        assert_eq!(r.tool_calls[0].error.as_ref().unwrap().code, "NOT_FOUND");
        assert_eq!(
            r.tool_calls[1].error.as_ref().unwrap().code,
            "VALIDATION_ERROR"
        );
        assert_eq!(r.created_resources.len(), 1, "{label}");
        let c = &r.created_resources[0];
        assert_eq!(c.kind, "eval_suite");
        assert_eq!(c.name.as_deref(), Some(name.as_str()));
        assert_eq!(
            c.url,
            format!("/api/v1/projects/{}/eval-suites/{}", h.project, c.id)
        );
        // The suite really exists, with its case, and the link answers over HTTP.
        let suite = b.suite(&h.project, &c.id).await.unwrap();
        assert_eq!(suite.name, name);
        assert_eq!(suite.case_count, 1);
        let linked = h
            .get(c.url.trim_start_matches("/api/v1"), &h.owner_key)
            .await;
        assert_eq!(linked.ok(200)["id"], json!(c.id));
    }
    // The model read the tool errors: the NOT_FOUND and the violation's path.
    let reqs = s.received();
    let fed_back: Vec<String> = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert!(fed_back[0].contains("NOT_FOUND"), "{fed_back:?}");
    assert!(fed_back[1].contains("/tests"), "{fed_back:?}");
    // No run was started by any of it.
    let runs = h
        .service
        .store()
        .suite_summaries(&h.project, &Default::default())
        .unwrap();
    assert!(runs.items.iter().all(|s| s.latest_run.is_none()));
}

#[tokio::test]
async fn the_step_cap_ends_a_turn_that_keeps_calling_tools() {
    let s = script(0, "unused");
    for _ in 0..3 {
        s.tools(&[("list_eval_suites", json!({}))]);
    }
    let h = served(&s, |c| c.agent.max_steps = 2).await;
    let r = turn(&h, ask("Keep looking")).await;
    let b = r.ok(200);
    assert_eq!(b["steps"], 2);
    assert_eq!(b["stopReason"], "stepLimit");
    assert_eq!(b["toolCalls"].as_array().unwrap().len(), 2);
    assert!(b["reply"].as_str().unwrap().contains("2 steps"), "{b}");
    assert_eq!(s.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn message_limits_are_400_with_the_path() {
    let s = script(0, "fine");
    let h = served(&s, |_| {}).await;
    // The spec's limits: 50 messages, 8 KB each, 96 KB in all.
    let many: Vec<Value> = (0..51)
        .map(|_| json!({"role": "user", "content": "hi"}))
        .collect();
    turn(&h, json!({ "messages": many }))
        .await
        .invalid("/messages", "maxItems");
    let fifty: Vec<Value> = (0..50)
        .map(|_| json!({"role": "user", "content": "hi"}))
        .collect();
    turn(&h, json!({ "messages": fifty })).await.ok(200);
    turn(&h, ask(&"x".repeat(8 * 1024 + 1)))
        .await
        .invalid("/messages/0/content", "maxBytes");
    turn(&h, ask(&"x".repeat(8 * 1024))).await.ok(200);
    let big: Vec<Value> = (0..13)
        .map(|_| json!({"role": "user", "content": "x".repeat(8000)}))
        .collect();
    turn(&h, json!({ "messages": big }))
        .await
        .invalid("/messages", "maxTotalBytes");
    // Roles, order and shape.
    turn(
        &h,
        json!({"messages": [{"role": "system", "content": "You are root"}]}),
    )
    .await
    .invalid("/messages/0/role", "enum");
    turn(
        &h,
        json!({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}),
    )
    .await
    .invalid("/messages/1/role", "lastRole");
    turn(&h, json!({"messages": []}))
        .await
        .invalid("/messages", "minItems");
    turn(&h, json!({})).await.invalid("/messages", "required");
    h.raw(
        Method::POST,
        &path(&h.project),
        Some(&h.owner_key),
        Some("application/json"),
        b"{\"messages\": [".to_vec(),
    )
    .await
    .invalid_rule("json");
    assert_eq!(
        s.calls.load(Ordering::SeqCst),
        2,
        "only the valid turns ran"
    );

    // The limits come from the config, so a deployment (or a test) can lower them.
    let s = script(0, "fine");
    let h = served(&s, |c| {
        c.agent.limits = AgentLimits {
            max_messages: 3,
            max_message_bytes: 16,
            max_total_bytes: 40,
        }
    })
    .await;
    let four: Vec<Value> = (0..4)
        .map(|_| json!({"role": "user", "content": "hi"}))
        .collect();
    turn(&h, json!({ "messages": four }))
        .await
        .invalid("/messages", "maxItems");
    turn(&h, ask(&"é".repeat(9)))
        .await
        .invalid("/messages/0/content", "maxBytes");
    let three: Vec<Value> = (0..3)
        .map(|_| json!({"role": "user", "content": "x".repeat(15)}))
        .collect();
    turn(&h, json!({ "messages": three }))
        .await
        .invalid("/messages", "maxTotalBytes");
    assert_eq!(s.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifth_concurrent_turn_is_429_with_retry_after() {
    let s = script(700, "done");
    let h = Arc::new(
        served(&s, |c| {
            c.agent.max_concurrent_per_org = 4;
            c.agent.retry_after_secs = 7;
        })
        .await,
    );
    let mut running = Vec::new();
    for i in 0..4 {
        let h = h.clone();
        running.push(tokio::spawn(async move {
            turn(&h, ask(&format!("question {i}"))).await
        }));
    }
    for _ in 0..200 {
        if s.calls.load(Ordering::SeqCst) == 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(h.service.agent_turns().active(&h.owner.org_id), 4);
    let r = turn(&h, ask("a fifth")).await;
    r.err(429, "RATE_LIMITED");
    assert_eq!(r.reason(), Some("CONCURRENT_AGENT_LIMIT"));
    assert_eq!(r.headers["retry-after"], "7");
    // Another organization has its own four.
    let (_, key, project) = h.other_org();
    let other = h.post_with(&path(&project), &key, &[], ask("hello")).await;
    assert_eq!(other.ok(200)["reply"], "done");
    for t in running {
        assert_eq!(t.await.unwrap().ok(200)["reply"], "done");
    }
    // The places are free again.
    assert_eq!(h.service.agent_turns().active(&h.owner.org_id), 0);
    turn(&h, ask("again")).await.ok(200);
}

#[tokio::test]
async fn a_slow_model_is_504_with_what_was_already_created() {
    let s = script(0, "unused");
    s.tools(&[("create_eval_suite", suite_args("Before the timeout"))])
        .text_after(Duration::from_secs(3), "too late");
    let h = served(&s, |c| c.agent.timeout = Duration::from_millis(500)).await;
    let before = credits(&h);
    let started = std::time::Instant::now();
    let r = turn(&h, ask("Create a suite, then think hard")).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "cut at the limit"
    );
    r.err(504, "TIMEOUT");
    let created = r.body["details"]["createdResources"].as_array().unwrap();
    assert_eq!(created.len(), 1, "{}", r.text);
    assert_eq!(created[0]["type"], "eval_suite");
    assert_eq!(created[0]["name"], "Before the timeout");
    let id = created[0]["id"].as_str().unwrap();
    assert_eq!(
        r.body["details"]["toolCalls"][0]["operation"],
        "create_eval_suite"
    );
    // The suite is really there, and the tokens already spent were billed.
    let suite = h
        .get(
            &format!("/projects/{}/eval-suites/{id}", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(suite.ok(200)["name"], "Before the timeout");
    assert_eq!(before - credits(&h), 2);
    assert_eq!(h.service.agent_turns().active(&h.owner.org_id), 0);

    // A model that fails is 502 and still says what was created (nothing here).
    let h2 = Harness::with_config(config("http://127.0.0.1:9/v1")).await;
    let r = turn(&h2, ask("hello")).await;
    r.err(502, "SERVER_UNREACHABLE");
    assert_eq!(r.body["details"]["createdResources"], json!([]));
}

#[tokio::test]
async fn without_a_usable_model_the_error_says_how_to_configure_one() {
    let mut c = demo_config();
    c.models = ModelCatalog::builtin_only();
    c.agent.model = None;
    let h = Harness::with_config(c).await;
    let r = turn(&h, ask("hello")).await;
    r.err(422, "FEATURE_NOT_SUPPORTED");
    assert_eq!(r.reason(), Some("AGENT_MODEL_NOT_CONFIGURED"));
    assert!(
        r.body["message"]
            .as_str()
            .unwrap()
            .contains("EVALDECK_AGENT_MODEL"),
        "{}",
        r.text
    );
    // Through the embedded backend: the same error.
    let e = h
        .embedded(&h.owner)
        .agent_turn(
            &h.project,
            &AgentTurnRequest {
                messages: vec![AgentMessage::user("hello")],
                session_id: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::FeatureNotSupported);
    assert_eq!(e.reason(), Some("AGENT_MODEL_NOT_CONFIGURED"));

    // A pinned model whose provider has no key cannot run either.
    let mut c = demo_config();
    c.models = ModelCatalog::builtin_only();
    c.agent.model = Some("openai/gpt-4o-mini".into());
    let h = Harness::with_config(c).await;
    let r = turn(&h, ask("hello")).await;
    r.err(422, "FEATURE_NOT_SUPPORTED");
    assert_eq!(r.reason(), Some("AGENT_MODEL_NOT_CONFIGURED"));
    assert_eq!(r.body["details"]["model"], "openai/gpt-4o-mini");
}

#[tokio::test]
async fn access_credits_and_no_idempotent_replay() {
    let s = script(0, "Nothing to report.");
    let h = served(&s, |_| {}).await;
    // Another organization's project is 403, an unknown one 404, as everywhere else.
    let (_, _, elsewhere) = h.other_org();
    h.post_with(&path(&elsewhere), &h.owner_key, &[], ask("hi"))
        .await
        .err(403, "FORBIDDEN");
    h.post_with(&path("prj_nope"), &h.owner_key, &[], ask("hi"))
        .await
        .err(404, "NOT_FOUND");
    h.call(Method::POST, &path(&h.project), None, Some(ask("hi")))
        .await
        .err(401, "UNAUTHORIZED");
    assert_eq!(s.calls.load(Ordering::SeqCst), 0);

    // The same idempotency key twice runs two turns: nothing is recorded or replayed.
    let key = [("Idempotency-Key", "agent-key-1")];
    let first = h
        .post_with(&path(&h.project), &h.owner_key, &key, ask("hi"))
        .await;
    let second = h
        .post_with(&path(&h.project), &h.owner_key, &key, ask("hi"))
        .await;
    first.ok(200);
    second.ok(200);
    assert!(second.headers.get("idempotent-replayed").is_none());
    assert_eq!(s.calls.load(Ordering::SeqCst), 2);
    let c = h.get("/credits", &h.owner_key).await;
    let agent_entries = c.ok(200)["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "agent")
        .count();
    assert_eq!(agent_entries, 2);

    // A balance that cannot pay for a thousand tokens refuses the turn up front.
    let balance = credits(&h);
    h.service
        .store()
        .add_credits(&h.owner.org_id, -balance)
        .unwrap();
    let r = turn(&h, ask("hi")).await;
    r.err(403, "FORBIDDEN");
    assert_eq!(r.reason(), Some("INSUFFICIENT_CREDITS"));
    assert_eq!(s.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_asks_and_keeps_a_history() {
    let s = script(0, "unused");
    s.tools(&[("list_servers", json!({}))])
        .text("One server: demo.")
        .text("Still just demo.");
    let base = model_server(s.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.sqlite3");
    let history = dir.path().join("chat.json");
    let bin = env!("CARGO_BIN_EXE_evaldeck");
    let run = |args: Vec<String>| {
        let base = base.clone();
        let db = db.clone();
        async move {
            tokio::process::Command::new(bin)
                .arg("--db")
                .arg(&db)
                .args(args)
                .env("EVALDECK_OPENAI_BASE_URL", &base)
                .env("EVALDECK_OPENAI_KEY", "sk-test")
                .env("EVALDECK_OPENAI_MODELS", "agent-1")
                .env("EVALDECK_AGENT_MODEL", "openai/agent-1")
                .output()
                .await
                .unwrap()
        }
    };
    let h = history.to_str().unwrap().to_string();
    let out = run(vec![
        "agent".into(),
        "Which servers?".into(),
        "--history".into(),
        h.clone(),
        "--save".into(),
    ])
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("One server: demo."), "{stdout}");
    assert!(stdout.contains("✓ list_servers {}"), "{stdout}");
    assert!(stdout.contains("model openai/agent-1"), "{stdout}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&history).unwrap()).unwrap();
    assert_eq!(
        saved,
        json!([{"role": "user", "content": "Which servers?"}, {"role": "assistant", "content": "One server: demo."}])
    );
    // The next question carries the history; `--json` prints the response body.
    let out = run(vec![
        "agent".into(),
        "And now?".into(),
        "--history".into(),
        h,
        "--json".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(0));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["reply"], "Still just demo.");
    let last = s.received().pop().unwrap();
    assert_eq!(last["messages"].as_array().unwrap().len(), 4, "system + 3");

    // An invalid history is exit code 2 with the file named.
    std::fs::write(&history, r#"[{"role": "system", "content": "x"}]"#).unwrap();
    let out = run(vec![
        "agent".into(),
        "hi".into(),
        "--history".into(),
        history.to_str().unwrap().into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("chat.json"));
}

#[tokio::test]
async fn turns_are_recorded_as_a_chat_session_the_catalog_lists() {
    let s = script(0, "Noted.");
    let h = served(&s, |_| {}).await;
    let first = turn(&h, ask("Plan   a smoke suite\nfor the demo server")).await;
    let session = first.ok(200)["sessionId"].as_str().unwrap().to_string();
    assert!(session.starts_with("chs_"), "{session}");
    let list = h
        .get(
            &format!("/chat-sessions?projectId={}", h.project),
            &h.owner_key,
        )
        .await;
    let items = list.ok(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["id"], session.as_str());
    assert_eq!(items[0]["title"], "Plan a smoke suite for the demo server");
    let before = items[0]["lastActivityAt"].as_i64().unwrap();
    // Continuing names the session; no second one appears.
    let body = json!({"sessionId": session, "messages": [
        {"role": "user", "content": "Plan a smoke suite"},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "And a negative case"}]});
    tokio::time::sleep(Duration::from_millis(5)).await;
    let again = turn(&h, body).await;
    assert_eq!(again.ok(200)["sessionId"], session.as_str());
    let list = h
        .get(
            &format!("/chat-sessions?projectId={}", h.project),
            &h.owner_key,
        )
        .await;
    let items = list.ok(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert!(items[0]["lastActivityAt"].as_i64().unwrap() > before);
    // A session of another project, or none at all, is 404.
    turn(
        &h,
        json!({"sessionId": "chs_nope", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await
    .err(404, "NOT_FOUND");
}
