package run

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/estimate"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/plan"
)

// PrintEstimate prints what the plan's run would spend
// (estimate.Run), as a table or, with asJSON, as JSON.
func PrintEstimate(ctx context.Context, stdout, stderr io.Writer, p *plan.Plan, o estimate.Options, asJSON bool) error {
	e, err := estimate.Run(ctx, p, o, stderr)
	if err != nil {
		return err // bad input is marked so by the harness
	}
	return cliflag.PrintResult(stdout, asJSON, e, EstimateTable(e))
}

// EstimateTable is the estimate as a table: a row per stage and the total,
// with notes saying how it was made.
func EstimateTable(e *estimate.Result) *report.Table {
	what := fmt.Sprintf("estimate: %s on %s, %s, %s", e.System, e.Dataset, count(e.Conversations, "conversation"), count(e.Questions, "question"))
	t := &report.Table{Title: what + " (nothing run, no paid call)"}
	if e.Pilot != nil {
		t.Title = what + " (scaled by a pilot of " + strings.Join(e.Pilot.Conversations, ", ") + ")"
	}
	t.Header = []string{"stage", "calls", "input tokens", "output tokens", "dollars"}
	for _, s := range e.Stages {
		t.Add(s.Stage, s.Calls, s.InputTokens, s.OutputTokens, s.Dollars.String())
	}
	calls, in, out := Totals(e)
	t.Add("total", calls, in, out, e.Total.String())
	how := "how: a dry run of the system's own build, retrieval, answer and judge code with the offline heuristics standing in for each paid model: call counts and prompts are the system's, rendered and counted for real; reply lengths (output tokens, and prompts built from earlier replies) are the heuristics', so treat them as rough"
	if p := e.Pilot; p != nil {
		how = fmt.Sprintf("how: a dry run with the offline heuristics standing in for each paid model, scaled stage by stage to a pilot run of %s against the real backend, which spent %s (its replies are in the LLM cache, so the run gets them free)", strings.Join(p.Conversations, ", "), p.Spent)
		if p.Dir != "" {
			how += "; pilot run folder " + p.Dir
		}
	} else {
		how += "; --estimate-pilot N runs N conversations for real first and scales to them"
	}
	t.Notes = []string{
		how,
		"dollars: prices as of " + e.Table.AsOf + " (--prices FILE to change or add); no provider prompt caching assumed, so input is priced in full; replies already in membench's cache are counted as paid; embed counts embedded texts and their tokens",
	}
	return t
}

// Totals are the estimate's model calls (embedding is counted in texts,
// not calls, so it is left out) and input and output tokens.
func Totals(e *estimate.Result) (calls, in, out int) {
	for _, s := range e.Stages {
		if s.Stage != "embed" {
			calls += s.Calls
		}
		in += s.InputTokens
		out += s.OutputTokens
	}
	return calls, in, out
}

func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
