package judge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/membench/membench"
)

// The LoCoMo lexical metrics as judges.
var (
	f1Spec    = metricSpec("f1", 0.5, "LoCoMo's token F1 (its normalisation, Porter stemming, per-category rules); correct at F1 >= 0.5")
	bleu1Spec = metricSpec("bleu1", 0.5, "BLEU-1 (unigram precision with brevity penalty) against the gold; correct at >= 0.5")
	emSpec    = metricSpec("em", 1, "exact match after LoCoMo's normalisation")
)

// metricSpec is the spec of a metric judge, correct at threshold unless
// threshold= says otherwise.
func metricSpec(metric string, threshold float64, description string) Spec {
	return Spec{Name: metric, Kind: membench.JudgeMetric, Options: []string{"threshold", "decline"}, Description: description, New: func(c Config) (Judge, error) {
		th := threshold
		if s, ok := c.Options["threshold"]; ok {
			f, err := strconv.ParseFloat(s, 64)
			// 0 would call every answer correct, and a score of 0 correct.
			if err != nil || !(f > 0 && f <= 1) {
				return nil, fmt.Errorf("threshold=%s must be a number in (0,1]", s)
			}
			th = f
		}
		return &MetricJudge{name: c.Name, metric: metric, Threshold: th, Phrases: c.Phrases}, nil
	}}
}

// MetricJudge turns a lexical metric into a judge: Score is the metric's
// value, Correct is Score >= Threshold.
type MetricJudge struct {
	name, metric string // metric: f1 | bleu1 | em
	Threshold    float64
	// Phrases decide category-5/abstention questions; nil = LoCoMo's two.
	Phrases []string
}

func (m *MetricJudge) Name() string { return m.name }

func (m *MetricJudge) Describe() membench.JudgeInfo {
	return membench.JudgeInfo{Name: m.name, Kind: m.metric, Threshold: m.Threshold}
}

func (m *MetricJudge) Judge(ctx context.Context, smp Sample) (Verdict, error) {
	q, prediction := smp.Question, smp.Prediction
	var s float64
	switch {
	case m.metric == "f1":
		s = LoCoMoF1(q, prediction, m.Phrases)
	case q.Abstains(): // bleu1/em score abstention the way LoCoMo's F1 does
		if Declines(prediction, m.Phrases) {
			s = 1
		}
	case m.metric == "bleu1":
		s = BLEU1(prediction, ScoredGold(q))
	case m.metric == "em":
		if ExactMatch(prediction, ScoredGold(q)) {
			s = 1
		}
	default:
		return Verdict{}, fmt.Errorf("judge %s: unknown metric %q", m.name, m.metric)
	}
	return Verdict{Correct: s >= m.Threshold, Score: s}, nil
}

// The offline lexical judge.
var lexicalSpec = Spec{Name: "lexical", Kind: membench.JudgeVerdict,
	Description: "offline heuristic verdict: F1 >= 0.5, all gold content words, or all gold dates in the prediction; for questions offering PARTIAL, the answer's overlap with the evidence; no model",
	New:         func(c Config) (Judge, error) { return &LexicalJudge{name: c.Name}, nil }}

// LexicalJudge is LexicalReply as a judge, with no model involved. A
// question offers PARTIAL when the prompt it asks for does
// (Sample.Prompt).
type LexicalJudge struct{ name string }

func (l *LexicalJudge) Name() string { return l.name }

func (l *LexicalJudge) Describe() membench.JudgeInfo {
	return membench.JudgeInfo{Name: l.name, Kind: "lexical"}
}

func (l *LexicalJudge) Judge(ctx context.Context, s Sample) (Verdict, error) {
	set := Binary
	if s.Prompt != "" {
		var err error
		if set, err = PromptLabels(s.Prompt); err != nil {
			return Verdict{}, fmt.Errorf("judge %s, question %s: %w", l.name, s.Question.ID, err)
		}
	}
	r := LexicalReply(Input(s, set))
	return verdictOf(r.Label, r.Reason), nil
}

// Judges that other commands log: they are verdicts, never built by --judge.
var (
	humanSpec = Spec{Name: "human", Kind: membench.JudgeVerdict, AddedBy: "`membench grade`",
		Description: "a person's blind correct/wrong grade"}
	peerSpec = Spec{Name: "peer-llm", Kind: membench.JudgeVerdict, AddedBy: "`membench peers import` (imported published results)",
		Description: "the LLM judge verdicts a peer published with its per-question results"}
)
