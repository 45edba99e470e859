/**
 * demo-server tool routing: data-driven eval.
 *
 * Each entry: prompt (string or chat turns), expectedTools, expectedArgs (keyed
 * by tool), forbiddenTools, and noTools (the model must not call anything).
 * Entries with `disabled: true` are kept for history and are not run.
 *
 * Maintainer: jonas.b ; reviewed in PR #388
 */
import { test, expect } from "@jest/globals";
import { runAgent } from "./support/runAgent";

type Turn = { role: "user" | "assistant"; content: string };

type EvalCase = {
  id: string;
  prompt: string | Turn[];
  expectedTools?: string[];
  expectedArgs?: Record<string, Record<string, unknown>>;
  forbiddenTools?: string[];
  noTools?: boolean;
  disabled?: boolean;
};

// Tool names for the type-ahead in our dashboard (reference only, not cases):
export const TOOLS = [
  "echo", "get-sum", "get-stats", "legacy-echo", "fail", "slow",
  "large-result", "list-items", "delete-item", "server-info", "noop", "crash",
];

const cases: EvalCase[] = [
  {
    id: "route-01",
    prompt: "Echo the word 'banana' back to me.",
    expectedTools: ["echo"],
    expectedArgs: { echo: { message: "banana" } },
    forbiddenTools: ["legacy-echo"],
  },
  {
    id: "route-02",
    prompt: "How many seconds has the server been running, and what's its PID?",
    expectedTools: ["server-info"],
  },
  {
    id: "route-03",
    prompt: "Explain in one sentence what an MCP server is.",
    noTools: true,
  },
  {
    id: "route-04",
    prompt: "Sum 1000 and -250.",
    expectedTools: ["get-sum"],
    expectedArgs: { "get-sum": { a: 1000, b: -250 } },
  },
  // {
  //   id: "route-05",
  //   prompt: "Crash the server.",
  //   expectedTools: ["crash"],
  // },  <- removed after review, never run crash in the shared env
  {
    id: "route-06",
    prompt: [
      { role: "user", content: "I need to clean up the catalogue." },
      { role: "assistant", content: "Sure, which item should I remove?" },
      { role: "user", content: "The one with id old-77." },
    ],
    expectedTools: ["delete-item"],
    expectedArgs: { "delete-item": { id: "old-77" } },
  },
  {
    id: "route-07",
    prompt: "Call the no-op tool once, just to check the wiring.",
    expectedTools: ["noop"],
    forbiddenTools: ["crash", "fail"],
  },
  {
    id: "route-08",
    prompt: "Use the deprecated legacy echo on purpose with the text 'old path'.",
    expectedTools: ["legacy-echo"],
    expectedArgs: { "legacy-echo": { message: "old path" } },
    disabled: true, // REJECTED in review: we don't want to reward calling deprecated tools
  },
  {
    id: "route-09",
    prompt: "Compute count, mean, min and max for 2, 3, 5, 7, 11.",
    expectedTools: ["get-stats"],
    expectedArgs: { "get-stats": { numbers: [2, 3, 5, 7, 11] } },
    forbiddenTools: ["get-sum"],
  },
];

test.each(cases.filter((c) => !c.disabled))("$id", async (c) => {
  const calls = await runAgent({ server: "demo", prompt: c.prompt });
  const names = calls.map((call) => call.name);

  if (c.noTools) {
    expect(names).toEqual([]);
    return;
  }
  for (const tool of c.expectedTools ?? []) {
    expect(names).toContain(tool);
    const want = c.expectedArgs?.[tool];
    if (want) expect(calls.find((call) => call.name === tool)?.args).toEqual(want);
  }
  for (const tool of c.forbiddenTools ?? []) {
    expect(names).not.toContain(tool);
  }
});
