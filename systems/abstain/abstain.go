// Package abstain is the gaming floor of declining questions: a system
// that remembers nothing, so the answer model reads an empty context and
// says the conversation does not tell (the offline answerer always does).
// Its scores show what declining everywhere earns: all of LoCoMo's
// adversarial (category 5) and LongMemEval's _abs questions, next to
// nothing elsewhere. A report that shows a system's declining column
// beside this one shows how much of it is more than declining.
package abstain

import (
	"context"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/systems"
)

func init() {
	systems.Register(systems.Spec{
		Name:         "abstain",
		Description:  "remembers nothing: every answer declines (the gaming floor of adversarial / _abs questions)",
		Defaults:     membench.Options{},
		NoEmbeddings: true,
		New:          func(systems.Env) (systems.System, error) { return System{}, nil },
	})
}

// System keeps no memory.
type System struct{}

// Ingest reads nothing.
func (System) Ingest(context.Context, *datasets.Conversation) (membench.BuildStats, error) {
	return membench.BuildStats{}, nil
}

// Retrieve returns an empty context.
func (System) Retrieve(context.Context, *datasets.Question, systems.Budget) (*systems.Context, error) {
	return &systems.Context{}, nil
}
