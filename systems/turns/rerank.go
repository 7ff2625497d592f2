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
	base
	model llm.Model
	cfg   selector.Config
}

func newRerank(env systems.Env) (systems.System, error) {
	if env.Decide == nil {
		return nil, errors.New("turns-rerank needs a decision model (--decide-model)")
	}
	r := systems.Read(env.Options)
	cfg := selector.DefaultConfig()
	cfg.N, cfg.K = r.Min("n", cfg.N, 1), r.Min("k", cfg.K, 1)
	cfg.ReadCutoffs(r, env.Concurrency)
	b, err := newBase(env, r)
	if err != nil {
		return nil, err
	}
	return &Rerank{base: b, model: env.Decide, cfg: cfg}, nil
}

func (r *Rerank) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	cfg := r.cfg
	cfg.K = b.KOr(cfg.K)
	cands, err := r.st.search(ctx, q, cfg.N)
	if err != nil {
		return nil, err
	}
	sel, notes, err := selector.Select(ctx, r.model, q, cands, cfg)
	if err != nil {
		return nil, fmt.Errorf("turns-rerank: %w", err)
	}
	c := MakeContext(FitBudget(sel, b.MaxTokens), r.order)
	c.Candidates = cands
	c.Notes = map[string]any{}
	notes.AddTo(c.Notes)
	return c, nil
}
