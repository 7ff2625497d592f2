package harness_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// summary.json and summary.md hold the run's dollars by stage: priced
// from the tokens costs.jsonl records for a model with a price, and
// unknown (never $0) for one without; the progress line ends with the
// same amount.
func TestSummaryDollarsByStage(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	t.Setenv("OPENAI_API_KEY", "sk-test-dollars")
	for _, tc := range []struct {
		model string
		known bool
	}{{"gpt-4o-mini", true}, {"my-local-model", false}} {
		t.Run(tc.model, func(t *testing.T) {
			cfg := harnesstest.Config(t, "fullcontext")
			cfg.Quiet = false
			cfg.Model = "backend=openai,model=" + tc.model + ",base-url=" + srv.URL
			cfg.Judges = []string{"llm", "f1"}
			logPath := filepath.Join(t.TempDir(), "run.log")
			f, err := os.Create(logPath)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := harness.Run(context.Background(), cfg, f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			dir := harnesstest.Dir(t, cfg)
			var onDisk runlog.Summary
			b, err := os.ReadFile(filepath.Join(dir, runlog.SummaryJSON))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &onDisk); err != nil {
				t.Fatal(err)
			}
			d := onDisk.Dollars
			if d == nil || sum.Dollars == nil {
				t.Fatalf("no dollars in summary.json:\n%s", b)
			}
			for _, st := range []string{"answer", "judge"} {
				a, ok := d.Stages[st]
				if !ok {
					t.Fatalf("no %s stage in %+v", st, d.Stages)
				}
				if !tc.known {
					if a.USD != nil || len(a.Unpriced) == 0 || !strings.Contains(a.Unpriced[0], tc.model) {
						t.Errorf("%s of an unpriced model: %+v, want unknown naming it", st, a)
					}
					continue
				}
				// gpt-4o-mini: $0.15 in, $0.60 out per 1M tokens.
				c := onDisk.Stages[st]
				want := (float64(c.InputTokens)*0.15 + float64(c.OutputTokens)*0.60) / 1e6
				if a.USD == nil || math.Abs(*a.USD-want) > 1e-12 || want == 0 {
					t.Errorf("%s: %v dollars, want %v from %d in + %d out tokens", st, a.USD, want, c.InputTokens, c.OutputTokens)
				}
			}
			if tc.known == (d.Total.USD == nil) {
				t.Errorf("total %+v", d.Total)
			}
			md, err := os.ReadFile(filepath.Join(dir, runlog.SummaryMD))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), d.Line) || !strings.HasPrefix(d.Line, "dollars: ") {
				t.Errorf("summary.md does not hold the dollars line %q:\n%s", d.Line, md)
			}
			log, _ := os.ReadFile(logPath)
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			end := lines[len(lines)-1]
			if tc.known && !strings.HasSuffix(end, " · $"+strings.TrimPrefix(strings.Fields(strings.SplitAfter(d.Line, "total ")[1])[0], "$")) {
				t.Errorf("progress end %q does not end with the total of %q", end, d.Line)
			}
			if !tc.known && !strings.HasSuffix(end, " · $ unknown (no price for openai:"+tc.model+")") {
				t.Errorf("progress end %q, want the dollars unknown", end)
			}
		})
	}
}
