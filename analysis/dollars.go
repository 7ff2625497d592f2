package analysis

import (
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
)

// Dollars is the runs' model spend in dollars by stage, one row per run
// (bills[i] is runs[i]'s, from prices.ForRun).
func Dollars(runs []*runlog.Run, bills []*prices.Bill, v View) *report.Table {
	t := &report.Table{Title: "Cost in dollars by stage"}
	stages := append([]string{}, prices.StageOrder...)
	t.Header = append(append([]string{"run"}, stages...), "total", "cached in %")
	if v == Wide {
		t.Header = append([]string{"run", "method"}, t.Header[1:]...)
	}
	names, allOffline := labels(runs)
	var asOf string
	for i, r := range runs {
		b := bills[i]
		asOf = b.Table.AsOf
		cells := make([]any, 0, len(stages)+2)
		for _, st := range stages {
			if a, ok := b.Stages[st]; ok {
				cells = append(cells, a.String())
			} else {
				cells = append(cells, "-")
			}
		}
		cached := "-"
		if b.InputTokens > 0 {
			cached = report.F(100*float64(b.CachedInputTokens)/float64(b.InputTokens), 1)
		}
		cells = append(cells, b.Total.String(), cached)
		if v == Wide {
			t.Add(append([]any{r.ID(), RunLabel(r)}, cells...)...)
		} else {
			t.Add(append([]any{names[i]}, cells...)...)
		}
	}
	t.Notes = []string{
		"prices per model as of " + asOf + " (--prices FILE to change or add); input the provider served from its prompt cache is billed at the cached rate (cached in %: its share of input tokens); a stage is unknown when one of its models has no price",
		"replies served from membench's own cache are priced as if paid, so a rerun shows what the work costs; work cut off or redone is left out",
	}
	return finish(t, v, allOffline)
}
