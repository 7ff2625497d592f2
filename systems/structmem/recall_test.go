package structmem

import (
	"context"
	"slices"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/systems"
)

// Evidence recall counts the turns an item cites. A synthesis cites event
// times: bound to its session's time (the default), an event is a whole
// session, so the citation names no turn and a retrieved synthesis must
// not count every turn of the sessions it links as retrieved; bound to
// utterance times (anchor=utterance), each cited time is one turn.
func TestSynthesisRecallCountsCitedTurns(t *testing.T) {
	q := &datasets.Question{Text: "What did Caroline paint at her painting class?"}
	for _, anchor := range []string{"session", "utterance"} {
		m, _ := build(t, Name, testEnv(newFake(narrativeAnswer), membench.Options{"anchor": anchor}), testConv())
		if len(m.syns) == 0 {
			t.Fatalf("anchor=%s: no syntheses to test", anchor)
		}
		for _, s := range m.syns {
			if len(s.Sources) < 2 {
				t.Fatalf("anchor=%s: synthesis %s links %v: the fixture needs multi-turn links", anchor, s.ID, s.Sources)
			}
			switch anchor {
			case "session":
				// Every cited event here spans a session of 2-3 turns.
				if len(s.CitedTurns) != 0 {
					t.Errorf("session anchor: synthesis %s cites turns %v; a session time names none", s.ID, s.CitedTurns)
				}
			case "utterance":
				// One turn per cited time: the anchors, a subset of the
				// cited entries' turns.
				if len(s.CitedTurns) != len(s.CitedEvents) {
					t.Errorf("utterance anchor: synthesis %s cites %d events but turns %v", s.ID, len(s.CitedEvents), s.CitedTurns)
				}
				for _, tid := range s.CitedTurns {
					if !slices.Contains(s.Sources, tid) {
						t.Errorf("cited turn %s not among the synthesis's event turns %v", tid, s.Sources)
					}
				}
			}
		}
		ctx, err := m.Retrieve(context.Background(), q, systems.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		nSyn := 0
		for _, it := range ctx.Items {
			if it.Kind != "synthesis" {
				continue
			}
			nSyn++
			var s *Synthesis
			for _, x := range m.syns {
				if x.ID == it.ID {
					s = x
				}
			}
			if !slices.Equal(it.Sources, s.CitedTurns) {
				t.Errorf("anchor=%s: retrieved synthesis %s reports sources %v, want its cited turns %v", anchor, it.ID, it.Sources, s.CitedTurns)
			}
		}
		if nSyn == 0 {
			t.Errorf("anchor=%s: no synthesis retrieved", anchor)
		}
	}
}
