// Package grade adds judgments to finished runs: more judges (models or
// metrics) through Rejudge, and blind human grades through Human. Both
// append to the run's judgments.jsonl, skip (question, judge) pairs already
// there, list the new judge in the manifest and rewrite the summary.
package grade

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/judge"
)

// runDir is a finished run's answers and the judgments it already has.
type runDir struct {
	dir      string
	manifest harness.Manifest
	answers  []harness.AnswerRecord     // last per question, by id
	judged   map[string]map[string]bool // question -> judge -> done
}

func openRun(dir string) (*runDir, error) {
	mp := filepath.Join(dir, harness.ManifestFile)
	b, err := os.ReadFile(mp)
	if err != nil {
		return nil, fmt.Errorf("--run %s: %w (give a finished run directory)", dir, err)
	}
	r := &runDir{dir: dir, judged: map[string]map[string]bool{}}
	if err := json.Unmarshal(b, &r.manifest); err != nil {
		return nil, fmt.Errorf("%s: %v", mp, err)
	}
	ans, err := harness.ReadJSONL[harness.AnswerRecord](filepath.Join(dir, harness.AnswersFile))
	if err != nil {
		return nil, err
	}
	last := map[string]harness.AnswerRecord{}
	for _, a := range ans {
		last[a.QuestionID] = a
	}
	if len(last) == 0 {
		return nil, fmt.Errorf("--run %s: answers.jsonl has no answers; finish the run first (membench run ... resumes it)", dir)
	}
	for _, a := range last {
		r.answers = append(r.answers, a)
	}
	sort.Slice(r.answers, func(i, j int) bool { return r.answers[i].QuestionID < r.answers[j].QuestionID })
	js, err := harness.ReadJSONL[judge.Judgment](filepath.Join(dir, harness.JudgmentsFile))
	if err != nil {
		return nil, err
	}
	for _, j := range js {
		if r.judged[j.QuestionID] == nil {
			r.judged[j.QuestionID] = map[string]bool{}
		}
		r.judged[j.QuestionID][j.Judge] = true
	}
	return r, nil
}

// Question rebuilds what a judge needs from an answer record: the judges
// read text, gold, category/type and whether declining is the right answer.
func Question(a harness.AnswerRecord) *datasets.Question {
	return &datasets.Question{
		ID: a.QuestionID, ConversationID: a.ConversationID, Text: a.Question, Gold: a.Gold,
		Category: a.Category, Type: a.Type, Abstention: IsAbstention(a),
	}
}

// IsAbstention: LoCoMo category 5 or a LongMemEval "_abs" question.
func IsAbstention(a harness.AnswerRecord) bool {
	return a.Category == datasets.CatAdversarial || strings.HasSuffix(a.QuestionID, "_abs")
}

// appender appends JSON lines, flushing each so an interruption keeps
// every finished judgment.
type appender struct {
	mu sync.Mutex
	f  *os.File
}

func openAppender(path string) (*appender, error) {
	f, err := harness.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &appender{f: f}, nil
}

func (a *appender) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err = a.f.Write(append(b, '\n'))
	return err
}

func (a *appender) close() error { return a.f.Close() }

// finish lists names among the manifest's judges (so the summary shows
// them) and rewrites summary.json/summary.md. The run's config, and so its
// resume hash, is left alone.
func finish(dir string, names []string) (*harness.Summary, error) {
	mp := filepath.Join(dir, harness.ManifestFile)
	b, err := os.ReadFile(mp)
	if err != nil {
		return nil, err
	}
	// Decode into a raw map too, so fields this binary does not know survive.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", mp, err)
	}
	var have []string
	if j, ok := raw["judges"]; ok {
		if err := json.Unmarshal(j, &have); err != nil {
			return nil, fmt.Errorf("%s: judges: %v", mp, err)
		}
	}
	changed := false
	for _, n := range names {
		found := false
		for _, h := range have {
			found = found || h == n
		}
		if !found {
			have = append(have, n)
			changed = true
		}
	}
	if changed {
		jb, _ := json.Marshal(have)
		raw["judges"] = jb
		if err := harness.WriteJSON(mp, raw); err != nil {
			return nil, err
		}
	}
	sum, err := harness.Summarize(dir)
	if err != nil {
		return nil, err
	}
	return sum, sum.Write(dir)
}
