package peers

import (
	"cmp"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets/locomo"
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
	// PeerFile records where the run came from and what the peer
	// published (PeerRecord).
	PeerFile = "peer.json"
)

// RunInfo is what WriteRun records of a peer's run besides its answers.
type RunInfo struct {
	System        string // system name, with version
	Dataset       string // locomo | longmemeval
	DatasetSource string
	// DatasetSHA256 is the content hash of the file the questions were
	// matched against; compare joins runs on it, so a LoCoMo import
	// without it is refused (only unchecked LongMemEval ids lack one).
	DatasetSHA256 string
	Format        Format
	Source        string // the file (or glob) imported
	// Runs names the peer's judgment runs when it judged each answer
	// several times (Item.Repeats): run r is repeat r of JudgeName.
	Runs []string
	// JudgeModel, AnswerModel and BaseURL are the models as the peer names
	// them ("" when it does not).
	JudgeModel, AnswerModel, BaseURL, AnswerPrompt string
	Tokens                                         *Tokens
	Published                                      *Published
}

// Tokens are the peer's answer-model token totals.
type Tokens struct {
	Calls, Input, Output int
}

// PeerRecord is peer.json.
type PeerRecord struct {
	System       string     `json:"system"`
	Format       Format     `json:"format"`
	Source       string     `json:"source"`
	Runs         []string   `json:"judgment_runs,omitempty"`
	JudgeModel   string     `json:"judge_model,omitempty"`
	AnswerModel  string     `json:"answer_model,omitempty"`
	AnswerPrompt string     `json:"answer_prompt,omitempty"`
	Published    *Published `json:"published,omitempty"`
}

// PredictionLine is one line of predictions.jsonl: what `membench score
// --predictions` reads, plus the categories (ignored by score).
type PredictionLine struct {
	QuestionID   string `json:"question_id"`
	Prediction   string `json:"prediction"`
	System       string `json:"system,omitempty"`
	Category     int    `json:"category,omitempty"`      // dataset's
	PeerCategory int    `json:"peer_category,omitempty"` // as the peer labelled it
}

// WriteRun writes a run-shaped directory for one peer: judgments.jsonl (one
// line per graded question, judge JudgeName, score 1/0; one per judgment
// run as repeats when the peer judged several times), answers.jsonl (with
// the dataset's category), predictions.jsonl (for `membench score`),
// costs.jsonl (the peer's answer tokens, when it gives them),
// manifest.json, match.json (the match report) and peer.json.
func WriteRun(dir string, info RunInfo, ms []Matched, rep MatchReport) error {
	system, dataset, datasetSource := info.System, info.Dataset, info.DatasetSource
	if dataset == locomo.Name && info.DatasetSHA256 == "" {
		return fmt.Errorf("%s: no sha256 of the LoCoMo file its questions were matched against (%q); match them against a loaded LoCoMo file", system, datasetSource)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sorted := slices.Clone(ms)
	slices.SortStableFunc(sorted, func(a, b Matched) int { return compareID(a.ID, b.ID) })
	var judg, ans, preds []any
	for _, m := range sorted {
		preds = append(preds, PredictionLine{QuestionID: m.ID, Prediction: m.Prediction, System: system, Category: m.DataCategory, PeerCategory: m.Category})
		ans = append(ans, runlog.AnswerRecord{QuestionID: m.ID, ConversationID: m.ConversationID, System: system, Category: m.DataCategory,
			Abstention: m.DataAbstains, Group: m.DataGroup, Type: m.Type, Question: m.DataQuestion, Gold: m.DataGold, Prediction: m.Prediction, TargetSHA256: llm.HashText(m.DataGold)})
		if !m.Graded {
			continue
		}
		if len(m.Repeats) > 0 {
			for r, ok := range m.Repeats {
				raw := strconv.FormatBool(ok)
				if r < len(info.Runs) {
					raw = info.Runs[r] + ": " + raw
				}
				judg = append(judg, runlog.Judgment{QuestionID: m.ID, System: system, Judge: JudgeName, Correct: ok, Score: score01(ok), Raw: raw, Repeat: r})
			}
			continue
		}
		judg = append(judg, runlog.Judgment{QuestionID: m.ID, System: system, Judge: JudgeName, Correct: m.Correct, Score: score01(m.Correct), Reason: m.Reason, Raw: m.Raw})
	}
	files := map[string][]any{runlog.JudgmentsFile: judg, runlog.AnswersFile: ans, PredictionsFile: preds}
	if t := info.Tokens; t != nil {
		model := info.AnswerModel
		if model != "" {
			model = backendOf(info.BaseURL) + ":" + model
		}
		files[runlog.CostsFile] = []any{runlog.CostRecord{System: system, Tallies: []membench.Tally{{Role: "answer", Stage: membench.StageAnswer, Label: "imported", Model: model,
			Calls: t.Calls, InputTokens: t.Input, OutputTokens: t.Output}}}}
	}
	for name, recs := range files {
		if err := runlog.WriteJSONLines(filepath.Join(dir, name), recs); err != nil {
			return err
		}
	}
	man := runlog.Manifest{RunID: filepath.Base(dir), Dataset: dataset, DatasetSource: datasetSource, DatasetSHA256: info.DatasetSHA256, Questions: len(sorted),
		Judges: []string{JudgeName}, Embedder: runlog.PeerEmbedder, Peer: true,
		Config: membench.Config{System: system, Dataset: dataset, Data: datasetSource, DataSHA256: info.DatasetSHA256}}
	if len(judg) == 0 {
		man.Judges = nil
	} else {
		in := membench.JudgeInfo{Name: JudgeName, Kind: JudgeName, Class: membench.JudgeVerdict, AddedBy: "membench peers import"}
		if info.JudgeModel != "" {
			in.Model = &membench.ModelID{Backend: backendOf(info.BaseURL), Model: info.JudgeModel}
		}
		if len(info.Runs) > 1 {
			in.Repeats = len(info.Runs)
		}
		man.JudgeSpecs = []membench.JudgeInfo{in}
	}
	if info.AnswerModel != "" {
		man.Models = map[string]membench.ModelID{"answer": {Backend: backendOf(info.BaseURL), Model: info.AnswerModel}}
	}
	if s, err := datasets.Lookup(dataset); err == nil {
		for _, g := range s.Groups {
			man.DatasetGroups = append(man.DatasetGroups, runlog.DatasetGroup{Name: g.Name, Abstains: g.Abstains})
		}
	}
	if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), man); err != nil {
		return err
	}
	if err := runlog.WriteJSON(filepath.Join(dir, MatchFile), rep); err != nil {
		return err
	}
	return runlog.WriteJSON(filepath.Join(dir, PeerFile), PeerRecord{System: system, Format: info.Format, Source: info.Source, Runs: info.Runs,
		JudgeModel: info.JudgeModel, AnswerModel: info.AnswerModel, AnswerPrompt: info.AnswerPrompt, Published: info.Published})
}

func score01(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// backendOf names the service a peer called by its base URL's host
// ("openrouter" for https://openrouter.ai/api/v1); "peer" when unknown.
func backendOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return "peer"
	}
	h := strings.TrimPrefix(u.Hostname(), "api.")
	if i := strings.IndexByte(h, '.'); i > 0 {
		h = h[:i]
	}
	return h
}

// compareID orders "conv-26:9" before "conv-26:10".
func compareID(a, b string) int {
	pa, na := splitID(a)
	pb, nb := splitID(b)
	return cmp.Or(strings.Compare(pa, pb), cmp.Compare(na, nb))
}

func splitID(s string) (string, int) {
	n, err := trailingInt(s)
	if err != nil {
		return s, -1
	}
	return strings.TrimRight(s, "0123456789"), n
}
