package summary

import (
	"testing"

	"github.com/membench/membench/runlog"
)

// A judge's repeats give one accuracy per repeat, their spread and the
// majority vote's accuracy; invalid repeats are counted, not scored.
func TestRepeatStats(t *testing.T) {
	v := func(q string, r int, ok bool) runlog.Judgment {
		s := 0.0
		if ok {
			s = 1
		}
		return runlog.Judgment{QuestionID: q, System: "s", Judge: "j", Correct: ok, Score: s, Repeat: r}
	}
	// Repeat 0: q1 yes, q2 no; repeat 1: q1 no, q2 yes; repeat 2: q1 yes,
	// q2 no (its earlier line replaced); q3: every repeat invalid; f1 has
	// no repeats.
	rep := RepeatVerdicts([]runlog.Judgment{v("q1", 0, true), {QuestionID: "q1", System: "s", Judge: "f1", Score: 0.4}, v("q2", 0, false),
		v("q1", 1, false), v("q1", 2, true), v("q2", 1, true), v("q2", 2, true), v("q2", 2, false),
		{QuestionID: "q3", System: "s", Judge: "j", Invalid: true}, {QuestionID: "q3", System: "s", Judge: "j", Invalid: true, Repeat: 1}})
	if len(rep) != 8 {
		t.Errorf("RepeatVerdicts kept %d lines, want 8 (j's repeats, the last line of each, f1 left out)", len(rep))
	}
	st, ok := repeatStatsOf(rep, "j", nil)
	if !ok || st.Repeats != 3 || st.Invalid != 2 || len(st.Scores) != 3 || st.Scores[0] != 50 || st.Scores[1] != 50 || st.Scores[2] != 50 || st.Majority != 50 || st.SD != 0 || st.Mean != 50 {
		t.Errorf("stats %+v", st)
	}
	// Over q1 alone: repeats score 100, 0, 100; the vote says correct.
	st, _ = repeatStatsOf(rep, "j", func(q string) bool { return q == "q1" })
	if st.Scores[1] != 0 || st.Majority != 100 || st.Min != 0 || st.Max != 100 {
		t.Errorf("q1 stats %+v", st)
	}
	if _, ok := repeatStatsOf(rep, "f1", nil); ok {
		t.Error("f1 has no repeats, yet got stats")
	}
}
