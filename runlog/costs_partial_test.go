package runlog

import (
	"testing"

	"github.com/membench/membench"
)

// Partial lines of a build attempt count once: dropped when the attempt's
// closing line (its build line, or the redone line of a failed build) is
// there, counted as redone when it is not (a kill -9 mid-build).
func TestEffectiveCostsPartialBuildLines(t *testing.T) {
	calls := func(n int) []membench.Tally {
		return []membench.Tally{{Role: "build", Stage: membench.StageBuild, Label: "x", Calls: n, InputTokens: 10 * n}}
	}
	costs := []CostRecord{
		{ConversationID: "a", Attempt: "1", Partial: true, Tallies: calls(8)}, // killed: never closed
		{ConversationID: "a", Attempt: "1", Partial: true, Tallies: calls(3)},
		{ConversationID: "a", Attempt: "2", Partial: true, Tallies: calls(8)}, // the resumed build
		{ConversationID: "a", Attempt: "2", Partial: true, Tallies: calls(8)},
		{ConversationID: "a", Attempt: "2", Part: "build", Tallies: calls(20)},
		{ConversationID: "b", Attempt: "3", Partial: true, Tallies: calls(8)}, // failed, closed by its redone line
		{ConversationID: "b", Attempt: "3", Redone: true, Tallies: calls(9)},
		{ConversationID: "b", QuestionID: "q", Part: "answer", Tallies: calls(1)},
	}
	kept, redone := EffectiveCosts(costs)
	sum := func(rs []CostRecord) (n int) {
		for _, r := range rs {
			for _, t := range r.Tallies {
				n += t.Calls
			}
		}
		return n
	}
	if got := sum(kept); got != 21 {
		t.Errorf("kept %d calls, want 21 (the resumed build's 20, one answer)", got)
	}
	if got := sum(redone); got != 20 {
		t.Errorf("redone %d calls, want 20 (11 cut off by the kill, 9 of the failed build)", got)
	}
}
