package turns

import (
	"context"
	"fmt"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/systems"
)

var cosineDefaults = membench.Options{"k": "10", "order": OrderTime}

func init() {
	systems.Register(systems.Spec{
		Name:        "turns-cosine",
		Description: "raw turns with date and speaker; exact cosine top-k (k=10; order=time|score sets reading order)",
		Defaults:    cosineDefaults,
		New:         newCosine,
	})
}

// Cosine is turns-cosine: the k turns nearest the question.
type Cosine struct {
	st    *store
	k     int
	order string
}

func newCosine(env systems.Env) (systems.System, error) {
	o := env.Options
	if err := o.Check("turns-cosine", cosineDefaults); err != nil {
		return nil, err
	}
	k, err := positive(o, "k", 10)
	if err != nil {
		return nil, err
	}
	order, err := o.String("order", OrderTime, OrderTime, OrderScore)
	if err != nil {
		return nil, err
	}
	st, err := newStore(env)
	if err != nil {
		return nil, err
	}
	return &Cosine{st: st, k: k, order: order}, nil
}

func (c *Cosine) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	return c.st.ingest(ctx, conv)
}

func (c *Cosine) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	k := c.k
	if b.K > 0 {
		k = b.K
	}
	hits, err := c.st.search(ctx, q, k)
	if err != nil {
		return nil, err
	}
	return MakeContext(fitBudget(hits, b.MaxTokens), c.order), nil
}

// positive reads an integer option that must be at least 1.
func positive(o membench.Options, key string, def int) (int, error) {
	n, err := o.Int(key, def)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("option %s=%d: want an integer of at least 1", key, n)
	}
	return n, nil
}
