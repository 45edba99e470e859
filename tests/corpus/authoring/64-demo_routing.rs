//! Tool-routing evals for the `demo` MCP server.
//!
//! Every `#[test_case]` row on `routing` is: prompt, expected tool, expected args, forbidden tools.
//!   - `Expect::NoTool` means the model has to answer without calling any tool at all.
//!   - `Value::Null` as args = "don't check the arguments".
//!   - the last slice lists tools that must never show up in the calls.
//!
//! Run with `cargo test --test demo_routing -- --test-threads=1` (the harness shares one server).
//! Owner: @ibrahim-k, reviewed in #88 and #93.

use serde_json::{json, Value};
use test_case::test_case;

use mcp_evals::{Expect, Harness, Turn};

mod common;

/// Tools the demo server advertises. Only used by `catalogue_is_complete`, not an eval.
const ALL_TOOLS: &[&str] = &[
    "echo", "get-sum", "get-stats", "legacy-echo", "fail", "slow",
    "large-result", "list-items", "delete-item", "server-info", "noop", "crash",
];

#[test]
fn catalogue_is_complete() {
    let h = common::harness();
    let mut names = h.list_tools();
    names.sort();
    let mut want: Vec<String> = ALL_TOOLS.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(names, want);
}

#[test_case(
    "What's 1234 plus 4321?",
    Expect::Tool("get-sum"),
    json!({"a": 1234, "b": 4321}),
    &["get-stats"]
    ; "sum_four_digit"
)]
#[test_case("Find the average, min and max of 2.5, 3.5 and 9", Expect::Tool("get-stats"), json!({"numbers": [2.5, 3.5, 9]}), &["get-sum"] ; "stats_floats")]
#[test_case(
    "Is the borrow checker a compile-time or a run-time thing?",
    Expect::NoTool,
    Value::Null,
    &[]
    ; "no_tool_trivia"
)]
#[test_case(
    r#"Echo "ownership is hard" back to me, word for word"#,
    Expect::Tool("echo"),
    json!({"message": "ownership is hard"}),
    &["legacy-echo"]
    ; "echo_raw_string"
)]
#[test_case("Trigger the fail tool, reason: cargo-check", Expect::Tool("fail"), json!({"reason": "cargo-check"}), &["crash"] ; "fail_with_reason")]
// Dropped 2024-07-02 (see #88): 5 MB through stdio makes the whole suite time out on CI runners.
// #[test_case("Give me 5000000 bytes of filler text", Expect::Tool("large-result"), json!({"size": 5_000_000}), &[] ; "large_5mb")]
#[test_case(
    "Call the noop tool. No arguments.",
    Expect::Tool("noop"),
    json!({}),
    &["crash", "fail"]
    ; "noop_plain"
)]
fn routing(prompt: &str, expect: Expect, args: Value, never: &[&str]) {
    let h = common::harness();
    let calls = h.ask(prompt);
    match expect {
        Expect::NoTool => assert!(calls.is_empty(), "expected no tool call, got {calls:?}"),
        Expect::Tool(name) => {
            let call = calls
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{name} was not called: {calls:?}"));
            if !args.is_null() {
                assert_eq!(call.args, args, "args for {name}");
            }
        }
    }
    for bad in never {
        assert!(calls.iter().all(|c| c.name != *bad), "{bad} must not be called");
    }
}

// Multi-turn: duration and step count only arrive in the last user turn.
#[test]
fn multi_turn_slow_job() {
    let h = common::harness();
    let calls = h.converse(&[
        Turn::user("I want to see how you deal with a long-running job."),
        Turn::assistant("Happy to. How long should it run, and do you want progress updates?"),
        Turn::user("Two seconds, split into 4 steps. Progress on."),
    ]);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].name, "slow");
    assert_eq!(calls[0].args, json!({"durationMs": 2000, "steps": 4, "progress": true}));
    assert!(!calls.iter().any(|c| c.name == "crash"));
}

#[test]
#[ignore = "flaky on CI, tracked in #97"]
fn server_survives_reconnect() {
    let h = common::harness();
    h.reconnect();
    assert!(!h.list_tools().is_empty());
}
