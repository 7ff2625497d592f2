package runlog

import (
	"path/filepath"
	"testing"
)

// Lines written before repeats existed read as before; a judge's repeats
// on one question read as one verdict (mean score, majority correct) and
// survive a write and read (repeat
// omitted when 0, so old readers' files are unchanged).
func TestRepeatsReadAsOneVerdict(t *testing.T) {
	v := func(q string, r int, ok bool) Judgment {
		s := 0.0
		if ok {
			s = 1
		}
		return Judgment{QuestionID: q, System: "s", Judge: "j", Correct: ok, Score: s, Repeat: r}
	}
	old := []Judgment{v("q1", 0, true), {QuestionID: "q1", System: "s", Judge: "f1", Score: 0.4}, v("q2", 0, false)}
	path := filepath.Join(t.TempDir(), JudgmentsFile)
	lines := []any{}
	for _, j := range old {
		lines = append(lines, j)
	}
	// q1: two of three accept; q2: one of three (repeat 2 rewritten: the
	// last line per repeat wins); q3: every repeat invalid.
	for _, j := range []Judgment{v("q1", 1, false), v("q1", 2, true), v("q2", 1, true), v("q2", 2, true), v("q2", 2, false),
		{QuestionID: "q3", System: "s", Judge: "j", Invalid: true}, {QuestionID: "q3", System: "s", Judge: "j", Invalid: true, Repeat: 1}} {
		lines = append(lines, j)
	}
	if err := WriteJSONLines(path, lines); err != nil {
		t.Fatal(err)
	}
	js, err := ReadJSONL[Judgment](path)
	if err != nil {
		t.Fatal(err)
	}
	valid, invalid := Verdicts(js)
	got := map[string]Judgment{}
	for _, j := range valid {
		got[j.QuestionID+"/"+j.Judge] = j
	}
	if j := got["q1/j"]; !j.Correct || j.Score != 2.0/3 {
		t.Errorf("q1: %+v, want correct (2 of 3) with score 2/3", j)
	}
	if j := got["q2/j"]; j.Correct || j.Score != 1.0/3 {
		t.Errorf("q2: %+v, want not correct (1 of 3) with score 1/3", j)
	}
	if j := got["q1/f1"]; j.Score != 0.4 || len(valid) != 3 {
		t.Errorf("valid %+v: want q1, q2 of j and q1 of f1 untouched", valid)
	}
	if len(invalid) != 1 || invalid[0].QuestionID != "q3" {
		t.Errorf("invalid %+v, want q3 once", invalid)
	}
	// Without repeats nothing changes.
	if out := CollapseRepeats(old); len(out) != len(old) || out[0] != old[0] {
		t.Errorf("collapse changed lines without repeats: %+v", out)
	}
}
