package harness_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/summary"
)

// A judge that gave no verdict is re-asked by the rerun: the calls of the
// replaced verdicts are labelled as re-asked invalid verdicts, not as work
// cut off by an interruption; the summary names the judge's model and
// says it is the answer model.
func TestReaskedInvalidVerdictsHaveTheirOwnLabel(t *testing.T) {
	var verdicts atomic.Bool
	var judgeCalls atomic.Int64
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(strings.ToLower(r.Messages[0].Content+r.LastUser()), "judge") || strings.Contains(strings.ToLower(r.LastUser()), "gold") {
			judgeCalls.Add(1)
			if !verdicts.Load() {
				return llmtest.Reply{Text: "Hard to say."}
			}
			return llmtest.Reply{Text: `{"reason": "same", "label": "CORRECT"}`}
		}
		return llmtest.Reply{Text: "Biscuit"}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test-reask")
	cfg := harnesstest.Config(t, "fullcontext")
	cfg.Limit = 3
	cfg.Model = "backend=openai,model=gpt-4o-mini,base-url=" + srv.URL
	cfg.Judges = []string{"llm"}
	first, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if first.Invalid["llm"] != 3 {
		t.Fatalf("first pass: %d invalid verdicts, want 3", first.Invalid["llm"])
	}
	wasted := judgeCalls.Load()
	verdicts.Store(true)
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Invalid["llm"] != 0 {
		t.Fatalf("rerun left %d invalid", sum.Invalid["llm"])
	}
	re := sum.ReaskedCalls()
	if int64(re.Calls) != wasted || re.Calls != sum.RedoneCalls().Calls {
		t.Errorf("re-asked %d calls, redone %d; the invalid pass made %d", re.Calls, sum.RedoneCalls().Calls, wasted)
	}
	var notes strings.Builder
	summary.Print(&notes, sum)
	got := notes.String()
	flat := strings.Join(strings.Fields(got), " ")
	if !strings.Contains(flat, "re-asked invalid verdicts") || strings.Contains(flat, "cut off or redone after an interruption") {
		t.Errorf("notes:\n%s", got)
	}
	if !strings.Contains(flat, "judge models: llm asks openai:gpt-4o-mini, the answer model itself") {
		t.Errorf("no judge model note:\n%s", got)
	}
}
