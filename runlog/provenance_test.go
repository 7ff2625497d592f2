package runlog_test

import (
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// A run whose roles are offline but whose judge is a real model is not
// "offline": it says which parts are.
func TestBackendsNameTheOfflineParts(t *testing.T) {
	m := runlogtest.OfflineManifest()
	if got := m.Backends(); got != "offline" {
		t.Errorf("all offline: %q", got)
	}
	real := membench.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
	m.Judges = append(m.Judges, "gpt")
	m.JudgeSpecs = append(m.JudgeSpecs, membench.JudgeInfo{Name: "gpt", Kind: "llm", Model: &real})
	got := m.Backends()
	if got != "mixed (offline: answer model, build model, decide model)" {
		t.Errorf("real judge, offline roles: %q", got)
	}
}

func TestStatusCountsWhatFinished(t *testing.T) {
	r := &runlog.Run{Manifest: runlogtest.OfflineManifest()}
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
