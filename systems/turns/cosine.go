package turns

import (
	"context"

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

// base is what the three turns systems share: the embedded turns, the
// reading order, and Ingest.
type base struct {
	st    *store
	order string
}

// newBase reads the order option last (after the system's own options in
// r, so the first bad option is the one named) and makes the store.
func newBase(env systems.Env, r *systems.Reader) (base, error) {
	order := r.String("order", OrderTime, OrderTime, OrderScore)
	if r.Err != nil {
		return base{}, r.Err
	}
	st, err := newStore(env)
	return base{st: st, order: order}, err
}

func (b *base) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	return b.st.ingest(ctx, conv)
}

// Cosine is turns-cosine: the k turns nearest the question.
type Cosine struct {
	base
	k int
}

func newCosine(env systems.Env) (systems.System, error) {
	r := systems.Read(env.Options)
	k := r.Min("k", 10, 1)
	b, err := newBase(env, r)
	if err != nil {
		return nil, err
	}
	return &Cosine{base: b, k: k}, nil
}

func (c *Cosine) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	k := b.KOr(c.k)
	hits, err := c.st.search(ctx, q, k)
	if err != nil {
		return nil, err
	}
	return MakeContext(FitBudget(hits, b.MaxTokens), c.order), nil
}
