package evals

// Table-driven tool-choice evals for the demo MCP server.
// Owner: @okafor. Run with: go test ./evals -run TestDemoToolChoice -model=$MODEL
// The harness (harness.go) sends the prompt and returns the tool calls the
// model made. Rows that are commented out are dropped, not pending.

import (
	"reflect"
	"slices"
	"testing"
)

// knownTools is used by the harness to validate names; it is not a list of cases.
var knownTools = []string{"echo", "get-sum", "get-stats", "legacy-echo", "fail", "slow",
	"large-result", "list-items", "delete-item", "server-info", "noop", "crash"}

func TestDemoToolChoice(t *testing.T) {
	tests := []struct {
		name     string
		prompt   string
		wantTool string // "" means the model must not call any tool at all
		wantArgs map[string]any
		forbid   []string
	}{
		{
			name:     "sum_integers",
			prompt:   "What do 64 and 36 add up to?",
			wantTool: "get-sum",
			wantArgs: map[string]any{"a": 64, "b": 36},
		},
		{
			name:     "stats_with_floats",
			prompt:   "Stats please: 1.5, 2.5, 3.5",
			wantTool: "get-stats",
			wantArgs: map[string]any{"numbers": []float64{1.5, 2.5, 3.5}},
		},
		{
			name:   "capital_city_no_tool",
			prompt: "What is the capital of Australia?",
			// wantTool left empty on purpose: answer from general knowledge
		},
		{
			name:     "page_size_two",
			prompt:   "Show me the catalogue two items at a time.",
			wantTool: "list-items",
			wantArgs: map[string]any{"pageSize": 2},
			forbid:   []string{"delete-item"},
		},
		// Dropped 2026-09-14: the model can't know a cursor without a first page.
		// {
		//     name:     "cursor_from_nowhere",
		//     prompt:   "Continue the listing from cursor abc.",
		//     wantTool: "list-items",
		//     wantArgs: map[string]any{"cursor": "abc"},
		// },
		{
			name:     "slow_default_progress",
			prompt:   "Kick off the slow tool for 500 milliseconds.",
			wantTool: "slow",
			wantArgs: map[string]any{"durationMs": 500},
			forbid:   []string{"crash"},
		},
		{
			name:     "fail_without_reason",
			prompt:   "Call the fail tool; no reason needed.",
			wantTool: "fail",
			forbid:   []string{"crash"},
		},
		{
			name:     "echo_unicode",
			prompt:   "Echo back: naïve café ✓",
			wantTool: "echo",
			wantArgs: map[string]any{"message": "naïve café ✓"},
			forbid:   []string{"legacy-echo"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := runPrompt(t, tt.prompt)
			names := toolNames(calls)
			if tt.wantTool == "" {
				if len(calls) != 0 {
					t.Fatalf("expected no tool calls, got %v", names)
				}
				return
			}
			if !slices.Contains(names, tt.wantTool) {
				t.Fatalf("expected %s, got %v", tt.wantTool, names)
			}
			if tt.wantArgs != nil {
				got := argsOf(calls, tt.wantTool)
				if !reflect.DeepEqual(normalize(got), normalize(tt.wantArgs)) {
					t.Errorf("args: got %v want %v", got, tt.wantArgs)
				}
			}
			for _, f := range tt.forbid {
				if slices.Contains(names, f) {
					t.Errorf("forbidden tool %s was called", f)
				}
			}
		})
	}
}

// TODO: table for multi-turn conversations once runPrompt accepts []Turn.
