package turns

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/systems"
)

// TestRerankOverOpenAIWire runs turns-rerank through the real OpenAI
// backend against the in-process fake server, which returns chosen
// logprobs: ρ must come from the top_logprobs, not from reply text.
func TestRerankOverOpenAIWire(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		if !r.Logprobs || r.TopLogprobs == 0 {
			t.Errorf("decision request without logprobs: %s", r.Raw)
		}
		user := r.LastUser()
		yes := math.Log(0.1)
		switch {
		case strings.Contains(user, "puppy named Oscar"):
			yes = math.Log(0.9)
		case strings.Contains(user, "lovely name for a puppy"):
			yes = math.Log(0.7)
		}
		// The reply text says "no" every time: only logprobs may count.
		return llmtest.Reply{Text: "no", TopLogprobs: []llmtest.TopLogprob{
			{Token: "yes", Logprob: yes}, {Token: "no", Logprob: math.Log(1 - math.Exp(yes))},
		}}
	}))
	m, err := llm.NewOpenAI(llm.OpenAIConfig{Model: "fake-decider", BaseURL: srv.URL, APIKey: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s := newWith(t, "turns-rerank", m, membench.Options{"floor": "0", "order": "score"})
	c, err := s.Retrieve(context.Background(), puppyQ, systems.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c.Items); got != "D2:2,D2:3" {
		t.Errorf("items %s, want D2:2,D2:3 (ρ 0.9, 0.7; others 0.1)", got)
	}
	if n := srv.Count("/v1/chat/completions"); n != 7 {
		t.Errorf("%d decision requests, want one per candidate (7)", n)
	}
	rho := c.Notes["rho"].(map[string]float64)
	if math.Abs(rho["D2:2"]-0.9) > 1e-6 || math.Abs(rho["D1:1"]-0.1) > 1e-6 {
		t.Errorf("rho %v", rho)
	}
}
