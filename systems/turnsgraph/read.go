package turnsgraph

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/selector"
	"github.com/membench/membench/systems/turns"
)

// node is one turn's state during a read.
type node struct {
	pos    int
	seed   bool
	act    float64 // cosine for seeds, raised by the best path along an edge
	via    string  // type of that edge, "" while the cosine is best
	judged bool
	rho    float64
}

// Walk is what one read did, recorded in the retrieval record's notes.
type Walk struct {
	DecisionCalls int                `json:"decision_calls"`
	Rounds        int                `json:"rounds"`
	Seeds         int                `json:"seeds"`
	Reached       int                `json:"reached"` // frontier turns reached along edges
	Accepted      int                `json:"accepted"`
	Rho           map[string]float64 `json:"rho"` // per judged turn id
	Via           map[string]string  `json:"via"` // edge type that reached each accepted turn
	Stop          string             `json:"stop"`
}

func (s *System) Retrieve(ctx context.Context, q *datasets.Question, b systems.Budget) (*systems.Context, error) {
	if s.g == nil {
		return nil, errors.New("turns-graph: Retrieve called before Ingest")
	}
	k := b.KOr(s.cfg.K)
	seeds, err := s.store.Nearest(ctx, q, s.cfg.Seeds)
	if err != nil {
		return nil, err
	}
	ts := s.store.Turns()
	nodes := map[int]*node{}
	get := func(p int) *node {
		n := nodes[p]
		if n == nil {
			n = &node{pos: p}
			nodes[p] = n
		}
		return n
	}
	for _, sd := range seeds {
		n := get(sd.Pos)
		n.seed, n.act = true, sd.Cosine
	}
	// expand raises the activation of p's unjudged, non-seed neighbours.
	expand := func(p int, score float64) {
		for _, e := range s.g.Neighbours(p) {
			o := e.To
			if o == p {
				o = e.From
			}
			n := get(o)
			if n.judged {
				continue
			}
			if a := score * e.Weight; a > n.act {
				n.act, n.via = a, e.Type
			}
		}
	}
	for _, sd := range seeds {
		expand(sd.Pos, sd.Cosine)
	}

	w := Walk{Seeds: len(seeds), Rho: map[string]float64{}, Via: map[string]string{}}
	for w.DecisionCalls < s.cfg.MaxCalls {
		batch := frontier(nodes, min(s.cfg.Width, s.cfg.MaxCalls-w.DecisionCalls))
		if len(batch) == 0 {
			w.Stop = "frontier empty"
			break
		}
		rho, err := systems.ParallelMap(ctx, len(batch), s.cfg.Concurrency, func(ctx context.Context, i int) (float64, error) {
			return selector.Judge(ctx, s.model, q, turns.TurnItem(ts[batch[i].pos], 0))
		})
		if err != nil {
			return nil, fmt.Errorf("turns-graph: %w", err)
		}
		w.Rounds++
		w.DecisionCalls += len(batch)
		accepted := 0
		for i, n := range batch {
			n.judged, n.rho = true, rho[i]
			w.Rho[ts[n.pos].ID] = rho[i]
			if rho[i] > s.cfg.Threshold {
				accepted++
				if n.via != "" {
					w.Via[ts[n.pos].ID] = n.via
				}
			}
		}
		// Expanded after the whole round, in batch order: the result does
		// not depend on which request finished first.
		for i, n := range batch {
			if rho[i] > s.cfg.Threshold {
				expand(n.pos, rho[i])
			}
		}
		w.Accepted += accepted
		if accepted == 0 && w.DecisionCalls >= s.cfg.MinCalls {
			w.Stop = "round rejected"
			break
		}
	}
	if w.Stop == "" {
		w.Stop = "budget spent"
	}
	for _, n := range nodes {
		if !n.seed && (n.act > 0 || n.judged) {
			w.Reached++
		}
	}

	ranked := rank(nodes, s.cfg.Threshold)
	items := make([]membench.Item, 0, k)
	var cands []membench.Item
	for _, r := range ranked {
		it := turns.TurnItem(ts[r.n.pos], r.score)
		if r.n.seed || r.n.judged {
			cands = append(cands, it)
		}
		if len(items) < k {
			items = append(items, it)
		}
	}
	c := turns.MakeContext(turns.FitBudget(items, b.MaxTokens), s.cfg.Order)
	c.Candidates = cands
	c.Notes = map[string]any{
		"decision_calls": w.DecisionCalls, "rounds": w.Rounds, "seeds": w.Seeds, "reached": w.Reached,
		"accepted": w.Accepted, "rho": w.Rho, "via": w.Via, "stop": w.Stop,
	}
	return c, nil
}

// frontier returns up to n unjudged turns (seeds or reached along edges) by
// activation, best first (ties to the earlier turn).
func frontier(nodes map[int]*node, n int) []*node {
	var f []*node
	for _, x := range nodes {
		if !x.judged && x.act > 0 {
			f = append(f, x)
		}
	}
	sort.Slice(f, func(a, b int) bool {
		if f[a].act != f[b].act {
			return f[a].act > f[b].act
		}
		return f[a].pos < f[b].pos
	})
	return f[:min(n, len(f))]
}

type ranked struct {
	n     *node
	tier  int
	score float64
}

// rank orders every touched turn: accepted by ρ, unjudged ones (seeds and
// reached turns) by activation, rejected by ρ. The score within a tier
// becomes the item's score.
func rank(nodes map[int]*node, threshold float64) []ranked {
	out := make([]ranked, 0, len(nodes))
	for _, n := range nodes {
		switch {
		case n.judged && n.rho > threshold:
			out = append(out, ranked{n, 0, n.rho})
		case !n.judged && n.act > 0:
			out = append(out, ranked{n, 2, n.act})
		case n.judged:
			out = append(out, ranked{n, 3, n.rho})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].tier != out[b].tier {
			return out[a].tier < out[b].tier
		}
		if out[a].score != out[b].score {
			return out[a].score > out[b].score
		}
		return out[a].n.pos < out[b].n.pos
	})
	return out
}
