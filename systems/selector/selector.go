// Package selector is the decision-model selector shared by every system
// that filters candidate memories (raw turns, extracted facts): one short
// yes/no request per candidate, ρ = P(yes) read from the model's token
// probabilities, keep ρ > threshold best first, then append the cosine top
// f as a floor, and return the first k.
package selector

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
)

// Task and template name of the relevance decision.
const Task = "relevance"

// Config sets the selector. The defaults follow the raw-turn study (n=30,
// f=10, threshold 0.5).
type Config struct {
	N           int     // candidates judged (the first N of the cosine order); <= 0: all given
	Floor       int     // cosine top f always appended after the passing ones
	Threshold   float64 // keep candidates with ρ strictly above this
	K           int     // return at most K items; <= 0: no cut
	Concurrency int     // parallel requests for one question; <= 0: 4
}

// DefaultConfig returns N=30, Floor=10, Threshold=0.5, K=10, Concurrency=4.
func DefaultConfig() Config {
	return Config{N: 30, Floor: 10, Threshold: 0.5, K: 10, Concurrency: 4}
}

// ReadCutoffs reads the floor and threshold options into c (after n and k,
// which each system checks in its own words) and takes the environment's
// concurrency when it sets one.
func (c *Config) ReadCutoffs(r *systems.Reader, concurrency int) {
	c.Floor = r.Int("floor", c.Floor)
	if c.Floor < 0 {
		r.Failf("option floor=%d: want 0 or more", c.Floor)
	}
	c.Threshold = r.Float("threshold", c.Threshold)
	if c.Threshold < 0 || c.Threshold > 1 {
		r.Failf("option threshold=%v: want a probability in [0,1]", c.Threshold)
	}
	if concurrency > 0 {
		c.Concurrency = concurrency
	}
}

// Notes records what the selector did for one question.
type Notes struct {
	Rho        map[string]float64 `json:"rho"`         // ρ per judged candidate id
	Judged     int                `json:"judged"`      // candidates sent to the model
	Passed     int                `json:"passed"`      // with ρ > threshold
	FloorAdded int                `json:"floor_added"` // floor items not already passing
	Returned   int                `json:"returned"`    // after the K cut
}

// AddTo copies the notes into a Context.Notes map.
func (n Notes) AddTo(m map[string]any) {
	m["rho"] = n.Rho
	m["judged"] = n.Judged
	m["passed"] = n.Passed
	m["floor_added"] = n.FloorAdded
	m["returned"] = n.Returned
}

// RelevanceInput is the data of one relevance request: the template's data
// and the offline heuristic's input.
type RelevanceInput struct {
	Question      string
	QuestionDate  string // when the question is asked, "" if unknown
	Candidate     string // the memory's text
	Speaker       string // who said it, "" for non-turn memories
	CandidateTime string // the memory's date, "" if unknown
}

// InputFor builds the relevance input for one candidate item.
func InputFor(q *datasets.Question, it membench.Item) RelevanceInput {
	in := RelevanceInput{Question: q.Text, Candidate: strings.ReplaceAll(it.Text, "\n", " "), Speaker: it.Speaker}
	if !q.AskedAt.IsZero() {
		in.QuestionDate = q.AskedAt.Format(timeLayout)
	}
	if !it.Time.IsZero() {
		in.CandidateTime = it.Time.Format(timeLayout)
	}
	return in
}

const timeLayout = "2006-01-02 15:04"

// Select judges the first cfg.N candidates (given in cosine order, best
// first) and returns the selection. Each returned item's Score is its ρ.
// Requests run concurrently, but the result depends only on the ρ values.
func Select(ctx context.Context, model llm.Model, q *datasets.Question, candidates []membench.Item, cfg Config) ([]membench.Item, Notes, error) {
	if model == nil {
		return nil, Notes{}, errors.New("selector: no decision model (set --decide-model)")
	}
	cands := candidates
	if cfg.N > 0 && len(cands) > cfg.N {
		cands = cands[:cfg.N]
	}
	lim := cfg.Concurrency
	if lim <= 0 {
		lim = 4
	}
	rho, err := systems.ParallelMap(ctx, len(cands), lim, func(ctx context.Context, i int) (float64, error) {
		return Judge(ctx, model, q, cands[i])
	})
	if err != nil {
		return nil, Notes{}, err
	}
	sel, notes := choose(cands, rho, cfg)
	return sel, notes, nil
}

// choose applies threshold, ordering, floor and cut to judged candidates.
func choose(cands []membench.Item, rho []float64, cfg Config) ([]membench.Item, Notes) {
	notes := Notes{Rho: map[string]float64{}, Judged: len(cands)}
	var pass []int
	for i, it := range cands {
		notes.Rho[it.ID] = rho[i]
		if rho[i] > cfg.Threshold {
			pass = append(pass, i)
		}
	}
	notes.Passed = len(pass)
	// Descending ρ; equal ρ keeps cosine rank (pass is in rank order).
	sort.SliceStable(pass, func(a, b int) bool { return rho[pass[a]] > rho[pass[b]] })
	in := map[int]bool{}
	for _, i := range pass {
		in[i] = true
	}
	order := pass
	for i := 0; i < cfg.Floor && i < len(cands); i++ {
		if !in[i] {
			in[i] = true
			order = append(order, i)
			notes.FloorAdded++
		}
	}
	if cfg.K > 0 && len(order) > cfg.K {
		order = order[:cfg.K]
	}
	out := make([]membench.Item, len(order))
	for j, i := range order {
		out[j] = cands[i]
		out[j].Score = rho[i]
	}
	notes.Returned = len(out)
	return out, notes
}

// Judge asks one relevance question and returns ρ = P(yes); turns-graph
// asks it about the frontier turns of its walk.
func Judge(ctx context.Context, model llm.Model, q *datasets.Question, it membench.Item) (float64, error) {
	in := InputFor(q, it)
	msgs, err := prompts.Render(Task, in)
	if err != nil {
		return 0, err
	}
	resp, err := model.Decide(ctx, llm.DecideRequest{
		Task: Task, Messages: msgs, Choices: []string{"yes", "no"},
		Inputs: in, Stage: membench.StageRetrieve, Label: Task,
	})
	if err != nil {
		return 0, fmt.Errorf("selector: relevance of memory %s for question %s (model %s): %w", it.ID, q.ID, model.ID().Model, err)
	}
	p, ok := resp.Probs["yes"]
	if !ok {
		if _, hasNo := resp.Probs["no"]; !hasNo {
			return 0, fmt.Errorf("selector: relevance of memory %s for question %s: model %s gave neither yes nor no probabilities (got %v)", it.ID, q.ID, model.ID().Model, resp.Probs)
		}
	}
	return p, nil
}
