package turnsgraph

import (
	"fmt"
	"strings"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
	"github.com/membench/membench/systems/selector"
)

// The offline heuristic for edge typing, as transparent as the relevance
// heuristic it reuses:
//
//	P(related) = σ(relevance logit of the earlier turn for the new turn's words)
//	P(unrelated) = 1 − P(related)
//
// The relevance logit is selector.Score with the new turn in the question's
// place (word coverage, names, time cue). P(related) is split over the four
// related types in proportion to cue weights, each starting at 1 for same
// topic and 0.25 for the others:
//
//	answers   +2 when the earlier turn asks a question ("?") and the speakers differ
//	updates   +2 when the new turn has a change word (now, anymore, no longer,
//	          changed, actually, instead, switched, moved, quit, finally, ...)
//	          and the speaker is the same
//	follows up +1.5 when the turns are in different sessions and the new
//	          turn has a follow-up word (how, again, still, since, last, update,
//	          remember, ...); +0.5 for different sessions alone
//
// Frontier decisions at read time are the relevance task itself, answered
// offline by the selector's heuristic.
func init() {
	llm.RegisterOfflineDecide(EdgeTask, func(req llm.DecideRequest) (map[string]float64, error) {
		in, ok := req.Inputs.(EdgeInput)
		if !ok {
			return nil, fmt.Errorf("%s: inputs are %T, want turnsgraph.EdgeInput", EdgeTask, req.Inputs)
		}
		p := EdgeProbs(in)
		out := make(map[string]float64, len(Choices))
		for _, c := range Choices {
			out[c] = p[TypeOf[c]]
		}
		return out, nil
	})
}

// EdgeProbs is the heuristic's probability per edge type.
func EdgeProbs(in EdgeInput) map[string]float64 {
	related := selector.Prob(selector.RelevanceInput{Question: in.New, Candidate: in.Old, Speaker: in.OldSpeaker})
	w := map[string]float64{SameTopic: 1, FollowsUp: 0.25, Updates: 0.25, Answers: 0.25}
	if strings.Contains(in.Old, "?") && in.OldSpeaker != in.NewSpeaker {
		w[Answers] += 2
	}
	if in.OldSpeaker == in.NewSpeaker && hasAny(in.New, changeWords) {
		w[Updates] += 2
	}
	if !in.SameSession {
		w[FollowsUp] += 0.5
		if hasAny(in.New, followWords) {
			w[FollowsUp] += 1.5
		}
	}
	var sum float64
	for _, v := range w {
		sum += v
	}
	out := map[string]float64{Unrelated: 1 - related}
	for t, v := range w {
		out[t] = related * v / sum
	}
	return out
}

var (
	changeWords = systems.Set(strings.Fields("now anymore longer changed change actually instead switched moved quit finally new stopped started decided"))
	followWords = systems.Set(strings.Fields("how again still since last update remember back ago went turned result"))
)

func hasAny(s string, set map[string]bool) bool {
	for _, w := range lexical.Words(s) {
		if set[w] {
			return true
		}
	}
	return false
}
