package summary_test

import (
	"slices"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
	"github.com/membench/membench/summary"
)

// writeRun writes a run folder: its manifest, one answer per question
// and the judgments given, as a run would leave them on disk.
func writeRun(t *testing.T, m runlog.Manifest, questions []string, js []runlog.Judgment) string {
	t.Helper()
	r := &runlogtest.Run{Manifest: m, Judgments: js}
	for _, q := range questions {
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: q, ConversationID: "c1", System: "turns-cosine", Type: "single-session-user", Question: "?", Gold: "blue", Prediction: "blue"})
	}
	r.Manifest.Questions = len(questions)
	return r.Write(t, t.TempDir())
}

func verdicts(judge string, scores map[string]float64) []runlog.Judgment {
	var out []runlog.Judgment
	for q, s := range scores {
		out = append(out, runlog.Judgment{QuestionID: q, System: "turns-cosine", Judge: judge, Score: s, Correct: s >= 0.5})
	}
	return out
}

// A run made with judges this binary has never heard of is read from its
// manifest alone: a metric is a metric, the primary judge is the first
// verdict judge, and a judge the manifest says is added after the run
// does not leave the run unfinished when it covers part of it.
func TestJudgesThisBinaryDoesNotKnowAreReadFromTheManifest(t *testing.T) {
	m := runlog.Manifest{Dataset: "longmemeval", Config: membench.Config{System: "turns-cosine"},
		Judges: []string{"rubric-x", "lexical", "panel-z"},
		JudgeSpecs: []membench.JudgeInfo{
			{Name: "rubric-x", Kind: "rubric-x", Class: "metric"},
			{Name: "lexical", Kind: "lexical", Class: "verdict"},
			{Name: "panel-z", Kind: "panel-z", Class: "verdict", AddedBy: "a panel's own tool"},
		}}
	js := verdicts("rubric-x", map[string]float64{"q1": 0.4, "q2": 0.9})
	js = append(js, verdicts("lexical", map[string]float64{"q1": 0, "q2": 1})...)
	js = append(js, verdicts("panel-z", map[string]float64{"q1": 1})...)
	dir := writeRun(t, m, []string{"q1", "q2"}, js)

	sum, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Metrics, []string{"rubric-x"}) {
		t.Errorf("metric judges %v, want [rubric-x]", sum.Metrics)
	}
	if got := sum.Overall.Scores["rubric-x"]; got < 64.9 || got > 65.1 {
		t.Errorf("rubric-x overall %v, want its mean score 65", got)
	}
	loaded, err := runlog.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p := loaded.PrimaryJudge(); p != "lexical" {
		t.Errorf("primary judge %q, want lexical (rubric-x is a metric)", p)
	}
	st, err := runlog.StatusOf(dir, loaded)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != runlog.StateComplete {
		t.Errorf("status %v: panel-z is added after the run and may cover part of it", st)
	}

	// The manifest's class wins over what the kind's name suggests.
	loaded.JudgeSpecs[1].Class = "metric"
	if !loaded.JudgeSet().IsMetric("lexical") {
		t.Error("a judge the manifest classes as a metric is read as a verdict judge")
	}
}

// The primary judge is what the manifest records; a judge added after
// the run moves it only as the writer's rule says (a verdict judge added
// to a run of metrics), and the new choice is recorded.
func TestPrimaryJudgeIsRecorded(t *testing.T) {
	m := runlog.Manifest{Dataset: "locomo", Config: membench.Config{System: "turns-cosine"},
		Judges:     []string{"lexical", "oracle"},
		JudgeSpecs: []membench.JudgeInfo{{Name: "lexical", Kind: "lexical", Class: "verdict"}, {Name: "oracle", Kind: "oracle", Class: "verdict"}},
		Primary:    "oracle"}
	if p := m.PrimaryJudge(); p != "oracle" {
		t.Errorf("primary %q, want the recorded oracle (the rule would say lexical)", p)
	}
	m.Primary = "gone" // a name the run does not list is not a judge of it
	if p := m.PrimaryJudge(); p != "lexical" {
		t.Errorf("primary %q with a stale record, want the rule's lexical", p)
	}

	metrics := runlog.Manifest{Judges: []string{"f1", "bleu1"},
		JudgeSpecs: []membench.JudgeInfo{{Name: "f1", Kind: "f1", Class: "metric"}, {Name: "bleu1", Kind: "bleu1", Class: "metric"}}, Primary: "f1"}
	dir := writeRun(t, metrics, []string{"q1"}, nil)
	if err := runlog.AddJudges(dir, []membench.JudgeInfo{{Name: "gpt", Kind: "llm", Class: "verdict"}}); err != nil {
		t.Fatal(err)
	}
	loaded, err := runlog.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Primary != "gpt" || loaded.PrimaryJudge() != "gpt" {
		t.Errorf("after adding verdict judge gpt: primary_judge %q, PrimaryJudge %q; want gpt recorded", loaded.Primary, loaded.PrimaryJudge())
	}
}
