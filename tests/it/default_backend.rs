//! The settings file's default backend, through the real binary: `workbench.json` in
//! `$EVALDECK_CONFIG_DIR` sends bare CLI commands to a served API, while `--db`,
//! `EVALDECK_DB` and `--base-url` still win, and a broken file is a clear error.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;

use evaldeck_testkit::served::Harness;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

/// Runs `evaldeck ARGS` with only the given environment deciding the backend: the user's
/// own backend variables are removed and the data directory is the temp dir's.
async fn evaldeck(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(args)
        .env_remove("EVALDECK_BASE_URL")
        .env_remove("EVALDECK_API_KEY")
        .env_remove("EVALDECK_DB")
        .env_remove("EVALDECK_PROJECT")
        .env("EVALDECK_CONFIG_DIR", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("HOME", dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().await.expect("the binary runs")
}

fn write_settings(dir: &Path, settings: &Value) {
    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::write(
        dir.join("config/workbench.json"),
        serde_json::to_string_pretty(settings).unwrap(),
    )
    .unwrap();
}

fn project_names(out: &Output) -> Vec<String> {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    v.as_array()
        .expect("a list of projects")
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_settings_backend_sends_cli_commands_to_the_served_api() {
    let h = Harness::start().await;
    h.new_project("Only on the server");
    let dir = tempfile::tempdir().unwrap();
    write_settings(
        dir.path(),
        &json!({"theme": "mono", "backend": {"url": h.base, "apiKeyEnv": "TEAM_EVALDECK_KEY"}}),
    );
    let key = [("TEAM_EVALDECK_KEY", h.owner_key.as_str())];

    let me = evaldeck(dir.path(), &key, &["me"]).await;
    let text = String::from_utf8_lossy(&me.stdout);
    assert_eq!(
        me.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&me.stderr)
    );
    assert!(
        text.contains(&format!("remote: {}", h.base)),
        "`me` shows the remote backend: {text}"
    );

    let names = project_names(&evaldeck(dir.path(), &key, &["projects", "--json"]).await);
    assert!(
        names.contains(&"Only on the server".to_string()),
        "{names:?}"
    );
    assert!(
        !dir.path().join("data").exists(),
        "nothing touched the embedded store"
    );

    // --db beats the settings file: the embedded store, which has only the seeded Demo.
    let local = dir.path().join("local.sqlite3");
    let names = project_names(
        &evaldeck(
            dir.path(),
            &key,
            &["projects", "--json", "--db", local.to_str().unwrap()],
        )
        .await,
    );
    assert_eq!(names, vec!["Demo".to_string()]);
    assert!(local.exists());

    // So does EVALDECK_DB.
    let env_db = dir.path().join("env.sqlite3");
    let names = project_names(
        &evaldeck(
            dir.path(),
            &[key[0], ("EVALDECK_DB", env_db.to_str().unwrap())],
            &["projects", "--json"],
        )
        .await,
    );
    assert_eq!(names, vec!["Demo".to_string()]);

    // A flag beats an environment variable across the two: --db over EVALDECK_BASE_URL.
    let names = project_names(
        &evaldeck(
            dir.path(),
            &[
                ("EVALDECK_BASE_URL", h.base.as_str()),
                ("EVALDECK_API_KEY", h.owner_key.as_str()),
            ],
            &["projects", "--json", "--db", local.to_str().unwrap()],
        )
        .await,
    );
    assert_eq!(names, vec!["Demo".to_string()]);

    // And an explicit --base-url with its own key.
    let other = Harness::start().await;
    let names = project_names(
        &evaldeck(
            dir.path(),
            &key,
            &[
                "projects",
                "--json",
                "--base-url",
                &other.base,
                "--api-key",
                &other.owner_key,
            ],
        )
        .await,
    );
    assert!(
        !names.contains(&"Only on the server".to_string()),
        "{names:?}"
    );
}

#[tokio::test]
async fn a_missing_key_or_a_broken_settings_file_is_a_clear_error() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();

    // The variable the file names is not set: exit 4, naming the variable to set.
    write_settings(
        dir.path(),
        &json!({"backend": {"url": h.base, "apiKeyEnv": "TEAM_EVALDECK_KEY"}}),
    );
    let out = evaldeck(dir.path(), &[], &["me"]).await;
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("TEAM_EVALDECK_KEY"), "{err}");

    // A wrong key is the server's 401, so the request really went there.
    let out = evaldeck(dir.path(), &[("TEAM_EVALDECK_KEY", "sk_wrong")], &["me"]).await;
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("UNAUTHORIZED"));

    // A malformed file: exit 2, naming the file and the line; nothing falls back.
    std::fs::write(
        dir.path().join("config/workbench.json"),
        "{\n  \"theme\": \"mono\",\n  \"backend\": {\"url\": \"localhost:8787\"}\n}\n",
    )
    .unwrap();
    let out = evaldeck(dir.path(), &[], &["projects"]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("workbench.json"), "{err}");
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("not an absolute http"), "{err}");
    assert!(!dir.path().join("data").exists(), "no fallback to embedded");

    let out = evaldeck(dir.path(), &[], &["projects", "--json"]).await;
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stderr).expect("a JSON error");
    assert_eq!(v["code"], "VALIDATION_ERROR");
    assert_eq!(v["details"]["line"], 3);

    // A flag needs no settings file: the broken one is not even read.
    let local = dir.path().join("local.sqlite3");
    let out = evaldeck(
        dir.path(),
        &[],
        &["projects", "--json", "--db", local.to_str().unwrap()],
    )
    .await;
    assert_eq!(project_names(&out), vec!["Demo".to_string()]);
}
