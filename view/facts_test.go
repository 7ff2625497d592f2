package view

import (
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
)

// A manifest written when redaction kept the user name shows none.
func TestFactsHideOldRedactedUserNames(t *testing.T) {
	m := runlog.Manifest{Embedder: "openai:e@http://alice-OLD:xxxxx@h:1/v1",
		Models: map[string]membench.ModelID{"answer": {Backend: "openai", Model: "m", BaseURL: "http://alice-OLD:xxxxx@h:1/v1"}}}
	m.Config.System = "turns-cosine"
	for _, kv := range facts(&runlog.Run{Dir: "r", Manifest: m}, 0) {
		if strings.Contains(kv[1], "alice-OLD") {
			t.Errorf("fact %s = %q shows the user name", kv[0], kv[1])
		}
		if kv[0] == "embedder" && kv[1] != "openai:e@http://[redacted]@h:1/v1" {
			t.Errorf("embedder = %q", kv[1])
		}
	}
}
