package judge

import (
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/lexical"
)

// The lexical metrics follow LoCoMo's task_eval/evaluation.py so that our
// F1 numbers are comparable with published LoCoMo F1 tables.

// asciiPunct is Python's string.punctuation.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// LoCoMoDeclinePhrases are the phrases LoCoMo's category-5 scorer accepts as
// "the answer is not available" (matched case-insensitively as substrings).
var LoCoMoDeclinePhrases = []string{"no information available", "not mentioned"}

// Normalize is LoCoMo's normalize_answer: drop commas, lower-case, strip
// ASCII punctuation, remove the words a/an/the/and, collapse whitespace.
func Normalize(s string) string {
	s = strings.ReplaceAll(s, ",", "")
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x80 && strings.ContainsRune(asciiPunct, r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(dropArticles(s), " ")
}

// dropArticles splits s on whitespace after blanking every whole word a, an,
// the, and. "Whole word" uses regex \b semantics: a maximal run of Unicode
// word characters, so "the" inside "the—end" goes but "theme" stays.
func dropArticles(s string) []string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isWordRune(rs[j]) {
			j++
		}
		switch w := string(rs[i:j]); w {
		case "a", "an", "the", "and":
			b.WriteByte(' ')
		default:
			b.WriteString(w)
		}
		i = j
	}
	return strings.Fields(b.String())
}

// isWordRune approximates the Python regex module's Unicode \w.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) ||
		unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Pc, r) || r == 0x200c || r == 0x200d
}

// Tokens returns the normalised, Porter-stemmed tokens F1 is computed on.
func Tokens(s string) []string {
	ws := strings.Fields(Normalize(s))
	for i, w := range ws {
		ws[i] = Stem(w)
	}
	return ws
}

// TokenF1 is LoCoMo's f1_score: F1 of the stemmed token multisets. Like the
// reference it is 0 when nothing overlaps, even when both sides are empty.
func TokenF1(prediction, gold string) float64 {
	p, g := Tokens(prediction), Tokens(gold)
	same := overlap(p, g)
	if same == 0 {
		return 0
	}
	prec := float64(same) / float64(len(p))
	rec := float64(same) / float64(len(g))
	return 2 * prec * rec / (prec + rec)
}

// overlap is the size of the multiset intersection of a and b.
func overlap(a, b []string) int {
	cnt := map[string]int{}
	for _, t := range b {
		cnt[t]++
	}
	n := 0
	for _, t := range a {
		if cnt[t] > 0 {
			cnt[t]--
			n++
		}
	}
	return n
}

// MultiF1 is LoCoMo's multi-answer f1 (category 1): prediction and gold are
// split on ',', and the best TokenF1 of any prediction part is averaged over
// the gold parts.
func MultiF1(prediction, gold string) float64 {
	preds := strings.Split(prediction, ",")
	golds := strings.Split(gold, ",")
	sum := 0.0
	for _, g := range golds {
		g = strings.TrimSpace(g)
		best := 0.0
		for _, p := range preds {
			best = math.Max(best, TokenF1(strings.TrimSpace(p), g))
		}
		sum += best
	}
	return sum / float64(len(golds))
}

// ScoredGold is the gold text LoCoMo scores against: for category 3 only
// the part before the first ';' counts.
func ScoredGold(q *datasets.Question) string {
	if q.Category == locomo.CatOpenDomain {
		g, _, _ := strings.Cut(q.Gold, ";")
		return strings.TrimSpace(g)
	}
	return q.Gold
}

// Declines reports whether the prediction says the answer is not available,
// i.e. contains one of phrases (case-insensitive); nil phrases means
// LoCoMoDeclinePhrases.
func Declines(prediction string, phrases []string) bool {
	if phrases == nil {
		phrases = LoCoMoDeclinePhrases
	}
	p := strings.ToLower(prediction)
	return slices.ContainsFunc(phrases, func(ph string) bool { return ph != "" && strings.Contains(p, strings.ToLower(ph)) })
}

// LoCoMoF1 scores one prediction exactly as LoCoMo's eval_question_answering
// does per category: 1 → MultiF1, 2/3/4 → TokenF1 (3 with the ';' cut),
// 5 (and any abstention question) → 1 if the prediction declines, else 0.
// Questions without a LoCoMo category (LongMemEval) get TokenF1.
func LoCoMoF1(q *datasets.Question, prediction string, declinePhrases []string) float64 {
	switch {
	case q.Abstains(): // scored by whether the prediction declines, not by overlap with a gold
		if Declines(prediction, declinePhrases) {
			return 1
		}
		return 0
	case q.Category == locomo.CatMultiHop:
		return MultiF1(prediction, q.Gold)
	}
	return TokenF1(prediction, ScoredGold(q))
}

// BLEU1 is sentence BLEU with unigrams only, on normalised (unstemmed)
// tokens against one reference: clipped unigram precision times the brevity
// penalty exp(1-r/c) when the prediction is shorter than the gold. No
// smoothing is applied: with unigram weight 1 and higher orders weighted 0,
// NLTK's smoothing methods do not change the value except that NLTK returns
// 0 when no unigram matches, which is what this returns too.
func BLEU1(prediction, gold string) float64 {
	p := strings.Fields(Normalize(prediction))
	g := strings.Fields(Normalize(gold))
	if len(p) == 0 || len(g) == 0 {
		return 0
	}
	m := overlap(p, g) // multiset overlap = clipped unigram matches
	if m == 0 {
		return 0
	}
	prec := float64(m) / float64(len(p))
	bp := 1.0
	if len(p) < len(g) {
		bp = math.Exp(1 - float64(len(g))/float64(len(p)))
	}
	return bp * prec
}

// ExactMatch is LoCoMo's exact_match_score: the normalised prediction and
// gold have the same set of (unstemmed) tokens, so order and repetition do
// not matter.
func ExactMatch(prediction, gold string) bool {
	return maps.Equal(lexical.Set(strings.Fields(Normalize(prediction))), lexical.Set(strings.Fields(Normalize(gold))))
}
