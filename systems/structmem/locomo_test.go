package structmem

import (
	"context"
	"testing"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/systems"
)

// On the first real LoCoMo conversation (offline backend): two calls per
// session, every entry on its utterance's time, consolidation windows per
// session, and retrieval that reaches the gold evidence for some questions.
func TestRealLoCoMoConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ds, err := datasets.LoadLoCoMo(testutil.Shared(t, "datasets", "locomo10.json"), datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conv := ds.Conversations[0]
	fm := newFake(nil)
	m, st := build(t, Name, testEnv(fm, nil), conv)
	if got, want := st.Counts["calls_extract_fact"]+st.Counts["calls_extract_rel"], 2*len(conv.Sessions); got != want {
		t.Errorf("%d extraction calls for %d sessions", got, len(conv.Sessions))
	}
	// LoCoMo dates sessions only: by default every entry carries its
	// session's time, so one session is one event.
	sessTime := map[string]time.Time{}
	for _, s := range conv.Sessions {
		for _, tr := range s.Turns {
			sessTime[tr.ID] = s.Time
		}
	}
	events := map[string]bool{}
	for _, e := range m.entries {
		if !e.Time.Equal(sessTime[e.Sources[0]]) {
			t.Fatalf("entry %s at %v, not its session's time %v", e.ID, e.Time, sessTime[e.Sources[0]])
		}
		events[e.Event] = true
	}
	if len(events) > len(conv.Sessions) {
		t.Errorf("%d events for %d sessions", len(events), len(conv.Sessions))
	}
	turns := turnTimes(conv)
	if st.Counts["windows"] == 0 || st.Counts["syntheses"] == 0 || st.Counts["failed_extractions"] != 0 {
		t.Errorf("counts %v", st.Counts)
	}
	hit, asked := 0, 0
	for _, q := range conv.Questions {
		if len(q.Evidence) == 0 {
			continue
		}
		asked++
		ctx, err := m.Retrieve(context.Background(), q, systems.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, it := range ctx.Items {
			for _, s := range it.Sources {
				got[s] = true
			}
		}
		for _, ev := range q.Evidence {
			if got[ev] {
				hit++
				break
			}
		}
	}
	t.Logf("%s: %d turns, %d sessions, counts %v, build tokens %d; questions with an evidence turn retrieved: %d/%d",
		conv.ID, len(turns), len(conv.Sessions), st.Counts, st.TurnTokens[len(st.TurnTokens)-1], hit, asked)
	if hit*3 < asked {
		t.Errorf("evidence reached for only %d of %d questions", hit, asked)
	}
}
