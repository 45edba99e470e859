//! Nothing stuck after a crash: runs interrupted by `kill -9` or a SIGTERM of `serve` are
//! taken over by the next process within twice the lease, however soon it starts.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::process::{Serve, Store, read_log};

/// A suite of one case that calls the demo server's `slow` tool (`ms` each), `runs` times.
pub async fn slow_suite(s: &Serve, project: &str, runs: u32, ms: u64) -> String {
    let tests = json!([{"title": "slow", "runs": runs, "steps": [
        {"id": "t1", "kind": "toolCall", "toolName": "slow",
         "arguments": {"durationMs": ms, "progress": false}}
    ]}]);
    let r = s
        .call(
            Method::POST,
            &format!("/projects/{project}/eval-suites"),
            Some(json!({"name": format!("Slow {}", rand_suffix()), "serverIds": ["demo"], "model": "builtin/baseline", "tests": tests})),
        )
        .await;
    r.ok(201)["suiteId"].as_str().unwrap().to_string()
}

pub fn rand_suffix() -> String {
    format!("{:x}", rand::random::<u64>())
}

pub async fn start_run(s: &Serve, project: &str, suite: &str) -> String {
    let r = s
        .call(
            Method::POST,
            &format!("/projects/{project}/eval-runs"),
            Some(json!({"suiteId": suite})),
        )
        .await;
    r.ok(202)["runId"].as_str().unwrap().to_string()
}

pub async fn run_of(s: &Serve, project: &str, id: &str) -> Value {
    s.call(
        Method::GET,
        &format!("/projects/{project}/eval-runs/{id}"),
        None,
    )
    .await
    .ok(200)
    .clone()
}

/// Waits until at least one iteration of `id` completed.
async fn some_progress(s: &Serve, project: &str, id: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let its = s
            .call(
                Method::GET,
                &format!("/projects/{project}/eval-runs/{id}/iterations"),
                None,
            )
            .await;
        if its.ok(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["status"] == "completed")
        {
            return;
        }
        assert!(Instant::now() < deadline, "no progress");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Starts two runs, stops `serve` with `stop` mid-way, starts it again at once and expects
/// both runs to finish by `within` after the restart.
async fn interrupted_runs_finish(lease_ms: u64, stop: impl FnOnce(Serve), within: Duration) {
    let store = Store::new();
    let flags = ["--lease-ms".to_string(), lease_ms.to_string()];
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let first = Serve::start(&store, &flags);
    let p = store.project.clone();
    let suite = slow_suite(&first, &p, 10, 150).await;
    let runs = [
        start_run(&first, &p, &suite).await,
        start_run(&first, &p, &suite).await,
    ];
    for r in &runs {
        some_progress(&first, &p, r).await;
    }
    stop(first);
    let second = Serve::start(&store, &flags);
    let restarted = Instant::now();
    for r in &runs {
        loop {
            let run = run_of(&second, &p, r).await;
            if run["status"] == "completed" {
                assert_eq!(run["result"], "passed", "{run}");
                break;
            }
            assert_ne!(run["status"], "failed", "{run}");
            assert!(
                restarted.elapsed() < within,
                "run {r} still `{}` {:?} after the restart: {}",
                run["status"],
                restarted.elapsed(),
                read_log(&store)
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
    // The organization's run slots are free again.
    let again = start_run(&second, &p, &suite).await;
    assert!(!again.is_empty());
    second.terminate();
}

/// `kill -9`, then a restart at once: the runs' leases run out and the new process takes
/// them over (2 × 600 ms), then finishes their 10 iterations of 150 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_interrupted_by_kill_9_resume_after_an_immediate_restart() {
    interrupted_runs_finish(600, Serve::kill9, Duration::from_secs(8)).await;
}

/// SIGTERM (a deploy) gives the leases up at once: even with a 60 s lease the next process
/// resumes the runs without waiting for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_interrupted_by_sigterm_resume_at_once() {
    interrupted_runs_finish(60_000, Serve::terminate, Duration::from_secs(8)).await;
}
