//! Workbench benchmarks (ignored): the binary in a pseudo-terminal (time to its first frame,
//! keystroke to screen), then in process: time to the first frame with 1,000 cases in the
//! store, each keystroke's handling and drawing (the first ones included: the first key, the
//! first into an editor), a frame with 10,000 iterations in the runs pane, and resident
//! memory. Prints a table.
//!
//! `cargo test --release --test it perf_tui:: -- --ignored --nocapture`

use std::sync::Arc;
use std::time::{Duration, Instant};

use evaldeck::client::{Backend, Embedded};
use evaldeck::service::{Config, Service};
use evaldeck::spec::run::{EvalIteration, EvalRun, RunSummary};
use evaldeck_testkit::workbench::Harness;
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Resident and peak resident memory of a process (`self` or a pid), in MB (Linux).
fn memory(pid: &str) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
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

        // The binary as a person starts it: the first frame, and keys to what they draw.
        let mut cmd = std::process::Command::new(BIN);
        cmd.arg("--db")
            .arg(dir.path().join("db.sqlite3"))
            .env("HOME", dir.path())
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env_remove("EVALDECK_CONFIG_DIR")
            .env_remove("EVALDECK_BASE_URL");
        let mut t = crate::pty::Terminal::open(cmd, 36, 120);
        let loaded = t.wait_for("Projects (1)");
        let pty_first = t.first_output().expect("drawn") - t.started;
        let pty_loaded = loaded - t.started;
        let mut pty_keys = Vec::new();
        for (k, shows) in [
            ("2", "Servers (1)"),
            ("4", "Hosts (1)"),
            ("3", "Environments (1)"),
            ("5", "Suites (1)"),
            ("6", "Runs ("),
            ("1", "Projects (1)"),
        ]
        .iter()
        .cycle()
        .take(24)
        {
            t.send(k.as_bytes());
            let sent = Instant::now();
            pty_keys.push(t.wait_for(shows) - sent);
        }
        pty_keys.sort();
        // The workbench as people run it: its own memory once it holds the suite's 1,000 cases.
        t.send(b"5");
        t.wait_for("Suites (1)");
        t.send(b"\r");
        t.wait_for("Cases (1000)");
        let (bin_rss, bin_peak) = memory(&t.child.id().to_string());
        t.send(b"q");
        let _ = t.child.wait();

        // Time to first frame: a new app, its first loads answered, one frame drawn.
        let t0 = Instant::now();
        let mut h = Harness::with_color(b.clone() as Arc<dyn Backend>, 160, 45, true).await;
        h.draw();
        let first_frame = t0.elapsed();
        // Keystrokes: each one handled and the frame it changes drawn, the very first included.
        let key_frame = |h: &mut Harness, k: &str| {
            let t = Instant::now();
            h.press(k);
            h.draw();
            t.elapsed()
        };
        let first_key = key_frame(&mut h, "2");
        let mut keys = Vec::new();
        for k in ["j", "k", "Tab", "3", "j", "4", "k", "1", "j", "Tab"]
            .iter()
            .cycle()
            .take(200)
        {
            keys.push(key_frame(&mut h, k));
        }
        keys.sort();
        // The first key typed into an editor (the import's, with its highlighter).
        h.keys(&["5", "Enter"]);
        h.drain().await;
        h.press("i");
        assert!(h.shows(" characters "), "{}", h.screen());
        let first_edit = key_frame(&mut h, "a");
        let mut edits = Vec::new();
        for c in "Use echo to say hello, then get-sum of 2 and 3.".chars() {
            edits.push(key_frame(&mut h, &c.to_string()));
        }
        edits.sort();
        h.press("Esc");
        h.press("Esc");
        h.press("Esc");
        let mut h = Harness::new(b.clone() as Arc<dyn Backend>, 160, 45).await;
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
        let (rss, peak) = memory("self");

        println!();
        println!("| measure | figure | target |");
        println!("|---|---|---|");
        println!(
            "| binary in a 120×36 terminal: first frame / first frame with its data | {} / {} | < 50 ms |",
            ms(pty_first),
            ms(pty_loaded)
        );
        println!(
            "| binary: keystroke to screen, section switches (p50 / max of 24) | {} / {} | < 16 ms |",
            ms(pty_keys[12]),
            ms(pty_keys[23])
        );
        println!(
            "| time to first frame, 1,000 cases in the store (first loads answered) | {} | < 50 ms |",
            ms(first_frame)
        );
        println!(
            "| keystroke handled and drawn: the first / p50 / p99 / max of 200 | {} / {} / {} / {} | < 16 ms |",
            ms(first_key),
            ms(keys[100]),
            ms(keys[197]),
            ms(keys[199])
        );
        println!(
            "| key typed into the import editor: the first / p50 / max of {} | {} / {} / {} | < 16 ms |",
            edits.len(),
            ms(first_edit),
            ms(edits[edits.len() / 2]),
            ms(edits[edits.len() - 1])
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
            "| the binary's resident memory in the terminal, a suite of 1,000 cases open (now / peak) | {bin_rss:.1} MB / {bin_peak:.1} MB | < 60 MB |"
        );
        println!(
            "| resident memory (now / peak, the whole test process: the service, two apps, 10,000 iterations) | {rss:.1} MB / {peak:.1} MB | |"
        );
        println!("| (seeding 1,000 cases, not the workbench) | {} | |", ms(seeded));
        b.close().await;
    });
}
