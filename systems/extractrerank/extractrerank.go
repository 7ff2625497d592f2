// Package extractrerank is a simplified, honestly named stand-in for the
// raw-turn study's "engram v2" comparator: facts extracted and consolidated
// by the flat (mem0-style) build, read through the same decision-model
// selector as turns-rerank (cosine top n candidates, one yes/no decision
// per fact, keep ρ > threshold best first, cosine floor, first k). It is
// not engram: the decision model does not type, link or update facts here;
// only the read path matches.
package extractrerank

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/flat"
	"github.com/membench/membench/systems/selector"
)

// Order values: the order the answer model reads the selected facts in.
const (
	OrderTime  = "time"
	OrderScore = "score"
)

// Defaults: flat's build options (batch, similar) and turns-rerank's
// selector settings (n=30, floor=10, threshold=0.5, k=10).
var Defaults = membench.Options{
	"batch": "message", "similar": "5",
	"n": "30", "floor": "10", "threshold": "0.5", "k": "10", "order": OrderTime,
}

func init() {
	systems.Register(systems.Spec{
		Name: "extract-rerank",
		Description: "flat (mem0-style) extracted facts; cosine top n=30 facts judged by the decision model (shared selector), " +
			"keep ρ>threshold best first, cosine floor=10, first k=10 (simplified engram-style comparator)",
		Defaults: Defaults,
		// Extraction per message: a greeting rightly gives nothing, so
		// only an empty memory or all-empty replies degrade a build.
		Memory: systems.MemoryRule{Builds: true},
		New:    New,
	})
}

// System is one conversation's extract-rerank memory.
type System struct {
	env   systems.Env
	flat  flat.Config
	sel   selector.Config
	order string
	store *flat.Store
}

// New makes the system from env.Options.
func New(env systems.Env) (systems.System, error) {
	o := env.Options.Merge(Defaults)
	if env.Build == nil || env.Embedder == nil {
		return nil, errors.New("extract-rerank needs a build model and an embedder")
	}
	if env.Decide == nil {
		return nil, errors.New("extract-rerank needs a decision model (--decide-model)")
	}
	fc, err := flat.ParseConfig(membench.Options{"batch": o["batch"], "similar": o["similar"], "mode": "combined"})
	if err != nil {
		return nil, fmt.Errorf("system extract-rerank: %w", err)
	}
	r := systems.Read(o)
	sc := selector.DefaultConfig()
	sc.N, sc.K = r.Int("n", sc.N), r.Int("k", sc.K)
	if sc.N < 1 || sc.K < 1 {
		r.Failf("options n=%d, k=%d: both must be at least 1", sc.N, sc.K)
	}
	sc.ReadCutoffs(r, env.Concurrency)
	order := r.String("order", OrderTime, OrderTime, OrderScore)
	if r.Err != nil {
		return nil, r.Err
	}
	return &System{env: env, flat: fc, sel: sc, order: order}, nil
}

// Store is the built fact store (nil before Ingest).
func (s *System) Store() *flat.Store { return s.store }

func (s *System) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	st, stats, err := flat.Build(ctx, s.env, conv, s.flat)
	if err != nil {
		return stats, err
	}
	s.store = st
	return stats, nil
}

func (s *System) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	if s.store == nil {
		return nil, errors.New("extract-rerank: Retrieve before Ingest")
	}
	cfg := s.sel
	cfg.K = b.KOr(cfg.K)
	v, err := s.env.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("extract-rerank: embedding question %s: %w", q.ID, err)
	}
	var cands []membench.Item
	for _, h := range s.store.Search(v[0], cfg.N) {
		cands = append(cands, flat.Item(h))
	}
	sel, notes, err := selector.Select(ctx, s.env.Decide, q, cands, cfg)
	if err != nil {
		return nil, fmt.Errorf("extract-rerank: %w", err)
	}
	// The budget cuts the selection (best first) before reordering.
	items := flat.TrimToTokens([]flat.Group{{Title: "Memories", Items: sel}}, b.MaxTokens)[0].Items
	if s.order == OrderTime {
		items = append([]membench.Item(nil), items...)
		sort.SliceStable(items, func(i, j int) bool { return items[i].Time.Before(items[j].Time) })
	}
	rendered := flat.Render([]flat.Group{{Title: "Memories", Items: items}})
	c := &systems.Context{Items: items, Rendered: rendered, Tokens: tokens.Count(rendered), Candidates: cands, Notes: map[string]any{}}
	notes.AddTo(c.Notes)
	return c, nil
}
