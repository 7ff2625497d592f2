package structmem

import (
	"strings"
	"testing"
)

func TestResolvePersonLeavesNoFormattingDebris(t *testing.T) {
	cases := map[string]string{
		"Believe in myself.":         "Believe in Gina.",
		"Take care of yourself.":     "Take care of Jon.",
		"I painted my sunrise.":      "Gina painted Gina's sunrise.",
		"You were right about that.": "Jon was right about that.",
		"We went hiking.":            "Gina and Jon went hiking.",
	}
	for in, want := range cases {
		got := resolvePerson(in, "Gina", "Jon")
		if got != want || strings.Contains(got, "%!") {
			t.Errorf("resolvePerson(%q) = %q, want %q", in, got, want)
		}
	}
}
