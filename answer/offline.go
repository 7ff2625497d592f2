package answer

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/membench/membench/lexical"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// The offline answerer is extractive and transparent:
//  1. score each retrieved item by the question's content words it shares
//     (lexical.ContentWords; longer words weigh more), ties to the earlier item;
//  2. if no item shares at least half of the question's weight (or none
//     shares a word), abstain with the Abstain sentence;
//  3. "when"/"what year"/"how long ago" questions answer with the best item's
//     date, shifted by a relative expression in its text ("yesterday",
//     "last week", "last year", "last month");
//  4. other questions answer with the best item's best sentence.
// It measures whether retrieval put the answer in front of the reader, not
// how well an LLM would read it.

func init() { llm.RegisterOffline(Task, offlineAnswer) }

func offlineAnswer(req llm.Request) (string, error) {
	in, ok := req.Inputs.(Input)
	if !ok {
		return "", fmt.Errorf("answer: offline backend needs answer.Input, got %T", req.Inputs)
	}
	qw := lexical.ContentWords(in.Question)
	if len(qw) == 0 || len(in.Items) == 0 {
		return Abstain, nil
	}
	var total float64
	for _, w := range qw {
		total += weight(w)
	}
	best, bestScore := -1, 0.0
	for i, it := range in.Items {
		s := overlap(qw, it.Text+" "+it.Speaker)
		if s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 || bestScore < 0.5*total {
		return Abstain, nil
	}
	it := in.Items[best]
	if isTimeQuestion(in.Question) && !it.Time.IsZero() {
		return relativeDate(it.Text, it.Time), nil
	}
	return bestSentence(qw, it.Text), nil
}

var timeQ = regexp.MustCompile(`(?i)^\s*(when|what year|which year|what month|what date|how long ago|in which (year|month))\b`)

func isTimeQuestion(q string) bool { return timeQ.MatchString(q) }

// relativeDate resolves the common relative expressions against t, in the
// forms LoCoMo's gold answers use ("7 May 2023", "2022", "the week before 9 June 2023").
func relativeDate(text string, t time.Time) string {
	l := strings.ToLower(text)
	day := func(x time.Time) string { return x.Format("2 January 2006") }
	switch {
	case strings.Contains(l, "yesterday"):
		return day(t.AddDate(0, 0, -1))
	case strings.Contains(l, "last week"):
		return "the week before " + day(t)
	case strings.Contains(l, "last weekend"):
		return "the weekend before " + day(t)
	case strings.Contains(l, "last month"):
		return t.AddDate(0, -1, 0).Format("January 2006")
	case strings.Contains(l, "last year"):
		return fmt.Sprint(t.Year() - 1)
	case strings.Contains(l, "next month"):
		return t.AddDate(0, 1, 0).Format("January 2006")
	}
	return day(t)
}

func bestSentence(qw []string, text string) string {
	best, bestScore := strings.TrimSpace(text), -1.0
	for _, p := range lexical.Sentences(text) {
		if s := overlap(qw, p); s > bestScore {
			best, bestScore = p, s
		}
	}
	return best
}

// overlap is the weight of the content words qw that text also has.
func overlap(qw []string, text string) float64 {
	have := map[string]bool{}
	for _, w := range lexical.ContentWords(text) {
		have[w] = true
	}
	var s float64
	for _, w := range qw {
		if have[w] {
			s += weight(w)
		}
	}
	return s
}

func weight(w string) float64 { return 1 + float64(len(w))/6 }

// Ensure Item stays the type the offline answerer reads.
var _ = systems.Item{}
