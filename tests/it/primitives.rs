//! Server primitives through the whole stack: `serve` on loopback → service → MCP pool →
//! `evaldeck demo-server`, plus OAuth token import and refresh, serve-mode stdio policy,
//! and the CLI's exit codes.

use reqwest::Method;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

use evaldeck::service::{Config, Service};
use evaldeck::spec::Code;
use evaldeck::spec::allow::AllowList;
use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
use evaldeck_testkit::served::Harness;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn server_path(h: &Harness, server: &str, op: &str) -> String {
    format!("/projects/{}/servers/{server}/{op}", h.project)
}

async fn post(h: &Harness, server: &str, op: &str, body: Value) -> evaldeck_testkit::served::Resp {
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
    let demo_id = oauth.ok(200)["serverUrl"]
        .as_str()
        .and_then(|u| u.strip_prefix("stdio://"))
        .expect("a stdio server is named stdio://SERVER_ID")
        .to_string();
    assert!(demo_id.starts_with("srv_"), "{demo_id}");
    assert_eq!(oauth.ok(200)["useOAuth"], false);

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

/// The doctor refreshes like every other primitive — before use when the token expires, and
/// once when the server rejects it — and a refresh that fails is a report with status
/// `oauth_required` saying why, never an error response.
#[tokio::test]
async fn doctor_refreshes_tokens_and_reports_a_failed_refresh() {
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
    let hr = &h;
    let import = move |server_url: String, refresh: &'static str, expires_in: u64| {
        let h = hr;
        async move {
            post(
                h,
                "guarded",
                "oauth/import-tokens",
                json!({"serverUrl": server_url, "clientInformation": {"clientId": "evaldeck-tests"},
                       "tokens": {"access_token": "stale-token", "refresh_token": refresh,
                                  "expires_in": expires_in, "token_type": "Bearer"}}),
            )
            .await
            .ok(200);
        }
    };
    let last_status = || async {
        h.get(
            &format!("/projects/{}/servers/guarded", h.project),
            &h.owner_key,
        )
        .await
        .ok(200)["lastStatus"]
            .clone()
    };

    // Rejected, refreshed, retried: ready.
    import(url.clone(), "refresh-1", 3600).await;
    let d = post(&h, "guarded", "doctor", json!({})).await;
    let d = d.ok(200);
    assert_eq!(d["status"], "ready", "{d}");
    assert!(d["error"].is_null(), "{d}");
    assert_eq!(last_status().await, "connected");

    // Expired, and the token endpoint refuses the refresh token: not even a connection.
    import(url.clone(), "bad-refresh", 1).await;
    let d = post(&h, "guarded", "doctor", json!({})).await;
    let d = d.ok(200);
    assert_eq!(d["status"], "oauth_required", "{d}");
    assert_eq!(d["error"]["code"], "OAUTH_REQUIRED", "{d}");
    assert_eq!(d["error"]["details"]["reason"], "REFRESH_FAILED", "{d}");
    let detail = d["connection"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("expired") && detail.contains("refreshing it failed"),
        "{d}"
    );
    assert_eq!(last_status().await, "oauth_required");

    // Rejected by the server, and the refresh is refused: the report of the attempt.
    import(url.clone(), "bad-refresh", 3600).await;
    let d = post(&h, "guarded", "doctor", json!({})).await;
    let d = d.ok(200);
    assert_eq!(d["status"], "oauth_required", "{d}");
    assert_eq!(d["error"]["details"]["reason"], "REFRESH_FAILED", "{d}");
    assert_eq!(d["probe"]["reachable"], true, "{d}");
    assert!(
        d["connection"]["detail"]
            .as_str()
            .unwrap()
            .contains("rejected the access token"),
        "{d}"
    );

    // The token endpoint is unreachable (a port nothing listens on), expired or rejected.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/mcp", l.local_addr().unwrap())
    };
    for expires_in in [1, 3600] {
        import(closed.clone(), "refresh-1", expires_in).await;
        let d = post(&h, "guarded", "doctor", json!({})).await;
        let d = d.ok(200);
        assert_eq!(d["status"], "oauth_required", "{expires_in}: {d}");
        assert_eq!(d["error"]["code"], "OAUTH_REQUIRED", "{d}");
        assert_eq!(d["error"]["details"]["reason"], "REFRESH_FAILED", "{d}");
        assert_eq!(d["error"]["details"]["cause"], "SERVER_UNREACHABLE", "{d}");
        assert!(
            d["connection"]["detail"]
                .as_str()
                .unwrap()
                .contains("refreshing it failed"),
            "{d}"
        );
    }
    // The other primitives still answer the refresh failure as an error.
    post(&h, "guarded", "tools", json!({}))
        .await
        .err(502, "SERVER_UNREACHABLE");
    let text = post(&h, "guarded", "doctor", json!({})).await.text;
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
    let (who, project) = evaldeck_testkit::served::local_project(&service);
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

    // A launcher needs argument patterns: a bare `uvx` would run any package.
    assert!(AllowList::parse(&["uvx"], &[]).is_err());
    let listed = Config {
        allowed_commands: Some(AllowList::parse(&["mcp-server-time"], &[]).unwrap()),
        demo_command: BIN.into(),
        ..Config::default()
    };
    let service = Service::open(&dir.path().join("b.sqlite3"), listed).unwrap();
    let (who, project) = evaldeck_testkit::served::local_project(&service);
    // A bare name admits the bare command only: a path to a file of that name is refused,
    // and so is a server that brings its own PATH to look the name up on.
    let mut own_path = stdio("mcp-server-time");
    if let Transport::Stdio { env, .. } = &mut own_path.transport {
        env.insert("PATH".into(), "/tmp".into());
    }
    for body in [
        stdio("npx"),
        stdio("/usr/bin/mcp-server-time"),
        stdio("/tmp/mcp-server-time"),
        own_path,
    ] {
        let e = service.create_server(&who, &project, &body).unwrap_err();
        assert_eq!(
            (e.code.clone(), e.reason()),
            (Code::Forbidden, Some("COMMAND_NOT_ALLOWED")),
            "{body:?}"
        );
    }
    service
        .create_server(&who, &project, &stdio("mcp-server-time"))
        .expect("an allowed command");

    // A path in the allow-list admits exactly that path.
    let by_path = Config {
        allowed_commands: Some(AllowList::parse(&["/usr/bin/mcp-server-time"], &[]).unwrap()),
        demo_command: BIN.into(),
        ..Config::default()
    };
    let service = Service::open(&dir.path().join("c.sqlite3"), by_path).unwrap();
    let (who, project) = evaldeck_testkit::served::local_project(&service);
    for cmd in [
        "mcp-server-time",
        "/usr/local/bin/mcp-server-time",
        "/usr/bin/../bin/mcp-server-time",
    ] {
        let e = service
            .create_server(&who, &project, &stdio(cmd))
            .unwrap_err();
        assert_eq!(e.reason(), Some("COMMAND_NOT_ALLOWED"), "{cmd}");
    }
    service
        .create_server(&who, &project, &stdio("/usr/bin/mcp-server-time"))
        .expect("the listed path");

    // A relative path is found from a working directory: such a server may not bring its own.
    let relative = Config {
        allowed_commands: Some(AllowList::parse(&["./srv.sh"], &[]).unwrap()),
        demo_command: BIN.into(),
        ..Config::default()
    };
    let service = Service::open(&dir.path().join("d.sqlite3"), relative).unwrap();
    let (who, project) = evaldeck_testkit::served::local_project(&service);
    let mut own_cwd = stdio("./srv.sh");
    if let Transport::Stdio { cwd, .. } = &mut own_cwd.transport {
        *cwd = Some("/tmp".into());
    }
    let e = service.create_server(&who, &project, &own_cwd).unwrap_err();
    assert_eq!(e.reason(), Some("COMMAND_NOT_ALLOWED"));
    service
        .create_server(&who, &project, &stdio("./srv.sh"))
        .expect("the listed relative path, without a cwd");
}

/// While `--allow-command` is active a server may set only the environment variables
/// `--allow-env` admits: with `BASH_ENV` an allowed bash script runs anything, with
/// `OPENSSL_CONF` a program loading OpenSSL runs an engine library. The check runs on save
/// and again at connect time, for a server saved before the policy.
#[tokio::test]
async fn allow_list_admits_only_listed_environment_variables() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("srv.sh");
    std::fs::write(&script, format!("#!/bin/bash\nexec '{BIN}' demo-server\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = script.display().to_string();
    let marker = dir.path().join("ran");
    let server = |name: &str, env: &[(&str, &str)]| {
        ServerCreate::new(
            name,
            ServerConfig::new(Transport::Stdio {
                command: script.clone(),
                args: vec![],
                env: env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                cwd: None,
            }),
        )
    };
    let bash_env = format!("$(touch '{}')", marker.display());
    let db = dir.path().join("env.sqlite3");

    // Saved while no allow-list was active.
    let open = Service::open(&db, evaldeck_testkit::served::demo_config()).unwrap();
    let (who, project) = evaldeck_testkit::served::local_project(&open);
    open.create_server(&who, &project, &server("pre", &[("BASH_ENV", &bash_env)]))
        .unwrap();
    open.shutdown().await;
    drop(open);

    let listed = Config {
        allowed_commands: Some(
            AllowList::parse(&[script.as_str()], &["API_KEY", "bash_env"]).unwrap(),
        ),
        ..evaldeck_testkit::served::demo_config()
    };
    let service = Service::open(&db, listed).unwrap();
    let (who, project) = evaldeck_testkit::served::local_project(&service);
    for name in [
        "BASH_ENV",
        "ENV",
        "BASH_FUNC_ls%%",
        "SHELLOPTS",
        "PS4",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "DYLD_INSERT_LIBRARIES",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "GCONV_PATH",
        "OPENSSL_CONF",
        "SSL_CERT_FILE",
        "ANY_OTHER",
    ] {
        let e = service
            .create_server(&who, &project, &server("x", &[(name, &bash_env)]))
            .unwrap_err();
        assert_eq!(
            (e.code.clone(), e.reason()),
            (Code::Forbidden, Some("ENV_NOT_ALLOWED")),
            "{name}"
        );
        assert!(e.message.contains(name), "{name}: {}", e.message);
        assert_eq!(e.details.as_ref().unwrap()["variable"], name);
    }
    // Names are case-sensitive; admitted variables are the server's own business.
    service
        .create_server(
            &who,
            &project,
            &server("ok", &[("bash_env", "x"), ("API_KEY", "k")]),
        )
        .expect("ordinary variables");
    let tools = service
        .tools(&who, &project, "ok", &Default::default())
        .await
        .expect("the allowed script runs");
    assert!(!tools.items.is_empty());

    // Saved before the policy: refused at connect time as on save, and nothing runs.
    let e = service
        .tools(&who, &project, "pre", &Default::default())
        .await
        .unwrap_err();
    assert_eq!(e.reason(), Some("ENV_NOT_ALLOWED"), "{e:?}");
    let report = service.doctor(&who, &project, "pre").await.unwrap_err();
    assert_eq!(report.reason(), Some("ENV_NOT_ALLOWED"));
    assert!(!marker.exists(), "BASH_ENV ran");
    service.shutdown().await;
}

/// `--no-stdio` and `--allow-command` also hold for servers saved before the policy: every
/// connection (primitives, validate, doctor, eval runs) answers the 403 of the save path,
/// and no process is spawned.
#[tokio::test]
async fn serve_mode_policy_is_checked_at_connect_time() {
    for (config, reason) in [
        (
            Config {
                allow_stdio: false,
                ..evaldeck_testkit::served::demo_config()
            },
            "STDIO_DISABLED",
        ),
        (
            Config {
                allowed_commands: Some(AllowList::parse(&["mcp-server-time"], &[]).unwrap()),
                ..evaldeck_testkit::served::demo_config()
            },
            "COMMAND_NOT_ALLOWED",
        ),
    ] {
        // The first-run seed saved the stdio `demo` server regardless.
        let h = Harness::with_config(config).await;
        for (op, body) in [
            (
                "tools/call",
                json!({"toolName": "echo", "parameters": {"message": "x"}}),
            ),
            ("tools", json!({})),
            ("prompts", json!({})),
            ("resources/read", json!({"uri": "demo://readme"})),
            ("export", json!({})),
            ("validate", json!({})),
            ("doctor", json!({})),
        ] {
            let r = post(&h, "demo", op, body).await;
            r.err(403, "FORBIDDEN");
            assert_eq!(r.reason(), Some(reason), "{op}: {}", r.text);
        }
        // Reading the config is still fine; only connecting is refused.
        h.get(
            &format!("/projects/{}/servers/demo", h.project),
            &h.owner_key,
        )
        .await
        .ok(200);
        // An eval run that calls a tool of the server records the refusal.
        let suite = h
            .call(
                Method::POST,
                &format!("/projects/{}/eval-suites", h.project),
                Some(&h.owner_key),
                Some(
                    json!({"name": "policy", "serverIds": ["demo"], "model": "builtin/baseline",
                    "tests": [{"title": "echo", "steps": [{"id": "t1", "kind": "toolCall",
                        "toolName": "echo", "arguments": {"message": "x"}}]}]}),
                ),
            )
            .await;
        let suite = suite.ok(201)["suiteId"].as_str().unwrap().to_string();
        let run = h
            .call(
                Method::POST,
                &format!("/projects/{}/eval-runs", h.project),
                Some(&h.owner_key),
                Some(json!({"suiteId": suite})),
            )
            .await;
        let run = run.ok(202)["runId"].as_str().unwrap().to_string();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let finished = loop {
            let r = h
                .get(
                    &format!("/projects/{}/eval-runs/{run}", h.project),
                    &h.owner_key,
                )
                .await;
            if matches!(
                r.ok(200)["status"].as_str(),
                Some("completed" | "failed" | "cancelled")
            ) {
                break r.ok(200).clone();
            }
            assert!(std::time::Instant::now() < deadline, "{}", r.text);
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let why = if reason == "STDIO_DISABLED" {
            "does not run stdio servers"
        } else {
            "allow-list"
        };
        assert_eq!(finished["status"], "failed", "{finished}");
        assert!(
            finished["error"].as_str().unwrap().contains(why),
            "{finished}"
        );
        assert_eq!(h.service.mcp().stats().spawns, 0, "nothing was spawned");
        h.service.shutdown().await;
    }
}

/// A project member who is not an admin reads header and environment names with the
/// values masked; admins read the values; a PATCH that sends the mask back keeps them.
#[tokio::test]
async fn server_secrets_are_read_by_project_admins_only() {
    use evaldeck::service::store::projects::ProjectRole;
    let h = Harness::start().await;
    let servers = format!("/projects/{}/servers", h.project);
    h.call(
        Method::POST,
        &servers,
        Some(&h.owner_key),
        Some(
            json!({"name": "remote", "transport": {"type": "http", "url": "https://h.example/mcp",
            "headers": {"Authorization": "Bearer s3cret-header", "X-Team": "blue"}}}),
        ),
    )
    .await
    .ok(201);
    let created = h
        .call(
            Method::POST,
            &servers,
            Some(&h.owner_key),
            Some(
                json!({"name": "local", "transport": {"type": "stdio", "command": "npx",
                "env": {"API_KEY": "s3cret-env"}}}),
            ),
        )
        .await;
    assert_eq!(
        created.ok(201)["config"]["transport"]["env"]["API_KEY"],
        "s3cret-env",
        "the admin who saved it reads it back"
    );

    let (_, member) = h.member("member", Some((&h.project, ProjectRole::Member)));
    let (_, project_admin) = h.member("member", Some((&h.project, ProjectRole::Admin)));
    for path in [
        servers.clone(),
        format!("{servers}/remote"),
        format!("{servers}/local"),
    ] {
        let r = h.get(&path, &member).await;
        assert!(!r.text.contains("s3cret"), "{path}: {}", r.text);
        assert!(r.text.contains("\"********\""), "{path}: {}", r.text);
        for key in [&h.owner_key, &project_admin] {
            let r = h.get(&path, key).await;
            assert!(
                r.ok(200).to_string().contains("s3cret"),
                "{path}: {}",
                r.text
            );
        }
    }
    let seen = h.get(&format!("{servers}/remote"), &member).await;
    assert_eq!(
        seen.ok(200)["config"]["transport"]["headers"],
        json!({"Authorization": "********", "X-Team": "********"}),
        "names stay visible"
    );

    // Members cannot edit; an admin round-trips the masked transport with one change.
    let mut transport = seen.ok(200)["config"]["transport"].clone();
    transport["url"] = json!("https://h2.example/mcp");
    transport["headers"]["X-Team"] = json!("green");
    h.call(
        Method::PATCH,
        &format!("{servers}/remote"),
        Some(&member),
        Some(json!({"transport": transport})),
    )
    .await
    .err(403, "FORBIDDEN");
    let patched = h
        .call(
            Method::PATCH,
            &format!("{servers}/remote"),
            Some(&project_admin),
            Some(json!({"transport": transport})),
        )
        .await;
    let headers = &patched.ok(200)["config"]["transport"]["headers"];
    assert_eq!(
        headers,
        &json!({"Authorization": "Bearer s3cret-header", "X-Team": "green"})
    );
    assert_eq!(patched.ok(200)["url"], "https://h2.example/mcp");

    // The mask where nothing is stored is refused, on edit and on save.
    h.call(
        Method::PATCH,
        &format!("{servers}/remote"),
        Some(&h.owner_key),
        Some(
            json!({"transport": {"type": "http", "url": "https://h.example/mcp",
            "headers": {"X-Other": "********"}}}),
        ),
    )
    .await
    .invalid("/transport/headers/X-Other", "redacted");
    h.call(
        Method::POST,
        &servers,
        Some(&h.owner_key),
        Some(
            json!({"name": "copy", "transport": {"type": "stdio", "command": "npx",
            "env": {"API_KEY": "********"}}}),
        ),
    )
    .await
    .invalid("/transport/env/API_KEY", "redacted");

    // The embedded backend applies the same rule.
    let (member_who, _) = h.member("member", Some((&h.project, ProjectRole::Member)));
    let s = evaldeck::client::Backend::server(&h.embedded(&member_who), &h.project, "local")
        .await
        .unwrap();
    assert!(!format!("{:?}", serde_json::to_value(&s).unwrap()).contains("s3cret"));
    h.service.shutdown().await;
}

fn alive(pid: u64) -> bool {
    // A reaped child leaves no /proc entry (a zombie would).
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

async fn gone_soon(pid: u64) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// Editing or deleting a saved server closes its pooled session and reaps its process at
/// once, not at the next call or at shutdown.
#[tokio::test]
async fn editing_or_deleting_a_server_reaps_its_process() {
    let h = Harness::start().await;
    let pid = |r: &evaldeck_testkit::served::Resp| {
        r.ok(200)["structuredContent"]["pid"].as_u64().unwrap()
    };
    let info = json!({"toolName": "server-info"});
    let first = pid(&post(&h, "demo", "tools/call", info.clone()).await);
    assert!(alive(first));
    h.call(
        Method::PATCH,
        &format!("/projects/{}/servers/demo", h.project),
        Some(&h.owner_key),
        Some(json!({"requestTimeoutMs": 20000})),
    )
    .await
    .ok(200);
    assert!(
        gone_soon(first).await,
        "the edited server's process is reaped"
    );

    let second = pid(&post(&h, "demo", "tools/call", info).await);
    assert_ne!(first, second);
    h.call(
        Method::DELETE,
        &format!("/projects/{}/servers/demo", h.project),
        Some(&h.owner_key),
        None,
    )
    .await
    .ok(200);
    assert!(
        gone_soon(second).await,
        "the deleted server's process is reaped"
    );
    assert_eq!(h.service.mcp().stats().live, 0);
    h.service.shutdown().await;
}

/// What `initialize` advertised is kept from the last validate or doctor and shown on the
/// server (an extension); an edit of the config drops it, a rename does not.
#[tokio::test]
async fn the_capability_snapshot_is_shown_on_the_server() {
    let h = Harness::start().await;
    let path = format!("/projects/{}/servers/demo", h.project);
    let before = h.get(&path, &h.owner_key).await;
    assert!(
        before.ok(200).get("capabilities").is_none(),
        "{}",
        before.text
    );
    assert!(before.ok(200).get("lastValidatedAt").is_none());

    let started = chrono::Utc::now().timestamp_millis();
    post(&h, "demo", "validate", json!({})).await.ok(200);
    let after = h.get(&path, &h.owner_key).await;
    let s = after.ok(200);
    assert!(s["capabilities"]["tools"].is_object(), "{s}");
    assert!(s["capabilities"]["prompts"].is_object(), "{s}");
    assert_eq!(s["serverInfo"]["name"], "evaldeck-demo");
    assert!(s["protocolVersion"].is_string());
    assert!(s["lastValidatedAt"].as_i64().unwrap() >= started);
    let listed = h
        .get(&format!("/projects/{}/servers", h.project), &h.owner_key)
        .await;
    assert!(listed.ok(200)["items"][0]["capabilities"]["tools"].is_object());

    let renamed = h
        .call(
            Method::PATCH,
            &path,
            Some(&h.owner_key),
            Some(json!({"name": "demo2"})),
        )
        .await;
    assert!(
        renamed.ok(200)["capabilities"].is_object(),
        "a rename keeps it"
    );
    let edited = h
        .call(
            Method::PATCH,
            &format!("/projects/{}/servers/demo2", h.project),
            Some(&h.owner_key),
            Some(json!({"requestTimeoutMs": 20000})),
        )
        .await;
    assert!(
        edited.ok(200).get("capabilities").is_none(),
        "{}",
        edited.text
    );
    assert!(edited.ok(200).get("lastValidatedAt").is_none());

    // doctor takes the snapshot too.
    post(&h, "demo2", "doctor", json!({})).await.ok(200);
    let s = h
        .get(
            &format!("/projects/{}/servers/demo2", h.project),
            &h.owner_key,
        )
        .await;
    assert!(s.ok(200)["capabilities"]["tools"].is_object());
    h.service.shutdown().await;
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
