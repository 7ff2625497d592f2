package structmem

import (
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/systems"
)

// A constrained link must cite at least two events. One minute-precision
// citation that happens to resolve to two events in that minute (turns are
// 30 s apart) is still one citation of one moment and must be rejected;
// two citations naming two events are kept.
func TestConstrainedNeedsTwoCitations(t *testing.T) {
	a := &Entry{ID: "e00001", Kind: KindFactual, Text: "a", Time: day0, Event: TimeLabel(day0), Sources: []string{"D1:1"}}
	b := &Entry{ID: "e00002", Kind: KindFactual, Text: "b", Time: day0.Add(30 * time.Second), Event: TimeLabel(day0.Add(30 * time.Second)), Sources: []string{"D1:2"}}
	m := &Memory{cfg: Config{Synthesis: "constrained"}, byID: map[string]*Entry{a.ID: a, b.ID: b}}
	p := &windowPlan{buffer: []*Entry{a, b}, events: map[string]bool{a.Event: true, b.Event: true}}

	if s, reason := m.validate(p, Link{Text: "x", Times: []string{"2023-05-08 13:00"}, Dependency: "same activity"}); s != nil || reason != "too few events" {
		t.Errorf("one minute-precision citation: synthesis %v, reason %q; want rejected as too few events", s, reason)
	}
	if s, reason := m.validate(p, Link{Text: "x", Times: []string{a.Event, a.Event}, Dependency: "same activity"}); s != nil || reason != "too few events" {
		t.Errorf("one event cited twice: synthesis %v, reason %q; want rejected", s, reason)
	}
	s, reason := m.validate(p, Link{Text: "x", Times: []string{a.Event, b.Event}, Dependency: "same activity"})
	if s == nil || len(s.CitedEvents) != 2 {
		t.Fatalf("two exact citations rejected (%q)", reason)
	}
}

// With seed-scope=global the related events may be later than the buffer,
// so the consolidation prompt must not call them earlier.
func TestGlobalScopePromptDoesNotSayEarlier(t *testing.T) {
	for _, scope := range []string{"historical", "global"} {
		fm := newFake(nil)
		build(t, Name, testEnv(fm, systems.Options{"seed-scope": scope}), testConv())
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
