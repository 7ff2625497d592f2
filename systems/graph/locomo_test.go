package graph

import (
	"context"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// TestLoCoMoConv26Offline builds conv-26 with the offline backend and
// checks the build's shape: every turn costs tokens, the curve only grows,
// at most 4 build calls a turn, nothing malformed, obsolete edges kept.
func TestLoCoMoConv26Offline(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	path := testutil.Shared(t, "datasets", "locomo10.json")
	ds, err := datasets.Load("locomo", path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var conv *datasets.Conversation
	for _, c := range ds.Conversations {
		if c.ID == "conv-26" {
			conv = c
		}
	}
	if conv == nil {
		t.Fatal("conv-26 missing from LoCoMo")
	}
	meter := llm.NewMeter()
	s := newSys(t, llm.WithMeter(llm.NewOffline(), meter, "build"), embedder.NewHashed(512), 2, nil)
	st, err := s.Ingest(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	n := len(conv.AllTurns())
	c := st.Counts
	if c["failed"] != 0 || c["graph_failed"] != 0 || c["llm_calls"] > 4*n || c["llm_calls"] < 2*n {
		t.Fatalf("counts for %d turns: %v", n, c)
	}
	for i := 1; i < n; i++ {
		if st.TurnTokens[i] < st.TurnTokens[i-1] {
			t.Fatalf("turn curve falls at %d: %v", i, st.TurnTokens[i-1:i+1])
		}
	}
	if st.TurnTokens[n-1] != meter.TotalTokens(membench.StageBuild) {
		t.Fatalf("curve end %d != meter %d", st.TurnTokens[n-1], meter.TotalTokens(membench.StageBuild))
	}
	obsolete := 0
	for _, e := range s.Graph().Edges() {
		if e.Obsolete {
			obsolete++
		}
	}
	if obsolete != c["obsolete"] {
		t.Fatalf("obsolete edges %d, counted %d", obsolete, c["obsolete"])
	}
	hit, asked := 0, 0
	for _, q := range conv.Questions {
		if len(q.Evidence) == 0 || q.Category == locomo.CatAdversarial {
			continue
		}
		asked++
		ctx, err := s.Retrieve(context.Background(), q, systems.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		ev := map[string]bool{}
		for _, e := range q.Evidence {
			ev[e] = true
		}
	found:
		for _, it := range ctx.Items {
			for _, src := range it.Sources {
				if ev[src] {
					hit++
					break found
				}
			}
		}
	}
	t.Logf("conv-26: %d turns, %d build calls (%.2f/turn; flat %d, graph %d), %d build tokens (%.0f/turn), %d nodes, %d edges, %d obsolete, %d facts live; questions with an evidence turn retrieved: %d/%d",
		n, c["llm_calls"], float64(c["llm_calls"])/float64(n), c["flat_calls"], c["graph_calls"], c["build_tokens"], float64(c["build_tokens"])/float64(n),
		len(s.Graph().Nodes()), len(s.Graph().Edges()), obsolete, c["live_facts"], hit, asked)
}
