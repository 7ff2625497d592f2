package peers

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
)

// JudgeName labels the peer's own LLM-judge verdicts in judgments.jsonl.
const JudgeName = "peer-llm"

// Files written by WriteRun besides the run-shaped ones.
const (
	PredictionsFile = "predictions.jsonl"
	MatchFile       = "match.json"
)

// PredictionLine is one line of predictions.jsonl: what `membench score
// --predictions` reads, plus the categories (ignored by score).
type PredictionLine struct {
	QuestionID   string `json:"question_id"`
	Prediction   string `json:"prediction"`
	System       string `json:"system,omitempty"`
	Category     int    `json:"category,omitempty"`      // dataset's
	PeerCategory int    `json:"peer_category,omitempty"` // as the peer labelled it
}

// Tally is correct/total in one group.
type Tally struct {
	Correct, N int
}

// Pct is the accuracy in points (NaN-free: 0 when empty).
func (t Tally) Pct() float64 {
	if t.N == 0 {
		return 0
	}
	return 100 * float64(t.Correct) / float64(t.N)
}

// Accuracy tallies graded items by dataset category and overall over the
// categories in scored (all when scored is empty). LoCoMo papers score 1-4.
func Accuracy(ms []Matched, scored []int) (overall Tally, byCat map[int]Tally) {
	keep := map[int]bool{}
	for _, c := range scored {
		keep[c] = true
	}
	byCat = map[int]Tally{}
	for _, m := range ms {
		if !m.Graded {
			continue
		}
		t := byCat[m.DataCategory]
		t.N++
		if m.Correct {
			t.Correct++
		}
		byCat[m.DataCategory] = t
		if len(scored) == 0 || keep[m.DataCategory] {
			overall.N++
			if m.Correct {
				overall.Correct++
			}
		}
	}
	return overall, byCat
}

// WriteRun writes a run-shaped directory for one peer: judgments.jsonl (one
// line per graded question, judge JudgeName, score 1/0), answers.jsonl
// (with the dataset's category), predictions.jsonl (for `membench score`),
// manifest.json and match.json (the match report).
func WriteRun(dir, system, dataset, datasetSource string, ms []Matched, rep MatchReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sorted := append([]Matched(nil), ms...)
	sort.SliceStable(sorted, func(i, j int) bool { return lessID(sorted[i].ID, sorted[j].ID) })
	var judg, ans, preds []any
	for _, m := range sorted {
		preds = append(preds, PredictionLine{QuestionID: m.ID, Prediction: m.Prediction, System: system, Category: m.DataCategory, PeerCategory: m.Category})
		ans = append(ans, runlog.AnswerRecord{QuestionID: m.ID, ConversationID: m.ConversationID, System: system, Category: m.DataCategory,
			Abstention: m.DataAbstains, Group: m.DataGroup, Type: m.Type, Question: m.DataQuestion, Gold: m.DataGold, Prediction: m.Prediction, TargetSHA256: llm.HashText(m.DataGold)})
		if !m.Graded {
			continue
		}
		score := 0.0
		if m.Correct {
			score = 1
		}
		judg = append(judg, runlog.Judgment{QuestionID: m.ID, System: system, Judge: JudgeName, Correct: m.Correct, Score: score, Reason: m.Reason, Raw: m.Raw})
	}
	for name, recs := range map[string][]any{runlog.JudgmentsFile: judg, runlog.AnswersFile: ans, PredictionsFile: preds} {
		if err := runlog.WriteJSONLines(filepath.Join(dir, name), recs); err != nil {
			return err
		}
	}
	man := runlog.Manifest{RunID: filepath.Base(dir), Dataset: dataset, DatasetSource: datasetSource, Questions: len(sorted),
		Judges: []string{JudgeName}, Embedder: "none (imported peer results)", Config: runlog.Config{System: system, Dataset: dataset, Data: datasetSource}}
	if len(judg) == 0 {
		man.Judges = nil
	}
	if s, ok := datasets.Registered(dataset); ok {
		for _, g := range s.Groups {
			man.DatasetGroups = append(man.DatasetGroups, runlog.DatasetGroup{Name: g.Name, Abstains: g.Abstains})
		}
	}
	if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), man); err != nil {
		return err
	}
	return runlog.WriteJSON(filepath.Join(dir, MatchFile), rep)
}

// lessID orders "conv-26:9" before "conv-26:10".
func lessID(a, b string) bool {
	pa, na := splitID(a)
	pb, nb := splitID(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

func splitID(s string) (string, int) {
	n, err := trailingInt(s)
	if err != nil {
		return s, -1
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] < '0' || s[i] > '9' {
			return s[:i+1], n
		}
	}
	return "", n
}
