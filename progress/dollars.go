package progress

import (
	"slices"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
)

// Priced prices the line's usage with a run's table: "$0.0123", "$0
// (offline)", or unknown naming the models with no price. A run that calls
// a priced model shows "$0" until its first priced call: its free work so
// far (local embeddings, offline roles) does not make it offline.
func Priced(t *prices.Table, m runlog.Manifest) func([]membench.Tally) string {
	roles, paid := prices.Roles(m), prices.Paid(m)
	return func(ts []membench.Tally) string {
		var a prices.Amount
		for _, st := range t.Stages(ts, roles) {
			a = a.Add(st)
		}
		switch {
		case !a.Known():
			return "$ " + a.String()
		case !a.Paid && (!worked(ts) || paid):
			return "$0" // nothing spent yet: not "offline"
		}
		return a.String()
	}
}

func worked(ts []membench.Tally) bool {
	return slices.ContainsFunc(ts, func(t membench.Tally) bool { return t.Calls > 0 || t.InputTokens > 0 })
}
