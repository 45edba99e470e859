//! The MCP client against `evaldeck demo-server` over stdio, streamable HTTP and legacy SSE:
//! every primitive, every error code from a real fault, OAuth, pool reuse and reaping.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use evaldeck::service::mcp::{self, McpPool, PoolOptions, RefreshRequest, Target};
use evaldeck::spec::Code;
use evaldeck::spec::primitives::{CheckStatus, DoctorStatus, PromptGetRequest, ToolCallRequest};
use evaldeck::spec::server::{ServerConfig, Transport};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn pool() -> McpPool {
    McpPool::new(PoolOptions {
        close_grace: Duration::from_millis(500),
        ..Default::default()
    })
}

fn config(transport: Transport) -> ServerConfig {
    let mut c = ServerConfig::new(transport);
    c.connect_timeout_ms = 10_000;
    c.request_timeout_ms = 10_000;
    c
}

fn stdio(args: &[&str]) -> ServerConfig {
    let mut a = vec!["demo-server".to_string()];
    a.extend(args.iter().map(|s| s.to_string()));
    config(Transport::Stdio {
        command: BIN.into(),
        args: a,
        env: BTreeMap::new(),
        cwd: None,
    })
}

fn target(id: &str, config: ServerConfig) -> Target {
    Target {
        server_id: id.into(),
        revision: 1,
        config,
        access_token: None,
    }
}

/// A demo server on HTTP (or SSE) on a free port, killed when dropped.
struct HttpDemo {
    _child: tokio::process::Child,
    url: String,
}

async fn http_demo(args: &[&str]) -> HttpDemo {
    let mut child = tokio::process::Command::new(BIN)
        .arg("demo-server")
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn demo-server");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("demo-server prints its address")
        .expect("read stdout")
        .expect("a line");
    let url = line
        .strip_prefix("listening on ")
        .expect("listening line")
        .trim()
        .to_string();
    HttpDemo { _child: child, url }
}

fn http(url: &str) -> ServerConfig {
    config(Transport::Http {
        url: url.into(),
        headers: BTreeMap::new(),
    })
}

fn sse(url: &str) -> ServerConfig {
    config(Transport::Sse {
        url: url.into(),
        headers: BTreeMap::new(),
    })
}

fn call(name: &str, args: Value) -> ToolCallRequest {
    ToolCallRequest::new(name, args.as_object().cloned())
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Every primitive against one server.
async fn exercise(pool: &McpPool, t: &Target) {
    let v = pool.validate(t).await.expect("validate");
    assert!(v.success);
    assert_eq!(v.status, "connected");
    let init = v.init_info.expect("initInfo");
    assert_eq!(init.server_info.as_ref().unwrap()["name"], "evaldeck-demo");
    assert!(init.capabilities.get("tools").is_some());

    let tools = pool.list_tools(t, None).await.expect("tools");
    assert!(tools.next_cursor.is_none());
    let names: Vec<&str> = tools.items.iter().map(|t| t.name.as_str()).collect();
    for n in [
        "echo",
        "get-sum",
        "get-stats",
        "legacy-echo",
        "fail",
        "slow",
        "large-result",
        "list-items",
        "noop",
        "crash",
    ] {
        assert!(names.contains(&n), "missing tool {n} in {names:?}");
    }
    let echo = tools.items.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(echo.annotations.as_ref().unwrap()["readOnlyHint"], true);
    assert!(echo.input_schema.is_some());
    let del = tools
        .items
        .iter()
        .find(|t| t.name == "delete-item")
        .unwrap();
    assert_eq!(del.annotations.as_ref().unwrap()["destructiveHint"], true);
    let noop = tools.items.iter().find(|t| t.name == "noop").unwrap();
    assert!(noop.description.is_none() && noop.annotations.is_none());
    assert!(
        tools
            .items
            .iter()
            .find(|t| t.name == "get-stats")
            .unwrap()
            .output_schema
            .is_some()
    );
    let legacy = tools
        .items
        .iter()
        .find(|t| t.name == "legacy-echo")
        .unwrap();
    assert_eq!(legacy.extra["_meta"]["deprecated"], true);

    let r = pool
        .call_tool(t, &call("echo", json!({"message": "hi there"})))
        .await
        .unwrap();
    assert_eq!(text_of(&r), "hi there");
    let r = pool
        .call_tool(t, &call("get-sum", json!({"a": 2, "b": 40})))
        .await
        .unwrap();
    assert_eq!(text_of(&r), "42");
    let r = pool
        .call_tool(t, &call("get-stats", json!({"numbers": [1, 2, 3, 6]})))
        .await
        .unwrap();
    assert_eq!(r["structuredContent"]["count"], 4);
    assert_eq!(r["structuredContent"]["mean"], 3.0);
    let r = pool
        .call_tool(t, &call("fail", json!({"reason": "testing"})))
        .await
        .unwrap();
    assert_eq!(r["isError"], true, "a tool error is a result: {r}");
    assert!(text_of(&r).contains("testing"));
    let r = pool
        .call_tool(t, &call("large-result", json!({"size": 200_000})))
        .await
        .unwrap();
    assert_eq!(text_of(&r).len(), 200_000);
    // A tool that pages with its own cursor.
    let mut cursor: Option<String> = None;
    let mut seen = 0;
    loop {
        let mut args = json!({"pageSize": 5});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = pool.call_tool(t, &call("list-items", args)).await.unwrap();
        seen += r["structuredContent"]["items"].as_array().unwrap().len();
        match r["structuredContent"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, 12);
    let e = pool
        .call_tool(t, &call("no-such-tool", json!({})))
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ValidationError, "{e:?}");

    let prompts = pool.list_prompts(t, None).await.expect("prompts");
    let greeting = prompts.items.iter().find(|p| p.name == "greeting").unwrap();
    assert_eq!(greeting.arguments.as_ref().unwrap()[0].required, Some(true));
    let p = pool
        .get_prompt(
            t,
            &PromptGetRequest {
                prompt_name: "summarize".into(),
                arguments: json!({"text": "a long text", "words": 20})
                    .as_object()
                    .cloned(),
            },
        )
        .await
        .unwrap();
    assert_eq!(p["messages"][0]["role"], "user");
    assert!(
        p["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("about 20 words")
    );

    let res = pool.list_resources(t, None).await.expect("resources");
    assert!(
        res.items
            .iter()
            .any(|r| r.uri == "demo://logo.png" && r.mime_type.as_deref() == Some("image/png"))
    );
    let tpl = pool
        .list_resource_templates(t, None)
        .await
        .expect("templates");
    assert_eq!(tpl.items[0].uri_template, "demo://items/{id}");
    let r = pool.read_resource(t, "demo://readme").await.unwrap();
    assert!(
        r["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("demo server")
    );
    let r = pool.read_resource(t, "demo://logo.png").await.unwrap();
    assert!(r["contents"][0]["blob"].as_str().is_some());
    let r = pool.read_resource(t, "demo://items/item-3").await.unwrap();
    assert!(
        r["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Item 3")
    );
    let e = pool.read_resource(t, "demo://nope").await.unwrap_err();
    assert_eq!(e.code, Code::NotFound, "{e:?}");

    let snap = pool.export(t).await.expect("export");
    assert_eq!(snap.server_id, t.server_id);
    assert_eq!(snap.tools.len(), tools.items.len());
    assert_eq!(snap.prompts.len(), 3);
    assert_eq!(snap.resources.len(), 4);
    assert_eq!(snap.resource_templates.len(), 1);

    let d = pool.doctor(t).await;
    assert_eq!(d.status, DoctorStatus::Ready, "{d:#?}");
    let c = &d.checks;
    for check in [
        &c.probe,
        &c.connection,
        &c.initialization,
        &c.capabilities,
        &c.tools,
        &c.resources,
        &c.resource_templates,
        &c.prompts,
    ] {
        assert_eq!(check.as_ref().unwrap().status, CheckStatus::Ok, "{d:#?}");
    }
    assert_eq!(d.tools.as_ref().unwrap().len(), tools.items.len());
    assert!(d.error.is_none());
    let wire = serde_json::to_value(&d).unwrap();
    assert!(wire["generatedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(wire["checks"]["resourceTemplates"]["status"], "ok");
}

#[tokio::test]
async fn stdio_every_primitive_and_pool_reuse() {
    let pool = pool();
    let t = target("srv_stdio", stdio(&[]));
    exercise(&pool, &t).await;
    // validate spawned once; every later call reused that process (doctor opens its own).
    let pid = pool.pid("srv_stdio").await.expect("a live child");
    let a = pool
        .call_tool(&t, &call("server-info", json!({})))
        .await
        .unwrap();
    let b = pool
        .call_tool(&t, &call("server-info", json!({})))
        .await
        .unwrap();
    assert_eq!(a["structuredContent"]["pid"], pid);
    assert_eq!(b["structuredContent"]["pid"], pid);
    let stats = pool.stats();
    assert_eq!(
        stats.spawns, 2,
        "one pooled process and one for doctor: {stats:?}"
    );
    assert_eq!(stats.live, 1);
    pool.shutdown().await;
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "child reaped on shutdown"
    );
    assert_eq!(pool.stats().live, 0);
}

#[tokio::test]
async fn streamable_http_every_primitive() {
    let demo = http_demo(&[]).await;
    let pool = pool();
    exercise(&pool, &target("srv_http", http(&demo.url))).await;
    assert_eq!(pool.stats().connects, 2);
    pool.shutdown().await;
}

#[tokio::test]
async fn legacy_sse_every_primitive() {
    let demo = http_demo(&["--sse"]).await;
    assert!(demo.url.ends_with("/sse"));
    let pool = pool();
    exercise(&pool, &target("srv_sse", sse(&demo.url))).await;
    pool.shutdown().await;
}

#[tokio::test]
async fn list_cursor_is_the_servers() {
    let pool = pool();
    let t = target("srv_paged", stdio(&["--page-size", "5"]));
    let mut cursor = None;
    let mut all = vec![];
    loop {
        let page = pool.list_tools(&t, cursor).await.unwrap();
        assert!(page.items.len() <= 5);
        all.extend(page.items);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(all.len(), 13);
    // doctor and export follow the cursor to the end.
    assert_eq!(pool.export(&t).await.unwrap().tools.len(), 13);
    assert_eq!(pool.doctor(&t).await.tools.unwrap().len(), 13);
    pool.shutdown().await;
}

#[tokio::test]
async fn config_change_replaces_the_session() {
    let pool = pool();
    let mut t = target("srv_rev", stdio(&[]));
    pool.call_tool(&t, &call("noop", json!({}))).await.unwrap();
    let first = pool.pid("srv_rev").await.unwrap();
    // A new revision that changes only the client side is taken on by the live session.
    t.revision = 2;
    t.config.client.log_level = Some(evaldeck::spec::client_features::LogLevel::Error);
    pool.call_tool(&t, &call("noop", json!({}))).await.unwrap();
    assert_eq!(pool.pid("srv_rev").await.unwrap(), first);
    // One that changes the connection replaces it.
    t.revision = 3;
    t.config.connect_timeout_ms += 1;
    pool.call_tool(&t, &call("noop", json!({}))).await.unwrap();
    let second = pool.pid("srv_rev").await.unwrap();
    assert_ne!(first, second);
    assert!(
        !std::path::Path::new(&format!("/proc/{first}")).exists(),
        "old child reaped"
    );
    assert_eq!(pool.stats().spawns, 2);
    pool.shutdown().await;
}

#[tokio::test]
async fn stdio_child_gets_only_its_configured_environment() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env.txt");
    let script = format!("env > '{}'; exec '{BIN}' demo-server", out.display());
    let mut env = BTreeMap::new();
    env.insert("DEMO_SETTING".to_string(), "on".to_string());
    // SAFETY: set before the child is spawned; tests read it only through the child.
    unsafe { std::env::set_var("EVALDECK_TEST_SECRET", "leak") };
    let cfg = config(Transport::Stdio {
        command: "sh".into(),
        args: vec!["-c".into(), script],
        env,
        cwd: None,
    });
    let pool = pool();
    pool.validate(&target("srv_env", cfg)).await.unwrap();
    let seen = std::fs::read_to_string(&out).unwrap();
    assert!(seen.contains("DEMO_SETTING=on"));
    assert!(seen.contains("PATH="));
    assert!(!seen.contains("EVALDECK_TEST_SECRET"), "{seen}");
    pool.shutdown().await;
}

#[tokio::test]
async fn missing_command_is_unreachable() {
    let pool = pool();
    for command in ["evaldeck-no-such-command", "/nonexistent/dir/server"] {
        let t = target(
            "srv_missing",
            config(Transport::Stdio {
                command: command.into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            }),
        );
        let e = pool.list_tools(&t, None).await.unwrap_err();
        assert_eq!(e.code, Code::ServerUnreachable, "{e:?}");
        let d = pool.doctor(&t).await;
        assert_eq!(d.status, DoctorStatus::Error);
        assert_eq!(d.checks.probe.as_ref().unwrap().status, CheckStatus::Error);
        assert_eq!(
            d.checks.connection.as_ref().unwrap().status,
            CheckStatus::Skipped
        );
        assert_eq!(d.error.unwrap().code, Code::ServerUnreachable);
    }
}

/// A relative command path (`./srv.sh`) is found in the server's `cwd`, where the child
/// runs — by the probe and the spawn alike — not in the service's own working directory.
#[tokio::test]
async fn a_relative_command_is_found_in_the_servers_cwd() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    let script = dir.path().join("bin/srv.sh");
    std::fs::write(&script, format!("#!/bin/sh\nexec '{BIN}' demo-server\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cwd = Some(dir.path().display().to_string());
    let stdio_in = |command: &str| {
        config(Transport::Stdio {
            command: command.into(),
            args: vec![],
            env: BTreeMap::new(),
            cwd: cwd.clone(),
        })
    };
    let pool = pool();
    for command in ["./bin/srv.sh", "bin/srv.sh"] {
        let t = target("srv_rel", stdio_in(command));
        assert!(pool.list_tools(&t, None).await.unwrap().items.len() > 5);
        let d = pool.doctor(&t).await;
        assert_eq!(d.status, DoctorStatus::Ready, "{command}: {:?}", d.error);
        let probed = d.probe.unwrap().target;
        assert!(
            std::path::Path::new(&probed).is_absolute() && probed.ends_with("srv.sh"),
            "{probed}"
        );
    }
    let t = target("srv_rel_missing", stdio_in("./nope.sh"));
    let e = pool.list_tools(&t, None).await.unwrap_err();
    assert_eq!(e.reason(), Some("COMMAND_NOT_FOUND"), "{e:?}");
    assert!(
        e.message.contains(&dir.path().display().to_string()),
        "{}",
        e.message
    );
    pool.shutdown().await;
}

#[tokio::test]
async fn nothing_listening_and_unknown_host_are_unreachable() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let pool = pool();
    for cfg in [
        http(&format!("http://127.0.0.1:{port}/mcp")),
        sse(&format!("http://127.0.0.1:{port}/sse")),
        http("http://no-such-host.invalid/mcp"),
    ] {
        let mut cfg = cfg;
        cfg.connect_timeout_ms = 3_000;
        let t = target("srv_down", cfg);
        let e = pool.validate(&t).await.unwrap_err();
        assert_eq!(e.code, Code::ServerUnreachable, "{e:?}");
        let d = pool.doctor(&t).await;
        assert_eq!(d.status, DoctorStatus::Error);
        assert_eq!(d.connection.status, "error");
    }
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let pool = pool();
    let demo = http_demo(&["--hang"]).await;
    let sse_demo = http_demo(&["--hang", "--sse"]).await;
    for cfg in [stdio(&["--hang"]), http(&demo.url), sse(&sse_demo.url)] {
        let mut cfg = cfg;
        cfg.connect_timeout_ms = 400;
        let t = target("srv_hang", cfg);
        let started = std::time::Instant::now();
        let e = pool.list_tools(&t, None).await.unwrap_err();
        assert_eq!(e.code, Code::Timeout, "{e:?}");
        assert!(started.elapsed() < Duration::from_secs(3));
        let d = pool.doctor(&t).await;
        assert_eq!(d.status, DoctorStatus::Error);
        assert_eq!(d.error.as_ref().unwrap().code, Code::Timeout);
        // Only a spawned process is a connection that then failed to initialize; an HTTP
        // POST or SSE stream that never answers is not "connected".
        let (conn, init) = (
            d.checks.connection.as_ref().unwrap(),
            d.checks.initialization.as_ref().unwrap(),
        );
        if matches!(t.config.transport, Transport::Stdio { .. }) {
            assert_eq!(conn.status, CheckStatus::Ok, "{d:#?}");
            assert_eq!(init.status, CheckStatus::Error, "{d:#?}");
            assert_eq!(d.connection.status, "connected");
        } else {
            assert_eq!(conn.status, CheckStatus::Error, "{d:#?}");
            assert!(conn.detail.contains("no answer"), "{d:#?}");
            assert_eq!(init.status, CheckStatus::Skipped, "{d:#?}");
            assert_eq!(d.connection.status, "error", "{d:#?}");
            assert!(!d.connection.detail.contains("connected"), "{d:#?}");
            assert_eq!(d.checks.probe.as_ref().unwrap().status, CheckStatus::Ok);
        }
    }
    // The stdio child of the failed attempt was not left behind.
    assert_eq!(pool.stats().live, 0);
}

#[tokio::test]
async fn request_timeout_is_extended_by_progress() {
    let pool = pool();
    let mut cfg = stdio(&[]);
    cfg.request_timeout_ms = 300;
    let t = target("srv_slow", cfg);
    let e = pool
        .call_tool(
            &t,
            &call(
                "slow",
                json!({"durationMs": 1200, "steps": 2, "progress": false}),
            ),
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Timeout, "{e:?}");
    // 10 steps of 100 ms, each reporting progress: longer than the timeout, but never silent.
    let r = pool
        .call_tool(&t, &call("slow", json!({"durationMs": 1000, "steps": 10})))
        .await
        .expect("progress extends the request timeout");
    assert!(text_of(&r).contains("done"));
    assert_eq!(
        pool.stats().spawns,
        1,
        "a timeout does not cost the session"
    );
    pool.shutdown().await;
}

#[tokio::test]
async fn a_server_dying_mid_call_is_unreachable_and_replaced() {
    let pool = pool();
    let t = target("srv_crash", stdio(&[]));
    pool.call_tool(&t, &call("noop", json!({}))).await.unwrap();
    let e = pool
        .call_tool(&t, &call("crash", json!({})))
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ServerUnreachable, "{e:?}");
    let d = e.details.unwrap();
    assert_eq!(d["reason"], "SERVER_EXITED");
    assert!(
        d["exitStatus"].as_str().unwrap_or_default().contains('3'),
        "{d}"
    );
    assert!(
        d["stderrTail"].to_string().contains("crashing on purpose"),
        "{d}"
    );
    // The next call gets a fresh process.
    let r = pool
        .call_tool(&t, &call("echo", json!({"message": "back"})))
        .await
        .unwrap();
    assert_eq!(text_of(&r), "back");
    assert_eq!(pool.stats().spawns, 2);

    let demo = http_demo(&[]).await;
    let h = target("srv_crash_http", http(&demo.url));
    let e = pool
        .call_tool(&h, &call("crash", json!({})))
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ServerUnreachable, "{e:?}");
    pool.shutdown().await;
}

/// A streamable HTTP server that dies mid-call is unreachable at once, even with a request
/// timeout shorter than the reconnect delay the server advertised (`retry:` on its SSE
/// stream): the client does not wait out the server's hint before giving up.
#[tokio::test]
async fn an_http_server_dying_mid_call_fails_fast() {
    let pool = pool();
    let demo = http_demo(&[]).await;
    let mut cfg = http(&demo.url);
    cfg.request_timeout_ms = 1_000;
    let t = target("srv_crash_fast", cfg);
    pool.call_tool(&t, &call("noop", json!({}))).await.unwrap();
    let started = std::time::Instant::now();
    let e = pool
        .call_tool(&t, &call("crash", json!({})))
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::ServerUnreachable, "{e:?}");
    assert!(
        started.elapsed() < Duration::from_millis(1_000),
        "{:?}",
        started.elapsed()
    );
    pool.shutdown().await;
}

#[tokio::test]
async fn a_missing_capability_is_feature_not_supported() {
    let pool = pool();
    let t = target("srv_noprompts", stdio(&["--no-prompts"]));
    let e = pool.list_prompts(&t, None).await.unwrap_err();
    assert_eq!(e.code, Code::FeatureNotSupported);
    let e = pool
        .get_prompt(
            &t,
            &PromptGetRequest {
                prompt_name: "greeting".into(),
                arguments: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::FeatureNotSupported);
    let d = pool.doctor(&t).await;
    assert_eq!(d.status, DoctorStatus::Ready);
    assert_eq!(d.checks.prompts.unwrap().status, CheckStatus::Skipped);
    assert!(pool.export(&t).await.unwrap().prompts.is_empty());
    pool.shutdown().await;
}

#[tokio::test]
async fn oauth_required_then_a_token_then_a_refresh() {
    let pool = pool();
    for sse_mode in [false, true] {
        let demo = if sse_mode {
            http_demo(&["--sse", "--require-token", "secret-1"]).await
        } else {
            http_demo(&["--require-token", "secret-1"]).await
        };
        let cfg = if sse_mode {
            sse(&demo.url)
        } else {
            http(&demo.url)
        };
        let id = if sse_mode {
            "srv_oauth_sse"
        } else {
            "srv_oauth"
        };
        let mut t = target(id, cfg.clone());

        let e = pool.list_tools(&t, None).await.unwrap_err();
        assert_eq!(e.code, Code::OauthRequired, "{e:?}");
        assert_eq!(e.reason(), Some(mcp::errors::REASON_AUTH_CHALLENGE));
        assert!(
            e.details.as_ref().unwrap()["wwwAuthenticate"]
                .as_str()
                .unwrap()
                .starts_with("Bearer")
        );
        let d = pool.doctor(&t).await;
        assert_eq!(d.status, DoctorStatus::OauthRequired);

        let mut oauth_cfg = cfg.clone();
        oauth_cfg.use_oauth = true;
        let e = pool
            .list_tools(&target(id, oauth_cfg), None)
            .await
            .unwrap_err();
        assert_eq!(e.reason(), Some(mcp::errors::REASON_NO_TOKENS));

        t.access_token = Some("stale".into());
        let e = pool.list_tools(&t, None).await.unwrap_err();
        assert!(mcp::needs_refresh(&e), "{e:?}");
        assert!(
            !format!("{e:?}").contains("stale"),
            "the token never appears in an error"
        );

        let http_client = reqwest::Client::new();
        let endpoint = mcp::discover_token_endpoint(&http_client, &demo.url)
            .await
            .unwrap();
        assert!(endpoint.ends_with("/token"));
        let refresh = RefreshRequest {
            token_endpoint: endpoint.clone(),
            refresh_token: "demo-refresh-token".into(),
            client_id: "evaldeck".into(),
            client_secret: None,
            resource: None,
        };
        let tokens = mcp::refresh_access_token(&http_client, &refresh, 0)
            .await
            .unwrap();
        assert_eq!(tokens.expires_at, Some(3_600_000));
        assert_ne!(
            tokens.refresh_token.as_deref(),
            Some("demo-refresh-token"),
            "rotated"
        );
        // The old refresh token is spent.
        let e = mcp::refresh_access_token(&http_client, &refresh, 0)
            .await
            .unwrap_err();
        assert_eq!(e.code, Code::OauthRequired);
        assert_eq!(e.reason(), Some(mcp::errors::REASON_REFRESH_FAILED));

        t.access_token = Some(tokens.access_token.clone());
        assert!(pool.list_tools(&t, None).await.unwrap().items.len() > 5);
        t.access_token = Some("secret-1".into());
        let r = pool
            .call_tool(&t, &call("echo", json!({"message": "authorized"})))
            .await
            .unwrap();
        assert_eq!(text_of(&r), "authorized");
    }
    pool.shutdown().await;
}

#[test]
fn check_oauth_needs_no_connection() {
    let r = serde_json::to_value(mcp::check_oauth("srv_01", &stdio(&[]))).unwrap();
    assert_eq!(r, json!({"useOAuth": false, "serverUrl": "stdio://srv_01"}));
    let url = reqwest::Url::parse(r["serverUrl"].as_str().unwrap()).expect("a URL");
    assert_eq!((url.scheme(), url.host_str()), ("stdio", Some("srv_01")));
    let mut c = http("http://example.test/mcp");
    c.use_oauth = true;
    let r = serde_json::to_value(mcp::check_oauth("srv_02", &c)).unwrap();
    assert_eq!(
        r,
        json!({"useOAuth": true, "serverUrl": "http://example.test/mcp"})
    );
}

fn sh(script: &str) -> Target {
    target(
        "srv_sh",
        config(Transport::Stdio {
            command: "sh".into(),
            args: vec!["-c".into(), script.into()],
            env: BTreeMap::new(),
            cwd: None,
        }),
    )
}

/// A child that complains and exits at once: its message is in `details.stderrTail` every
/// time, not only when the stderr reader happens to win the race.
#[tokio::test]
async fn the_stderr_of_a_child_that_exits_at_once_is_in_the_error() {
    let pool = pool();
    let t = sh("echo boom >&2; exit 1");
    for i in 0..10 {
        let e = pool.list_tools(&t, None).await.unwrap_err();
        assert_eq!(e.code, Code::ServerUnreachable, "{e:?}");
        assert_eq!(
            e.details.as_ref().unwrap()["stderrTail"],
            json!(["boom"]),
            "attempt {i}: {e:?}"
        );
        let d = pool.doctor(&t).await;
        assert_eq!(
            d.error.as_ref().unwrap().details.as_ref().unwrap()["stderrTail"],
            json!(["boom"]),
            "doctor, attempt {i}"
        );
    }
}

/// Collects formatted log lines for one test (current-thread runtime: every task of the
/// test runs on the thread the subscriber is set on).
#[derive(Clone, Default)]
struct Logs(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A child's stderr reaches the log up to `stderr_log_cap` bytes, then one warning; the
/// error still carries the newest lines.
#[tokio::test]
async fn a_childs_stderr_in_the_log_is_capped() {
    let logs = Logs::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // Other tests hit the same log lines meanwhile with no subscriber at all; a callsite
    // first seen then can keep "never" as its cached interest, and this thread's subscriber
    // would miss its events. Recompute every callsite's interest with this one in place.
    tracing::callsite::rebuild_interest_cache();
    let cap = 2_000;
    let pool = McpPool::new(PoolOptions {
        stderr_log_cap: cap,
        ..Default::default()
    });
    // 300 lines of 50 bytes: 15 000 bytes, well over the cap.
    let t = sh(
        "i=0; while [ $i -lt 300 ]; do printf 'line %03d %041d\\n' $i 0 >&2; i=$((i+1)); done; exit 1",
    );
    let e = pool.list_tools(&t, None).await.unwrap_err();
    let tail = e.details.as_ref().unwrap()["stderrTail"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        tail.last()
            .unwrap()
            .as_str()
            .unwrap()
            .starts_with("line 299"),
        "{tail:?}"
    );
    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    let logged: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("evaldeck::mcp::stderr") && l.contains(" line "))
        .collect();
    let bytes: usize = logged.len() * 50;
    assert!(!logged.is_empty(), "{text}");
    assert!(bytes <= cap + 50, "{} lines logged", logged.len());
    assert!(logged.iter().any(|l| l.contains("line 000")));
    assert!(
        !text.contains("line 299"),
        "lines past the cap are not logged"
    );
    assert!(
        text.contains("stderr log cap of 2000 bytes reached"),
        "{text}"
    );
}

/// Callers waiting for the same server share one connection attempt: against a server that
/// never answers, eight concurrent calls fail together at one connect timeout, after one
/// attempt, instead of queueing behind each other's timeouts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_callers_share_one_connection_attempt() {
    let pool = pool();
    let mut c = stdio(&["--hang"]);
    c.connect_timeout_ms = 800;
    let t = target("srv_hang_shared", c);
    let started = std::time::Instant::now();
    let calls = (0..8).map(|_| pool.list_tools(&t, None));
    let results = futures::future::join_all(calls).await;
    let took = started.elapsed();
    for r in &results {
        assert_eq!(r.as_ref().unwrap_err().code, Code::Timeout, "{r:?}");
    }
    assert_eq!(
        pool.stats().connects,
        1,
        "one attempt for all eight callers"
    );
    assert!(
        took < Duration::from_millis(800 * 4),
        "they failed together, not one after another: {took:?}"
    );
    // A caller that comes later tries again.
    let later = pool.list_tools(&t, None).await;
    assert_eq!(later.unwrap_err().code, Code::Timeout);
    assert_eq!(pool.stats().connects, 2);
    pool.shutdown().await;
}

/// A tool result over the limit is its own error, with the size and the limit, over stdio
/// (refused while it is read) and over HTTP; the next call works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_result_is_its_own_clear_error() {
    let pool = McpPool::new(PoolOptions {
        close_grace: Duration::from_millis(500),
        max_result_bytes: 100_000,
        ..Default::default()
    });
    let demo = http_demo(&[]).await;
    for t in [
        target("srv_big_stdio", stdio(&[])),
        target("srv_big_http", http(&demo.url)),
    ] {
        let e = pool
            .call_tool(&t, &call("large-result", json!({"size": 2_000_000})))
            .await
            .unwrap_err();
        assert_eq!(e.code, Code::ServerUnreachable, "{e:?}");
        let d = e.details.clone().unwrap();
        assert_eq!(d["reason"], "RESULT_TOO_LARGE", "{e:?}");
        assert!(d["size"].as_u64().unwrap() > 2_000_000, "{d}");
        assert_eq!(d["limit"], 100_000);
        assert!(e.message.contains("100000 bytes"), "{}", e.message);
        let ok = pool
            .call_tool(&t, &call("large-result", json!({"size": 1000})))
            .await
            .unwrap();
        assert_eq!(ok["content"][0]["text"].as_str().unwrap().len(), 1000);
    }
    pool.shutdown().await;
}

/// Error messages speak of the server, never of Rust types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_messages_carry_no_rust_type_names() {
    let pool = pool();
    // An HTTP server that is not an MCP endpoint, one that refuses, a command that is not
    // there, a server that exits at once, and one that crashes mid-call.
    let web = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let web_url = format!("http://{}/mcp", web.local_addr().unwrap());
    tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        while let Ok((mut s, _)) = web.accept().await {
            let _ = s
                .write_all(b"HTTP/1.1 501 Not Implemented\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
    });
    let mut errors = vec![];
    for t in [
        target("srv_web", http(&web_url)),
        target("srv_refused", http("http://127.0.0.1:1/mcp")),
        target(
            "srv_missing",
            config(Transport::Stdio {
                command: "/nonexistent/server".into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            }),
        ),
        target(
            "srv_exits",
            config(Transport::Stdio {
                command: "sh".into(),
                args: vec!["-c".into(), "exit 3".into()],
                env: BTreeMap::new(),
                cwd: None,
            }),
        ),
    ] {
        errors.push(pool.list_tools(&t, None).await.unwrap_err());
        let report = pool.doctor(&t).await;
        errors.extend(report.error);
    }
    let crash = target("srv_crash_names", stdio(&[]));
    errors.push(
        pool.call_tool(&crash, &call("crash", json!({})))
            .await
            .unwrap_err(),
    );
    for e in &errors {
        assert!(!e.message.contains("::"), "a Rust path in: {}", e.message);
    }
    assert!(errors.len() >= 9);
    pool.shutdown().await;
}
