//! Server primitives through the whole stack: `serve` on loopback → service → MCP pool →
//! `evaldeck demo-server`, plus OAuth token import and refresh, serve-mode stdio policy,
//! and the CLI's exit codes.

use reqwest::Method;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

use crate::common::Harness;
use evaldeck::service::{Config, Service};
use evaldeck::spec::Code;
use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn server_path(h: &Harness, server: &str, op: &str) -> String {
    format!("/projects/{}/servers/{server}/{op}", h.project)
}

async fn post(h: &Harness, server: &str, op: &str, body: Value) -> crate::common::Resp {
    h.call(
        Method::POST,
        &server_path(h, server, op),
        Some(&h.owner_key),
        Some(body),
    )
    .await
}

#[tokio::test]
async fn every_primitive_over_the_api_against_the_seeded_demo_server() {
    let h = Harness::start().await;
    let v = post(&h, "demo", "validate", json!({})).await;
    let v = v.ok(200);
    assert_eq!(v["status"], "connected");
    assert_eq!(v["initInfo"]["serverInfo"]["name"], "evaldeck-demo");

    let servers = h
        .get(&format!("/projects/{}/servers", h.project), &h.owner_key)
        .await;
    assert_eq!(servers.ok(200)["items"][0]["lastStatus"], "connected");

    let tools = post(&h, "demo", "tools", json!({})).await;
    let names: Vec<&str> = tools.ok(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"get-sum") && names.contains(&"get-stats"),
        "{names:?}"
    );

    let sum = post(
        &h,
        "demo",
        "tools/call",
        json!({"toolName": "get-sum", "parameters": {"a": 17, "b": 25}}),
    )
    .await;
    assert_eq!(sum.ok(200)["content"][0]["text"], "42");

    let stats = post(
        &h,
        "demo",
        "tools/call",
        json!({"toolName": "get-stats", "parameters": {"numbers": [1, 2, 3]}}),
    )
    .await;
    assert_eq!(
        stats.ok(200)["structuredContent"]["count"],
        3,
        "structuredContent passes through verbatim"
    );

    let fail = post(&h, "demo", "tools/call", json!({"toolName": "fail"})).await;
    assert_eq!(
        fail.ok(200)["isError"],
        true,
        "a tool-level error is a 200 with isError"
    );

    post(&h, "demo", "tools/call", json!({"toolName": ""}))
        .await
        .invalid("/toolName", "minLength");
    post(&h, "demo", "tools/call", json!({"parameters": {}}))
        .await
        .invalid("/toolName", "required");

    let prompts = post(&h, "demo", "prompts", json!({})).await;
    assert!(
        prompts.ok(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "greeting")
    );
    let rendered = post(
        &h,
        "demo",
        "prompts/get",
        json!({"promptName": "greeting", "arguments": {"name": "Ada"}}),
    )
    .await;
    assert!(
        rendered.ok(200)["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("Ada")
    );

    let resources = post(&h, "demo", "resources", json!({})).await;
    assert!(
        resources.ok(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == "demo://readme")
    );
    let read = post(
        &h,
        "demo",
        "resources/read",
        json!({"uri": "demo://logo.png"}),
    )
    .await;
    assert!(
        read.ok(200)["contents"][0]["blob"].is_string(),
        "binary resources arrive as blobs"
    );

    let export = post(&h, "demo", "export", json!({})).await;
    let export = export.ok(200);
    assert!(export["tools"].as_array().unwrap().len() >= 10);
    assert!(export["exportedAt"].is_string());

    let oauth = post(&h, "demo", "check-oauth", json!({})).await;
    assert_eq!(
        oauth.ok(200),
        &json!({"useOAuth": false, "serverUrl": null})
    );

    let doctor = post(&h, "demo", "doctor", json!({})).await;
    let doctor = doctor.ok(200);
    assert_eq!(doctor["status"], "ready");
    assert_eq!(doctor["checks"]["tools"]["status"], "ok");

    post(&h, "nope", "tools", json!({}))
        .await
        .err(404, "NOT_FOUND");
}

#[tokio::test]
async fn the_pool_reuses_the_session_across_api_calls() {
    let h = Harness::start().await;
    post(
        &h,
        "demo",
        "tools/call",
        json!({"toolName": "echo", "parameters": {"message": "a"}}),
    )
    .await
    .ok(200);
    let spawned = h.service.mcp().stats().spawns;
    for _ in 0..5 {
        post(
            &h,
            "demo",
            "tools/call",
            json!({"toolName": "echo", "parameters": {"message": "b"}}),
        )
        .await
        .ok(200);
    }
    assert_eq!(
        h.service.mcp().stats().spawns,
        spawned,
        "warm calls do not respawn the server"
    );
    // A config change evicts the session: the next call runs the new revision.
    let patched = h
        .call(
            Method::PATCH,
            &format!("/projects/{}/servers/demo", h.project),
            Some(&h.owner_key),
            Some(json!({"requestTimeoutMs": 20000})),
        )
        .await;
    assert_eq!(patched.ok(200)["revision"], 2);
    post(
        &h,
        "demo",
        "tools/call",
        json!({"toolName": "echo", "parameters": {"message": "c"}}),
    )
    .await
    .ok(200);
    assert_eq!(h.service.mcp().stats().spawns, spawned + 1);
    h.service.shutdown().await;
}

/// `evaldeck demo-server --http 127.0.0.1:0 ARGS`, killed on drop.
async fn http_demo(args: &[&str]) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(BIN)
        .args(["demo-server", "--http", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
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
async fn oauth_required_then_imported_tokens_then_refresh() {
    let h = Harness::start().await;
    let (_demo, url) = http_demo(&[
        "--require-token",
        "good-token",
        "--refresh-token",
        "refresh-1",
    ])
    .await;
    let mut config = ServerConfig::new(Transport::Http {
        url: url.clone(),
        headers: Default::default(),
    });
    config.use_oauth = true;
    let body = serde_json::to_value(ServerCreate::new("guarded", config)).unwrap();
    h.call(
        Method::POST,
        &format!("/projects/{}/servers", h.project),
        Some(&h.owner_key),
        Some(body),
    )
    .await
    .ok(201);

    let oauth = post(&h, "guarded", "check-oauth", json!({})).await;
    assert_eq!(oauth.ok(200)["useOAuth"], true);
    post(&h, "guarded", "tools", json!({}))
        .await
        .err(401, "OAUTH_REQUIRED");

    // A stale access token with a good refresh token: the service refreshes and retries.
    let import = post(
        &h,
        "guarded",
        "oauth/import-tokens",
        json!({"serverUrl": url, "clientInformation": {"clientId": "evaldeck-tests"},
               "tokens": {"access_token": "stale-token", "refresh_token": "refresh-1", "expires_in": 3600, "token_type": "Bearer"}}),
    )
    .await;
    let import = import.ok(200);
    assert_eq!(import["imported"], true);
    assert!(import["expiresAt"].as_i64().unwrap() > 0);
    let tools = post(&h, "guarded", "tools", json!({})).await;
    assert!(
        !tools.ok(200)["items"].as_array().unwrap().is_empty(),
        "refreshed and retried"
    );

    // Tokens never come back out.
    let listed = h
        .get(
            &format!("/projects/{}/servers/guarded", h.project),
            &h.owner_key,
        )
        .await;
    let text = listed.ok(200).to_string();
    assert!(
        !text.contains("stale-token") && !text.contains("refresh-1"),
        "{text}"
    );
    h.service.shutdown().await;
}

#[tokio::test]
async fn serve_mode_can_refuse_or_restrict_stdio_servers() {
    let dir = tempfile::tempdir().unwrap();
    let no_stdio = Config {
        allow_stdio: false,
        demo_command: BIN.into(),
        ..Config::default()
    };
    let service = Service::open(&dir.path().join("a.sqlite3"), no_stdio).unwrap();
    let (who, project) = crate::common::local_project(&service);
    let stdio = |cmd: &str| {
        ServerCreate::new(
            "x",
            ServerConfig::new(Transport::Stdio {
                command: cmd.into(),
                args: vec![],
                env: Default::default(),
                cwd: None,
            }),
        )
    };
    let e = service
        .create_server(&who, &project, &stdio("npx"))
        .unwrap_err();
    assert_eq!(
        (e.code.clone(), e.reason()),
        (Code::Forbidden, Some("STDIO_DISABLED"))
    );

    let listed = Config {
        allowed_commands: Some(vec!["uvx".into()]),
        demo_command: BIN.into(),
        ..Config::default()
    };
    let service = Service::open(&dir.path().join("b.sqlite3"), listed).unwrap();
    let (who, project) = crate::common::local_project(&service);
    let e = service
        .create_server(&who, &project, &stdio("npx"))
        .unwrap_err();
    assert_eq!(
        (e.code.clone(), e.reason()),
        (Code::Forbidden, Some("COMMAND_NOT_ALLOWED"))
    );
    service
        .create_server(&who, &project, &stdio("/usr/bin/uvx"))
        .expect("an allowed command");
}

#[tokio::test]
async fn only_project_admins_save_stdio_servers() {
    let h = Harness::start().await;
    let project = h.project.clone();
    let (_, key) = h.member(
        "member",
        Some((
            &project,
            evaldeck::service::store::projects::ProjectRole::Member,
        )),
    );
    let body = json!({"name": "mine", "transport": {"type": "stdio", "command": "npx"}});
    h.call(
        Method::POST,
        &format!("/projects/{}/servers", h.project),
        Some(&key),
        Some(body),
    )
    .await
    .err(403, "FORBIDDEN");
}

fn cli(db: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(BIN)
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run the CLI")
}

#[test]
fn cli_exit_codes_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.sqlite3");
    let out = cli(
        &db,
        &[
            "tools", "call", "demo", "get-sum", "--arg", "a=2", "--arg", "b=3",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "5");

    let out = cli(&db, &["tools", "call", "demo", "fail", "--json"]);
    assert_eq!(out.status.code(), Some(3), "isError has its own exit code");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["isError"], true);

    let out = cli(&db, &["doctor", "no-such-server"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NOT_FOUND"));

    let out = cli(&db, &["tools", "call", "demo", "echo", "--args", "[1]"]);
    assert_eq!(out.status.code(), Some(2), "bad input is exit 2");

    let out = cli(
        &db,
        &[
            "servers",
            "add",
            "ghost",
            "--command",
            "/definitely/not/here",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let out = cli(&db, &["tools", "list", "ghost"]);
    assert_eq!(out.status.code(), Some(7), "unreachable servers are exit 7");

    let file = dir.path().join("mcp.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}, "bad": {}}}"#,
    )
    .unwrap();
    let out = cli(&db, &["servers", "import", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("saved    time") && text.contains("skipped  bad"),
        "{text}"
    );
}
