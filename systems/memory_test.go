package systems

import (
	"strings"
	"testing"

	"github.com/membench/membench"
)

func TestMemoryRuleEmpty(t *testing.T) {
	n := func(v int) *int { return &v }
	per := MemoryRule{Builds: true, MaxEmptyReplies: 0.05}
	msg := MemoryRule{Builds: true}
	cases := []struct {
		rule MemoryRule
		st   membench.BuildStats
		want string // substring; "" = fine
	}{
		{per, membench.BuildStats{Entries: n(0), Extractions: 38, EmptyReplies: 38}, "0 memory entries (38 of 38"},
		{per, membench.BuildStats{Entries: n(500), Extractions: 38, EmptyReplies: 2}, "2 of 38 extraction replies were empty (5.3%, above this system's limit of 5%)"},
		{per, membench.BuildStats{Entries: n(500), Extractions: 40, EmptyReplies: 2}, ""},
		{msg, membench.BuildStats{Entries: n(500), Extractions: 600, EmptyReplies: 300}, ""},
		{msg, membench.BuildStats{Entries: n(3), Extractions: 600, EmptyReplies: 600}, "all 600 extraction replies were empty"},
		{msg, membench.BuildStats{Entries: n(0)}, "0 memory entries"},
		{msg, membench.BuildStats{}, ""},                                      // an adapter whose service reports no count
		{msg, membench.BuildStats{Entries: n(0), Requests: 5, Failed: 5}, ""}, // --max-build-failures decides
		{MemoryRule{}, membench.BuildStats{Entries: n(0), Extractions: 5, EmptyReplies: 5}, ""},
	}
	for i, c := range cases {
		got := c.rule.Empty(c.st)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
}
