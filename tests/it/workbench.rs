//! The workbench as a new user meets it: every flow by keyboard and forms, nothing stale,
//! nothing hidden. Each test drives keys into the whole app over a real backend and looks
//! at the screen (snapshots at 120×36 and 80×24 where a screen is new).

use std::sync::Arc;

use evaldeck::client::Backend;
use evaldeck::tui::testing::Harness;
use serde_json::json;

use crate::tui::{app, demo_project, run_to_end, snapshot};

/// A suite whose one case expects `get-sum` while its prompt makes the baseline agent call
/// `echo`: the trace has failed assertions and a tool-call diff with a missing call.
async fn seed_missing_call(b: &dyn Backend, project: &str) -> String {
    let body: evaldeck::spec::suite::SuiteCreate = serde_json::from_value(json!({
        "name": "Diff", "serverIds": ["demo"], "model": "builtin/baseline",
        "tests": [{"title": "adds with the wrong tool", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use echo to say 'hello there, this is a longer prompt that wraps'"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 17, "b": 25}}}},
            {"id": "a2", "kind": "assert", "assertion": {"type": "responseContains", "needle": "42, which is the sum of seventeen and twenty-five"}},
            {"id": "a3", "kind": "assert", "assertion": {"type": "toolNeverCalled", "toolName": "echo"}}
        ]}]
    }))
    .expect("a suite body");
    b.create_suite(project, &body)
        .await
        .expect("created")
        .suite_id
}

/// Defect 1: the tool-call diff at the end of a long trace is reached with `G`, PgDn and
/// `j` at 120×36 and 80×24 (the scroll bound counted characters, not word-wrapped rows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_a_long_trace_is_reachable() {
    for (w, rows) in [(120, 36), (80, 24)] {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        let suite = seed_missing_call(b.as_ref(), &project).await;
        let run = run_to_end(b.as_ref(), &project, &suite).await;
        assert_eq!(run.result.as_deref(), Some("failed"), "{run:?}");
        h.press("6");
        h.press("r");
        h.drain().await;
        h.press("Enter");
        h.drain().await;
        h.press("Enter");
        h.drain().await;
        assert!(h.shows("› Trace #1"), "{}", h.screen());
        h.press("G");
        let screen = h.screen();
        assert!(screen.contains("Tool-call diff"), "{screen}");
        assert!(screen.contains("missing"), "G reaches the diff:\n{screen}");
        assert!(screen.contains("get-sum"), "{screen}");
        snapshot(&format!("workbench_trace_end_{w}x{rows}"), screen);
        // Back to the top, then PgDn and j all the way down reach it too.
        h.press("g");
        assert!(!h.shows("Tool-call diff ("), "{}", h.screen());
        for _ in 0..40 {
            h.press("PgDn");
        }
        assert!(h.shows("Tool-call diff ("), "{}", h.screen());
        h.press("g");
        for _ in 0..400 {
            h.press("j");
        }
        assert!(h.shows("Tool-call diff ("), "{}", h.screen());
    }
}

/// Defect 2: a paste into the import editor before the syntax highlighter has loaded is
/// drawn at once (plain), exactly once; the highlighter never holds a frame back.
#[tokio::test]
async fn a_paste_before_the_highlighter_has_loaded_is_drawn_at_once_and_once() {
    use evaldeck::tui::widgets::highlight;
    let dir = tempfile::tempdir().unwrap();
    let b = crate::tui::embedded(dir.path());
    highlight::hold(true);
    let mut h = Harness::with_color(b.clone() as Arc<dyn Backend>, 120, 36, true).await;
    h.press("5");
    h.press("i");
    assert!(h.shows("Import into suite “Smoke”"), "{}", h.screen());
    let plan = crate::tui::plan("qa-plan.md");
    // The cursor ends at the end of the paste: its last lines are on screen.
    let first = plan
        .lines()
        .rev()
        .find(|l| l.trim().len() > 10)
        .unwrap()
        .chars()
        .take(40)
        .collect::<String>();
    let started = std::time::Instant::now();
    h.app
        .handle_event(crossterm::event::Event::Paste(plan.clone()));
    h.draw();
    let took = started.elapsed();
    assert!(!highlight::is_ready(), "the highlighter is held back");
    let screen = h.screen();
    highlight::hold(false);
    assert!(screen.contains("(75 lines)"), "{screen}");
    assert_eq!(screen.matches(first.as_str()).count(), 1, "{screen}");
    assert!(
        took < std::time::Duration::from_millis(500),
        "the frame after the paste took {took:?}"
    );
    // Once it has loaded, the same document is there, once, now highlighted.
    highlight::warm_up();
    for _ in 0..600 {
        if highlight::is_ready() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(highlight::is_ready());
    let screen = h.screen();
    assert!(screen.contains("(75 lines)"), "{screen}");
    assert_eq!(screen.matches(first.as_str()).count(), 1, "{screen}");
}
