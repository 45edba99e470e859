//! Benchmarks (ignored): `GET /projects/{p}/eval-suites` against a real `serve` on
//! loopback, rate limiting off, 64 concurrent connections. The client runs in the same
//! process and shares the cores with the server, which depresses the figures.
//!
//! `cargo test --release --test it perf:: -- --ignored --nocapture`

use std::time::{Duration, Instant};

use evaldeck::service::store::projects::ProjectRole;
use evaldeck::spec::page::PageRequest;

use crate::common::Harness;

const CONNECTIONS: usize = 64;
const WARM_UP: Duration = Duration::from_secs(1);
const MEASURE: Duration = Duration::from_secs(5);

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[test]
#[ignore = "benchmark: cargo test --release --test it perf:: -- --ignored --nocapture"]
fn eval_suites_throughput() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let h = Harness::start().await;
        let url = h.url(&format!("/projects/{}/eval-suites", h.project));
        let start = Instant::now();
        let measure_from = start + WARM_UP;
        let end = measure_from + MEASURE;
        let mut tasks = Vec::with_capacity(CONNECTIONS);
        for _ in 0..CONNECTIONS {
            // One client per task: each task holds exactly one keep-alive connection.
            let client = reqwest::Client::builder()
                .pool_max_idle_per_host(1)
                .build()
                .unwrap();
            let url = url.clone();
            let auth = format!("Bearer {}", h.owner_key);
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::with_capacity(4096);
                let mut errors = 0u64;
                loop {
                    let t0 = Instant::now();
                    if t0 >= end {
                        break;
                    }
                    let ok = match client.get(&url).header("Authorization", &auth).send().await {
                        Ok(res) => res.status().is_success() && res.bytes().await.is_ok(),
                        Err(_) => false,
                    };
                    if t0 >= measure_from {
                        if ok {
                            lat.push(t0.elapsed());
                        } else {
                            errors += 1;
                        }
                    }
                }
                (lat, errors)
            }));
        }
        let mut all = Vec::new();
        let mut errors = 0;
        for t in tasks {
            let (lat, e) = t.await.unwrap();
            all.extend(lat);
            errors += e;
        }
        all.sort_unstable();
        let n = all.len();
        let rps = n as f64 / MEASURE.as_secs_f64();
        let p50 = percentile(&all, 0.50);
        let p99 = percentile(&all, 0.99);
        let max = all.last().copied().unwrap_or_default();
        println!();
        println!(
            "GET /projects/{{p}}/eval-suites, {CONNECTIONS} connections, {} s after {} s warm-up, \
             rate limit off, client in the same process on {} cores",
            MEASURE.as_secs(),
            WARM_UP.as_secs(),
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
        println!(
            "| {:>9} | {:>9} | {:>9} | {:>9} | {:>9} | {:>6} |",
            "requests", "req/s", "p50", "p99", "max", "errors"
        );
        println!(
            "| {n:>9} | {rps:>9.0} | {:>9} | {:>9} | {:>9} | {errors:>6} |",
            ms(p50),
            ms(p99),
            ms(max)
        );
        println!(
            "target ≥ 15000 req/s and p99 < 10 ms: {}",
            if rps >= 15_000.0 && p99 < Duration::from_millis(10) {
                "met"
            } else {
                "missed"
            }
        );
        assert_eq!(errors, 0, "every request succeeded");
    });
}

/// Where one request's server-side time goes, without HTTP: the auth lookup, the project
/// access check, the suite query and the JSON rendering, each timed in a tight loop.
#[test]
#[ignore = "benchmark: cargo test --release --test it perf:: -- --ignored --nocapture"]
fn eval_suites_breakdown() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let h = rt.block_on(Harness::start());
    let store = h.service.store();
    let page = PageRequest::default();
    const N: u32 = 20_000;
    let time = |label: &str, f: &mut dyn FnMut()| {
        for _ in 0..1000 {
            f();
        }
        let t0 = Instant::now();
        for _ in 0..N {
            f();
        }
        let per = t0.elapsed() / N;
        println!("| {label:<32} | {:>8.1} µs |", per.as_secs_f64() * 1e6);
    };
    println!();
    println!("| {:<32} | {:>11} |", "step (one thread)", "per call");
    time("authenticate (SHA-256 + SELECT)", &mut || {
        h.service.authenticate(&h.owner_key).unwrap();
    });
    time("project_access (SELECT)", &mut || {
        store
            .project_access(&h.owner, &h.project, ProjectRole::Member)
            .unwrap();
    });
    time("suite_summaries (SELECTs)", &mut || {
        store.suite_summaries(&h.project, &page).unwrap();
    });
    let summaries = store.suite_summaries(&h.project, &page).unwrap();
    time("serde_json::to_vec(page)", &mut || {
        serde_json::to_vec(&summaries).unwrap();
    });
    time("service.eval_suites (all of it)", &mut || {
        h.service.eval_suites(&h.owner, &h.project, &page).unwrap();
    });
    drop(h);
}
