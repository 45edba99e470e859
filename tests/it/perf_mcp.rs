//! MCP benchmarks (ignored; run with
//! `cargo test --release --test it perf_mcp:: -- --ignored --nocapture --test-threads 1`):
//! a warm `tools/call` through the service to the demo server over stdio, and a cold
//! `evaldeck tools list` process compared with the server's own start-up.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use evaldeck::service::{Config, Service};
use evaldeck::spec::primitives::ToolCallRequest;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn row(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "| {name:<44} | {:>6} | {:>9.3} | {:>9.3} | {:>9.3} |",
        samples.len(),
        percentile(&samples, 0.5).as_secs_f64() * 1e3,
        percentile(&samples, 0.99).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3
    );
}

fn header() {
    println!(
        "| {:<44} | {:>6} | {:>9} | {:>9} | {:>9} |",
        "operation", "n", "p50 ms", "p99 ms", "max ms"
    );
    println!(
        "|{}|--------|-----------|-----------|-----------|",
        "-".repeat(46)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark"]
async fn warm_tool_call_through_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        demo_command: BIN.into(),
        ..Config::default()
    };
    let service = Service::open(&dir.path().join("db.sqlite3"), config).unwrap();
    let (who, project) = evaldeck_testkit::served::local_project(&service);
    let req = ToolCallRequest::new(
        "echo",
        serde_json::json!({"message": "hello"}).as_object().cloned(),
    );
    for _ in 0..200 {
        service
            .call_tool(&who, &project, "demo", &req)
            .await
            .unwrap();
    }
    let mut samples = Vec::new();
    for _ in 0..5000 {
        let t = Instant::now();
        service
            .call_tool(&who, &project, "demo", &req)
            .await
            .unwrap();
        samples.push(t.elapsed());
    }
    header();
    row("warm tools/call echo (service → stdio demo)", samples);
    service.shutdown().await;
}

/// The demo server's own start-up: spawn, `initialize`, `tools/list`, done.
fn raw_server_startup() -> Duration {
    let t = Instant::now();
    let mut child = Command::new(BIN)
        .arg("demo-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"bench","version":"0"}}}}}}"#).unwrap();
    out.read_line(&mut line).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    assert!(line.contains("get-sum"));
    let elapsed = t.elapsed();
    drop(stdin);
    let _ = child.wait();
    elapsed
}

#[test]
#[ignore = "benchmark"]
fn cold_cli_tools_list_against_server_startup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let run = || {
        let t = Instant::now();
        let out = Command::new(BIN)
            .arg("--db")
            .arg(&db)
            .args(["tools", "list", "demo"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        t.elapsed()
    };
    run(); // creates and seeds the database
    let cli: Vec<Duration> = (0..30).map(|_| run()).collect();
    let raw: Vec<Duration> = (0..30).map(|_| raw_server_startup()).collect();
    header();
    row("demo server start-up (spawn, initialize, list)", raw);
    row("cold `evaldeck tools list demo` (whole process)", cli);
}
