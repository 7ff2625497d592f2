package turns

import (
	"context"
	"errors"
	"fmt"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/selector"
)

var rerankDefaults = membench.Options{"n": "30", "floor": "10", "threshold": "0.5", "k": "10", "order": OrderTime}

func init() {
	systems.Register(systems.Spec{
		Name: "turns-rerank",
		Description: "raw turns; cosine top n=30 judged one by one by the decision model (ρ=P(yes)), " +
			"keep ρ>threshold best first, append cosine top floor=10, read the first k=10",
		Defaults: rerankDefaults,
		New:      newRerank,
	})
}

// Rerank is turns-rerank: cosine candidates filtered by the shared selector
// using env.Decide (the decision model).
type Rerank struct {
	st    *store
	model llm.Model
	cfg   selector.Config
	order string
}

func newRerank(env systems.Env) (systems.System, error) {
	o := env.Options
	if err := o.Check("turns-rerank", rerankDefaults); err != nil {
		return nil, err
	}
	if env.Decide == nil {
		return nil, errors.New("turns-rerank needs a decision model (--decide-model)")
	}
	cfg := selector.DefaultConfig()
	var err error
	if cfg.N, err = positive(o, "n", cfg.N); err != nil {
		return nil, err
	}
	if cfg.K, err = positive(o, "k", cfg.K); err != nil {
		return nil, err
	}
	if cfg.Floor, err = o.Int("floor", cfg.Floor); err != nil {
		return nil, err
	}
	if cfg.Floor < 0 {
		return nil, fmt.Errorf("option floor=%d: want 0 or more", cfg.Floor)
	}
	if cfg.Threshold, err = o.Float("threshold", cfg.Threshold); err != nil {
		return nil, err
	}
	if cfg.Threshold < 0 || cfg.Threshold > 1 {
		return nil, fmt.Errorf("option threshold=%v: want a probability in [0,1]", cfg.Threshold)
	}
	if env.Concurrency > 0 {
		cfg.Concurrency = env.Concurrency
	}
	order, err := o.String("order", OrderTime, OrderTime, OrderScore)
	if err != nil {
		return nil, err
	}
	st, err := newStore(env)
	if err != nil {
		return nil, err
	}
	return &Rerank{st: st, model: env.Decide, cfg: cfg, order: order}, nil
}

func (r *Rerank) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	return r.st.ingest(ctx, conv)
}

func (r *Rerank) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	cfg := r.cfg
	if b.K > 0 {
		cfg.K = b.K
	}
	cands, err := r.st.search(ctx, q, cfg.N)
	if err != nil {
		return nil, err
	}
	sel, notes, err := selector.Select(ctx, r.model, q, cands, cfg)
	if err != nil {
		return nil, fmt.Errorf("turns-rerank: %w", err)
	}
	c := MakeContext(fitBudget(sel, b.MaxTokens), r.order)
	c.Candidates = cands
	c.Notes = map[string]any{}
	notes.AddTo(c.Notes)
	return c, nil
}
