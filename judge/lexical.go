package judge

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
)

// LLMJudgeInput is what an LLM judge is given; prompts render it and the
// offline backend's "judge" heuristic reads it from llm.Request.Inputs.
type LLMJudgeInput struct {
	Question   string
	Gold       string
	Prediction string
	Category   int
	Abstention bool
	Type       string // LongMemEval question_type, "" for LoCoMo
	// Evidence is Sample.Evidence: the question's evidence turns as text
	// (the cue dialogue for LoCoMo-Plus's Cognitive group).
	Evidence string
	// Partial: the prompt offers PARTIAL (its labels line), so a reply,
	// the offline one included, may give it.
	Partial bool
}

// Reply is the JSON object an LLM judge is asked to return.
type Reply struct {
	Reason string `json:"reason"`
	Label  string `json:"label"` // "CORRECT" or "WRONG"; "PARTIAL" when the prompt offers it
}

const (
	LabelCorrect = "CORRECT"
	LabelWrong   = "WRONG"
)

// DeclinePhrases is the wider list the lexical judge uses to recognise an
// answer that declines (LoCoMo's own category-5 metric uses only
// LoCoMoDeclinePhrases).
var DeclinePhrases = []string{
	"no information available", "not mentioned", "no information",
	"not enough information", "insufficient information", "not available",
	"not specified", "not stated", "not provided", "no mention",
	"does not mention", "doesn't mention", "don't know", "do not know",
	"cannot be determined", "can't be determined", "cannot determine",
	"unknown", "not discussed", "no record", "no details",
}

// LexicalF1Threshold is the F1 at which the lexical judge calls a
// prediction correct.
const LexicalF1Threshold = 0.5

// LexicalReply is the transparent offline judge: CORRECT when the
// normalised F1 with the gold is at least 0.5, or every gold content word
// appears in the prediction, or every date in the gold (its day, month and
// year as far as given) appears in the prediction. For abstention questions
// it is CORRECT iff the prediction declines. When the prompt offers
// PARTIAL and the question has evidence text, it grades against the
// evidence instead (evidenceReply).
func LexicalReply(in LLMJudgeInput) Reply {
	declines := Declines(in.Prediction, DeclinePhrases)
	if locomo.IsAbstention(in.Category, in.Abstention) {
		if declines {
			return Reply{Reason: "the question has no answer in the conversation and the prediction declines", Label: LabelCorrect}
		}
		return Reply{Reason: "the question has no answer in the conversation but the prediction gives one", Label: LabelWrong}
	}
	if strings.TrimSpace(in.Prediction) == "" {
		return Reply{Reason: "the prediction is empty", Label: LabelWrong}
	}
	if in.Partial && strings.TrimSpace(in.Evidence) != "" {
		return evidenceReply(in, declines)
	}
	if declines {
		return Reply{Reason: "the prediction declines although the gold answer is known", Label: LabelWrong}
	}
	f1 := TokenF1(in.Prediction, in.Gold)
	if g, _, cut := strings.Cut(in.Gold, ";"); cut {
		f1 = max(f1, TokenF1(in.Prediction, g))
	}
	if f1 >= LexicalF1Threshold {
		return Reply{Reason: fmt.Sprintf("token F1 with the gold answer is %.2f (>= %.1f)", f1, LexicalF1Threshold), Label: LabelCorrect}
	}
	if content := contentTokens(in.Gold); len(content) > 0 {
		pred := lexical.Set(Tokens(in.Prediction))
		if !slices.ContainsFunc(content, func(t string) bool { return !pred[t] }) {
			return Reply{Reason: "every content word of the gold answer appears in the prediction", Label: LabelCorrect}
		}
	}
	if gd := findDates(in.Gold); len(gd) > 0 && datesCovered(gd, findDates(in.Prediction)) {
		return Reply{Reason: "the prediction gives the same date as the gold answer", Label: LabelCorrect}
	}
	return Reply{Reason: fmt.Sprintf("token F1 with the gold answer is only %.2f and the gold's key words or date are missing", f1), Label: LabelWrong}
}

// The evidence-overlap heuristic's thresholds: CORRECT needs at least
// EvidenceCorrectWords of the evidence's cue words in the prediction and
// at least EvidenceCorrectShare of them all.
const (
	EvidenceCorrectWords = 2
	EvidenceCorrectShare = 0.25
)

// speakerRe is a "Speaker: " line prefix of evidence text.
var speakerRe = regexp.MustCompile(`(?m)^[^:\n]{1,40}:[ \t]+`)

// evidenceReply is the offline stand-in for a judge that reads the
// evidence (the cognitive prompt), named for what it measures: overlap of
// content words. The cue words are the evidence's content words
// (stopwords dropped, stemmed, each line's "Speaker:" left out) that the
// question does not already use, so echoing the trigger earns nothing.
// CORRECT when the prediction holds at least EvidenceCorrectWords of them
// and at least EvidenceCorrectShare of them all, PARTIAL when it holds
// some, WRONG when it holds none or declines.
func evidenceReply(in LLMJudgeInput, declines bool) Reply {
	if declines {
		return Reply{Reason: "the prediction declines although the evidence answers it", Label: LabelWrong}
	}
	asked := lexical.Set(contentTokens(in.Question))
	cue := map[string]bool{}
	for _, t := range contentTokens(speakerRe.ReplaceAllString(in.Evidence, "")) {
		if !asked[t] {
			cue[t] = true
		}
	}
	if len(cue) == 0 {
		return Reply{Reason: "the evidence has no content word the question does not already use, so overlap cannot tell", Label: LabelWrong}
	}
	hit := 0 // distinct cue words in the prediction
	pred := lexical.Set(Tokens(in.Prediction))
	for t := range cue {
		if pred[t] {
			hit++
		}
	}
	share := float64(hit) / float64(len(cue))
	why := fmt.Sprintf("the prediction shares %d of the evidence's %d cue words (%.2f)", hit, len(cue), share)
	switch {
	case hit >= EvidenceCorrectWords && share >= EvidenceCorrectShare:
		return Reply{Reason: why + ": it draws on the evidence", Label: LabelCorrect}
	case hit > 0:
		return Reply{Reason: why + ": it touches the evidence without drawing on it", Label: LabelPartial}
	}
	return Reply{Reason: why + ": it shows no trace of the evidence", Label: LabelWrong}
}

// contentTokens are the gold's Porter-stemmed tokens that are not
// stopwords. They use the metric's tokens and stemmer (not lexical.Stem)
// because they are looked up among the prediction's Tokens.
func contentTokens(s string) []string {
	var out []string
	for _, w := range strings.Fields(Normalize(s)) {
		if !lexical.IsStopword(w) {
			out = append(out, Stem(w))
		}
	}
	return out
}

// date is a possibly partial calendar date; zero fields are unspecified.
type date struct{ y, m, d int }

var months = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
	"april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7,
	"august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
	"october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

const monthRe = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

var (
	isoDate = regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b`)
	dmyDate = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+` + monthRe + `(?:,?\s+(\d{4}))?\b`)
	mdyDate = regexp.MustCompile(`\b` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`)
	myDate  = regexp.MustCompile(`\b` + monthRe + `,?\s+(?:of\s+)?(\d{4})\b`)
	yDate   = regexp.MustCompile(`\b(1[89]\d{2}|20\d{2})\b`)
)

// findDates extracts the dates written in s, most specific forms first; a
// year or month already used by a fuller date is not listed again.
func findDates(s string) []date {
	s = strings.ToLower(s)
	var out []date
	used := make([]bool, len(s))
	take := func(loc []int) bool {
		span := used[loc[0]:loc[1]]
		if slices.Contains(span, true) {
			return false
		}
		for i := range span {
			span[i] = true
		}
		return true
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	for _, m := range isoDate.FindAllStringSubmatchIndex(s, -1) {
		if take(m[:2]) {
			out = append(out, date{atoi(s[m[2]:m[3]]), atoi(s[m[4]:m[5]]), atoi(s[m[6]:m[7]])})
		}
	}
	// Day and month (groups at day and month), with the year when given.
	for _, f := range []struct {
		re         *regexp.Regexp
		day, month int
	}{{dmyDate, 2, 4}, {mdyDate, 4, 2}} {
		for _, m := range f.re.FindAllStringSubmatchIndex(s, -1) {
			if d := atoi(s[m[f.day]:m[f.day+1]]); d >= 1 && d <= 31 && take(m[:2]) {
				dt := date{m: months[s[m[f.month]:m[f.month+1]]], d: d}
				if m[6] >= 0 {
					dt.y = atoi(s[m[6]:m[7]])
				}
				out = append(out, dt)
			}
		}
	}
	for _, m := range myDate.FindAllStringSubmatchIndex(s, -1) {
		if take(m[:2]) {
			out = append(out, date{y: atoi(s[m[4]:m[5]]), m: months[s[m[2]:m[3]]]})
		}
	}
	for _, m := range yDate.FindAllStringSubmatchIndex(s, -1) {
		if take(m[:2]) {
			out = append(out, date{y: atoi(s[m[2]:m[3]])})
		}
	}
	return out
}

// datesCovered: every gold date has a prediction date that agrees on each
// field the gold specifies (the prediction may be more specific).
func datesCovered(gold, pred []date) bool {
	for _, g := range gold {
		if !slices.ContainsFunc(pred, func(p date) bool {
			return (g.y == 0 || g.y == p.y) && (g.m == 0 || g.m == p.m) && (g.d == 0 || g.d == p.d)
		}) {
			return false
		}
	}
	return true
}

// offlineJudge answers task "judge" for the offline backend with the same
// JSON a real judge model is asked for.
func offlineJudge(req llm.Request) (string, error) {
	var in LLMJudgeInput
	switch v := req.Inputs.(type) {
	case LLMJudgeInput:
		in = v
	case *LLMJudgeInput:
		if v == nil {
			return "", fmt.Errorf("judge: nil *judge.LLMJudgeInput in request Inputs")
		}
		in = *v
	default:
		return "", fmt.Errorf("judge: request Inputs is %T, want judge.LLMJudgeInput", req.Inputs)
	}
	b, err := json.Marshal(LexicalReply(in))
	return string(b), err
}

func init() { llm.RegisterOffline("judge", offlineJudge) }

// PromptField fills a paper's judge prompt kept as its code holds it
// (prompts.ForeignFields): the question, the gold answer and the answer
// judged.
func (in LLMJudgeInput) PromptField(name string) (string, bool) {
	switch name {
	case "question":
		return in.Question, true
	case "gold_answer":
		return in.Gold, true
	case "generated_answer":
		return in.Prediction, true
	}
	return "", false
}
