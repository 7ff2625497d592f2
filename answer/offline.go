package answer

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/membench/membench/embed"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// The offline answerer is extractive and transparent:
//  1. score each retrieved item by the question's content words it shares
//     (crudely stemmed, longer words weigh more), ties to the earlier item;
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
	qw := contentWords(in.Question)
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

var sentenceSplit = regexp.MustCompile(`[.!?]+\s+`)

func bestSentence(qw []string, text string) string {
	parts := sentenceSplit.Split(text, -1)
	best, bestScore := strings.TrimSpace(text), -1.0
	for _, p := range parts {
		if s := overlap(qw, p); s > bestScore {
			best, bestScore = strings.TrimSpace(p), s
		}
	}
	return best
}

func contentWords(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range embed.Words(s) {
		if embed.IsStopword(w) || len(w) < 2 {
			continue
		}
		st := stem(w)
		if !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}

func overlap(qw []string, text string) float64 {
	have := map[string]bool{}
	for _, w := range embed.Words(text) {
		have[stem(w)] = true
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

// stem is a deliberately crude suffix stripper: enough to match "paints"
// with "painted" in the offline heuristics, not a linguistic stemmer.
func stem(w string) string {
	w = strings.TrimSuffix(w, "'s")
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// Ensure Item stays the type the offline answerer reads.
var _ = systems.Item{}
