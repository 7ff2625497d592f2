package analysis_test

import (
	"reflect"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/runlog"
)

// Labels show the system, k, and what differs from another run that has
// the same setting: a system option only among runs of that system, a
// model, a recorded config setting such as the seed; runs alike in
// everything get their id's tail.
func TestLabelsTellRunsApart(t *testing.T) {
	man := func(system string, k int, opts membench.Options, answer string, seed int) runlog.Manifest {
		return runlog.Manifest{Config: membench.Config{System: system, K: k, Seed: seed}, SystemOptions: opts,
			Models: map[string]membench.ModelID{"answer": {Backend: "openai", Model: answer}}, Judges: []string{"llm"}, Dataset: "locomo"}
	}
	ms := []runlog.Manifest{
		man("turns-cosine", 3, membench.Options{"order": "time"}, "gpt-4o-mini", 0),
		man("turns-cosine", 5, membench.Options{"order": "time"}, "gpt-4o-mini", 0),
		man("structmem", 0, membench.Options{"seeds": "15"}, "gpt-4o-mini", 0),
		man("structmem", 0, membench.Options{"seeds": "5"}, "gpt-4o-mini", 0),
		man("fullcontext", 0, nil, "gpt-4o", 0),
		man("fullcontext", 0, nil, "gpt-4o", 7),
		man("fullcontext", 0, nil, "gpt-4o", 7),
	}
	ids := []string{"a-1", "a-2", "a-3", "a-4", "a-5", "x-aa", "x-bb"}
	got := analysis.Labels(ms, ids)
	want := []string{
		"turns-cosine k=3 answer=openai:gpt-4o-mini",
		"turns-cosine k=5 answer=openai:gpt-4o-mini",
		"structmem seeds=15 answer=openai:gpt-4o-mini",
		"structmem seeds=5 answer=openai:gpt-4o-mini",
		"fullcontext answer=openai:gpt-4o",
		"fullcontext answer=openai:gpt-4o seed=7 #aa",
		"fullcontext answer=openai:gpt-4o seed=7 #bb",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("labels:\n%q\nwant\n%q", got, want)
	}
}
