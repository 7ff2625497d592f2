package analysis

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// futureManifest is a manifest a later membench might write: a system,
// a dataset and judges this binary has never registered, a field it does
// not know, and the primary judge recorded rather than left to a rule
// (the rule would pick lexical, the first verdict judge).
const futureManifest = `{
  "schema": 1,
  "membench": "v9.0.0",
  "run_id": "from-the-future",
  "config_hash": "0",
  "config": {"system": "system-from-the-future", "dataset": "dataset-from-the-future", "model": "offline", "turn_step": 30000000000,
             "judges": ["future-metric", "lexical", "judge-from-the-future"]},
  "dataset": "dataset-from-the-future",
  "dataset_source": "somewhere",
  "dataset_sha256": "",
  "conversations": 1,
  "questions": 4,
  "prompts": {},
  "embedder": "hashed",
  "models": {"answer": {"backend": "openai", "model": "gpt-9"}},
  "judges": ["future-metric", "lexical", "judge-from-the-future"],
  "judge_specs": [
    {"name": "future-metric", "kind": "rouge-9", "class": "metric"},
    {"name": "lexical", "kind": "lexical", "class": "verdict"},
    {"name": "judge-from-the-future", "kind": "oracle", "class": "verdict"}
  ],
  "primary_judge": "judge-from-the-future",
  "dataset_groups": [{"name": "beta"}, {"name": "alpha"}, {"name": "unanswerable", "abstains": true}],
  "system_options": {"k": "7", "depth": "3"},
  "offline": false,
  "started": "2031-01-01T00:00:00Z",
  "finished": "2031-01-01T01:00:00Z",
  "status": {"state": "complete", "questions": 4, "answered": 4},
  "hologram": {"what": "a field this binary does not know"}
}
`

// A run written by a later binary, with a judge, a system and a dataset
// this binary does not know, is read from its manifest alone: the primary
// judge it records, each judge's class, the system's k from its resolved
// options, the dataset's group order and abstention.
func TestRunFromTheFutureIsReadFromItsManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "from-the-future")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runlog.ManifestFile), []byte(futureManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	var answers []runlog.AnswerRecord
	var js []runlog.Judgment
	for _, q := range []struct {
		id, group   string
		abstains    bool
		oracle, lex float64
		metric      float64
	}{
		{"q1", "alpha", false, 1, 0, 0.5},
		{"q2", "alpha", false, 0, 0, 0.25},
		{"q3", "beta", false, 1, 1, 1},
		{"q4", "unanswerable", true, 0, 1, 0},
	} {
		answers = append(answers, runlog.AnswerRecord{QuestionID: q.id, ConversationID: "c1", System: "system-from-the-future",
			Group: q.group, Abstention: q.abstains, Question: "?", Gold: "g", Prediction: "p", Category: 0})
		for _, j := range []struct {
			name  string
			score float64
		}{{"judge-from-the-future", q.oracle}, {"lexical", q.lex}, {"future-metric", q.metric}} {
			js = append(js, runlog.Judgment{QuestionID: q.id, System: "system-from-the-future", Judge: j.name, Score: j.score, Correct: j.score >= 0.5})
		}
	}
	// The manifest is the later binary's text, unknown field and all.
	(&runlogtest.Run{NoManifest: true, Answers: answers, Judgments: js}).Write(t, dir)
	r := mustLoad(t, dir)
	runs := []*runlog.Run{r}

	if j := ChooseJudge(runs, ""); j != "judge-from-the-future" {
		t.Errorf("report judge %q, want the manifest's primary judge-from-the-future", j)
	}
	if m := Measure(runs, "judge-from-the-future"); !strings.HasPrefix(m, "accuracy") {
		t.Errorf("judge-from-the-future measures %q, want accuracy (the manifest classes it a verdict judge)", m)
	}
	if m := Measure(runs, "future-metric"); !strings.HasPrefix(m, "mean future-metric") {
		t.Errorf("future-metric measures %q, want a mean score (the manifest classes it a metric)", m)
	}
	if k, src, ok := ResolveK(r.Manifest); !ok || k != 7 {
		t.Errorf("k = %d (%s, %v), want 7 from the manifest's system options", k, src, ok)
	}
	if l := RunLabel(r); l != "system-from-the-future k=7" {
		t.Errorf("row label %q", l)
	}

	s := r.Summary
	if !slices.Equal(s.Metrics, []string{"future-metric"}) {
		t.Errorf("metric judges %v, want [future-metric]", s.Metrics)
	}
	var order []string
	for _, g := range s.Groups {
		order = append(order, g.Name)
		if g.Abstains != (g.Name == "unanswerable") {
			t.Errorf("group %s abstains=%v", g.Name, g.Abstains)
		}
	}
	if !slices.Equal(order, []string{"beta", "alpha", "unanswerable"}) {
		t.Errorf("groups in order %v, want the manifest's beta, alpha, unanswerable", order)
	}
	// Overall leaves the abstaining group out: 2 of 3 by the oracle.
	if got := s.Overall.Scores["judge-from-the-future"]; math.Abs(got-200.0/3) > 1e-9 {
		t.Errorf("overall under judge-from-the-future %v, want 66.67", got)
	}

	rep, err := Report(runs, ChooseJudge(runs, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Runs[0]
	if row.K == nil || *row.K != 7 || row.Overall.N != 3 || row.Overall.Lo == nil {
		t.Errorf("report row k=%v n=%d ci=%v, want k 7, n 3 and a Wilson interval (0/1 verdicts)", row.K, row.Overall.N, row.Overall.Lo)
	}
	tab, err := Table2(runs, "future-metric", Wide)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	tab.Markdown(&md)
	// Overall (0.5+0.25+1)/3: a mean score, abstaining q4 left out.
	for _, want := range []string{"system-from-the-future k=7", "| 58.33 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Table 2 under the metric judge lacks %q:\n%s", want, md.String())
		}
	}
}
