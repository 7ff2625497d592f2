package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/runlog"
)

// FalseAccept is one judge's measured false-accept rate (membench audit
// judge), matched to the runs' judge of name Judge.
type FalseAccept struct {
	Judge   string  // the runs' judge it stands for
	Audited string  // the judge's name in the audit
	Source  string  // the audit's file of known-wrong answers
	Answers int     // known-wrong answers it judged
	Rate    float64 // fraction accepted
	Lo, Hi  float64 // Wilson 95%
	Offline bool    // the audited judge is an offline heuristic
}

// FalseAcceptTable puts each judge's measured false-accept rate beside the
// accuracy it gives each run (overall, abstaining questions left out).
func FalseAcceptTable(runs []*runlog.Run, rates []FalseAccept, v View) (*report.Table, error) {
	t := &report.Table{Title: "Judges' false-accept rates beside the accuracies they give",
		Header: []string{"run", "judge", "n", "score", "false-accept", "Wilson 95%", "audited on"}}
	used := map[string]bool{}
	var offline []string
	for _, r := range runs {
		for _, fa := range rates {
			if !HasJudge(r.Manifest, fa.Judge) {
				continue
			}
			o, err := OverallOf(r, fa.Judge)
			if err != nil {
				return nil, err
			}
			used[fa.Judge] = true
			t.Add(RunLabel(r), fa.Judge, o.N, report.F(o.Score, 2), report.F(100*fa.Rate, 2)+"%",
				fmt.Sprintf("[%s, %s]", report.F(100*fa.Lo, 2), report.F(100*fa.Hi, 2)), fmt.Sprintf("%s (%d answers, as %s)", fa.Source, fa.Answers, fa.Audited))
			if fa.Offline && !slices.Contains(offline, fa.Judge) {
				offline = append(offline, fa.Judge)
			}
		}
	}
	var missing []string
	for _, fa := range rates {
		if !used[fa.Judge] {
			missing = append(missing, fa.Judge)
		}
	}
	if len(t.Rows) == 0 {
		return nil, badinput.Errorf("--false-accept: none of the runs has a judge named %s; name the run's judge the rate stands for, e.g. --false-accept peer-llm=FILE", strings.Join(missing, ", "))
	}
	t.Notes = append(t.Notes, "false-accept: the share of answers known to be wrong that the judge accepts as CORRECT (membench audit judge); a score is read against it: part of it can be wrong answers the judge let through")
	if len(missing) > 0 {
		t.Notes = append(t.Notes, "no run has judge "+strings.Join(missing, ", ")+"; its rate is not shown")
	}
	if len(offline) > 0 {
		t.Notes = append(t.Notes, "OFFLINE judges ("+strings.Join(offline, ", ")+"): their rates measure membench's offline heuristics, not a model")
	}
	return fit(t, v), nil
}
