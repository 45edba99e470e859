//! Widget benchmark (ignored; run with
//! `cargo test --release --test it perf_widgets:: -- --ignored --nocapture --test-threads 1`):
//! what a widget adds to an iteration with the browser warm. The same `toolCall` of the
//! demo server's `sum-card` runs as a plain case, with `widgetRendered` (the view is opened,
//! screenshotted and closed), and with a click and two DOM checks; one iteration at a time.

use serde_json::{Value, json};

use crate::runs::{check, create_suite, iterations, start, tool_call, wait};
use evaldeck_testkit::served::{Harness, demo_config};

fn p(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark"]
async fn a_widget_steps_added_time_per_iteration() {
    if !crate::widgets::chromium() {
        return;
    }
    let mut config = demo_config();
    config.runs.iteration_concurrency = 1;
    let h = Harness::with_config(config).await;
    let call = tool_call("t1", "sum-card", json!({"a": 2, "b": 3}));
    // 3 cases × 10 runs (the spec's per-case maximum): 30 iterations each.
    let n = 10;
    let cases = [
        (
            "plain call",
            json!([
                call,
                check(
                    "a1",
                    json!({"type": "toolCalledAtLeastOnce", "toolName": "sum-card"})
                )
            ]),
        ),
        (
            "call + widgetRendered",
            json!([call, check("a1", json!({"type": "widgetRendered"}))]),
        ),
        (
            "call + click + 2 DOM checks",
            json!([call,
            check("a1", json!({"type": "widgetTextContains", "selector": "#total", "needle": "5"})),
            {"id": "i1", "kind": "interact", "toolName": "sum-card", "action": {"click": "#again"}},
            check("a2", json!({"type": "widgetTextContains", "selector": "#total", "needle": "6"}))]),
        ),
    ];
    // One warm-up run starts the browser and the server.
    let warm = create_suite(&h, "warm", json!([{"title": "w", "steps": cases[1].1}])).await;
    let r = start(&h, json!({"suiteId": warm})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    wait(&h, &r).await;
    println!("| case | n | p50 ms | p95 ms | added p50 ms |");
    println!("|---|---|---|---|---|");
    let mut base = 0.0;
    for (name, steps) in cases {
        let suite = create_suite(
            &h,
            name,
            json!([{"title": name, "runs": n, "steps": steps}]),
        )
        .await;
        let run = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
            .as_str()
            .unwrap()
            .to_string();
        let done = wait(&h, &run).await;
        assert_eq!(done["result"], "passed", "{done}");
        let mut ms: Vec<f64> = iterations(&h, &run)
            .await
            .iter()
            .map(|i: &Value| i["durationMs"].as_f64().unwrap())
            .collect();
        ms.sort_by(f64::total_cmp);
        let p50 = p(&ms, 0.5);
        if base == 0.0 {
            base = p50;
        }
        println!(
            "| {name} | {} | {p50:.1} | {:.1} | {:.1} |",
            ms.len(),
            p(&ms, 0.95),
            p50 - base
        );
    }
}
