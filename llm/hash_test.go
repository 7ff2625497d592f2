package llm_test

import (
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
)

// The prompt hashes logged in answers.jsonl, and so the runs already on
// disk, stay comparable: a fixed prompt hashes to the value earlier
// builds logged for it.
func TestHashMessagesIsStable(t *testing.T) {
	msgs := []membench.Message{{Role: "system", Content: "You answer <b>questions</b> & \"more\""}, {Role: "user", Content: "q \u2028 ü\n\t"}}
	if got, want := llm.HashMessages(msgs), "934dbdc50a5f96144f54116e8fdf37480b163e548674ee2511287df5b3dffd37"; got != want {
		t.Fatalf("HashMessages = %s, earlier builds logged %s for the same prompt", got, want)
	}
}
