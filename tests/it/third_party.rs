//! The MCP client against servers other people wrote. Ignored by default (they need the
//! network to install and take seconds to start); run them with
//!
//! ```sh
//! pip install mcp-server-time
//! cargo test --test it third_party -- --ignored --nocapture
//! ```
//!
//! `@modelcontextprotocol/server-everything` (over `npx -y`) exercises sampling,
//! elicitation, roots, progress, logging and resource templates from a real third-party
//! implementation of the handshake era; `mcp-server-time` speaks `2026-07-28` as well.

use std::collections::BTreeMap;
use std::time::Duration;

use evaldeck::service::mcp::{McpPool, PoolOptions, Target};
use evaldeck::spec::client_features::{
    ClientFeatures, ElicitationAction, ElicitationAnswer, Root, SamplingPolicy,
};
use evaldeck::spec::primitives::{ListRequest, ToolCallRequest};
use evaldeck::spec::server::{ServerConfig, Transport};
use serde_json::{Value, json};

fn stdio(command: &str, args: &[&str], client: ClientFeatures) -> Target {
    let mut c = ServerConfig::new(Transport::Stdio {
        command: command.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        env: BTreeMap::new(),
        cwd: None,
    });
    c.connect_timeout_ms = 120_000;
    c.request_timeout_ms = 60_000;
    c.client = client;
    Target {
        server_id: format!("srv_{command}"),
        revision: 1,
        config: c,
        access_token: None,
    }
}

fn text(v: &Value) -> String {
    v["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn call(tool: &str, args: Value) -> ToolCallRequest {
    ToolCallRequest::new(tool, args.as_object().cloned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "third-party server: npx -y @modelcontextprotocol/server-everything"]
async fn server_everything_sampling_elicitation_roots_progress_logging_templates() {
    let pool = McpPool::new(PoolOptions::default());
    let features = ClientFeatures {
        roots: vec![Root::parse("/tmp/evaldeck-roots=Scratch")],
        sampling: Some(SamplingPolicy::Scripted {
            text: "Paris".into(),
        }),
        elicitation: Some(ElicitationAnswer {
            action: ElicitationAction::Accept,
            content: None,
        }),
        log_level: Some(evaldeck::spec::client_features::LogLevel::Debug),
        ..Default::default()
    };
    let t = stdio(
        "npx",
        &["-y", "@modelcontextprotocol/server-everything", "stdio"],
        features,
    );
    let v = pool.validate(&t).await.expect("server-everything starts");
    let info = v.init_info.unwrap();
    println!(
        "server-everything: protocol {}, server {}",
        info.protocol_version,
        info.server_info.unwrap_or_default()
    );
    let tools = pool.list_tools(&t, None).await.unwrap();
    let names: Vec<&str> = tools.items.iter().map(|t| t.name.as_str()).collect();
    println!("{} tools: {}", names.len(), names.join(", "));

    let r = pool
        .call_tool(
            &t,
            &call(
                "trigger-sampling-request",
                json!({"prompt": "Capital of France?", "maxTokens": 20}),
            ),
        )
        .await
        .expect("sampling");
    println!("sampling → {}", text(&r));
    assert!(text(&r).contains("Paris"), "{r}");

    let r = pool
        .call_tool(&t, &call("get-roots-list", json!({})))
        .await
        .expect("roots");
    println!("roots → {}", text(&r));
    assert!(text(&r).contains("file:///tmp/evaldeck-roots"), "{r}");

    let mut e = call("trigger-elicitation-request", json!({}));
    e.elicitation = Some(ElicitationAnswer {
        action: ElicitationAction::Decline,
        content: None,
    });
    let r = pool.call_tool(&t, &e).await.expect("elicitation");
    println!("elicitation (declined) → {}", text(&r));
    assert!(text(&r).to_lowercase().contains("decline"), "{r}");

    let r = pool
        .call_tool(
            &t,
            &call(
                "trigger-long-running-operation",
                json!({"duration": 2, "steps": 4}),
            ),
        )
        .await
        .expect("progress");
    println!("long-running → {}", text(&r));
    let events = pool.traffic(&t.server_id, 0, 2000).items;
    let progress = events
        .iter()
        .filter(|e| e.method.as_deref() == Some("notifications/progress"))
        .count();
    println!("{progress} progress notifications");
    assert!(progress >= 3);

    let templates = pool
        .list_resource_templates(&t, None)
        .await
        .expect("templates");
    println!(
        "resource templates: {}",
        templates
            .items
            .iter()
            .map(|t| t.uri_template.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(!templates.items.is_empty());

    let _ = pool
        .call_tool(&t, &call("toggle-simulated-logging", json!({})))
        .await;
    tokio::time::sleep(Duration::from_secs(6)).await;
    let logs = pool
        .traffic(&t.server_id, 0, 2000)
        .items
        .into_iter()
        .filter(|e| e.method.as_deref() == Some("notifications/message"))
        .count();
    println!("{logs} log messages after enabling simulated logging");
    // A task-only tool, as a handshake-era task: tools/call with `task`, tasks/get, then
    // tasks/result.
    let mut research = call(
        "simulate-research-query",
        json!({"topic": "mcp", "ambiguous": false}),
    );
    research.task = Some(Default::default());
    let r = pool
        .call_tool(&t, &research)
        .await
        .expect("a task-augmented call");
    println!("task → {}", text(&r).lines().next().unwrap_or_default());
    assert!(text(&r).contains("Research Report"), "{r}");
    let events = pool.traffic(&t.server_id, 0, 2000).items;
    assert!(
        events
            .iter()
            .any(|e| e.method.as_deref() == Some("tasks/get"))
    );
    assert!(
        events
            .iter()
            .any(|e| e.method.as_deref() == Some("tasks/result"))
    );
    // The same tool called plainly, as a run's `toolCall` step or a model calls it: the
    // server refuses (-32601, task augmentation required) and evaldeck runs it as a task.
    let plain = pool
        .call_tool(
            &t,
            &call(
                "simulate-research-query",
                json!({"topic": "runs", "ambiguous": false}),
            ),
        )
        .await
        .expect("a plain call to a task-only tool");
    assert_ne!(plain["isError"], true, "{plain}");
    assert!(text(&plain).contains("Research Report"), "{plain}");
    let listed = pool.list_tasks(&t).await.expect("tasks/list");
    println!("{} task(s) listed by the server", listed.len());
    let report = pool.doctor(&t).await;
    for r in report.revisions.unwrap_or_default() {
        println!(
            "  revision {} {} {}",
            r.revision,
            if r.accepted { "✓" } else { "✗" },
            r.detail
        );
    }
    pool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "third-party server: pip install mcp-server-time"]
async fn mcp_server_time_speaks_2026_07_28() {
    let pool = McpPool::new(PoolOptions::default());
    let t = stdio(
        "python3",
        &["-m", "mcp_server_time"],
        ClientFeatures::default(),
    );
    let v = pool.validate(&t).await.expect("mcp-server-time starts");
    let info = v.init_info.unwrap();
    println!("mcp-server-time: protocol {}", info.protocol_version);
    assert_eq!(info.protocol_version, "2026-07-28");
    let tools = pool.list_tools(&t, None).await.unwrap();
    println!(
        "tools: {}",
        tools
            .items
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let r = pool
        .call_tool(
            &t,
            &call("get_current_time", json!({"timezone": "Europe/Paris"})),
        )
        .await
        .unwrap();
    println!("get_current_time → {}", r["structuredContent"]);
    assert!(r["structuredContent"]["timezone"] == "Europe/Paris", "{r}");
    let report = pool.doctor(&t).await;
    for r in report.revisions.unwrap_or_default() {
        println!(
            "  revision {} {} {}",
            r.revision,
            if r.accepted { "✓" } else { "✗" },
            r.detail
        );
    }
    let _ = ListRequest::default();
    pool.shutdown().await;
}

/// `evaldeck check`, `scan` and `diff` as a user runs them against a server someone else
/// wrote. A failed check there is a finding about that server (the README lists them),
/// not a failure of this test: it asserts that every check ran and that the reports hold
/// together.
fn check_scan_diff(command: &[&str]) -> serde_json::Value {
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_evaldeck");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let run = |args: &[&str]| {
        Command::new(bin)
            .arg("--db")
            .arg(&db)
            .args(args)
            .env_remove("EVALDECK_BASE_URL")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let report = dir.path().join("report.json").display().to_string();
    let mut args = vec![
        "--json",
        "check",
        "--timeout-ms",
        "60000",
        "-o",
        &report,
        "--",
    ];
    args.extend_from_slice(command);
    let out = run(&args);
    let code = out.status.code();
    let r: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    println!(
        "{} {}: {}",
        r["serverInfo"]["name"], r["revision"], r["summary"]
    );
    for c in r["results"].as_array().unwrap() {
        if c["outcome"] != "passed" {
            println!("  {} {}: {}", c["id"], c["outcome"], c["summary"]);
        }
    }
    for f in r["findings"].as_array().unwrap() {
        println!(
            "  finding {} {}: {}",
            f["rule"], f["location"], f["message"]
        );
    }
    assert!(matches!(code, Some(0) | Some(1)), "exit {code:?}");
    assert_eq!(
        r["summary"]["couldNotRun"], 0,
        "every check ran: {:#}",
        r["results"]
    );
    let connect = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "lifecycle.connect")
        .unwrap();
    assert_eq!(connect["outcome"], "passed");

    let out = run(&["scan", &report]);
    assert!(matches!(out.status.code(), Some(0) | Some(1)));
    let out = run(&["diff", &report, &report]);
    assert_eq!(out.status.code(), Some(0));
    // The server now against the snapshot the check took: nothing drifted.
    let mut args = vec!["diff", &report, "--"];
    args.extend_from_slice(command);
    let out = run(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    r
}

#[test]
#[ignore = "third-party server: npx -y @modelcontextprotocol/server-everything"]
fn server_everything_check_scan_diff() {
    let r = check_scan_diff(&["npx", "-y", "@modelcontextprotocol/server-everything"]);
    assert_eq!(r["transport"], "stdio");
}

#[test]
#[ignore = "third-party server: pip install mcp-server-time"]
fn mcp_server_time_check_scan_diff() {
    let r = check_scan_diff(&["python3", "-m", "mcp_server_time"]);
    assert_eq!(r["revision"], "2026-07-28");
}
