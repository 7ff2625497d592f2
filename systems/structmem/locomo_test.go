package structmem

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/systems"
)

// On LoCoMo conv-26 (offline backend), loaded with a 2-minute turn step
// that StructMem must ignore: two extraction calls per session, every
// entry at its utterance's StructMem time (session + 1 s × position), every
// event one utterance, one 3,600 s window per session, each sent once (no
// window skipped) and giving one narrative, image captions inside their
// utterances' text, and retrieval that reaches the gold evidence for some
// questions.
func TestRealLoCoMoConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ds, err := locomo.Load(testutil.Shared(t, "datasets", "locomo10.json"), datasets.LoadOptions{TurnStep: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var conv *datasets.Conversation
	for _, c := range ds.Conversations {
		if c.ID == "conv-26" {
			conv = c
		}
	}
	if conv == nil || len(conv.Sessions) != 19 {
		t.Fatalf("conv-26 with 19 sessions not found in the LoCoMo file")
	}
	fm := newFake(nil)
	m, st := build(t, Name, testEnv(fm, nil), conv)
	if got, want := st.Counts["calls_extract_fact"]+st.Counts["calls_extract_rel"], 2*len(conv.Sessions); got != want {
		t.Errorf("%d extraction calls for %d sessions", got, len(conv.Sessions))
	}
	clock := utteranceClock(conv)
	anchors := map[string]map[string]bool{} // event -> anchor utterances
	for _, e := range m.entries {
		if !e.Time.Equal(clock[e.Sources[0]]) {
			t.Fatalf("entry %s at %v, not its utterance's StructMem time %v", e.ID, e.Time, clock[e.Sources[0]])
		}
		if anchors[e.Event] == nil {
			anchors[e.Event] = map[string]bool{}
		}
		anchors[e.Event][e.Sources[0]] = true
	}
	for ev, us := range anchors {
		if len(us) != 1 {
			t.Errorf("event %s cites %d utterances, want one", ev, len(us))
		}
	}
	n := len(conv.Sessions)
	if fm.count(TaskConsolidate) != n || st.Counts["calls_consolidate"] != n || st.Counts["windows"] != n || len(m.windows) != n || len(m.syns) != n {
		t.Errorf("%d synthesis calls, %d windows, %d syntheses; want %d of each (one window per session)", fm.count(TaskConsolidate), len(m.windows), len(m.syns), n)
	}
	for _, w := range m.windows {
		if !w.Called || len(w.SynthesisIDs) != 1 {
			t.Errorf("window %d skipped or without its narrative: %+v", w.Index, w.SynthesisIDs)
		}
	}
	for _, s := range m.syns {
		if len(s.CitedEvents) == 0 || len(s.CitedTurns) != len(s.CitedEvents) || s.Words > maxNarrativeWords || s.Words < minNarrativeWords {
			t.Errorf("synthesis %s: %d words, cites %d events / %d turns", s.ID, s.Words, len(s.CitedEvents), len(s.CitedTurns))
		}
	}
	captions := 0
	for _, r := range fm.reqs {
		if in, ok := r.Inputs.(ExtractInput); ok {
			for _, u := range in.Utterances {
				if strings.Contains(u.Text, "[image: ") {
					captions++
				}
			}
		}
	}
	if captions == 0 {
		t.Error("no image caption reached an extraction prompt inside its utterance")
	}
	if st.Failed != 0 || st.Counts["failed_extractions"] != 0 {
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
	t.Logf("%s: %d sessions, %d events, counts %v, build tokens %d; questions with an evidence turn retrieved: %d/%d",
		conv.ID, n, len(anchors), st.Counts, st.TurnTokens[len(st.TurnTokens)-1], hit, asked)
	if hit*3 < asked {
		t.Errorf("evidence reached for only %d of %d questions", hit, asked)
	}
}
