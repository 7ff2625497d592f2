package summary

import (
	"maps"
	"math"
	"slices"

	"github.com/membench/membench/runlog"
)

// repeatStatsOf computes one judge's repeat statistics over the questions
// in (nil: all) from its repeated verdicts (RepeatVerdicts' lines).
func repeatStatsOf(rep []runlog.Judgment, judge string, in func(qid string) bool) (runlog.RepeatStats, bool) {
	type tally struct{ sum, n float64 }
	var st runlog.RepeatStats
	byRepeat := map[int]tally{}
	type vote struct{ correct, n int }
	votes := map[string]vote{}
	for _, j := range rep {
		if j.Judge != judge || (in != nil && !in(j.QuestionID)) {
			continue
		}
		st.Repeats = max(st.Repeats, j.Repeat+1)
		if j.Invalid {
			st.Invalid++
			continue
		}
		t := byRepeat[j.Repeat]
		t.sum += j.Score
		t.n++
		byRepeat[j.Repeat] = t
		k := j.System + "\x00" + j.QuestionID // one judge's: its votes per question
		v := votes[k]
		v.n++
		if j.Correct {
			v.correct++
		}
		votes[k] = v
	}
	if len(byRepeat) == 0 {
		return runlog.RepeatStats{}, false
	}
	st.Min, st.Max = math.Inf(1), math.Inf(-1)
	for _, r := range slices.Sorted(maps.Keys(byRepeat)) {
		t := byRepeat[r]
		a := 100 * t.sum / t.n
		st.Scores = append(st.Scores, a)
		st.Mean += a
		st.Min, st.Max = math.Min(st.Min, a), math.Max(st.Max, a)
	}
	st.Mean /= float64(len(st.Scores))
	for _, a := range st.Scores {
		st.SD += (a - st.Mean) * (a - st.Mean)
	}
	st.SD = math.Sqrt(st.SD / float64(len(st.Scores)))
	maj := 0
	for _, v := range votes {
		if 2*v.correct > v.n {
			maj++
		}
	}
	st.Majority = 100 * float64(maj) / float64(len(votes))
	return st, true
}

// RepeatVerdicts keeps the last line per Key of the judges that judged
// some question more than once, every repeat apart; invalid ones are kept
// (marked) so their count shows. Other judges' lines are left out.
func RepeatVerdicts(js []runlog.Judgment) []runlog.Judgment {
	last := runlog.LastBy(js, runlog.Judgment.Key)
	judges := map[string]bool{}
	for _, j := range last {
		if j.Repeat != 0 {
			judges[j.Judge] = true
		}
	}
	var out []runlog.Judgment
	for _, j := range last {
		if judges[j.Judge] {
			out = append(out, j)
		}
	}
	return out
}
