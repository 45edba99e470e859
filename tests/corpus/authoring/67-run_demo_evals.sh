#!/usr/bin/env bash
# Nightly tool-routing smoke test for the `demo` MCP server.
#
#   usage: MODEL=claude-x ./run_demo_evals.sh          (needs mcpeval >= 0.9 on PATH)
#
# Flags of `mcpeval case` as we use them here:
#   --prompt TEXT       the single user message
#   --turn ROLE:TEXT    repeat for a conversation, in order (first one must be user:)
#   --expect TOOL       tool the agent has to call; `--expect none` = no tool call at all
#   --arg KEY=VALUE     expected argument, repeatable; VALUE is parsed with the tool's schema
#   --never TOOL        tool that must not be called, repeatable
#
# Cron: 02:30 UTC on the eval box, results land in $OUT/junit.xml and go to #evals-nightly.
set -euo pipefail

MODEL="${MODEL:-default}"
OUT="${OUT:-out/demo-$(date +%Y%m%d)}"
mkdir -p "$OUT"

mcpeval server start demo --stdio --log "$OUT/server.log"
trap 'mcpeval server stop demo' EXIT

# warm-up, not scored
mcpeval ask --server demo --model "$MODEL" --prompt "ping" >/dev/null || true

case_() {
  mcpeval case --server demo --model "$MODEL" --runs 3 --junit "$OUT/junit.xml" "$@"
}

case_ --id sum-neg \
  --prompt "add -40 and 2" \
  --expect get-sum --arg a=-40 --arg b=2

case_ --id stats-decimals \
  --prompt "count/mean/min/max of 0.1 0.2 0.3 please" \
  --expect get-stats --arg 'numbers=[0.1, 0.2, 0.3]' \
  --never get-sum

case_ --id chit-chat \
  --prompt "what does set -euo pipefail actually do?" \
  --expect none

case_ --id echo-verbatim \
  --prompt "Repeat this back word for word: nightly build is green" \
  --expect echo --arg "message=nightly build is green" \
  --never legacy-echo

# conversation: the cursor comes from the assistant's own previous answer
case_ --id page-followup \
  --turn "user:list the catalogue for me" \
  --turn "assistant:Here are the first 5 items. There are more (nextCursor: n-5)." \
  --turn "user:ok show me the next ones" \
  --expect list-items --arg cursor=n-5 \
  --never delete-item --never crash

# DROPPED (ops review 2024-06-11): takes the server down and every case after it fails.
# case_ --id crash-drill \
#   --prompt "crash the demo server" \
#   --expect crash

case_ --id fail-path \
  --prompt "use the fail tool, reason = disk quota exceeded" \
  --expect fail --arg "reason=disk quota exceeded" \
  --never crash

case_ --id slow-3s \
  --prompt "run slow for 3 seconds, 6 steps" \
  --expect slow --arg durationMs=3000 --arg steps=6

# noop has no params at all, so no --arg here on purpose
case_ --id noop-ping \
  --prompt "just call noop, nothing else" \
  --expect noop \
  --never crash --never fail

# TODO(kemi): large-result with size=0 once mcpeval handles empty text content

mcpeval report "$OUT/junit.xml" --fail-under 0.9 --post-to "#evals-nightly"
