package structmem

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/systems"
)

var (
	uttID  = regexp.MustCompile(`(?m)^\[([A-Z0-9]+:[0-9]+) \| `)
	evTime = regexp.MustCompile(`(?m)^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]`)
)

// A real-wire build: the fake OpenAI server answers extraction prompts by
// citing the utterance ids it finds in them, and consolidation with a
// narrative citing the first event it lists.
func TestOpenAIPathCallsPerSession(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		user := r.LastUser()
		if strings.Contains(user, "Write the window's narrative.") {
			first := evTime.FindStringSubmatch(user)
			b, _ := json.Marshal(narrative{Narrative: "They talked, as on [" + first[1] + "].", Times: []string{first[1]}})
			return llmtest.Reply{Text: string(b)}
		}
		var es []map[string]string
		for _, m := range uttID.FindAllStringSubmatch(user, -1) {
			es = append(es, map[string]string{"utterance": m[1], "text": "entry from " + m[1]})
		}
		b, _ := json.Marshal(map[string]any{"entries": es})
		return llmtest.Reply{Text: string(b)}
	}))
	model, err := llm.NewOpenAI(llm.OpenAIConfig{Model: "gpt-4o-mini", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	conv := testConv()
	m, st := build(t, NameNoCross, testEnv(model, nil), conv)
	if got, want := srv.Count("/v1/chat/completions"), 2*len(conv.Sessions); got != want {
		t.Errorf("%d chat calls for %d sessions, want %d", got, len(conv.Sessions), want)
	}
	if n := len(conv.AllTurns()); st.Counts["entries_factual"] != n || st.Counts["entries_relational"] != n {
		t.Errorf("entries %v, want %d per perspective", st.Counts, n)
	}
	clock := utteranceClock(conv)
	for _, e := range m.entries {
		if e.Text != "entry from "+e.Sources[0] || !e.Time.Equal(clock[e.Sources[0]]) {
			t.Errorf("entry %+v", e)
		}
	}
	for _, body := range srv.Bodies("/v1/chat/completions") {
		var req llmtest.ChatRequest
		if err := json.Unmarshal(body, &req); err != nil || req.ResponseFormat == nil || req.ResponseFormat.Type != "json_object" {
			t.Errorf("request without JSON response format: %s", body)
		}
	}
	// The full system adds one consolidation call per window (3 here).
	before := srv.Count("/v1/chat/completions")
	full, st := build(t, Name, testEnv(model, nil), conv)
	if got, want := srv.Count("/v1/chat/completions")-before, 2*len(conv.Sessions)+3; got != want || st.Counts["calls_consolidate"] != 3 || len(full.syns) != 3 {
		t.Errorf("full build: %d chat calls, want %d; counts %v", got, want, st.Counts)
	}

	srv2 := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: `{"entries": []}`}
	}))
	model2, _ := llm.NewOpenAI(llm.OpenAIConfig{Model: "gpt-4o-mini", BaseURL: srv2.URL})
	_, st = build(t, Name, testEnv(model2, membench.Options{"granularity": "session"}), conv)
	// No entries means nothing to consolidate: still 2 calls per session,
	// and the build reports an empty memory its spec calls degraded.
	if got := srv2.Count("/v1/chat/completions"); got != 2*len(conv.Sessions) {
		t.Errorf("empty extraction: %d calls, want %d", got, 2*len(conv.Sessions))
	}
	spec, _ := systems.Lookup(Name)
	if st.Entries == nil || *st.Entries != 0 || st.Extractions != 2*len(conv.Sessions) || st.EmptyReplies != st.Extractions ||
		!strings.Contains(spec.Memory.Empty(st), "0 memory entries") {
		t.Errorf("empty build stats %+v: %q", st, spec.Memory.Empty(st))
	}
}
