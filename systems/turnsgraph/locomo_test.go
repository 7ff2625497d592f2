package turnsgraph

import (
	"context"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// TestLoCoMoConv26Offline builds conv-26 offline and reads every question:
// m decisions per turn at build, 2–16 decisions per read, as many as the
// model saw, and k turns read.
func TestLoCoMoConv26Offline(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	path := testutil.Shared(t, "datasets", "locomo10.json")
	ds, err := datasets.Load("locomo", path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err = ds.Filter([]string{"conv-26"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	conv := ds.Conversations[0]
	meter := llm.NewMeter()
	m := &counting{Model: llm.WithMeter(llm.NewOffline(), meter, "decide")}
	s := newSys(t, m, meter, nil)
	st, err := s.Ingest(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	n := len(conv.AllTurns())
	if want := 5*n - 15; st.Counts["edge_decisions"] != want || meter.Total(membench.StageBuild).Calls != want {
		t.Fatalf("%d turns: counts %v, build calls %d, want %d", n, st.Counts, meter.Total(membench.StageBuild).Calls, want)
	}
	if st.Counts["edges"] == 0 {
		t.Fatalf("no edges kept: %v", st.Counts)
	}
	lo, hi, sum := 99, 0, 0
	for _, q := range conv.Questions {
		before := m.reads
		c, err := s.Retrieve(context.Background(), q, systems.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		calls := c.Notes["decision_calls"].(int)
		if calls < 2 || calls > 16 || calls != m.reads-before {
			t.Fatalf("question %s: %d decision calls recorded, %d made; want 2..16", q.ID, calls, m.reads-before)
		}
		if len(c.Items) != 10 {
			t.Fatalf("question %s: %d items, want k=10", q.ID, len(c.Items))
		}
		lo, hi, sum = min(lo, calls), max(hi, calls), sum+calls
	}
	t.Logf("conv-26: %d turns, %v; decision calls per question min %d, max %d, mean %.1f",
		n, st.Counts, lo, hi, float64(sum)/float64(len(conv.Questions)))
}
