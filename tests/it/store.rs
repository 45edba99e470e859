//! The store opens in the SQLite tools people already have: the system `sqlite3` (3.40 on
//! Debian 12) parses the whole schema, and its triggers run there.

use std::process::Command;

use evaldeck::service::{Config, Service};

/// The system `sqlite3`, or `None` (a failure under `CI=true`, which installs it).
fn system_sqlite3() -> Option<&'static str> {
    let found = Command::new("sqlite3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "CI installs the system sqlite3 (.ci/run); it is missing"
        );
        eprintln!("skipped: no system `sqlite3` on PATH (apt install sqlite3)");
        return None;
    }
    Some("sqlite3")
}

fn sqlite3(db: &std::path::Path, sql: &str) -> String {
    let out = Command::new("sqlite3")
        .arg(db)
        .arg(sql)
        .output()
        .expect("sqlite3 runs");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "sqlite3 failed on {sql:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn the_system_sqlite3_opens_the_store_and_runs_its_triggers() {
    let Some(_) = system_sqlite3() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("evaldeck.sqlite3");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let svc = Service::open(&db, Config::default()).expect("open");
        drop(svc);
    });
    assert_eq!(sqlite3(&db, "PRAGMA integrity_check;"), "ok");
    let suite = sqlite3(&db, "SELECT id FROM eval_suites LIMIT 1;");
    assert!(!suite.is_empty(), "the seeded suite is there");
    // Runs written by the old SQLite fire the summary triggers there.
    let trend = sqlite3(
        &db,
        &format!(
            "INSERT INTO eval_runs (id, suite_id, project_id, run_number, status, passed, failed, total, source, created_at)
               SELECT 'run_a', id, project_id, 1, 'completed', 1, 1, 2, 'ui', 10 FROM eval_suites WHERE id = '{suite}';
             INSERT INTO eval_runs (id, suite_id, project_id, run_number, status, passed, failed, total, source, created_at)
               SELECT 'run_b', id, project_id, 2, 'completed', 2, 0, 2, 'ui', 20 FROM eval_suites WHERE id = '{suite}';
             UPDATE eval_runs SET status = 'completed', passed = 0, failed = 2 WHERE id = 'run_a';
             SELECT runs, passed, failed, latest_id, trend FROM eval_suite_stats WHERE suite_id = '{suite}';"
        ),
    );
    assert_eq!(trend, "2|2|2|run_b|[[0,2],[2,2]]");
}

/// Python's `sqlite3` module (and so Datasette) reads the store too.
#[test]
fn pythons_sqlite3_module_reads_the_store() {
    let python = Command::new("python3").arg("--version").output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("evaldeck.sqlite3");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        drop(Service::open(&db, Config::default()).expect("open"));
    });
    let out = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute('SELECT count(*) FROM eval_suites').fetchone()[0])")
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python could not read the store: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
}
