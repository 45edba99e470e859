"""
Tool-routing evals for the demo server.

Each param is (prompt, expected_calls, forbidden):
  - expected_calls: list of ToolCall(tool, args_subset) the assistant must issue
    (args are matched as a subset, extra args are fine)
  - forbidden: tools that must NOT appear anywhere in the transcript
  - expected_calls == NO_TOOLS  ->  model should answer directly, zero tool use

Run:   uv run pytest tests/evals -m llm --model claude-sonnet-4
Needs ANTHROPIC_API_KEY, otherwise the whole module is skipped.

TODO(jk): multi-turn cases once harness supports it (#131)
"""
import os

import pytest

from evals.harness import ToolCall, run_prompt, start_demo_server

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(not os.getenv("ANTHROPIC_API_KEY"), reason="no API key"),
]

NO_TOOLS: list[ToolCall] = []


CASES = [
    # ---- arithmetic -------------------------------------------------------
    pytest.param(
        "What is 17 + 25? Use the calculator tool please.",
        [ToolCall("get-sum", {"a": 17, "b": 25})],
        [],
        id="sum-basic",
    ),
    pytest.param(
        "add -3.5 and 10",
        [ToolCall("get-sum", {"a": -3.5, "b": 10})],
        [],
        id="sum-negative-float",
    ),
    pytest.param(
        "Give me count, mean, min and max for 4, 8, 15, 16, 23, 42",
        [ToolCall("get-stats", {"numbers": [4, 8, 15, 16, 23, 42]})],
        ["get-sum"],  # regression: sonnet used to chain get-sum 5x here
        id="stats-not-repeated-sum",
    ),
    # ---- echo -------------------------------------------------------------
    pytest.param(
        "Echo back exactly: hello MCP",
        [ToolCall("echo", {"message": "hello MCP"})],
        ["legacy-echo"],
        id="echo-prefers-new",
    ),
    # pytest.param(
    #     "SHOUT this back at me: quiet please",
    #     [ToolCall("legacy-echo", {"message": "quiet please"})],
    #     [],
    #     id="legacy-echo-uppercase",
    # ),  # removed in #140 -- we don't want to reward the deprecated tool at all
    # ---- no tool use ------------------------------------------------------
    pytest.param(
        "What does MCP stand for?",
        NO_TOOLS,
        [],
        id="no-tool-trivia",
    ),
    pytest.param(
        "What's 2+2? dont bother with tools, just tell me",
        NO_TOOLS,
        [],
        id="no-tool-explicit",
    ),
    # ---- misc -------------------------------------------------------------
    pytest.param(
        "How long has the server been up, and what's its pid?",
        [ToolCall("server-info", {})],
        [],
        id="server-info",
    ),
    pytest.param(
        "Delete item itm_0042 from the catalogue",
        [ToolCall("delete-item", {"id": "itm_0042"})],
        [],
        id="delete-item",
        marks=pytest.mark.xfail(reason="model asks for confirmation first, see #118", strict=False),
    ),
    pytest.param(
        "Show me the second page of items, 10 per page",
        [ToolCall("list-items", {"pageSize": 10})],
        [],
        id="list-items-paging",
        marks=pytest.mark.skip(reason="dropped: needs nextCursor from a previous turn, harness is single-turn (#131)"),
    ),
    pytest.param(
        "Run the slow tool for 3 seconds, 3 steps, and turn off progress notifications",
        [ToolCall("slow", {"durationMs": 3000, "steps": 3, "progress": False})],
        [],
        id="slow-no-progress",
    ),
]


@pytest.fixture(scope="module")
def server():
    with start_demo_server() as srv:
        yield srv


@pytest.mark.parametrize("prompt,expected,forbidden", CASES)
def test_tool_routing(server, prompt, expected, forbidden):
    transcript = run_prompt(server, prompt)
    called = [c.name for c in transcript.tool_calls]

    if expected == NO_TOOLS:
        assert called == [], f"expected no tool use, got {called}"
        return

    for exp in expected:
        assert exp.name in called, f"{exp.name} not called (got {called})"
        actual = next(c for c in transcript.tool_calls if c.name == exp.name)
        for k, v in exp.args.items():
            assert actual.args.get(k) == v, f"{exp.name}.{k}: {actual.args.get(k)!r} != {v!r}"

    for bad in forbidden:
        assert bad not in called, f"forbidden tool {bad} was called"


# not an LLM eval -- plain protocol check, no model in the loop
@pytest.mark.no_llm
def test_fail_tool_sets_is_error(server):
    res = server.call_tool("fail", {"reason": "boom"})
    assert res.isError is True
