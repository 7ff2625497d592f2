// Package turnsgraph is turns-graph: a graph over raw turns built after the
// raw-turn study's description of its "Jev-Mem" comparator (turns are
// nodes, the decision model types the edges, 2–16 decision calls per read).
// No implementation of Jev-Mem was released; this follows the paper's one
// paragraph, and every choice below that the paper does not fix is ours.
//
// Build: every turn is stored unchanged with date and speaker (the
// turns-cosine store); each turn is linked to its m most similar earlier
// turns, and one decision request per candidate edge types it over
// {same topic, follows up, updates or contradicts, answers, unrelated};
// edges with P(unrelated) ≥ 0.5 are dropped, the others keep their most
// probable type and weight 1 − P(unrelated).
//
// Read: the walk starts from the cosine top seeds, each with its cosine as
// activation; a turn reached along an edge gets the parent's score × edge
// weight (the best path wins). The frontier is every unjudged turn with an
// activation, and the decision model (the relevance decision of
// turns-rerank, one request per turn) is asked about the best frontier
// turns in rounds of width; an accepted turn (ρ > threshold) is expanded
// along its edges with ρ as its score. The walk stops when max_calls
// decisions are spent, the frontier is empty, or a whole round is rejected
// once min_calls are made; defaults give 2–16 decisions per question. The
// answer model reads the first k turns of: accepted turns by ρ, unjudged
// turns by activation, rejected turns by ρ.
package turnsgraph

import (
	"errors"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/turns"
)

// Name is the system's registered name.
const Name = "turns-graph"

// Defaults: m=5 edges per new turn (the default), 10 seeds (the
// size of turns-rerank's cosine floor), 2–16 decisions per read in rounds
// of 4, ρ threshold 0.5 and k=10 as turns-rerank.
var Defaults = membench.Options{
	"m": "5", "seeds": "10", "min_calls": "2", "max_calls": "16", "width": "4",
	"threshold": "0.5", "k": "10", "order": turns.OrderTime,
}

func init() {
	systems.Register(systems.Spec{
		Name: Name,
		Description: "graph over raw turns after the raw-turn study's description of Jev-Mem (not a released implementation): " +
			"each turn linked to its m=5 most similar earlier turns, edges typed by the decision model; read expands " +
			"cosine seeds=10 along typed edges with 2–16 frontier decisions, first k=10",
		Defaults: Defaults,
		// Its memory is the turns and the typed edges between them; edge
		// decisions are not extraction replies, so no empty-reply limit.
		Memory: systems.MemoryRule{Builds: true},
		New:    New,
	})
}

// Config holds the parsed options.
type Config struct {
	M, Seeds, MinCalls, MaxCalls, Width, K int
	Threshold                              float64
	Order                                  string
	Concurrency                            int
}

// ParseConfig validates the options, naming the option in each error.
func ParseConfig(o membench.Options) (Config, error) {
	if err := o.Check(Name, Defaults); err != nil {
		return Config{}, err
	}
	r := systems.Read(o.Merge(Defaults))
	c := Config{M: r.Min("m", 0, 1), Seeds: r.Min("seeds", 0, 1), MinCalls: r.Min("min_calls", 0, 0),
		MaxCalls: r.Min("max_calls", 0, 1), Width: r.Min("width", 0, 1), K: r.Min("k", 0, 1)}
	if c.MinCalls > c.MaxCalls {
		r.Failf("options min_calls=%d, max_calls=%d: min_calls must not exceed max_calls", c.MinCalls, c.MaxCalls)
	}
	if c.Seeds < c.MinCalls {
		// The seeds are the first frontier: fewer could not fill min_calls.
		r.Failf("options seeds=%d, min_calls=%d: seeds must be at least min_calls", c.Seeds, c.MinCalls)
	}
	c.Threshold = r.Float("threshold", 0.5)
	if c.Threshold < 0 || c.Threshold > 1 {
		r.Failf("option threshold=%v: want a probability in [0,1]", c.Threshold)
	}
	c.Order = r.String("order", turns.OrderTime, turns.OrderTime, turns.OrderScore)
	if r.Err != nil {
		return Config{}, r.Err
	}
	return c, nil
}

// System is one conversation's turn graph.
type System struct {
	cfg   Config
	model llm.Model
	meter interface {
		TotalTokens(stage membench.Stage) int
	}
	store *turns.Store
	g     *Graph
}

// New makes the system from env.Options.
func New(env systems.Env) (systems.System, error) {
	cfg, err := ParseConfig(env.Options)
	if err != nil {
		return nil, err
	}
	if env.Decide == nil {
		return nil, errors.New("turns-graph needs a decision model (--decide-model)")
	}
	cfg.Concurrency = env.Concurrency
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	st, err := turns.NewStore(env)
	if err != nil {
		return nil, err
	}
	return &System{cfg: cfg, model: env.Decide, meter: env.Meter, store: st}, nil
}

// Graph returns the built graph (nil before Ingest).
func (s *System) Graph() *Graph { return s.g }
