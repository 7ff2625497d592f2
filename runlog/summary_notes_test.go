package runlog

import (
	"strings"
	"testing"
)

func TestNotesContextLineOnlyWithRetrievals(t *testing.T) {
	s := &Summary{}
	for _, n := range s.notes() {
		if strings.HasPrefix(n, "context:") {
			t.Fatalf("no retrievals but a context line: %q", n)
		}
	}
	s.ContextTokens = TokenStats{N: 2, Mean: 10, Min: 8, Max: 12}
	found := false
	for _, n := range s.notes() {
		found = found || strings.HasPrefix(n, "context: mean 10 tokens")
	}
	if !found {
		t.Fatal("retrievals recorded but no context line")
	}
}
