package selector

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// The offline heuristic for "relevance" (and, through Score, the ordering
// of the offline listwise reranker). It is deliberately transparent:
//
//	s = 6·coverage + 1·names + 0.8·timecue − 2.5,   ρ = 1/(1+e^−s)
//
// coverage: share of the question's content words (ContentWords: stopwords
// and filler dropped, lexical.Stem) found in the candidate text; a word
// found only as the candidate's speaker counts half, so "What did Caroline
// say" does not pass every line Caroline spoke.
// names: share of the question's capitalised words (names) present in the
// candidate text or speaker; 0 when the question has none.
// timecue: 1 when the question asks for a time ("when", "what year", "how
// long ago", ...) and the candidate text has a time word (month, weekday,
// yesterday, last/next week, a year...), else 0.
// A candidate sharing nothing scores ρ≈0.08; half the content words ≈0.62.
func init() {
	llm.RegisterOfflineDecide(Task, func(req llm.DecideRequest) (map[string]float64, error) {
		in, ok := req.Inputs.(RelevanceInput)
		if !ok {
			return nil, fmt.Errorf("relevance: inputs are %T, want selector.RelevanceInput", req.Inputs)
		}
		p := Prob(in)
		return map[string]float64{"yes": p, "no": 1 - p}, nil
	})
}

// Prob is the heuristic's ρ for one candidate.
func Prob(in RelevanceInput) float64 { return 1 / (1 + math.Exp(-Score(in))) }

// Score is the heuristic's logit for one candidate (higher is more relevant).
func Score(in RelevanceInput) float64 {
	qw := ContentWords(in.Question)
	if len(qw) == 0 {
		return -2.5
	}
	cw := systems.Set(ContentWords(in.Candidate))
	sw := systems.Set(ContentWords(in.Speaker))
	var hit float64
	for _, w := range qw {
		switch {
		case cw[w]:
			hit++
		case sw[w]:
			hit += 0.5
		}
	}
	s := 6*hit/float64(len(qw)) - 2.5
	if names := questionNames(in.Question); len(names) > 0 {
		low := strings.ToLower(in.Candidate + " " + in.Speaker)
		found := 0
		for _, n := range names {
			if strings.Contains(low, n) {
				found++
			}
		}
		s += float64(found) / float64(len(names))
	}
	if asksTime(in.Question) && hasTimeWord(in.Candidate) {
		s += 0.8
	}
	return s
}

// ContentWords is lexical.ContentWords without the question filler words
// (extraStop); audit's offline heuristics call it too.
func ContentWords(s string) []string { return lexical.ContentWords(s, extraStop) }

// extraStop adds question words the shared list keeps but that carry no topic.
var extraStop = systems.Set(strings.Fields("did does doing done get got go going went like likes thing things kind much many"))

// questionNames returns capitalised words of the question past its first
// word, lowercased: a cheap stand-in for named entities.
func questionNames(q string) []string {
	var out []string
	for i, f := range strings.Fields(q) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		w = strings.TrimSuffix(w, "'s")
		if i == 0 || len(w) < 2 || !unicode.IsUpper([]rune(w)[0]) {
			continue
		}
		out = append(out, strings.ToLower(w))
	}
	return out
}

func asksTime(q string) bool {
	l := " " + strings.Join(lexical.Words(q), " ") + " "
	for _, c := range []string{" when ", " what year ", " which year ", " what month ", " what date ", " what day ", " how long ", " what time "} {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

var timeWords = systems.Set(strings.Fields(`january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday yesterday today tomorrow tonight ago last next week weeks
weekend month months year years morning evening night recently since`))

func hasTimeWord(s string) bool {
	for _, w := range lexical.Words(s) {
		if timeWords[w] {
			return true
		}
		if len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) && strings.Trim(w, "0123456789") == "" {
			return true
		}
	}
	return false
}
