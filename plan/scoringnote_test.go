package plan_test

import (
	"testing"

	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
)

// The note under a run's table says what its answer key and the image
// exclusion changed, by the key's name alone, and nothing when neither did.
func TestScoringNote(t *testing.T) {
	k := &runlog.AnswerKeyInfo{Key: "locomo-audit sha256:ab12", AnswerChanged: 3, EvidenceChanged: 2, Excluded: 1}
	want := "answer key locomo-audit: 3 gold answers replaced, 2 evidence lists fixed, 1 ambiguous questions left out; 4 image-dependent questions left out"
	if got := plan.ScoringNote(k, 4); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	if got := plan.ScoringNote(nil, 0); got != "" {
		t.Errorf("neither applied: %q, want none", got)
	}
	// A manifest read back with a blank key id (hand-edited, or not
	// written by membench) gets a note, not a panic.
	if got := plan.ScoringNote(&runlog.AnswerKeyInfo{Key: "  "}, 0); got != "answer key : 0 gold answers replaced, 0 evidence lists fixed, 0 ambiguous questions left out" {
		t.Errorf("blank key: %q", got)
	}
}
