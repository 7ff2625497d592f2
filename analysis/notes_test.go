package analysis

import (
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog/runlogtest"
)

// A run whose roles are offline but whose judge is a real model names the
// offline parts in the note its figures carry.
func TestRunOfflineNoteNamesTheOfflineParts(t *testing.T) {
	m := runlogtest.OfflineManifest()
	real := membench.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
	m.Judges = append(m.Judges, "gpt")
	m.JudgeSpecs = append(m.JudgeSpecs, membench.JudgeInfo{Name: "gpt", Kind: "llm", Model: &real})
	want := "offline heuristics (answer model, build model, decide model): measures the pipeline, not model quality"
	if got := runOfflineNote(m); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	if got := runOfflineNote(runlogtest.New("turns-cosine", 3, "f1").Manifest); got != "" {
		t.Errorf("nothing offline: note %q, want none", got)
	}
}
