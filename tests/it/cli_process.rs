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
