package evals

import (
	"testing"

	"example.com/demo-mcp/internal/evalkit"
)

// TestToolRouting checks which tool the model picks for a given prompt
// against the demo server's catalogue.
//
//   - prompt is a single user message; turns is used instead for
//     multi-turn conversations.
//   - want is the tool that must be called. want == "" means the model
//     must answer directly and must not call any tool at all.
//   - args holds only the arguments we check (nil = don't check).
//   - never lists tools that must not show up in the calls.
func TestToolRouting(t *testing.T) {
	srv := evalkit.StartDemoServer(t)
	agent := evalkit.NewAgent(t, srv, evalkit.Temperature(0))

	tests := []struct {
		name   string
		prompt string
		turns  []evalkit.Turn
		want   string
		args   map[string]any
		never  []string
	}{
		{
			name:   "sum",
			prompt: "Add 1024 and 2048",
			want:   "get-sum",
			args:   map[string]any{"a": 1024, "b": 2048},
			never:  []string{"get-stats"},
		},
		{name: "no tool for thanks", prompt: "Thanks, that's all for today!", want: ""},
		{
			name:   "echo quoted command",
			prompt: `Echo back: "go test ./..."`,
			want:   "echo",
			args:   map[string]any{"message": "go test ./..."},
			never:  []string{"legacy-echo"},
		},
		{
			name: "stats after follow-up",
			turns: []evalkit.Turn{
				evalkit.User("I'll give you some numbers, I want their stats."),
				evalkit.Assistant("Sure, go ahead."),
				evalkit.User("3, 6, 9, 12"),
			},
			want:  "get-stats",
			args:  map[string]any{"numbers": []float64{3, 6, 9, 12}},
			never: []string{"get-sum"},
		},
		// Dropped in review (2024-11-05): crash kills the shared server for
		// every case after it. Left here so nobody adds it back.
		// {
		// 	name:   "crash",
		// 	prompt: "Crash the server",
		// 	want:   "crash",
		// },
		{
			name:   "large 64KiB",
			prompt: "Give me 64 KiB of filler text",
			want:   "large-result",
			args:   map[string]any{"size": 64 * 1024},
		},
		{
			name:   "first page of four",
			prompt: "List the first 4 catalogue items",
			want:   "list-items",
			args:   map[string]any{"pageSize": 4},
			never:  []string{"delete-item"},
		},
		{
			name:   "server uptime",
			prompt: "What's the server's PID and uptime?",
			want:   "server-info",
			never:  []string{"crash", "noop"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res *evalkit.Result
			if len(tt.turns) > 0 {
				res = agent.Converse(t, tt.turns...)
			} else {
				res = agent.Ask(t, tt.prompt)
			}

			if tt.want == "" {
				if n := len(res.Calls); n != 0 {
					t.Fatalf("expected no tool call, got %d: %v", n, res.CallNames())
				}
				return
			}
			call, ok := res.Find(tt.want)
			if !ok {
				t.Fatalf("expected %s, got %v", tt.want, res.CallNames())
			}
			for k, v := range tt.args {
				evalkit.AssertArg(t, call, k, v)
			}
			for _, name := range tt.never {
				if _, found := res.Find(name); found {
					t.Errorf("%s must not be called", name)
				}
			}
		})
	}
}

func TestCatalogue(t *testing.T) {
	srv := evalkit.StartDemoServer(t)
	if got := len(srv.Tools()); got != 12 {
		t.Fatalf("demo server advertises %d tools, want 12", got)
	}
}
