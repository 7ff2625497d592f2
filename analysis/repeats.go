package analysis

import (
	"maps"
	"slices"

	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/runlog"
)

// HasRepeats reports whether some run has a judge that judged each answer
// more than once.
func HasRepeats(runs []*runlog.Run) bool {
	return slices.ContainsFunc(runs, func(r *runlog.Run) bool { return len(summaryOf(r).Overall.Repeats) > 0 })
}

// RepeatsTable gives, per run and repeated judge, the overall accuracy as
// the mean over repeats with its spread and the majority vote.
func RepeatsTable(runs []*runlog.Run, _ string, v View) (*report.Table, error) {
	t := &report.Table{Title: "Repeated judging: overall accuracy over repeats",
		Header: []string{"run", "judge", "repeats", "mean", "sd", "min–max", "majority vote"}}
	for _, r := range runs {
		rep := summaryOf(r).Overall.Repeats
		for _, j := range slices.Sorted(maps.Keys(rep)) {
			st := rep[j]
			t.Add(RunLabel(r), j, st.Repeats, report.F(st.Mean, 2), report.F(st.SD, 2), report.F(st.Min, 2)+"–"+report.F(st.Max, 2), report.F(st.Majority, 2))
		}
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "no run has a judge with repeats (judge spec repeats=N, or an imported peer's several judgment runs)")
		return fit(t, v), nil
	}
	t.Notes = append(t.Notes, "each repeat's accuracy is over the questions it judged (abstaining ones left out); mean and sd are over the repeats (sd divides by their number); majority vote: a question counts when more than half of its repeats accept it; the other tables' score for such a judge is the mean")
	return fit(t, v), nil
}
