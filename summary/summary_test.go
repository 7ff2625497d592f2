package summary

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/runlog"
)

func TestNotesContextLineOnlyWithRetrievals(t *testing.T) {
	s := &runlog.Summary{}
	for _, n := range notes(s) {
		if strings.HasPrefix(n, "context:") {
			t.Fatalf("no retrievals but a context line: %q", n)
		}
	}
	s.ContextTokens = runlog.TokenStats{N: 2, Mean: 10, Min: 8, Max: 12}
	found := false
	for _, n := range notes(s) {
		found = found || strings.HasPrefix(n, "context: mean 10 tokens")
	}
	if !found {
		t.Fatal("retrievals recorded but no context line")
	}
}

// Write leaves both files a run folder keeps: summary.json reads back as
// the summary, and summary.md holds the same table the terminal shows.
func TestWriteKeepsJSONAndMarkdownInStep(t *testing.T) {
	dir := t.TempDir()
	s := &runlog.Summary{RunID: "r1", System: "turns-cosine", Dataset: "longmemeval", Judges: []string{"rubric-x"}, Metrics: []string{"rubric-x"},
		Groups:  []runlog.Group{{Name: "multi-session", N: 2, Scores: map[string]float64{"rubric-x": 65}}},
		Overall: runlog.Group{Name: "overall", N: 2, Scores: map[string]float64{"rubric-x": 65}}}
	if err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, runlog.SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	var back runlog.Summary
	if err := json.Unmarshal(b, &back); err != nil || back.RunID != "r1" || back.Overall.Scores["rubric-x"] != 65 {
		t.Fatalf("summary.json reads back as %+v (%v)", back, err)
	}
	md, err := os.ReadFile(filepath.Join(dir, runlog.SummaryMD))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# membench run r1", "turns-cosine on longmemeval", "rubric-x", "65.00", "metric judges (rubric-x): mean score"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
}
