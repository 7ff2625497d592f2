// Package harnesstest holds the test helpers that need the run's plan;
// it is its own package because internal/testutil is imported by the
// plan's and the engine's tests and so cannot import them.
package harnesstest

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/plan"

	// Config's runs default to the sample, which registers from here.
	_ "github.com/membench/membench/datasets/all"
)

// Dir is the run directory harness.Run makes of cfg (the id comes from
// the resolved config: embedder chosen, k in one place, data hash).
func Dir(tb testing.TB, cfg membench.Config) string {
	tb.Helper()
	r, err := plan.Resolve(cfg, plan.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return r.Dir
}

// Config is an offline run of system on the sample in temp folders, with
// the hashed embedder so that it does not depend on the installed model.
func Config(tb testing.TB, system string) membench.Config {
	tb.Helper()
	return membench.Config{System: system, ResultsDir: tb.TempDir(), CacheDir: tb.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: tb.TempDir(), Embedder: "hashed"}}
}

// Replies answers like a real model would be asked: relevance decisions
// with first-token logprobs that vary by request, answers and verdicts that
// depend on the prompt, so a replay that served the wrong reply would show.
func Replies(_ int, r llmtest.ChatRequest) llmtest.Reply {
	u := r.LastUser()
	h := fnv.New32a()
	h.Write([]byte(u))
	x := h.Sum32()
	if r.Logprobs {
		p := float64(x%1000) / 1000
		lp := func(q float64) float64 { return math.Log(max(q, 1e-6)) }
		return llmtest.Reply{Text: "yes", TopLogprobs: []llmtest.TopLogprob{{Token: "yes", Logprob: lp(p)}, {Token: "no", Logprob: lp(1 - p)}}}
	}
	low := strings.ToLower(r.Messages[0].Content + u)
	if strings.Contains(low, "judge") || strings.Contains(low, "gold") {
		label := "CORRECT"
		if x%3 == 0 {
			label = "WRONG"
		}
		return llmtest.Reply{Text: fmt.Sprintf(`{"reason": "r%d", "label": %q}`, x%97, label)}
	}
	return llmtest.Reply{Text: fmt.Sprintf("answer %d", x%50)}
}
