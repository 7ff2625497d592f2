// Package runlogtest writes run folders for tests of the code that reads
// them (reports, comparisons, plots): one builder instead of a copy per
// package.
package runlogtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/runlog"
)

// Run is a run folder's content: its manifest and its records. Empty
// record lists write no file, as a run that has not reached them.
type Run struct {
	Manifest   runlog.Manifest
	Answers    []runlog.AnswerRecord
	Judgments  []runlog.Judgment
	Retrievals []runlog.RetrievalRecord
	Builds     []runlog.BuildRecord
	Costs      []runlog.CostRecord
	// NoManifest leaves manifest.json out: a folder of record files only,
	// which compare still reads (it pairs verdicts by question), or one
	// whose manifest the test writes itself.
	NoManifest bool
}

// New is a run of system at retrieval budget k with judge as its one judge.
func New(system string, k int, judge string) *Run {
	return &Run{Manifest: runlog.Manifest{Config: membench.Config{System: system, K: k}, Judges: []string{judge}}}
}

// Scored adds n questions q0…q(n-1) of category cat, the first right of
// them judged correct by the run's first judge.
func (r *Run) Scored(n, right, cat int) *Run {
	return r.Each(n, func(i int) (int, bool) { return cat, i < right })
}

// Each adds n questions q0…q(n-1); f gives each one's category and
// whether the run's first judge found it correct.
func (r *Run) Each(n int, f func(i int) (cat int, correct bool)) *Run {
	judge := "llm"
	if len(r.Manifest.Judges) > 0 {
		judge = r.Manifest.Judges[0]
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("q%d", len(r.Answers))
		cat, ok := f(i)
		score := 0.0
		if ok {
			score = 1
		}
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, Category: cat})
		r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, Judge: judge, Correct: ok, Score: score})
	}
	r.Manifest.Questions = len(r.Answers)
	return r
}

// Write writes the run into dir (created), naming the run after dir when
// the manifest names none, and returns dir.
func (r *Run) Write(tb testing.TB, dir string) string {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	m := r.Manifest
	if m.RunID == "" {
		m.RunID = filepath.Base(dir)
	}
	if m.JudgeSpecs == nil {
		m.JudgeSpecs = Specs(m.Judges...) // every writer records them
	}
	if !r.NoManifest {
		if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), m); err != nil {
			tb.Fatal(err)
		}
	}
	writeLines(tb, filepath.Join(dir, runlog.AnswersFile), r.Answers)
	writeLines(tb, filepath.Join(dir, runlog.JudgmentsFile), r.Judgments)
	writeLines(tb, filepath.Join(dir, runlog.RetrievalsFile), r.Retrievals)
	writeLines(tb, filepath.Join(dir, runlog.BuildFile), r.Builds)
	writeLines(tb, filepath.Join(dir, runlog.CostsFile), r.Costs)
	return dir
}

func writeLines[T any](tb testing.TB, path string, recs []T) {
	tb.Helper()
	if len(recs) == 0 {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Specs describes the named judges as a run's manifest does (judge.Describe
// with the registry's class): a name the registry lacks is a verdict judge.
func Specs(names ...string) []membench.JudgeInfo {
	var out []membench.JudgeInfo
	for _, n := range names {
		in := membench.JudgeInfo{Name: n, Kind: n}
		if sp, err := judge.Lookup(n); err == nil {
			in.Class, in.AddedBy = sp.Kind, sp.AddedBy
		}
		out = append(out, in)
	}
	return out
}

// OfflineManifest is the manifest of an offline LoCoMo run judged by
// lexical and f1 (threshold 0.5), with dataset and question-set hashes.
func OfflineManifest() runlog.Manifest {
	off := membench.ModelID{Backend: "offline", Model: "heuristic"}
	return runlog.Manifest{Dataset: "locomo", DatasetSHA256: "aaaa", QuestionSetSHA256: "qqqq", Questions: 10, Embedder: "use-lite",
		Models:     map[string]membench.ModelID{"build": off, "answer": off, "decide": off, "judge": off},
		Judges:     []string{"lexical", "f1"},
		JudgeSpecs: []membench.JudgeInfo{{Name: "lexical", Kind: "lexical", Class: membench.JudgeVerdict}, {Name: "f1", Kind: "f1", Class: membench.JudgeMetric, Threshold: 0.5}}}
}

// Verdicts reads the judgments of a run directory or of a judgments.jsonl
// file as readers score them (runlog.Verdicts): valid and invalid apart.
func Verdicts(path string) (valid, invalid []runlog.Judgment, err error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, runlog.JudgmentsFile)
	}
	js, err := runlog.ReadJSONL[runlog.Judgment](path)
	valid, invalid = runlog.Verdicts(js)
	return valid, invalid, err
}

// Judgments is the valid verdicts of Verdicts.
func Judgments(path string) ([]runlog.Judgment, error) {
	valid, _, err := Verdicts(path)
	return valid, err
}

// Transcripts reads every transcript of a run directory the way the
// viewer reads a few (IndexTranscripts, then ReadTranscriptsAt).
func Transcripts(dir string) ([]runlog.Transcript, error) {
	heads, err := runlog.IndexTranscripts(dir)
	if err != nil || len(heads) == 0 {
		return nil, err
	}
	return runlog.ReadTranscriptsAt(dir, heads)
}
