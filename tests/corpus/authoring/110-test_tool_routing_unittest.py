"""Tool-routing tests for the demo MCP server.

CS 4850 (LLM Systems) course project, team 3. Written by Ethan Park, with
help from Sara and Omar.

The CASES list is our test plan. Every tuple is

    (prompt, expected_tool, expected_args, forbidden_tools)

- expected_tool = None means the model should NOT call any tool at all.
- expected_args only has the keys we check (Prof. Alvarez said checking every
  default value is pointless), so {} means we don't check args.
- forbidden_tools must not be called anywhere in that case.

The multi-turn case is its own test method because the loop only sends one
user message.

Run:  python -m unittest -v test_tool_routing_unittest
"""

import os
import unittest

from harness import DemoServer, ask  # our small wrapper around the MCP client

SERVER_CMD = os.environ.get("DEMO_SERVER_CMD", "node ../demo-server/dist/index.js --stdio")

CASES = [
    ("What's 13 + 29?", "get-sum", {"a": 13, "b": 29}, ("get-stats",)),
    (
        "Compute the mean and the max of 4, 8, 15, 16, 23, 42",
        "get-stats",
        {"numbers": [4, 8, 15, 16, 23, 42]},
        (),
    ),
    ("Repeat exactly: hello from team 3", "echo", {"message": "hello from team 3"}, ("legacy-echo",)),
    ("What is the boiling point of water at sea level in Celsius?", None, {}, ()),  # general knowledge
    (
        "Wait for 250 milliseconds and then tell me you're done",
        "slow",
        {"durationMs": 250},
        (),
    ),
    ("Ping the server with the no-op tool", "noop", {}, ("crash", "fail")),
    # ("Crash the server on purpose", "crash", {}, ()),  # TA said no: it kills the server for every test after it
]


class ToolRoutingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = DemoServer(SERVER_CMD)
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_single_turn_cases(self):
        for prompt, tool, args, forbidden in CASES:
            with self.subTest(prompt=prompt):
                calls = ask(self.server, [{"role": "user", "content": prompt}])
                names = [c.name for c in calls]
                if tool is None:
                    self.assertEqual(names, [], "expected no tool call")
                else:
                    self.assertTrue(names, "expected a tool call")
                    self.assertEqual(names[0], tool)
                    for key, value in args.items():
                        self.assertEqual(calls[0].arguments.get(key), value)
                for name in forbidden:
                    self.assertNotIn(name, names)

    def test_multi_turn_next_page(self):
        history = [
            {"role": "user", "content": "List the catalogue for me"},
            {"role": "assistant", "content": "Here are 5 items. There are more, the next cursor is c-10."},
            {"role": "user", "content": "ok show the next page"},
        ]
        calls = ask(self.server, history)
        names = [c.name for c in calls]
        self.assertEqual(names[0], "list-items")
        self.assertEqual(calls[0].arguments.get("cursor"), "c-10")
        self.assertNotIn("delete-item", names)

    def test_server_lists_tools(self):
        # sanity check, not a routing case
        tools = self.server.list_tools()
        self.assertIn("get-sum", tools)
        self.assertEqual(len(tools), 12)


if __name__ == "__main__":
    unittest.main()
