package turnsgraph

import (
	"context"
	"fmt"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/turns"
)

// EdgeTask is the task and template name of the edge-typing decision.
const EdgeTask = "turnsgraph_edge"

// Edge types. The decision model answers with a letter (one token in every
// tokenizer), mapped to a type here.
const (
	SameTopic = "same_topic"
	FollowsUp = "follows_up"
	Updates   = "updates"
	Answers   = "answers"
	Unrelated = "unrelated"
)

// Choices are the edge decision's letters, in the prompt's order.
var Choices = []string{"A", "B", "C", "D", "E"}

// TypeOf maps a choice letter to its edge type.
var TypeOf = map[string]string{"A": SameTopic, "B": FollowsUp, "C": Updates, "D": Answers, "E": Unrelated}

// EdgeInput is one edge decision's data: the template's data and the
// offline heuristic's input.
type EdgeInput struct {
	New, NewSpeaker, NewTime string
	Old, OldSpeaker, OldTime string
	// SameSession tells the offline heuristic whether the turns share a
	// session; the prompt shows the dates instead.
	SameSession bool
}

// Edge links a newer turn to an earlier one (positions in the store).
type Edge struct {
	From, To int
	Type     string
	Weight   float64            // 1 − P(unrelated)
	Probs    map[string]float64 // per edge type
}

// Graph is the turn graph: nodes are store positions.
type Graph struct {
	Edges []Edge
	adj   [][]int // node -> edge indices, both directions
}

// Neighbours lists the edges touching node n.
func (g *Graph) Neighbours(n int) []Edge {
	out := make([]Edge, len(g.adj[n]))
	for i, e := range g.adj[n] {
		out[i] = g.Edges[e]
	}
	return out
}

func (s *System) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	st, err := s.store.Ingest(ctx, conv)
	if err != nil {
		return st, err
	}
	ts := s.store.Turns()
	session := make([]int, len(ts))
	for si, i := 0, 0; si < len(conv.Sessions); si++ {
		for range conv.Sessions[si].Turns {
			session[i] = si
			i++
		}
	}
	g := &Graph{adj: make([][]int, len(ts))}
	counts := map[string]int{"turns": len(ts)}
	turnTokens := make([]int, len(ts))
	for i := range ts {
		nbrs := s.store.Earlier(i, s.cfg.M)
		probs, err := systems.ParallelMap(ctx, len(nbrs), s.cfg.Concurrency, func(ctx context.Context, j int) (map[string]float64, error) {
			nb := nbrs[j]
			p, err := typeEdge(ctx, s.model, edgeInput(ts[i], ts[nb.Pos], session[i] == session[nb.Pos]))
			if err != nil {
				return nil, fmt.Errorf("turns-graph: typing edge %s → %s of conversation %s (model %s): %w", ts[i].ID, ts[nb.Pos].ID, conv.ID, s.model.ID().Model, err)
			}
			return p, nil
		})
		if err != nil {
			return membench.BuildStats{}, err
		}
		counts["edge_decisions"] += len(nbrs)
		// Sequential after the parallel calls, so edge order is deterministic.
		for j, nb := range nbrs {
			p := probs[j]
			if p[Unrelated] >= 0.5 {
				counts["edges_dropped"]++
				continue
			}
			e := Edge{From: i, To: nb.Pos, Type: bestType(p), Weight: 1 - p[Unrelated], Probs: p}
			g.adj[i] = append(g.adj[i], len(g.Edges))
			g.adj[nb.Pos] = append(g.adj[nb.Pos], len(g.Edges))
			g.Edges = append(g.Edges, e)
			counts["edges"]++
			counts["edges_"+e.Type]++
		}
		if s.meter != nil {
			turnTokens[i] = s.meter.TotalTokens(membench.StageBuild)
		}
	}
	s.g = g
	st.Counts = counts
	st.SetEntries(len(ts) + len(g.Edges))
	if s.meter != nil {
		st.TurnTokens = turnTokens
	}
	return st, nil
}

func edgeInput(newer, older *datasets.Turn, sameSession bool) EdgeInput {
	return EdgeInput{
		New: flat(newer.Text), NewSpeaker: newer.Speaker, NewTime: timeOf(newer),
		Old: flat(older.Text), OldSpeaker: older.Speaker, OldTime: timeOf(older),
		SameSession: sameSession,
	}
}

func flat(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func timeOf(t *datasets.Turn) string {
	if t.Time.IsZero() {
		return ""
	}
	return turns.FormatTime(t.Time)
}

// typeEdge asks one edge decision and returns the probability per type.
func typeEdge(ctx context.Context, model llm.Model, in EdgeInput) (map[string]float64, error) {
	msgs, err := prompts.Render(EdgeTask, in)
	if err != nil {
		return nil, err
	}
	resp, err := model.Decide(ctx, llm.DecideRequest{
		Task: EdgeTask, Messages: msgs, Choices: Choices, Inputs: in,
		Stage: membench.StageBuild, Label: "edge_type",
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(Choices))
	var total float64
	for _, c := range Choices {
		out[TypeOf[c]] = resp.Probs[c]
		total += resp.Probs[c]
	}
	if total <= 0 {
		return nil, fmt.Errorf("edge decision gave no probability to any of %v (got %v)", Choices, resp.Probs)
	}
	for k := range out {
		out[k] /= total
	}
	return out, nil
}

// bestType is the most probable related type; ties go to the prompt's order.
func bestType(p map[string]float64) string {
	best := ""
	for _, c := range Choices[:4] {
		t := TypeOf[c]
		if best == "" || p[t] > p[best] {
			best = t
		}
	}
	return best
}
