"""Tool-routing evals for the `demo` MCP server.

Every case in ROUTING_CASES is (prompt, expected_tool, expected_args, forbidden):

* ``prompt`` is either a single user message or a list of turns built with
  ``user(...)`` / ``assistant(...)``.
* ``expected_tool=None`` means the model must answer on its own and must not
  call any tool at all.
* ``expected_args`` only lists the arguments we check; ``{}`` means "don't care".
* ``forbidden`` are tools that must not appear anywhere in the transcript.

Cases marked ``skip`` were rejected in review and are kept for reference only.
``xfail`` cases are real cases that currently fail; they still run.

Run with:  pytest evals/test_demo_tool_routing.py --runs 3
"""

import pytest

from evalkit import Agent, assistant, user

ALL_TOOLS = {
    "echo", "get-sum", "get-stats", "legacy-echo", "fail", "slow",
    "large-result", "list-items", "delete-item", "server-info", "noop", "crash",
}


@pytest.fixture(scope="module")
def agent(demo_server):
    return Agent(server=demo_server, temperature=0)


ROUTING_CASES = [
    pytest.param(
        "What is 0.1 + 0.2?",
        "get-sum",
        {"a": 0.1, "b": 0.2},
        ["get-stats"],
        id="sum-floats",
    ),
    pytest.param(
        "Give me the mean and the max of 5, 10, 15, 20, 25, 30",
        "get-stats",
        {"numbers": [5, 10, 15, 20, 25, 30]},
        [],
        id="stats-six-numbers",
    ),
    pytest.param("Who wrote Hamlet?", None, {}, [], id="no-tool-trivia"),
    pytest.param(
        [
            user("Can you echo something for me?"),
            assistant("Sure, what should I echo?"),
            user("the quick brown fox"),
        ],
        "echo",
        {"message": "the quick brown fox"},
        ["legacy-echo"],
        id="echo-after-clarification",
        marks=pytest.mark.xfail(reason="model sometimes echoes the whole question, #198"),
    ),
    pytest.param(
        "Delete catalogue item sku-4410",
        "delete-item",
        {"id": "sku-4410"},
        ["list-items", "crash"],
        id="delete-by-id",
    ),
    pytest.param(
        "Run the slow tool for 1200 ms with 4 progress steps",
        "slow",
        {"durationMs": 1200, "steps": 4},
        [],
        id="slow-1200ms",
    ),
    pytest.param(
        "Produce 10 MB of filler text",
        "large-result",
        {"size": 10_000_000},
        [],
        id="large-10mb",
        marks=pytest.mark.skip(reason="rejected in review: 10 MB floods the CI log (#212)"),
    ),
    pytest.param(
        "Call the fail tool with reason 'pytest-check'",
        "fail",
        {"reason": "pytest-check"},
        ["crash"],
        id="fail-with-reason",
    ),
    pytest.param(
        "How long has the server been up?",
        "server-info",
        {},
        ["crash", "noop"],
        id="uptime",
    ),
]


@pytest.mark.parametrize("prompt, expected_tool, expected_args, forbidden", ROUTING_CASES)
def test_routing(agent, prompt, expected_tool, expected_args, forbidden):
    result = agent.run(prompt)
    called = [c.name for c in result.tool_calls]

    if expected_tool is None:
        assert called == [], f"expected no tool call, got {called}"
    else:
        assert expected_tool in called
        call = next(c for c in result.tool_calls if c.name == expected_tool)
        for key, value in expected_args.items():
            assert call.arguments.get(key) == pytest.approx(value)

    for name in forbidden:
        assert name not in called, f"{name} must not be called"


def test_server_advertises_all_tools(agent):
    assert {t.name for t in agent.list_tools()} == ALL_TOOLS
