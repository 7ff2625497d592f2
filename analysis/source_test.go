package analysis

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
)

// A run already read gives compare the same source as reading its files
// again: the view pairs runs from the one read.
func TestSourceOfMatchesLoadSource(t *testing.T) {
	fr := fakeRun{Manifest: runlog.Manifest{Dataset: "locomo", Config: membench.Config{System: "bm25"}, Judges: []string{"llm"}}}
	for i, g := range []string{"single-hop", "temporal", "abstention"} {
		id := string(rune('a' + i))
		fr.Answers = append(fr.Answers, runlog.AnswerRecord{QuestionID: id, Group: g, Abstention: g == "abstention"})
		fr.Judgments = append(fr.Judgments, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: i == 0, Score: float64(1 - min(i, 1))})
	}
	// A later line for a replaces the first; an invalid verdict is kept apart.
	fr.Judgments = append(fr.Judgments,
		runlog.Judgment{QuestionID: "a", Judge: "llm", Correct: false, Score: 0},
		runlog.Judgment{QuestionID: "b", Judge: "llm", Invalid: true, Raw: "no verdict"})
	dir := fr.write(t, filepath.Join(t.TempDir(), "run"))
	want, err := LoadSource(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := SourceOf(mustLoad(t, dir))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SourceOf:\n%+v\nLoadSource:\n%+v", got, want)
	}
	if len(got.Invalid) == 0 || got.Groups["c"] != "abstention" || !got.Abstains["c"] {
		t.Errorf("source lacks the invalid verdict or the groups: %+v", got)
	}
	if SourceOf(&runlog.Run{Dir: dir}) != nil {
		t.Error("a run without judgments has a source")
	}
}
