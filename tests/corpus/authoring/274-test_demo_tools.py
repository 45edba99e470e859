"""Tool-selection evals for the demo MCP server.

Run:  pytest evals/test_demo_tools.py --demo-url=$DEMO_MCP_URL -p no:randomly
Needs the demo server running (``make demo-server``) and ASSISTANT_PRESET=eval-staging.
Each test talks to the assistant once (or twice for the paging test) at temperature 0.
"""
from __future__ import annotations

import pytest

from evals.harness import AssistantSession, ToolCall


# ---------------------------------------------------------------------------
# helpers -- these are copies of what's in evals/conftest.py on main.
# Delete once PLAT-2291 (shared conftest) is merged.
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def session(request):
    s = AssistantSession(
        server_url=request.config.getoption("--demo-url"),
        temperature=0,
    )
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _fresh_history(session):
    session.reset()


def assert_tool_called(calls: list[ToolCall], name: str, **expected_args):
    matching = [c for c in calls if c.name == name]
    assert matching, f"expected a call to {name}, got {[c.name for c in calls]}"
    for key, value in expected_args.items():
        got = matching[0].arguments.get(key)
        assert got == value, f"{name}.{key}: {got!r} != {value!r}"


def assert_not_called(calls: list[ToolCall], *names: str):
    bad = {c.name for c in calls}.intersection(names)
    assert not bad, f"forbidden tool(s) called: {sorted(bad)}"


# ---------------------------------------------------------------------------
# single call cases: (prompt, expected tool, expected args, forbidden tools)
# ---------------------------------------------------------------------------

SINGLE_CALL = [
    pytest.param("What is 17 plus 25?", "get-sum", {"a": 17, "b": 25}, (), id="sum-basic"),
    pytest.param("add twelve and a half to thirty", "get-sum", {"a": 12.5, "b": 30}, (), id="sum-words"),
    pytest.param(
        "Give me the mean, min and max of 3, 1, 4, 1, 5, 9",
        "get-stats",
        {"numbers": [3, 1, 4, 1, 5, 9]},
        ("get-sum",),
        id="stats-list",
    ),
    pytest.param(
        "Echo this back to me: Hello, World",
        "echo",
        {"message": "Hello, World"},
        ("legacy-echo",),
        id="echo-not-legacy",
        marks=pytest.mark.xfail(reason="assistant still picks legacy-echo in ~30% of runs, ASSIST-812", strict=False),
    ),
    pytest.param("Remove item 42 from the catalogue", "delete-item", {"id": "42"}, ("list-items",), id="delete-by-id"),
    pytest.param("How long has the server been up, and what's its PID?", "server-info", {}, (), id="uptime"),
]


@pytest.mark.parametrize("prompt,tool,args,forbidden", SINGLE_CALL)
def test_single_call(session, prompt, tool, args, forbidden):
    calls, _reply = session.ask(prompt)
    assert_tool_called(calls, tool, **args)
    assert_not_called(calls, *forbidden)


# ---------------------------------------------------------------------------
# no tools: general questions, the assistant must not touch the server
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "prompt",
    [
        "What's the capital of Australia?",
        "Explain in two sentences what an MCP server is.",
    ],
    ids=["trivia", "explain-mcp"],
)
def test_answers_without_tools(session, prompt):
    calls, reply = session.ask(prompt)
    assert calls == [], f"unexpected tool calls: {[c.name for c in calls]}"
    assert reply.strip()


# ---------------------------------------------------------------------------
# multi-turn / error handling
# ---------------------------------------------------------------------------

def test_paging_two_turns(session):
    """Turn 1 should use the cursor-based catalogue listing tool with 3 per page,
    turn 2 should call it again passing back the nextCursor it got."""
    calls1, _ = session.ask("Show me the first 3 items in the catalogue")
    assert len(calls1) == 1
    assert calls1[0].arguments.get("pageSize") == 3
    first_cursor = calls1[0].result.structured.get("nextCursor")

    calls2, _ = session.ask("ok, next 3 please")
    assert calls2[0].name == calls1[0].name
    assert calls2[0].arguments.get("cursor") == first_cursor


def test_failing_tool_is_reported(session):
    calls, reply = session.ask("Call the fail tool with reason 'smoke test' and tell me what happened")
    assert_tool_called(calls, "fail", reason="smoke test")
    assert len(calls) == 1, "should not retry a tool that reported isError"
    assert "error" in reply.lower() or "failed" in reply.lower()


@pytest.mark.skip(reason="slow/progress dropped from v2 demo scope, see ASSIST-790")
def test_slow_reports_progress(session):
    calls, _ = session.ask("Run the slow tool for 3 seconds with 6 progress steps")
    assert_tool_called(calls, "slow", durationMs=3000, steps=6)
