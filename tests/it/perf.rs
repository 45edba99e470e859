//! Benchmarks (ignored): `GET /projects/{p}/eval-suites` against a real `serve` on
//! loopback, rate limiting off, 64 concurrent connections. The client runs in the same
//! process and shares the cores with the server, which depresses the figures.
//!
//! `cargo test --release --test it perf:: -- --ignored --nocapture`

use std::time::{Duration, Instant};

use evaldeck::service::store::projects::ProjectRole;
use evaldeck::spec::page::PageRequest;

use evaldeck_testkit::served::Harness;

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

/// Suites the throughput benchmark lists, and the runs each has: a full default page (50)
/// whose every item carries a latest run, totals and a pass-rate trend.
const SUITES: usize = 50;
const RUNS_PER_SUITE: usize = 3;

/// `EVALDECK_BENCH_SECS` (may be fractional) shortens the measured window, e.g. to check
/// the setup in a debug build; the warm-up shrinks with it.
fn window() -> (Duration, Duration) {
    match std::env::var("EVALDECK_BENCH_SECS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
    {
        Some(s) if s > 0.0 => {
            let m = Duration::from_secs_f64(s);
            (WARM_UP.min(m / 5), m)
        }
        _ => (WARM_UP, MEASURE),
    }
}

/// Seeds [`SUITES`] suites of two cases each, then [`RUNS_PER_SUITE`] finished runs per
/// suite through `eval-ingest/report` (real rows, as an SDK would leave them), and checks
/// that the first page really carries them.
async fn seed_suites(h: &Harness) {
    use serde_json::json;
    for i in 0..SUITES {
        let tests = [0, 1].map(|c| {
            json!({"title": format!("case {c}"), "steps": [
                {"id": "p1", "kind": "prompt", "prompt": format!("Use get-sum to add {c} and 1")},
            ]})
        });
        let body = json!({
            "name": format!("bench suite {i:02}"),
            "serverIds": ["demo"],
            "model": "builtin/baseline",
            "tests": tests,
        });
        let body = serde_json::from_value(body).expect("a suite body");
        h.service
            .create_suite(&h.owner, &h.project, &body)
            .expect("a suite");
        for r in 0..RUNS_PER_SUITE {
            let results: Vec<serde_json::Value> = [0, 1]
                .map(|c| {
                    json!({"caseTitle": format!("case {c}"), "passed": (i + r + c) % 3 != 0,
                       "externalIterationId": format!("{i}-{r}-{c}"), "durationMs": 40})
                })
                .to_vec();
            h.call(
                reqwest::Method::POST,
                &format!("/projects/{}/eval-ingest/report", h.project),
                Some(&h.owner_key),
                Some(json!({"suiteName": format!("bench suite {i:02}"),
                    "externalRunId": format!("bench-{i}-{r}"), "results": results})),
            )
            .await
            .ok(200);
        }
    }
    let page = h
        .get(
            &format!("/projects/{}/eval-suites", h.project),
            &h.owner_key,
        )
        .await;
    let items = page.ok(200)["items"].as_array().unwrap();
    assert_eq!(items.len(), 50, "a full default page");
    let with_runs = items
        .iter()
        .filter(|s| s["totals"]["runs"] == RUNS_PER_SUITE && s["latestRun"]["id"].is_string())
        .count();
    assert!(
        with_runs >= SUITES - 1,
        "{with_runs} suites listed with their runs"
    );
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
        seed_suites(&h).await;
        let (warm_up, measure) = window();
        let url = h.url(&format!("/projects/{}/eval-suites", h.project));
        let start = Instant::now();
        let measure_from = start + warm_up;
        let end = measure_from + measure;
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
        let rps = n as f64 / measure.as_secs_f64();
        let p50 = percentile(&all, 0.50);
        let p99 = percentile(&all, 0.99);
        let max = all.last().copied().unwrap_or_default();
        println!();
        println!(
            "GET /projects/{{p}}/eval-suites ({SUITES} suites × {RUNS_PER_SUITE} runs, a full \
             page of 50), {CONNECTIONS} connections, {:.1} s after {:.1} s warm-up, \
             rate limit off, client in the same process on {} cores",
            measure.as_secs_f64(),
            warm_up.as_secs_f64(),
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
/// access check, the suite query and the JSON rendering of the same seeded page, and the
/// check that serves a kept page instead, each timed in a tight loop.
#[test]
#[ignore = "benchmark: cargo test --release --test it perf:: -- --ignored --nocapture"]
fn eval_suites_breakdown() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let h = rt.block_on(Harness::start());
    rt.block_on(seed_suites(&h));
    let store = h.service.store();
    let page = PageRequest::default();
    const N: u32 = 5_000;
    let time = |label: &str, f: &mut dyn FnMut()| {
        for _ in 0..1000 {
            f();
        }
        let t0 = Instant::now();
        for _ in 0..N {
            f();
        }
        let per = t0.elapsed() / N;
        println!("| {label:<34} | {:>8.1} µs |", per.as_secs_f64() * 1e6);
    };
    println!();
    println!("| {:<34} | {:>11} |", "step (one thread)", "per call");
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
    time("eval_suites_version (a kept page)", &mut || {
        h.service.eval_suites_version(&h.owner, &h.project).unwrap();
    });
    drop(h);
}

/// Eval runner: a 50-case × 10-iteration suite with the built-in agent against the demo
/// server, and the runner's own overhead per iteration (wall time minus model and tool
/// time, including the SQLite writes).
#[test]
#[ignore = "benchmark: cargo test --release --test it perf::eval_run -- --ignored --nocapture"]
fn eval_run_50_cases_by_10_iterations() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    // One iteration at a time gives the runner's own overhead; the default runs several
    // at once and gives the wall time a user sees.
    println!(
        "| concurrency | iterations | whole run | tool ms/iteration | model ms/iteration | runner overhead ms/iteration |\n|---|---|---|---|---|---|"
    );
    for concurrency in [1, 4] {
        rt.block_on(async {
        use serde_json::json;
        let mut config = evaldeck_testkit::served::demo_config();
        config.runs.iteration_concurrency = concurrency;
        let h = Harness::with_config(config).await;
        let tests: Vec<serde_json::Value> = (0..50)
            .map(|i| {
                json!({"title": format!("case {i}"), "runs": 10, "steps": [
                    {"id": "p1", "kind": "prompt", "prompt": format!("Use get-sum to add {i} and 1")},
                    {"id": "a1", "kind": "assert", "assertion": {"type": "responseContains", "needle": format!("{}", i + 1)}}
                ]})
            })
            .collect();
        let r = h
            .call(
                reqwest::Method::POST,
                &format!("/projects/{}/eval-suites", h.project),
                Some(&h.owner_key),
                Some(json!({"name": "bench", "serverIds": ["demo"], "model": "builtin/baseline", "tests": tests})),
            )
            .await;
        let suite = r.ok(201)["suiteId"].as_str().unwrap().to_string();
        let t0 = Instant::now();
        let r = h
            .call(
                reqwest::Method::POST,
                &format!("/projects/{}/eval-runs", h.project),
                Some(&h.owner_key),
                Some(json!({"suiteId": suite})),
            )
            .await;
        let run = r.ok(202)["runId"].as_str().unwrap().to_string();
        let run = loop {
            let v = h
                .get(&format!("/projects/{}/eval-runs/{run}", h.project), &h.owner_key)
                .await
                .body;
            if v["status"] != "running" && v["status"] != "pending" {
                break v;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let elapsed = t0.elapsed();
        assert_eq!(run["result"], "passed", "{run}");
        let stored = h.service.store().run(None, run["id"].as_str().unwrap()).unwrap();
        let timing = &stored.body["timing"];
        let n = timing["iterations"].as_f64().unwrap();
        let overhead = (timing["wallMs"].as_f64().unwrap()
            - timing["modelMs"].as_f64().unwrap()
            - timing["toolMs"].as_f64().unwrap())
            / n;
        println!(
            "| {concurrency} | {n} | {} | {:.3} | {:.3} | {overhead:.3} |",
            ms(elapsed),
            timing["toolMs"].as_f64().unwrap() / n,
            timing["modelMs"].as_f64().unwrap() / n
        );
        assert!(elapsed < Duration::from_secs(5), "50 × 10 took {elapsed:?}");
        if concurrency == 1 {
            assert!(overhead < 1.0, "runner overhead {overhead} ms per iteration");
        }
        h.service.shutdown().await;
    });
    }
}

/// The demo server's tools, as discovery returns them (discovery itself is not measured).
fn demo_catalog() -> Vec<evaldeck::service::authoring::ground::DiscoveredTool> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/corpus/authoring/servers/demo.json"),
    )
    .expect("catalog");
    let tools: Vec<evaldeck::spec::primitives::ToolItem> =
        serde_json::from_str(&text).expect("JSON");
    tools
        .into_iter()
        .map(
            |tool| evaldeck::service::authoring::ground::DiscoveredTool {
                server_id: "srv_demo".into(),
                server_name: "demo".into(),
                tool,
            },
        )
        .collect()
}

/// A Markdown QA plan of `n` headed cases with bullet fields (300 make ~100 KiB, just under
/// the import's 102400-character limit).
fn big_plan(n: usize) -> String {
    let mut s = String::from(
        "# Generated QA plan\n\n| Field | Value |\n|---|---|\n| Version | 9 |\n\n## Cases\n\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "### TC-{i:04}: Add {i} and {j}\n- **Priority:** Medium\n- **Type:** Functional\n- **Owner:** QA guild (calc)\n- **Prompt:** \"What is {i} + {j}? Please use the calculator tool and explain the result briefly.\"\n- **Expected tool:** `get-sum` with `{{\"a\": {i}, \"b\": {j}}}`\n- **Expected result:** The reply contains \"{k}\" and says nothing else of note.\n\n",
            j = i * 2,
            k = i * 3
        ));
    }
    s
}

#[test]
#[ignore = "benchmark: cargo test --release --test it perf:: -- --ignored --nocapture"]
fn import_extractor_on_a_100_kib_plan() {
    let plan = big_plan(300);
    let tools = demo_catalog();
    let kib = plan.len() as f64 / 1024.0;
    let mut times = Vec::new();
    let mut cases = 0;
    for _ in 0..50 {
        let t0 = Instant::now();
        cases = evaldeck::service::authoring::extract::extract(&plan, &tools).len();
        times.push(t0.elapsed());
    }
    times.sort();
    println!("| measure | value |\n|---|---|");
    println!("| document | {kib:.1} KiB, {cases} cases |");
    println!("| extractor p50 | {} |", ms(percentile(&times, 0.5)));
    println!("| extractor p95 | {} |", ms(percentile(&times, 0.95)));
    assert_eq!(cases, 300);
    assert!(
        percentile(&times, 0.5) < Duration::from_millis(5),
        "p50 {:?}",
        percentile(&times, 0.5)
    );
}

#[test]
#[ignore = "benchmark: cargo test --release --test it perf:: -- --ignored --nocapture"]
fn import_through_the_api_against_the_warm_demo_server() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut config = evaldeck_testkit::served::demo_config();
        config.authoring.author = evaldeck::service::authoring::AuthorConfig::Builtin;
        let h = Harness::with_config(config).await;
        let plan = std::fs::read_to_string(format!("{}/assets/plans/qa-plan.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let path = format!("/projects/{}/eval-suites/Smoke/cases/import", h.project);
        // Warm: the demo server is spawned and initialized by the first discovery.
        let body = serde_json::json!({"content": plan, "duplicatePolicy": "create_anyway", "overrideReason": "benchmark"});
        h.post_with(&path, &h.owner_key, &[], body.clone()).await.ok(200);
        let mut times = Vec::new();
        for _ in 0..30 {
            let t0 = Instant::now();
            let r = h.post_with(&path, &h.owner_key, &[], body.clone()).await;
            times.push(t0.elapsed());
            assert_eq!(r.ok(200)["created"].as_array().unwrap().len(), 9);
        }
        times.sort();
        println!("| measure | value |\n|---|---|");
        println!("| import of qa-plan.md (9 cases), p50 | {} |", ms(percentile(&times, 0.5)));
        println!("| import of qa-plan.md (9 cases), p95 | {} |", ms(percentile(&times, 0.95)));
        assert!(percentile(&times, 0.5) < Duration::from_millis(100), "p50 {:?}", percentile(&times, 0.5));
        h.service.shutdown().await;
    });
}

/// Not a benchmark, a guard for one: a paginated list statement (`LIMIT ?`) stays
/// prepared across calls. Without the query planner stability guarantee, SQLite expires
/// such a statement on every rebinding and re-parses it, which cost `GET …/eval-suites`
/// about 40 µs of its ~55 µs.
#[test]
fn paginated_statements_are_not_reprepared() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let h = rt.block_on(Harness::start());
    let sql = "SELECT s.id FROM eval_suites s WHERE s.project_id = ?1
               AND (s.created_at, s.id) > (?2, ?3) ORDER BY s.created_at, s.id LIMIT ?4";
    h.service
        .store()
        .sqlite()
        .expect("the SQLite store")
        .read(|c| {
            for limit in [51, 6, 51, 201] {
                let mut st = c.prepare_cached(sql)?;
                let n = st
                    .query_map(
                        rusqlite::params![h.project, i64::MIN, "", limit],
                        |_| Ok(()),
                    )?
                    .count();
                assert_eq!(n, 1);
            }
            let st = c.prepare_cached(sql)?;
            assert_eq!(st.get_status(rusqlite::StatementStatus::RePrepare), 0);
            Ok(())
        })
        .unwrap();
}
