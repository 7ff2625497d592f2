package answer

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
)

// The offline answerer is extractive and transparent:
//  1. score each retrieved item by the question's content words it shares
//     (lexical.ContentWords); a word weighs more when it is longer and when
//     fewer of the retrieved items contain it (an idf over the context, so
//     the speakers' names, present everywhere, count little); ties go to the
//     earlier item;
//     an item whose last sentence is a question counts half: in a dialogue
//     the turn that asks rarely holds the answer;
//  2. if no item shares at least half of the question's weight (or none
//     shares a word), abstain with the Abstain sentence; but a remark that
//     asks nothing (no "?", no question word first: LoCoMo-Plus's
//     triggers) gets the best item's best sentence whenever one shares a
//     word, since declining answers a question, not a remark;
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
	words := make([]map[string]bool, len(in.Items))
	df := map[string]int{}
	for i, it := range in.Items {
		words[i] = wordSet(it.Text + " " + it.Speaker)
		for w := range words[i] {
			df[w]++
		}
	}
	weights := map[string]float64{}
	for _, w := range qw {
		weights[w] = weight(w, df[w], len(in.Items))
	}
	// idf picks the item; whether to abstain is judged on plain word
	// weights, so words the context lacks do not inflate the bar.
	var plainTotal float64
	for _, w := range qw {
		plainTotal += 1 + float64(len(w))/6
	}
	best, bestScore, bestPlain := -1, 0.0, 0.0
	for i := range in.Items {
		var s, plain float64
		for _, w := range qw {
			if words[i][w] {
				s += weights[w]
				plain += 1 + float64(len(w))/6
			}
		}
		if isQuestion(in.Items[i].Text) {
			// A turn that asks the question rarely holds its answer.
			s *= 0.5
		}
		if s > bestScore {
			best, bestScore, bestPlain = i, s, plain
		}
	}
	if best < 0 || (bestPlain < 0.5*plainTotal && !isRemark(in.Question)) {
		return Abstain, nil
	}
	it := in.Items[best]
	if timeQ.MatchString(in.Question) && !it.Time.IsZero() {
		return relativeDate(it.Text, it.Time), nil
	}
	return bestSentence(qw, weights, it.Text), nil
}

var timeQ = regexp.MustCompile(`(?i)^\s*(when|what year|which year|what month|what date|how long ago|in which (year|month))\b`)

// relativeDate resolves the common relative expressions against t, in the
// forms LoCoMo's gold answers use ("7 May 2023", "2022", "the week before 9 June 2023").
func relativeDate(text string, t time.Time) string {
	l := strings.ToLower(text)
	day := func(x time.Time) string { return x.Format("2 January 2006") }
	switch {
	case strings.Contains(l, "yesterday"):
		return day(t.AddDate(0, 0, -1))
	case strings.Contains(l, "last weekend"): // before "last week", which it contains
		return "the weekend before " + day(t)
	case strings.Contains(l, "last week"):
		return "the week before " + day(t)
	case strings.Contains(l, "last month"):
		return t.AddDate(0, -1, 0).Format("January 2006")
	case strings.Contains(l, "last year"):
		return fmt.Sprint(t.Year() - 1)
	case strings.Contains(l, "next month"):
		return t.AddDate(0, 1, 0).Format("January 2006")
	}
	return day(t)
}

func bestSentence(qw []string, weights map[string]float64, text string) string {
	best, bestScore := strings.TrimSpace(text), -1.0
	for _, p := range lexical.Sentences(text) {
		have := wordSet(p)
		var s float64
		for _, w := range qw {
			if have[w] {
				s += weights[w]
			}
		}
		if s > bestScore {
			best, bestScore = p, s
		}
	}
	return best
}

func wordSet(text string) map[string]bool { return lexical.Set(lexical.ContentWords(text)) }

// weight favours long words and words few of the n items contain.
func weight(w string, df, n int) float64 {
	idf := math.Log(1 + float64(n+1)/float64(df+1))
	return (1 + float64(len(w))/6) * idf
}

// isQuestion reports whether the text's last sentence asks something.
var questionWord = regexp.MustCompile(`(?i)^\s*(who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|will|would|should|has|have|had)\b`)

// isRemark: a message that asks nothing, neither with "?" nor with a
// question word first.
func isRemark(text string) bool {
	return !strings.Contains(text, "?") && !questionWord.MatchString(text)
}

func isQuestion(text string) bool {
	ss := lexical.Sentences(text)
	return len(ss) > 0 && strings.HasSuffix(strings.TrimSpace(ss[len(ss)-1]), "?")
}
