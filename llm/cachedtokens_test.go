package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/membench/membench"
)

// A provider's prompt-cache count is read from the reply's
// usage.prompt_tokens_details and carried through the meter, apart from
// membench's own reply cache (CachedCalls).
func TestCachedInputTokensFromReplyToTally(t *testing.T) {
	bodies := []string{
		// OpenAI's shape.
		`{"id":"c1","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Lisbon"},"finish_reason":"stop"}],
		  "usage":{"prompt_tokens":2048,"completion_tokens":3,"total_tokens":2051,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}}`,
		// vLLM sends null when it has no details.
		`{"id":"c2","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Porto"}}],
		  "usage":{"prompt_tokens":100,"completion_tokens":2,"prompt_tokens_details":null}}`,
		// A local server without details at all.
		`{"choices":[{"message":{"content":"Faro"}}],"usage":{"prompt_tokens":50,"completion_tokens":1}}`,
		// A wrong server claiming more cached than sent: capped.
		`{"choices":[{"message":{"content":"Braga"}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":99}}}`,
	}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, bodies[(n.Add(1)-1)%int32(len(bodies))])
	}))
	defer srv.Close()
	o, err := NewOpenAI(OpenAIConfig{Model: "gpt-4o-mini", BaseURL: srv.URL + "/v1", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMeter()
	model := WithMeter(o, m, "answer")
	want := []membench.Usage{
		{InputTokens: 2048, OutputTokens: 3, CachedInputTokens: 1920},
		{InputTokens: 100, OutputTokens: 2},
		{InputTokens: 50, OutputTokens: 1},
		{InputTokens: 10, OutputTokens: 1, CachedInputTokens: 10},
	}
	for i, w := range want {
		r, err := model.Chat(context.Background(), Request{Messages: msgs("where?"), Stage: membench.StageAnswer})
		if err != nil {
			t.Fatal(err)
		}
		if r.Usage != w {
			t.Errorf("reply %d: usage %+v, want %+v", i+1, r.Usage, w)
		}
	}
	got := m.Snapshot()
	if len(got) != 1 {
		t.Fatalf("tallies = %+v, want one", got)
	}
	tl := got[0]
	if tl.Model != "openai:gpt-4o-mini" || tl.Calls != 4 || tl.CachedCalls != 0 || tl.InputTokens != 2208 || tl.CachedInputTokens != 1930 {
		t.Errorf("tally = %+v, want openai:gpt-4o-mini, 4 calls, 0 from membench's cache, 2208 input of which 1930 provider-cached", tl)
	}
	if tot := m.Total(membench.StageAnswer); tot.CachedInputTokens != 1930 {
		t.Errorf("Total = %+v", tot)
	}
	// The difference of two snapshots keeps the cached count.
	before := m.Snapshot()
	model.Chat(context.Background(), Request{Messages: msgs("again"), Stage: membench.StageAnswer})
	if d := Minus(m.Snapshot(), before); len(d) != 1 || d[0].CachedInputTokens != 1920 || d[0].Model != "openai:gpt-4o-mini" {
		t.Errorf("Minus = %+v", d)
	}
}
