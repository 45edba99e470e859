//! The CLI as a process: how it ends when a stdio server dies at once, or when the reader
//! of its output goes away.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn cli(db: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("EVALDECK_BASE_URL")
        .env_remove("EVALDECK_PROJECT")
        .stdin(Stdio::null())
        .output()
        .expect("run the CLI")
}

/// A server that exits before evaldeck writes `initialize` to it must give an error and an
/// exit code, never a process killed by SIGPIPE with nothing printed.
#[test]
fn a_server_that_exits_at_once_is_an_error_not_a_silent_death() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.sqlite3");
    let add = cli(
        &db,
        &[
            "servers",
            "add",
            "exiter",
            "--command",
            "sh",
            "--",
            "-c",
            "echo boom >&2; exit 1",
        ],
    );
    assert_eq!(
        add.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    for _ in 0..6 {
        let out = cli(&db, &["tools", "list", "exiter"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(7),
            "unreachable is exit 7: {stderr}"
        );
        assert!(stderr.contains("SERVER_UNREACHABLE"), "{stderr}");

        let out = cli(&db, &["doctor", "exiter"]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "a doctor report that is not ready is exit 1: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("doctor: error"));
    }
}

/// `evaldeck … | head` ends quietly with the shell's SIGPIPE status, not with a panic message.
#[test]
fn a_closed_stdout_ends_the_cli_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.sqlite3");
    let mut child = Command::new(BIN)
        .arg("--db")
        .arg(&db)
        .args(["--json", "tools", "list", "demo"])
        .env_remove("EVALDECK_BASE_URL")
        .env_remove("EVALDECK_PROJECT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the CLI");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(141));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// The operator sets up an organization, a member, a project and a key on the machine that
/// holds the store; `serve` on that store honours each step at once.
#[tokio::test(flavor = "multi_thread")]
async fn the_operator_grants_access_that_serve_honours() {
    let h = evaldeck_testkit::served::Harness::start().await;
    let db = h.db_path();
    let op = |args: &[&str]| {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        cli(&db, &all)
    };
    json(&op(&["orgs", "create", "Acme", "--owner", "ceo@acme.test"]));
    json(&op(&[
        "members",
        "add",
        "dev@acme.test",
        "--role",
        "member",
        "--org",
        "Acme",
    ]));
    let project = json(&op(&["projects", "create", "Staging", "--org", "Acme"]));
    let key = json(&op(&[
        "keys",
        "create",
        "--org",
        "Acme",
        "--user",
        "dev@acme.test",
        "--name",
        "ci",
    ]))["key"]
        .as_str()
        .expect("the secret, once")
        .to_string();

    let listed = h.get("/projects", &key).await;
    assert_eq!(
        listed.ok(200)["items"],
        serde_json::json!([]),
        "a member sees no project until granted one"
    );

    json(&op(&[
        "projects",
        "grant",
        "Staging",
        "dev@acme.test",
        "--role",
        "member",
        "--org",
        "Acme",
    ]));
    let listed = h.get("/projects", &key).await;
    let items = listed.ok(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], project["id"]);
    assert_eq!(items[0]["name"], "Staging");

    let again = op(&["projects", "create", "Staging", "--org", "Acme"]);
    assert_eq!(
        again.status.code(),
        Some(6),
        "a taken project name is a conflict"
    );
    let last_owner = op(&["members", "remove", "ceo@acme.test", "--org", "Acme"]);
    assert_eq!(last_owner.status.code(), Some(6), "the last owner stays");

    json(&op(&[
        "members",
        "remove",
        "dev@acme.test",
        "--org",
        "Acme",
    ]));
    let me = h.get("/me", &key).await;
    me.err(401, "UNAUTHORIZED");
    // Removal revoked the key: adding the member back does not bring it to life.
    json(&op(&[
        "members",
        "add",
        "dev@acme.test",
        "--role",
        "member",
        "--org",
        "Acme",
    ]));
    h.get("/me", &key).await.err(401, "UNAUTHORIZED");
    let keys = json(&op(&["keys", "list", "--json"]));
    let dev_key = keys
        .as_array()
        .unwrap()
        .iter()
        .find(|k| key.starts_with(k["prefix"].as_str().unwrap()))
        .expect("the member's key is listed");
    assert!(dev_key["revokedAt"].is_i64(), "{dev_key}");

    let remote = cli(
        &db,
        &["--base-url", &h.base, "projects", "create", "Elsewhere"],
    );
    assert_eq!(
        remote.status.code(),
        Some(4),
        "access is never granted over the API"
    );
}

/// `envs roots` sets, prints and clears an environment's roots, and refuses a root that is
/// not a file URI with the validation's exit code.
#[test]
fn envs_roots_sets_prints_and_clears_an_environments_roots() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.sqlite3");
    let json = |out: std::process::Output| -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let set = json(cli(
        &db,
        &[
            "envs",
            "roots",
            "local",
            "--root",
            "/srv/app=App",
            "--root",
            "file:///data",
        ],
    ));
    assert_eq!(
        set,
        serde_json::json!([{"uri": "file:///srv/app", "name": "App"}, {"uri": "file:///data"}])
    );
    assert_eq!(json(cli(&db, &["envs", "roots", "local"])), set);
    let resolved = json(cli(&db, &["envs", "resolve", "local"]));
    assert_eq!(resolved["roots"], set);
    assert_eq!(
        json(cli(&db, &["envs", "roots", "local", "--clear"])),
        serde_json::Value::Null
    );
    let bad = cli(
        &db,
        &["envs", "roots", "local", "--root", "file://bad host/x"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/roots/0/uri"));
    let missing = cli(&db, &["envs", "roots", "nope"]);
    assert_eq!(missing.status.code(), Some(5));
}
