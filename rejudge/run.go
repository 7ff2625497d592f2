// Package rejudge adds judgments to finished runs: more judges (models or
// metrics) through Run, and blind human grades through Human. Both
// append to the run's judgments.jsonl, skip (question, judge) pairs already
// there, list the new judge in the manifest and rewrite the summary.
package rejudge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/judge/judging"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/summary"
)

// runDir is a finished run's answers and the judgments it already has.
type runDir struct {
	dir      string
	manifest runlog.Manifest
	answers  []runlog.AnswerRecord      // last per question, by id
	judged   map[string]map[string]bool // question -> judge -> done
}

func openRun(dir string) (*runDir, error) {
	mp := filepath.Join(dir, runlog.ManifestFile)
	b, err := os.ReadFile(mp)
	if err != nil {
		return nil, fmt.Errorf("--run %s: %w (give a finished run directory)", dir, err)
	}
	r := &runDir{dir: dir}
	if err := json.Unmarshal(b, &r.manifest); err != nil {
		return nil, fmt.Errorf("%s: %v", mp, err)
	}
	ans, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		return nil, err
	}
	last := map[string]runlog.AnswerRecord{}
	for _, a := range ans {
		last[a.QuestionID] = a
	}
	if len(last) == 0 {
		return nil, fmt.Errorf("--run %s: answers.jsonl has no answers; finish the run first (membench run ... resumes it)", dir)
	}
	r.answers = slices.SortedFunc(maps.Values(last), func(a, b runlog.AnswerRecord) int { return cmp.Compare(a.QuestionID, b.QuestionID) })
	js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(dir, runlog.JudgmentsFile))
	if err != nil {
		return nil, err
	}
	r.judged = judging.Judged(js) // an invalid verdict is judged again
	return r, nil
}

// Question rebuilds what a judge needs from an answer record: the judges
// read text, gold, group, category/type and whether declining is the
// right answer.
func Question(a runlog.AnswerRecord) *datasets.Question {
	return &datasets.Question{
		ID: a.QuestionID, ConversationID: a.ConversationID, Text: a.Question, Gold: a.Gold,
		Category: a.Category, Type: a.Type, Abstention: a.Abstains(), Group: a.Group,
	}
}

// finish lists the judges in the run's manifest (so the summary shows
// them) and rewrites summary.json/summary.md, its dollars priced from the
// run's cost records with table (nil: the table its summary was priced
// with, as prices.Again picks it), as every writer of a summary prices.
func finish(dir string, judges []membench.JudgeInfo, table *prices.Table) (*runlog.Summary, error) {
	if err := runlog.AddJudges(dir, judges); err != nil {
		return nil, err
	}
	if table == nil {
		t, err := prices.Again("", prices.Earlier(dir))
		if err != nil {
			return nil, err
		}
		table = t
	}
	sum, err := summary.Compute(dir)
	if err != nil {
		return nil, err
	}
	if sum.Dollars, err = prices.Dollars(dir, table); err != nil {
		return nil, err
	}
	return sum, summary.Write(dir, sum)
}

// lockRun takes the writer lock of a run directory before judge or grade
// adds lines to it (runlog.LockDir). A directory that is no run is left
// alone: openRun says what is wrong with it.
func lockRun(dir string) (*runlog.DirLock, error) {
	if !runlog.IsRunDir(dir) {
		return nil, nil
	}
	return runlog.LockDir(dir)
}

// openTranscripts opens the run's transcripts for appending the verdicts
// of judges added later; nil when the run keeps none (made before
// transcripts, or with --no-transcripts).
func openTranscripts(dir string) (*runlog.TranscriptWriter, error) {
	path := filepath.Join(dir, runlog.TranscriptsFile)
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	return runlog.OpenTranscripts(path)
}
