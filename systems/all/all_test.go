package all

import (
	"testing"

	"github.com/membench/membench/systems"
)

// Every system says whether it builds a memory: those that do are judged
// by an empty memory (MemoryRule), those that keep the raw conversation are
// exempt; per-session extraction has an empty-reply limit, per-message
// extraction none.
func TestMemoryDeclarations(t *testing.T) {
	want := map[string]systems.MemoryRule{
		"structmem": {Builds: true, MaxEmptyReplies: 0.05}, "structmem-no-cross-event": {Builds: true, MaxEmptyReplies: 0.05},
		"structmem-flat": {Builds: true, MaxEmptyReplies: 0.05},
		"flat":           {Builds: true}, "graph": {Builds: true}, "extract-rerank": {Builds: true}, "turns-graph": {Builds: true},
		"exec": {Builds: true}, "http": {Builds: true},
		"fullcontext": {}, "abstain": {}, "turns-cosine": {}, "turns-rerank": {}, "turns-llm": {},
	}
	for _, name := range systems.Names() {
		spec, _ := systems.Lookup(name)
		w, ok := want[name]
		if !ok {
			t.Errorf("system %s: declare its Memory rule and add it here", name)
			continue
		}
		if spec.Memory != w {
			t.Errorf("system %s: memory rule %+v, want %+v", name, spec.Memory, w)
		}
	}
}
