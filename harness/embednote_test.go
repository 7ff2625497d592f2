package harness_test

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/examples/bm25memory"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/systems"
)

// The warning that USE-lite is missing (the automatic choice fell back to
// the hashed embedder) is about vectors: a run carries it when its system
// embedded texts, and only then. Every system is run on a few sample
// questions with no embedder installed; exec is left out (it needs a
// program built; it shares the http adapter's client and declaration).
func TestEmbedderNoteOnlyWhenTheRunEmbeds(t *testing.T) {
	srv := httptest.NewServer(bm25memory.New().Handler())
	defer srv.Close()
	seen := map[bool]bool{}
	for _, name := range systems.Names() {
		if name == "exec" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			cfg := harnesstest.Config(t, name)
			cfg.Host.Embedder = "" // the automatic choice, with no USE-lite in this home
			cfg.Limit = 4
			if name == "http" {
				cfg.Options = membench.Options{"url": srv.URL}
			}
			sum, err := harness.Run(context.Background(), cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			embedded := sum.Stages["embed:embedding"].Calls
			seen[embedded > 0] = true
			switch {
			case embedded > 0 && sum.EmbedderNote == "":
				t.Errorf("%s embedded %d texts with the fallback embedder, but the run has no embedder note", name, embedded)
			case embedded == 0 && sum.EmbedderNote != "":
				t.Errorf("%s embedded nothing, but the run warns: %s", name, sum.EmbedderNote)
			}
		})
	}
	if !seen[true] || !seen[false] {
		t.Errorf("systems that embed: %v, that do not: %v; want some of each", seen[true], seen[false])
	}
}
