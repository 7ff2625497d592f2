package estimate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/estimate"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"

	_ "github.com/membench/membench/answer"
	_ "github.com/membench/membench/systems/all"
)

const locomoFile = "/work/shared/datasets/locomo10.json"

// extractLine is one utterance as structmem's extraction prompt lists it.
// windowTime is the first event time of a StructMem window prompt.
var windowTime = regexp.MustCompile(`(?m)^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]`)

var extractLine = regexp.MustCompile(`(?m)^\[([A-Z0-9]+:[0-9]+) \| [^\]]*\] ?(.*)$`)

// modelLike replies the way a chat model asked by membench does, in
// lengths a real model gives and with no knowledge of the offline
// heuristics: a relevance decision by first-token logprobs, a judge a
// JSON verdict with a one-sentence reason, structmem's extraction one
// entry per utterance restating it, its consolidation a 200-350-word
// narrative (or no links, for the links prompt), anything else a
// one-sentence answer.
func modelLike(_ int, r llmtest.ChatRequest) llmtest.Reply {
	u := r.LastUser()
	h := fnv.New32a()
	h.Write([]byte(u))
	x := h.Sum32()
	words := strings.Fields(u)
	pick := func(n int) string {
		var out []string
		for i := range n {
			out = append(out, words[(int(x)+7*i)%len(words)])
		}
		return strings.Join(out, " ")
	}
	switch {
	case r.Logprobs:
		p := -0.1 - float64(x%30)/10
		return llmtest.Reply{Text: "yes", TopLogprobs: []llmtest.TopLogprob{{Token: "yes", Logprob: p}, {Token: "no", Logprob: -1.2}}}
	case strings.Contains(u, "Write the window's narrative."):
		// StructMem's window synthesis: a narrative citing the window's
		// first event, in the JSON shape the prompt asks for.
		ts := windowTime.FindStringSubmatch(u)
		cite := ""
		if ts != nil {
			cite = ts[1]
		}
		b, _ := json.Marshal(map[string]any{"narrative": "[" + cite + "] " + pick(200+int(x%150)), "times": []string{cite}})
		return llmtest.Reply{Text: string(b)}
	case strings.Contains(strings.ToLower(r.Messages[0].Content+u), "judge") || strings.Contains(strings.ToLower(u), "gold"):
		label := "CORRECT"
		if x%3 == 0 {
			label = "WRONG"
		}
		return llmtest.Reply{Text: fmt.Sprintf(`{"reason": "The response %s the gold answer about %s.", "label": "%s"}`, map[bool]string{true: "matches", false: "misses"}[label == "CORRECT"], pick(8), label)}
	case strings.Contains(u, "Write the synthesis links."):
		return llmtest.Reply{Text: `{"links": []}`}
	case strings.Contains(strings.ToLower(u), "synthesis") || strings.Contains(strings.ToLower(u), "narrative"):
		return llmtest.Reply{Text: pick(200 + int(x%150))}
	case extractLine.MatchString(u):
		var es []map[string]string
		for _, m := range extractLine.FindAllStringSubmatch(u, -1) {
			text := strings.Fields(m[2])
			es = append(es, map[string]string{"utterance": m[1], "text": strings.Join(text[:min(len(text), 18)], " ")})
		}
		b, _ := json.Marshal(map[string]any{"entries": es})
		return llmtest.Reply{Text: string(b)}
	default:
		return llmtest.Reply{Text: "They " + pick(10) + "."}
	}
}

// The estimate made before a run is within 25% of the dollars the run
// then spends against a model-like server on LoCoMo conv-26 at
// gpt-4o-mini prices: from the offline heuristics alone for turns-rerank
// and fullcontext (it makes no call), and for structmem, whose heuristic
// extraction writes more than a model does, scaled by a pilot on another
// conversation (conv-30).
func TestEstimateWithinAQuarterOfTheSpend(t *testing.T) {
	if _, err := os.Stat(locomoFile); err != nil {
		t.Skipf("LoCoMo not here (%v): the estimate check needs the real conv-26", err)
	}
	if testing.Short() {
		t.Skip("runs LoCoMo conv-26 three times")
	}
	for _, tc := range []struct {
		system string
		pilot  []string
	}{{"turns-rerank", nil}, {"fullcontext", nil}, {"structmem", []string{"conv-30"}}} {
		system := tc.system
		t.Run(system, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithChat(modelLike), llmtest.WithoutBodies(), llmtest.WithTokenizer(tokens.Count))
			t.Setenv("OPENAI_API_KEY", "sk-test-estimate")
			cfg := harnesstest.Config(t, system)
			cfg.Dataset, cfg.Data, cfg.Conversations = "locomo", locomoFile, []string{"conv-26"}
			cfg.Model = "backend=openai,model=gpt-4o-mini,base-url=" + srv.URL
			cfg.Concurrency = 8
			pl, err := plan.Resolve(cfg, plan.Env{})
			if err != nil {
				t.Fatal(err)
			}
			est, err := estimate.Run(context.Background(), pl, estimate.Options{PilotConversations: tc.pilot}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			n := srv.Count("/v1/chat/completions")
			if tc.pilot == nil && n != 0 {
				t.Fatalf("the estimate sent %d calls", n)
			}
			if tc.pilot != nil && (n == 0 || est.Pilot == nil || !est.Pilot.Spent.Known() || est.Pilot.Spent.Dollars == 0) {
				t.Fatalf("a pilot run of %v sent %d calls (pilot %+v)", tc.pilot, n, est.Pilot)
			}
			if entries, _ := os.ReadDir(cfg.ResultsDir); len(entries) != 0 {
				t.Fatalf("the estimate wrote under --results: %v", entries)
			}
			sum, err := harness.Run(context.Background(), cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			bill, err := prices.ForRun(filepath.Join(cfg.ResultsDir, sum.RunID), prices.Default())
			if err != nil {
				t.Fatal(err)
			}
			if !est.Total.Known() || !bill.Total.Known() || bill.Total.Dollars == 0 {
				t.Fatalf("estimate %v, spent %v", est.Total, bill.Total)
			}
			ratio := est.Total.Dollars / bill.Total.Dollars
			var b strings.Builder
			for _, st := range est.Stages {
				got := sum.Stages[st.Stage]
				if st.Stage == "embed" {
					got = sum.Stages["embed:embedding"]
				}
				fmt.Fprintf(&b, "\n  %-8s calls %5d/%5d  in %8d/%8d  out %7d/%7d  %s/%s", st.Stage, st.Calls, got.Calls, st.InputTokens, got.InputTokens, st.OutputTokens, got.OutputTokens, st.Dollars, bill.Stages[st.Stage])
			}
			t.Logf("%s: estimate %s, spent %s, ratio %.3f (stage: estimated/recorded)%s", system, est.Total, bill.Total, ratio, b.String())
			if ratio < 0.75 || ratio > 1.25 {
				t.Errorf("%s: the estimate is %.2f of the spend, want within 25%%", system, ratio)
			}
			if est.Questions != sum.Questions || est.Conversations != 1 {
				t.Errorf("estimate of %d conversations, %d questions; the run had %d questions", est.Conversations, est.Questions, sum.Questions)
			}
		})
	}
}

var _ = runlog.CostsFile
