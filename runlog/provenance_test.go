package runlog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/membench/membench/runlog"
)

func offlineManifest() runlog.Manifest {
	off := runlog.ModelID{Backend: "offline", Model: "heuristic"}
	return runlog.Manifest{Dataset: "locomo", DatasetSHA256: "aaaa", QuestionSetSHA256: "qqqq", Questions: 10, Embedder: "use-lite",
		Models:     map[string]runlog.ModelID{"build": off, "answer": off, "decide": off, "judge": off},
		Judges:     []string{"lexical", "f1"},
		JudgeSpecs: []runlog.JudgeInfo{{Name: "lexical", Kind: "lexical"}, {Name: "f1", Kind: "f1", Threshold: 0.5}}}
}

// A run whose roles are offline but whose judge is a real model is not
// "offline": it says which parts are.
func TestBackendsNameTheOfflineParts(t *testing.T) {
	m := offlineManifest()
	if got := m.Backends(); got != "offline" {
		t.Errorf("all offline: %q", got)
	}
	real := runlog.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
	m.Judges = append(m.Judges, "gpt")
	m.JudgeSpecs = append(m.JudgeSpecs, runlog.JudgeInfo{Name: "gpt", Kind: "llm", Model: &real})
	got := m.Backends()
	if got != "mixed (offline: answer model, build model, decide model)" {
		t.Errorf("real judge, offline roles: %q", got)
	}
	if !strings.Contains(m.OfflineNote(), "offline heuristics") {
		t.Errorf("note %q", m.OfflineNote())
	}
}

func TestDifferencesNameFieldAndRuns(t *testing.T) {
	a, b := offlineManifest(), offlineManifest()
	if d := runlog.Differences([]runlog.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}, "f1"); len(d) != 0 {
		t.Fatalf("identical manifests differ: %v", d)
	}
	b.Embedder = "tfidf-hash-512"
	b.JudgeSpecs[1].Threshold = 0.3
	_, err := runlog.CheckComparable([]runlog.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}, false, "f1")
	var me *runlog.MixedError
	if !errors.As(err, &me) || len(me.Diffs) != 2 || me.Diffs[0].Field != "embedder" || me.Diffs[1].Field != "judge" {
		t.Fatalf("want embedder and judge differences, got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "A: use-lite") || !strings.Contains(msg, "B: tfidf-hash-512") || !strings.Contains(msg, "--allow-mixed") {
		t.Errorf("message %q", msg)
	}
	mixed, err := runlog.CheckComparable([]runlog.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}, true, "f1")
	if err != nil || len(mixed) != 2 || !strings.HasPrefix(runlog.MixedWarning(mixed), "WARNING (--allow-mixed)") {
		t.Errorf("allow mixed: %v %v", mixed, err)
	}
	// Runs compared under different judges on purpose: no judge facet.
	if d := runlog.Differences([]runlog.Side{{Label: "A", Manifest: &a}, {Label: "B", Manifest: &b}}); len(d) != 1 {
		t.Errorf("without a judge: %v", d)
	}
}

func TestStatusCountsWhatFinished(t *testing.T) {
	r := &runlog.Run{Manifest: offlineManifest()}
	r.Manifest.Questions = 3
	r.Answers = []runlog.AnswerRecord{{QuestionID: "q1"}, {QuestionID: "q2"}}
	r.Judgments = []runlog.Judgment{{QuestionID: "q1", Judge: "lexical"}, {QuestionID: "q1", Judge: "f1"}, {QuestionID: "q2", Judge: "f1"}}
	st := r.Status()
	if st.State != runlog.StateIncomplete || st.String() != "incomplete (2/3 answered; lexical judged 1)" {
		t.Errorf("status %q", st.String())
	}
	r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: "q3"})
	r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: "q2", Judge: "lexical"}, runlog.Judgment{QuestionID: "q3", Judge: "lexical"}, runlog.Judgment{QuestionID: "q3", Judge: "f1"})
	if st := r.Status(); st.State != runlog.StateComplete {
		t.Errorf("finished run: %q", st.String())
	}
}

// Runs of one system may differ in the one option compared; a second
// differing option, or one outside the caller's vary list, is named.
func TestOptionDifferencesWithinOneSystem(t *testing.T) {
	mk := func(sys string, opts map[string]string) runlog.Manifest {
		m := offlineManifest()
		m.Config.System = sys
		m.SystemOptions = opts
		return m
	}
	a := mk("turns-rerank", map[string]string{"k": "3", "n": "30"})
	b := mk("turns-rerank", map[string]string{"k": "20", "n": "30"})
	c := mk("turns-rerank", map[string]string{"k": "20", "n": "50"})
	d := mk("turns-cosine", map[string]string{"k": "7"})
	side := func(l string, m *runlog.Manifest) runlog.Side { return runlog.Side{Label: l, Manifest: m} }
	if diffs := runlog.Differences([]runlog.Side{side("a", &a), side("b", &b), side("d", &d)}); len(diffs) != 0 {
		t.Errorf("one option differs (k): %v", diffs)
	}
	diffs := runlog.Differences([]runlog.Side{side("a", &a), side("c", &c)})
	if len(diffs) != 1 || !strings.Contains(diffs[0].String(), "a: k=3,n=30") || !strings.Contains(diffs[0].String(), "c: k=20,n=50") {
		t.Errorf("two options differ: %v", diffs)
	}
	diffs = runlog.DifferencesVarying([]runlog.Side{side("b", &b), side("c", &c)}, []string{"k"})
	if len(diffs) != 1 || !strings.Contains(diffs[0].Field, "other than k") || !strings.Contains(diffs[0].String(), "n=50") {
		t.Errorf("n differs where only k may: %v", diffs)
	}
	e := a
	e.Models = map[string]runlog.ModelID{"build": {Backend: "offline"}, "answer": {Backend: "offline", Model: "heuristic"}, "decide": {Backend: "openai", Model: "x"}, "judge": {Backend: "offline", Model: "heuristic"}}
	if diffs := runlog.Differences([]runlog.Side{side("a", &a), side("e", &e)}); len(diffs) < 2 || diffs[0].Field != "build model" || diffs[1].Field != "decide model" {
		t.Errorf("build and decide models: %v", diffs)
	}
}
