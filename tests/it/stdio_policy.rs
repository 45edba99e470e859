//! `serve --allow-command` with argument patterns and `--allow-env`, as an operator starts it.

use evaldeck::service::store::prelude::*;
use reqwest::Method;
use serde_json::json;

use crate::process::{BIN, Serve, Store, read_log};
use evaldeck::spec::server::{ServerConfig, Transport};

/// Saved servers the policy refuses are named when `serve` starts (they will not run);
/// interpreters run only with the arguments their entry admits; a launcher without
/// patterns keeps `serve` from starting at all.
#[tokio::test]
async fn the_allow_list_admits_arguments_and_variables_and_reports_what_it_refuses() {
    let store = Store::new();
    {
        let s = evaldeck::service::store::Store::open(&store.db()).unwrap();
        let mut env = std::collections::BTreeMap::new();
        env.insert("OPENSSL_CONF".to_string(), "/tmp/engine.cnf".to_string());
        s.create_server(
            &store.project,
            "engine",
            true,
            &ServerConfig::new(Transport::Stdio {
                command: BIN.into(),
                args: vec!["demo-server".into()],
                env,
                cwd: None,
            }),
        )
        .unwrap();
    }
    let entry = format!("{BIN} demo-*");
    let refused = std::process::Command::new(BIN)
        .arg("--db")
        .arg(store.db())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--allow-command",
            "node",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("give the arguments"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    let serve = Serve::start(
        &store,
        &[
            "--allow-command",
            &entry,
            "--allow-command",
            "node /opt/mcp/*/index.js stdio",
            "--allow-env",
            "MCP_*",
        ],
    );
    let log = read_log(&store);
    assert!(
        log.contains("the saved server `engine`") && log.contains("OPENSSL_CONF"),
        "{log}"
    );
    assert!(!log.contains("the saved server `demo`"), "{log}");
    let p = &store.project;
    // The seeded demo server matches `BIN demo-*` and runs.
    serve
        .call(
            Method::POST,
            &format!("/projects/{p}/servers/demo/tools"),
            Some(json!({})),
        )
        .await
        .ok(200);
    // The reported one is refused, not run.
    let r = serve
        .call(
            Method::POST,
            &format!("/projects/{p}/servers/engine/tools"),
            Some(json!({})),
        )
        .await;
    r.err(403, "FORBIDDEN");
    assert_eq!(r.reason(), Some("ENV_NOT_ALLOWED"));
    // Interpreter arguments outside the patterns are refused on save.
    for args in [
        json!(["-e", "require('fs').writeFileSync('/tmp/pwned', '')"]),
        json!([
            "--require",
            "/tmp/evil.js",
            "/opt/mcp/time/index.js",
            "stdio"
        ]),
    ] {
        let r = serve
            .call(
                Method::POST,
                &format!("/projects/{p}/servers"),
                Some(json!({"name": "n", "transport": {"type": "stdio", "command": "node", "args": args}})),
            )
            .await;
        r.err(403, "FORBIDDEN");
        assert_eq!(r.reason(), Some("COMMAND_NOT_ALLOWED"));
    }
    let ok = serve
        .call(
            Method::POST,
            &format!("/projects/{p}/servers"),
            Some(
                json!({"name": "time", "transport": {"type": "stdio", "command": "node",
                "args": ["/opt/mcp/time/index.js", "stdio"], "env": {"MCP_TZ": "UTC"}}}),
            ),
        )
        .await;
    ok.ok(201);
    serve.terminate();
}
