package run

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/estimate"
	"github.com/membench/membench/llm/llmtest"
)

// --estimate prints calls, tokens and dollars by stage and a total, says
// how they were found, sends no call and writes no run folder; with
// --estimate-pilot it first runs that many conversations for real and
// says it scaled to them; --json gives the same figures.
func TestRunEstimate(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	t.Setenv("OPENAI_API_KEY", "sk-test-estimate")
	var out bytes.Buffer
	o := options(t, &out)
	o.Config.System, o.Config.Limit, o.Config.Judges = "turns-rerank", 4, nil
	o.LLM, o.Model, o.BaseURL = "openai", "gpt-4o-mini", srv.URL
	o.Estimate = true
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"estimate: turns-rerank on sample, 1 conversation, 4 questions (nothing run, no paid call)", "│ retrieve", "│ answer ", "│ judge ", "how: a dry run of the system's own", "prices as of "} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if !regexp.MustCompile(`│ total +│ \d+ +│ \d+ +│ \d+ +│ \$0\.\d+ +│`).MatchString(got) {
		t.Errorf("no total row in dollars:\n%s", got)
	}
	if n := srv.Count("/v1/chat/completions"); n != 0 {
		t.Errorf("--estimate sent %d calls", n)
	}
	if _, err := os.Stat(o.Config.ResultsDir); !os.IsNotExist(err) {
		t.Errorf("--estimate made %s (%v)", o.Config.ResultsDir, err)
	}

	out.Reset()
	o.EstimatePilot, o.JSON = 1, true
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var e estimate.Result
	if err := json.Unmarshal(out.Bytes(), &e); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if e.Pilot == nil || len(e.Pilot.Conversations) != 1 || srv.Count("/v1/chat/completions") == 0 || !e.Total.Known() || e.Total.Dollars <= 0 {
		t.Errorf("pilot estimate %+v after %d calls", e, srv.Count("/v1/chat/completions"))
	}

	o.Estimate = false
	if err := Run(context.Background(), o); clierr.Code(err) != 2 || !strings.Contains(err.Error(), "--estimate-pilot goes with --estimate") {
		t.Errorf("--estimate-pilot alone: %v", err)
	}
	// An outside system would be run for real by a dry run.
	o.Estimate, o.EstimatePilot, o.Config.System, o.Opts = true, 0, "exec", []string{"cmd=true"}
	if err := Run(context.Background(), o); clierr.Code(err) != 2 || !strings.Contains(err.Error(), "runs outside membench") {
		t.Errorf("--estimate of an exec system: %v", err)
	}
}
