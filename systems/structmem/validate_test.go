package structmem

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
)

// A narrative's citations come from its times list and from timestamps
// written in its text; a minute-precision citation names every event of
// that minute (utterances are 1 s apart); constrained needs one that
// resolves.
func TestNarrativeCitationsResolve(t *testing.T) {
	a := &Entry{ID: "e00001", Kind: KindFactual, Text: "a", Time: day0, Event: TimeLabel(day0), Sources: []string{"D1:1"}}
	b := &Entry{ID: "e00002", Kind: KindFactual, Text: "b", Time: day0.Add(time.Second), Event: TimeLabel(day0.Add(time.Second)), Sources: []string{"D1:2"}}
	m := &Memory{cfg: Config{Synthesis: "constrained"}, byID: map[string]*Entry{a.ID: a, b.ID: b}, byEvent: map[string][]*Entry{a.Event: {a}, b.Event: {b}}}
	p := &windowPlan{buffer: []*Entry{a, b}, events: map[string]bool{a.Event: true, b.Event: true}}

	n, cites, err := parseNarrative(`{"narrative": "On [2023-05-08 13:00] they met.", "times": ["1999-01-01 00:00:00"]}`)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.synthesis(p, n, cites)
	if err != nil || len(s.CitedEvents) != 2 || fmt.Sprint(s.CitedTurns) != "[D1:1 D1:2]" || fmt.Sprint(s.ForeignTimes) != "[1999-01-01 00:00:00]" {
		t.Fatalf("synthesis %+v, err %v", s, err)
	}
	n, cites, _ = parseNarrative(`{"narrative": "They met.", "times": ["1999-01-01 00:00:00"]}`)
	if _, err := m.synthesis(p, n, cites); !errors.Is(err, errMalformed) {
		t.Errorf("constrained narrative citing nothing listed: err %v, want errMalformed (a repair)", err)
	}
	m.cfg.Synthesis = "unconstrained"
	if s, err := m.synthesis(p, n, cites); err != nil || len(s.CitedEvents) != 0 {
		t.Errorf("unconstrained: %+v, %v", s, err)
	}
}

// With seed-scope=global the related events may be later than the buffer,
// so the consolidation prompt must not call them earlier.
func TestGlobalScopePromptDoesNotSayEarlier(t *testing.T) {
	for _, scope := range []string{"historical", "global"} {
		fm := newFake(nil)
		build(t, Name, testEnv(fm, membench.Options{"seed-scope": scope}), testConv())
		n := 0
		for _, r := range fm.reqs {
			if r.Task != TaskConsolidate {
				continue
			}
			n++
			all := r.Messages[0].Content + r.Messages[len(r.Messages)-1].Content
			says := strings.Contains(strings.ToLower(all), "earlier related")
			if says != (scope == "historical") {
				t.Errorf("scope %s: prompt says \"earlier related\" = %v:\n%s", scope, says, all)
				break
			}
		}
		if n == 0 {
			t.Fatalf("scope %s: no consolidation call", scope)
		}
	}
}
