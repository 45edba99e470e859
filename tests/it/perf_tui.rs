//! Workbench benchmarks (ignored): time to the first frame with 1,000 cases in the store, a
//! frame with 10,000 iterations in the runs pane, and resident memory. Prints a table.
//!
//! `cargo test --release --test it perf_tui:: -- --ignored --nocapture`

use std::sync::Arc;
use std::time::{Duration, Instant};

use evaldeck::client::{Backend, Embedded};
use evaldeck::service::{Config, Service};
use evaldeck::spec::run::{EvalIteration, EvalRun, RunSummary};
use evaldeck::tui::testing::Harness;
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Resident and peak resident memory of this process, in MB (Linux).
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
}

fn iteration(n: usize) -> EvalIteration {
    serde_json::from_value(json!({
        "id": format!("itr_{n:08x}"),
        "title": format!("case {}", n % 40),
        "iterationNumber": n as i64 + 1,
        "status": "completed",
        "result": if n.is_multiple_of(7) { "failed" } else { "passed" },
        "model": "builtin/baseline",
        "durationMs": (n % 97) as f64 + 3.0,
        "actualToolCalls": [{"toolName": "echo", "arguments": {"message": "hi"}}],
        "expectedToolCalls": []
    }))
    .expect("an iteration")
}

#[test]
#[ignore = "benchmark: cargo test --release --test it perf_tui:: -- --ignored --nocapture"]
fn workbench_frames_and_memory() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            demo_command: BIN.into(),
            ..Config::default()
        };
        let service = Service::open(&dir.path().join("db.sqlite3"), config).unwrap();
        let b = Arc::new(Embedded::new(service).unwrap());
        let project = evaldeck::cli::project_id(&*b, None).await.unwrap();
        let seeded = Instant::now();
        for i in 0..1000 {
            let body = json!({
                "title": format!("case {i:04}"),
                "steps": [{"id": "p1", "kind": "prompt", "prompt": format!("Use echo to say {i}")}],
                "iterations": 1,
                "models": [{"model": "builtin/baseline"}]
            });
            b.create_case(&project, "Smoke", &body).await.expect("a case");
        }
        let seeded = seeded.elapsed();

        // Time to first frame: a new app, its first loads answered, one frame drawn.
        let t0 = Instant::now();
        let mut h = Harness::new(b.clone() as Arc<dyn Backend>, 160, 45).await;
        h.draw();
        let first_frame = t0.elapsed();
        // Opening the suite: its 1,000 cases read and drawn.
        let t1 = Instant::now();
        h.keys(&["5", "Enter"]);
        h.drain().await;
        h.draw();
        let cases_frame = t1.elapsed();
        assert!(h.shows("Smoke › Cases (1000)"), "{}", h.screen());
        let mut case_frames = Vec::new();
        for _ in 0..100 {
            h.press("j");
            let t = Instant::now();
            h.draw();
            case_frames.push(t.elapsed());
        }
        case_frames.sort();

        // A frame with 10,000 iterations in the runs pane.
        let its: Vec<EvalIteration> = (0..10_000).map(iteration).collect();
        let run: EvalRun = serde_json::from_value(json!({
            "id": "run_bench", "suiteId": "sut_bench", "status": "completed", "result": "failed",
            "source": "ui", "createdAt": 0, "runNumber": 1,
            "summary": RunSummary { total: 10_000, passed: 8_571, failed: 1_429, ..Default::default() }
        }))
        .unwrap();
        h.press("6");
        let pane = h.app.runs_pane();
        pane.open_id("run_bench");
        pane.set_run(run, its);
        h.keys(&["Tab"]);
        h.draw();
        assert!(h.shows("Iterations (10000)"), "{}", h.screen());
        let mut frames = Vec::new();
        for i in 0..300 {
            h.press(if i % 50 == 49 { "G" } else { "j" });
            let t = Instant::now();
            h.draw();
            frames.push(t.elapsed());
        }
        frames.sort();
        let (rss, peak) = memory();

        println!();
        println!("| measure | figure | target |");
        println!("|---|---|---|");
        println!(
            "| time to first frame, 1,000 cases in the store (first loads answered) | {} | < 150 ms |",
            ms(first_frame)
        );
        println!(
            "| open a suite: 1,000 cases read and drawn | {} | |",
            ms(cases_frame)
        );
        println!(
            "| frame, 1,000 cases listed (p50 / max of 100) | {} / {} | |",
            ms(case_frames[50]),
            ms(case_frames[99])
        );
        println!(
            "| frame, 10,000 iterations listed (p50 / p99 / max of 300) | {} / {} / {} | < 5 ms |",
            ms(frames[150]),
            ms(frames[296]),
            ms(frames[299])
        );
        println!(
            "| resident memory (now / peak, whole test process) | {rss:.1} MB / {peak:.1} MB | < 60 MB |"
        );
        println!("| (seeding 1,000 cases, not the workbench) | {} | |", ms(seeded));
        b.close().await;
    });
}
