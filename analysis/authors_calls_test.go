package analysis

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/structmem" // its defaults decide which options a label shows
)

// Runs of one system under other options are rows of their own, labelled
// by the options that differ from the system's defaults; Table 2 puts the
// StructMem authors' call counter beside ours when a run keeps it.
func TestOptionRowsAndAuthorsCalls(t *testing.T) {
	root := t.TempDir()
	mk := func(name, sys string, k int, opts membench.Options, counts ...map[string]int) *runlog.Run {
		r := fakeRun{Manifest: runlog.Manifest{Config: membench.Config{System: sys, K: k, Options: opts}, Judges: []string{"f1"}, Offline: true}}
		r.Answers = []runlog.AnswerRecord{{QuestionID: "q1", Category: 1}}
		r.Judgments = []runlog.Judgment{{QuestionID: "q1", Judge: "f1", Score: 0.5}}
		for i, c := range counts {
			r.Builds = append(r.Builds, runlog.BuildRecord{ConversationID: string(rune('a' + i)), Calls: 3, Stats: membench.BuildStats{Counts: c}})
		}
		return mustLoad(t, r.write(t, filepath.Join(root, name)))
	}
	zero := mk("zero", "structmem", 0, membench.Options{"seeds": "0", "window": "3600"},
		map[string]int{membench.CountAuthorsCalls: 10}, map[string]int{membench.CountAuthorsCalls: 12})
	def := mk("def", "structmem", 0, nil, map[string]int{membench.CountAuthorsCalls: 19})
	cos := mk("cos", "turns-cosine", 3, nil, map[string]int{"entries": 4})
	runs := []*runlog.Run{zero, def, cos}
	rows, _ := labels(runs)
	if want := []string{"structmem seeds=0", "structmem", "turns-cosine k=3"}; !slices.Equal(rows, want) {
		t.Errorf("row labels %q, want %q (an option at its default says nothing)", rows, want)
	}
	for _, v := range []View{Wide, Brief} {
		tb, err := Table2(runs, "f1", v)
		if err != nil {
			t.Fatal(err)
		}
		col := map[View]string{Wide: "Authors' calls", Brief: "A-calls"}[v]
		i := slices.Index(tb.Header, col)
		if i < 1 || tb.Header[i-1] != "Calls" {
			t.Fatalf("%v header %q: want %q right after Calls", v, tb.Header, col)
		}
		for r, want := range []string{"22", "19", "-"} {
			if got, calls := tb.Rows[r][i], tb.Rows[r][i-1]; got != want || calls != []string{"6", "3", "3"}[r] {
				t.Errorf("%v row %d: Calls %s, %s %s; want %s", v, r, calls, col, got, want)
			}
		}
	}
	js, err := Report(runs, "f1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := js.Runs[0].AuthorsCalls; a == nil || *a != 22 || js.Runs[2].AuthorsCalls != nil || js.Runs[0].Label != "structmem seeds=0 (offline)" {
		t.Errorf("report --json: %+v", js.Runs)
	}
	tb, err := Table2([]*runlog.Run{cos}, "f1", Brief)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(tb.Header, "A-calls") {
		t.Errorf("no run keeps the authors' counter, yet the header is %q", tb.Header)
	}
}
