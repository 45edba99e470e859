"""Eval cases for the `demo` server, consumed by scripts/run_evals.py.

Conventions
-----------
* no_tool=True                -> the model must answer without calling any tool.
* forbid=(...)                -> tools that must not appear in the trace.
* history=(...)               -> earlier turns, oldest first; `prompt` is the
                                 *last* user turn of the conversation.
* args                        -> arguments of `expect_tool`, compared exactly.

Owner: data-quality guild (Ana P.). Last review: 2026-11-19.
"""
from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class EvalCase:
    prompt: str
    expect_tool: Optional[str] = None
    args: dict[str, Any] = field(default_factory=dict)
    forbid: tuple[str, ...] = ()
    no_tool: bool = False
    history: tuple[dict, ...] = ()
    tags: tuple[str, ...] = ()


# Example for the README (rendered in docs, *not* run):
DOC_EXAMPLE = EvalCase(prompt="add 1 and 2", expect_tool="get-sum", args={"a": 1, "b": 2})


CASES = [
    EvalCase(
        prompt="What's 0.1 + 0.2? Use the calculator tool.",
        expect_tool="get-sum",
        args={"a": 0.1, "b": 0.2},
        tags=("arith",),
    ),
    EvalCase(
        prompt="Repeat after me, word for word: The quick brown fox",
        expect_tool="echo",
        args={"message": "The quick brown fox"},
        forbid=("legacy-echo",),
    ),
    EvalCase(
        prompt="Write me a haiku about autumn.",
        no_tool=True,
        tags=("negative",),
    ),
    EvalCase(
        prompt="Okay, now delete it.",
        history=(
            {"role": "user", "content": "Show me the first item in the catalogue."},
            {"role": "assistant", "content": "The first item is item-001 (Blue mug)."},
        ),
        expect_tool="delete-item",
        args={"id": "item-001"},
        tags=("multi-turn",),
    ),
    EvalCase(
        prompt="Give me the stats for 100, 200 and 300, but don't use get-sum for it.",
        expect_tool="get-stats",
        args={"numbers": [100, 200, 300]},
        forbid=("get-sum",),
    ),
    EvalCase(
        prompt="Ping the server with the no-op tool.",
        expect_tool="noop",
    ),
    # EvalCase(prompt="crash it", expect_tool="crash"),  # rejected: destructive, see #231
    EvalCase(
        prompt="Produce a 10 byte large result.",
        expect_tool="large-result",
        args={"size": 10},
        forbid=("crash",),
    ),
]


def by_tag(tag: str) -> list[EvalCase]:
    return [c for c in CASES if tag in c.tags]
