package membench

import "testing"

// Add sums every count and keeps the receiver's names: meters, the
// progress line and the estimate all sum through it.
func TestTallyAdd(t *testing.T) {
	a := Tally{Role: "answer", Stage: StageAnswer, Model: "openai:m", Calls: 1, CachedCalls: 1, InputTokens: 10, OutputTokens: 2, CachedInputTokens: 4, Seconds: 0.5}
	a.Add(Tally{Role: "judge", Stage: StageJudge, Calls: 2, CachedCalls: 0, InputTokens: 5, OutputTokens: 3, CachedInputTokens: 1, Seconds: 0.25})
	want := Tally{Role: "answer", Stage: StageAnswer, Model: "openai:m", Calls: 3, CachedCalls: 1, InputTokens: 15, OutputTokens: 5, CachedInputTokens: 5, Seconds: 0.75}
	if a != want {
		t.Fatalf("got %+v\nwant %+v", a, want)
	}
}
