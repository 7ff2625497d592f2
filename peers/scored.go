package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/audit"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
)

// FormatScored is the locomo-audit layout (fc-baseline, ap-baseline):
// {total_questions, correct, accuracy, detailed_results: {CONV:
// [{question_id, question, golden_answer, generated_answer, category,
// llm_judgments: {judgment_1: bool, ...}}]}, metadata?}. Each judgment run
// becomes one repeat of the peer's judge.
const FormatScored Format = "scored"

// ScoredMeta is a scored file's metadata object: what the peer published
// about its run (accuracies as fractions, as the file has them).
type ScoredMeta struct {
	AnswerModel  string    `json:"answer_model"`
	JudgeModel   string    `json:"judge_model"`
	NumRuns      int       `json:"num_runs"`
	MeanAccuracy *float64  `json:"mean_accuracy"`
	StdAccuracy  *float64  `json:"std_accuracy"`
	RunScores    []float64 `json:"run_scores"`
	// CategoryAccuracies is keyed by LoCoMo category number ("1".."4").
	CategoryAccuracies map[string]struct {
		Mean  float64   `json:"mean"`
		Std   float64   `json:"std"`
		Runs  []float64 `json:"individual_runs"`
		Total int       `json:"total"`
	} `json:"category_accuracies"`
	MajorityVote     *float64 `json:"majority_vote_accuracy"`
	AnswerPrompt     string   `json:"answer_prompt"`
	PromptTokens     int      `json:"total_prompt_tokens"`
	CompletionTokens int      `json:"total_completion_tokens"`
	BaseURL          string   `json:"base_url"`
}

// scoredTop is the part of a scored file besides its records.
type scoredTop struct {
	Total    *int            `json:"total_questions"`
	Accuracy *float64        `json:"accuracy"`
	Meta     json.RawMessage `json:"metadata"`
}

// ParseScoredMeta reads a scored file's top-level figures and metadata
// (nil when it has none). Records are read by ParseScored.
func ParseScoredMeta(data []byte, source string) (*ScoredMeta, *float64, error) {
	var top scoredTop
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, badinput.Errorf("%s: not a scored file {total_questions, accuracy, detailed_results, metadata} (%v)", source, err)
	}
	if len(top.Meta) == 0 || string(bytes.TrimSpace(top.Meta)) == "null" {
		return nil, top.Accuracy, nil
	}
	var m ScoredMeta
	if err := json.Unmarshal(top.Meta, &m); err != nil {
		return nil, nil, badinput.Errorf("%s: metadata: %v; give an object with answer_model, judge_model, mean_accuracy, run_scores, category_accuracies, majority_vote_accuracy (fractions) and token totals", source, err)
	}
	check := func(name string, v float64) error {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return badinput.Errorf("%s: metadata.%s is %v; accuracies are fractions in [0, 1]", source, name, v)
		}
		return nil
	}
	for name, p := range map[string]*float64{"mean_accuracy": m.MeanAccuracy, "majority_vote_accuracy": m.MajorityVote} {
		if p != nil {
			if err := check(name, *p); err != nil {
				return nil, nil, err
			}
		}
	}
	for i, v := range m.RunScores {
		if err := check(fmt.Sprintf("run_scores[%d]", i), v); err != nil {
			return nil, nil, err
		}
	}
	for c, ca := range m.CategoryAccuracies {
		if n, err := strconv.Atoi(c); err != nil || n < 1 || n > locomo.CatAdversarial {
			return nil, nil, badinput.Errorf("%s: metadata.category_accuracies key %q is not a LoCoMo category 1-5", source, c)
		}
		if err := check("category_accuracies."+c+".mean", ca.Mean); err != nil {
			return nil, nil, err
		}
	}
	if m.PromptTokens < 0 || m.CompletionTokens < 0 {
		return nil, nil, badinput.Errorf("%s: metadata token totals are negative (%d prompt, %d completion)", source, m.PromptTokens, m.CompletionTokens)
	}
	return &m, top.Accuracy, nil
}

// Scored is a parsed scored file, its answers tied to the dataset.
type Scored struct {
	Path string
	Meta *ScoredMeta // nil when the file has no metadata
	// Runs names the judgment runs (llm_judgments keys) in natural order:
	// repeat r of the imported judge is Runs[r].
	Runs      []string
	Published *Published
	Items     []Matched
	Report    MatchReport
}

// ReadScored reads a scored file and ties each answer to ds's question
// (ids locomo_<conversation index>_qa<question index>, or ds's own ids);
// a question text or category that differs from ds's is refused, since
// the ids would then point into another dataset.
func ReadScored(path string, ds *datasets.Dataset) (*Scored, error) {
	data, err := datasets.ReadInputFile(path, "give a scored results file (the locomo-audit fc-baseline shape)")
	if err != nil {
		return nil, err
	}
	meta, acc, err := ParseScoredMeta(data, path)
	if err != nil {
		return nil, err
	}
	w, err := audit.ParseWrong(data, path)
	if err != nil {
		return nil, err
	}
	if w.Format != audit.FormatScored {
		return nil, badinput.Errorf("%s: no detailed_results; give a scored results file {detailed_results: {CONV: [records]}}", path)
	}
	if err := w.Resolve(ds); err != nil {
		return nil, err
	}
	s := &Scored{Path: path, Meta: meta, Runs: w.Runs, Report: MatchReport{Items: len(w.Answers), Matched: len(w.Answers)}}
	for _, a := range w.Answers {
		q := a.Question
		it := Item{QuestionID: a.ID, ConvIndex: -1, Question: q.Text, Category: q.Category, Gold: q.Gold, Prediction: a.Answer, Source: path + " " + a.ID}
		if len(a.Recorded) > 0 {
			if len(a.Recorded) != len(w.Runs) {
				return nil, badinput.Errorf("%s: %s has verdicts of %d judgment runs, the file %d (%s); give every answer a verdict in every run", path, a.ID, len(a.Recorded), len(w.Runs), strings.Join(w.Runs, ", "))
			}
			yes := 0
			for _, r := range w.Runs {
				it.Repeats = append(it.Repeats, a.Recorded[r])
				if a.Recorded[r] {
					yes++
				}
			}
			it.Graded, it.Correct = true, 2*yes > len(w.Runs)
		} else {
			s.Report.Ungraded++
		}
		s.Items = append(s.Items, matchedTo(it, q))
	}
	s.Published = publishedOf(path, meta, acc)
	return s, nil
}

// publishedOf turns the file's own figures into points.
func publishedOf(path string, m *ScoredMeta, acc *float64) *Published {
	if m == nil && acc == nil {
		return nil
	}
	p := &Published{Where: path + " (its accuracy and metadata fields)"}
	if acc != nil {
		p.Overall = 100 * *acc
	}
	if m == nil {
		return p
	}
	if m.MeanAccuracy != nil {
		p.Overall = 100 * *m.MeanAccuracy
	}
	if len(m.CategoryAccuracies) > 0 {
		p.ByCategory = map[int]float64{}
		for c, ca := range m.CategoryAccuracies {
			n, _ := strconv.Atoi(c)
			p.ByCategory[n] = 100 * ca.Mean
		}
	}
	if m.MajorityVote != nil {
		v := 100 * *m.MajorityVote
		p.Majority = &v
	}
	for _, r := range m.RunScores {
		p.RunScores = append(p.RunScores, 100*r)
	}
	if m.StdAccuracy != nil {
		v := 100 * *m.StdAccuracy
		p.SD = &v
	}
	return p
}

// Info is the run a scored file writes: its system, models and tokens.
func (s *Scored) Info(system string, ds *datasets.Dataset) RunInfo {
	info := RunInfo{System: system, Dataset: locomo.Name, DatasetSource: ds.Source, DatasetSHA256: ds.SHA256, Runs: s.Runs, Published: s.Published, Format: FormatScored, Source: s.Path}
	if m := s.Meta; m != nil {
		info.AnswerModel, info.JudgeModel, info.BaseURL, info.AnswerPrompt = m.AnswerModel, m.JudgeModel, m.BaseURL, m.AnswerPrompt
		if m.PromptTokens > 0 || m.CompletionTokens > 0 {
			info.Tokens = &Tokens{Calls: len(s.Items), Input: m.PromptTokens, Output: m.CompletionTokens}
		}
	}
	return info
}

// Figure is one published figure beside the one the imported run gives.
type Figure struct {
	Name      string  `json:"name"`
	Published float64 `json:"published"`
	Ours      float64 `json:"ours"`
	Has       bool    `json:"has"` // the run gives this figure
}

// Figures lists the published figures beside the imported run's, read
// from its summary: overall (the mean over judgment runs), per category,
// majority vote, sd and each run's score.
func (p *Published) Figures(sum *runlog.Summary) []Figure {
	if p == nil {
		return nil
	}
	byGroup := map[string]float64{}
	for _, g := range sum.Groups {
		if v, ok := g.Scores[JudgeName]; ok {
			byGroup[g.Name] = v
		}
	}
	var rep *runlog.RepeatStats
	if st, ok := sum.Overall.Repeats[JudgeName]; ok {
		rep = &st
	}
	overall, has := sum.Overall.Scores[JudgeName]
	out := []Figure{{Name: "overall", Published: p.Overall, Ours: overall, Has: has}}
	for _, c := range slices.Sorted(maps.Keys(p.ByCategory)) {
		v, ok := byGroup[locomo.CategoryName(c)]
		out = append(out, Figure{Name: fmt.Sprintf("%d %s", c, locomo.CategoryName(c)), Published: p.ByCategory[c], Ours: v, Has: ok})
	}
	if p.Majority != nil {
		f := Figure{Name: "majority vote", Published: *p.Majority}
		if rep != nil {
			f.Ours, f.Has = rep.Majority, true
		}
		out = append(out, f)
	}
	if p.SD != nil {
		f := Figure{Name: "sd over runs", Published: *p.SD}
		if rep != nil {
			f.Ours, f.Has = rep.SD, true
		}
		out = append(out, f)
	}
	for i, r := range p.RunScores {
		f := Figure{Name: fmt.Sprintf("run %d", i+1), Published: r}
		if rep != nil && i < len(rep.Scores) {
			f.Ours, f.Has = rep.Scores[i], true
		}
		out = append(out, f)
	}
	return out
}
