package runlog

// RepeatStats is one judge's repeated judging over a set of questions
// (judge spec repeats=N, or an imported peer's several judgment runs).
// Accuracies are × 100 like Group.Scores.
type RepeatStats struct {
	Repeats int `json:"repeats"` // judgment runs seen (highest repeat index + 1)
	// Scores is each repeat's accuracy over the questions it judged.
	Scores []float64 `json:"scores"`
	Mean   float64   `json:"mean"` // mean of Scores
	// SD is the standard deviation of Scores over the N repeats (divided
	// by N, as numpy's default and the published LoCoMo audit files have
	// it).
	SD       float64 `json:"sd"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	Majority float64 `json:"majority"` // accuracy of the per-question majority vote (a tie is not correct)
	// Invalid counts repeat verdicts with no verdict in the reply: left
	// out of their repeat's accuracy and of the vote.
	Invalid int `json:"invalid,omitempty"`
}

func repeatKey(j Judgment) string { return j.System + "\x00" + j.QuestionID + "\x00" + j.Judge }

// CollapseRepeats turns a judge's repeated verdicts on one question (lines
// already one per Key) into one verdict: its score the mean of the valid
// repeats' scores, correct when more than half of them are (a tie is not),
// so a reader's accuracy is the mean over repeats and its paired
// outcome the majority vote. A question whose repeats are all invalid
// keeps one invalid line. Judges without repeats pass unchanged, in order.
func CollapseRepeats(js []Judgment) []Judgment {
	multi := map[string]bool{}
	for _, j := range js {
		if j.Repeat != 0 {
			multi[repeatKey(j)] = true
		}
	}
	if len(multi) == 0 {
		return js
	}
	type agg struct {
		at             int // index in out
		n, correct     int
		sum            float64
		invalid        Judgment
		anyValid, seen bool
	}
	aggs := map[string]*agg{}
	out := make([]Judgment, 0, len(js))
	for _, j := range js {
		k := repeatKey(j)
		if !multi[k] {
			out = append(out, j)
			continue
		}
		a := aggs[k]
		if a == nil {
			a = &agg{at: len(out)}
			aggs[k] = a
			out = append(out, Judgment{QuestionID: j.QuestionID, System: j.System, Judge: j.Judge})
		}
		if j.Invalid {
			a.invalid = j
			continue
		}
		a.anyValid = true
		a.n++
		a.sum += j.Score
		if j.Correct {
			a.correct++
		}
		if j.Repeat == 0 || !a.seen { // the first repeat's words, else the first valid one's
			out[a.at].Reason, out[a.at].Raw = j.Reason, j.Raw
			a.seen = true
		}
	}
	for _, a := range aggs {
		if !a.anyValid {
			inv := a.invalid
			inv.Repeat = 0
			out[a.at] = inv
			continue
		}
		out[a.at].Score = a.sum / float64(a.n)
		out[a.at].Correct = 2*a.correct > a.n
	}
	return out
}
