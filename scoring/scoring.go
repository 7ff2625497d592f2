// Package scoring judges a file of external predictions against a dataset
// and writes a run-shaped folder (membench score).
package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/jsonl"
	"github.com/membench/membench/judge/judging"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/summary"
)

// Prediction is one line of an external predictions file.
type Prediction struct {
	QuestionID string `json:"question_id"`
	Prediction string `json:"prediction"`
	System     string `json:"system,omitempty"`
}

// Config scores external predictions against a dataset. Its run
// settings mean what they mean to run; the score command sets those that
// apply: the dataset (Dataset, Data, MaxDataSize, Seed, BaseData), Judges
// and their Model, CacheDir, NoCache, Host, PricesFile (the summary's
// dollars, as run prices them), and AnswerKey and ExcludeImageQuestions
// (predictions of questions they leave out are counted and not scored).
// System is the name recorded in judgments; default: the predictions
// file's base name. Other run settings stay zero: every field set is
// part of the scored run's config, so it changes its hash and id.
type Config struct {
	membench.Config
	Predictions string
	Out         string
}

// ReadPredictions reads a predictions JSONL file; every bad line is an error
// naming the file and line. Lines may be of any length. A line without a
// "prediction" field is refused: scoring it as an empty answer would turn a
// misnamed field into a silent 0.
func ReadPredictions(path string) ([]Prediction, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, badinput.Errorf("--predictions %s is a directory; give the predictions JSONL file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badinput.Errorf("--predictions: %v", err)
	}
	defer f.Close()
	var out []Prediction
	seen := map[string]int{}
	const want = `want {"question_id": "conv-26:0", "prediction": "..."}`
	err = jsonl.Each(f, func(n int, b []byte, _ bool) error {
		if len(bytes.TrimSpace(b)) == 0 {
			return nil
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(b, &fields); err != nil {
			return badinput.Errorf("%s line %d: %v (%s)", path, n, err, want)
		}
		var p Prediction
		if err := json.Unmarshal(b, &p); err != nil {
			return badinput.Errorf("%s line %d: %v (%s)", path, n, err, want)
		}
		if p.QuestionID == "" {
			return badinput.Errorf("%s line %d: missing field question_id (%s)", path, n, want)
		}
		if _, ok := fields["prediction"]; !ok {
			keys := slices.Sorted(maps.Keys(fields))
			return badinput.Errorf("%s line %d: no field \"prediction\" (the line has %s); name the answer field prediction (%s)", path, n, strings.Join(keys, ", "), want)
		}
		if prev, dup := seen[p.QuestionID]; dup {
			return badinput.Errorf("%s line %d: question_id %s already given on line %d", path, n, p.QuestionID, prev)
		}
		seen[p.QuestionID] = n
		out = append(out, p)
		return nil
	})
	if err != nil {
		if _, ok := err.(*badinput.Error); ok {
			return nil, err
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// Run judges external predictions and writes a run-shaped directory
// (manifest, answers, judgments, summary) so every other command reads it.
func Run(ctx context.Context, sc Config) (*runlog.Summary, []string, error) {
	system := sc.System
	if system == "" {
		base := filepath.Base(sc.Predictions)
		system = strings.TrimSuffix(base, filepath.Ext(base))
	}
	cfg := sc.Config
	cfg.System = system
	cfg.ResultsDir, cfg.RunID = filepath.Dir(sc.Out), filepath.Base(sc.Out) // the run folder is --out
	pl, err := plan.Scored(cfg)
	if err != nil {
		return nil, nil, err
	}
	cfg = pl.Config
	ds := pl.Data
	preds, err := ReadPredictions(sc.Predictions)
	if err != nil {
		return nil, nil, err
	}
	given := map[string]bool{}
	for _, p := range preds {
		given[p.QuestionID] = true
	}
	scoring := pl.Scoring.Within(given) // the key's counts over the predictions' questions
	if len(scoring.Dropped) > 0 {
		preds = slices.DeleteFunc(slices.Clone(preds), func(p Prediction) bool { return scoring.Dropped[p.QuestionID] })
	}
	scored := maps.Clone(given) // the questions of the predictions kept
	maps.DeleteFunc(scored, func(id string, _ bool) bool { return scoring.Dropped[id] })
	byID := map[string]*datasets.Question{}
	conv := map[string]*datasets.Conversation{} // for the judges' evidence text
	for _, c := range ds.Conversations {
		for _, q := range c.Questions {
			byID[q.ID], conv[q.ID] = q, c
		}
	}
	var unknown []string
	for _, p := range preds {
		if byID[p.QuestionID] == nil {
			unknown = append(unknown, p.QuestionID)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, nil, badinput.Errorf("%s: %d question ids are not in %s, e.g. %s (ids look like conv-26:0)", sc.Predictions, len(unknown), ds.Source, unknown[0])
	}
	if err := checkScoreOut(sc.Out, sc.Predictions); err != nil {
		return nil, nil, err
	}
	lock, err := runlog.LockDir(sc.Out)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Unlock()
	res, err := harness.OpenResources(cfg, pl.Models)
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	meter := llm.NewMeter()
	judges, err := res.Judges(cfg.Judges, meter)
	if err != nil {
		return nil, nil, err
	}
	m := pl.StartManifest()
	m.Questions = len(preds)
	m.Models = map[string]membench.ModelID{}
	m.Judges = judging.Names(judges)
	m.JudgeSpecs = judging.Describe(judges)
	m.Embedder = scoreEmbedder
	m.Started = time.Now().UTC()
	m.Status = &runlog.Status{State: runlog.StateComplete, Questions: len(preds), Answered: len(preds)}
	// Only the judge model is used here: the answers come from outside.
	if id, ok := res.ModelIDs()[plan.RoleJudge]; ok {
		m.Models[plan.RoleJudge] = id
	}
	qs := slices.DeleteFunc(ds.Questions(), func(q *datasets.Question) bool { return !scored[q.ID] })
	m.QuestionSetSHA256 = plan.QuestionSetHash(qs)
	m.AnswerKey, m.ImageQuestionsExcluded = scoring.Key, scoring.ImageExcluded
	m.OfflineParts = m.OfflineList()
	// Offline stays false: the answers come from outside, and the default
	// judges are lexical metrics, not the offline model heuristics.
	// Scoring rewrites the directory's files: they derive from the
	// predictions file, which is kept untouched, and from what `judge` and
	// `grade` added to an earlier scoring, which is kept.
	added, err := addedToScore(sc.Out, preds, judging.Names(judges))
	if err != nil {
		return nil, nil, err
	}
	for _, in := range added.specs {
		m.Judges = append(m.Judges, in.Name)
		m.JudgeSpecs = append(m.JudgeSpecs, in)
	}
	m.Primary = m.JudgeSet().PrimaryByRule() // over every judge listed, as readers chose it before it was recorded
	var answers, judgments []any
	for _, p := range preds {
		q := byID[p.QuestionID]
		answers = append(answers, runlog.AnswerRecord{QuestionID: q.ID, ConversationID: conv[q.ID].ID, System: system, Category: q.Category, Type: q.Type, Abstention: q.Abstains(), Group: q.Group,
			Question: q.Text, Gold: q.Gold, Prediction: p.Prediction, TargetSHA256: llm.HashText(q.Gold)})
		s := judge.NewSample(conv[q.ID], q, p.Prediction)
		s.Prompt = ds.JudgePrompt(q)
		err := judging.Sample(ctx, judges, s, system, nil, func(j runlog.Judgment) error {
			judgments = append(judgments, j)
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("question %s: %w", q.ID, err)
		}
	}
	if err := runlog.WriteJSONLines(filepath.Join(sc.Out, runlog.AnswersFile), answers); err != nil {
		return nil, nil, err
	}
	judgments = append(judgments, added.judgments...)
	if err := runlog.WriteJSONLines(filepath.Join(sc.Out, runlog.JudgmentsFile), judgments); err != nil {
		return nil, nil, err
	}
	costs := added.costs // an earlier scoring's own costs are not this one's
	if t := meter.Snapshot(); len(t) > 0 {
		costs = append(costs, runlog.CostRecord{System: system, At: time.Now().UTC(), Tallies: t})
	}
	if len(costs) > 0 {
		if err := runlog.WriteJSONLines(filepath.Join(sc.Out, runlog.CostsFile), costs); err != nil {
			return nil, nil, err
		}
	} else if err := os.Remove(filepath.Join(sc.Out, runlog.CostsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	m.Finished = time.Now().UTC()
	if err := runlog.WriteJSON(filepath.Join(sc.Out, runlog.ManifestFile), m); err != nil {
		return nil, nil, err
	}
	sum, err := summary.Compute(sc.Out)
	if err != nil {
		return nil, nil, err
	}
	// The judges' spend, priced as a run's is (offline judges: $0).
	if d, err := prices.Dollars(sc.Out, pl.Prices); err == nil {
		sum.Dollars = d
	}
	var missing []string
	for id := range byID {
		if !scored[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	return sum, missing, summary.Write(sc.Out, sum)
}

// addedLater is what `membench judge` and `grade` added to an earlier
// scoring of the same --out: judgments of judges this scoring does not
// run, their manifest entries, and the costs they metered.
type addedLater struct {
	judgments []any
	specs     []membench.JudgeInfo
	costs     []any
}

// addedToScore reads what judge and grade added to an earlier scoring in
// out. Their verdicts are kept when the prediction they judged is the one
// scored now; a changed prediction would leave a verdict on an answer no
// longer there, so that is refused, saying which.
func addedToScore(out string, preds []Prediction, judges []string) (addedLater, error) {
	var a addedLater
	m, err := runlog.LoadManifest(out)
	if err != nil || m.Embedder != scoreEmbedder {
		return a, nil // no earlier scoring (checkScoreOut refused anything else)
	}
	olds, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(out, runlog.AnswersFile))
	if err != nil {
		return a, badinput.Wrap(err)
	}
	was := map[string]string{}
	for _, o := range olds {
		was[o.QuestionID] = o.Prediction
	}
	now := map[string]string{}
	for _, p := range preds {
		now[p.QuestionID] = p.Prediction
	}
	js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(out, runlog.JudgmentsFile))
	if err != nil {
		return a, badinput.Wrap(err)
	}
	kept := map[string]bool{}
	for _, j := range runlog.LastBy(js, runlog.Judgment.Key) {
		if slices.Contains(judges, j.Judge) {
			continue
		}
		p, ok := now[j.QuestionID]
		if !ok || p != was[j.QuestionID] {
			return a, badinput.Errorf("--out %s: judge %s (added by membench judge or grade) judged question %s, whose prediction is not the same in %s; scoring again would drop that verdict: score into a new --out, or restore the prediction", out, j.Judge, j.QuestionID, "the predictions file")
		}
		a.judgments = append(a.judgments, j)
		kept[j.Judge] = true
	}
	for _, in := range m.JudgeSpecs {
		if kept[in.Name] {
			a.specs = append(a.specs, in)
		}
	}
	costs, err := runlog.ReadJSONL[runlog.CostRecord](filepath.Join(out, runlog.CostsFile))
	if err != nil {
		return a, badinput.Wrap(err)
	}
	for _, c := range costs {
		if c.ConversationID != "" { // judge's lines; Run's own has none
			a.costs = append(a.costs, c)
		}
	}
	return a, nil
}

// scoreEmbedder marks a manifest written by Run.
const scoreEmbedder = "none (scoring only)"

// checkScoreOut accepts as Run's output a missing or empty directory, one
// holding only the predictions file, or one an earlier Run wrote; anything
// else (above all a run's directory) would be overwritten, so it is refused.
func checkScoreOut(out, predictions string) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return badinput.Errorf("--out %s: %v", out, err)
	}
	var m runlog.Manifest
	if b, err := os.ReadFile(filepath.Join(out, runlog.ManifestFile)); err == nil {
		if json.Unmarshal(b, &m) == nil && m.Embedder == scoreEmbedder {
			return nil
		}
		return badinput.Errorf("--out %s is a run directory (it has %s); score would overwrite its answers and judgments: give a new or empty directory", out, runlog.ManifestFile)
	}
	pa, _ := filepath.Abs(predictions)
	for _, e := range entries {
		if e.Name() == runlog.LockFile {
			continue
		}
		if p, _ := filepath.Abs(filepath.Join(out, e.Name())); p != pa {
			return badinput.Errorf("--out %s is not empty (it has %s) and is no earlier score's output: give a new or empty directory", out, e.Name())
		}
	}
	return nil
}
