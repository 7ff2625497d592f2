package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/llm/llmtest"
)

// Each fault the fake server can inject, met once by a real HTTP client and
// the retry layer: the call succeeds on the next try.
func TestEachFaultIsRetriedOnce(t *testing.T) {
	decide := func(f llmtest.Fault) bool { return f == llmtest.FaultNoLogprobs }
	for _, f := range []llmtest.Fault{llmtest.Fault429, llmtest.Fault500, llmtest.Fault502, llmtest.Fault503,
		llmtest.FaultDrop, llmtest.FaultSlow, llmtest.FaultMalformed, llmtest.FaultEmptyChoices, llmtest.FaultNoLogprobs} {
		t.Run(string(f), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
				return llmtest.Reply{Text: "yes", TopLogprobs: []llmtest.TopLogprob{{Token: "yes", Logprob: -0.1}, {Token: "no", Logprob: -2.4}}}
			}), llmtest.WithFaults(llmtest.Faults{Sequence: []llmtest.Fault{f}, Delay: 2 * time.Second}))
			// A short client timeout turns the slow reply into a timeout.
			o, err := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: srv.URL, APIKey: testKey, Timeout: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			m := WithRetry(o, RetryPolicy{Max: 3, Base: time.Millisecond, MaxDelay: 5 * time.Millisecond})
			if decide(f) {
				r, err := m.Decide(context.Background(), DecideRequest{Messages: msgs("q"), Choices: []string{"yes", "no"}})
				if err != nil || r.Probs["yes"] < 0.5 {
					t.Fatalf("decide after %s: %+v, %v", f, r, err)
				}
			} else {
				r, err := m.Chat(context.Background(), Request{Messages: msgs("q")})
				if err != nil || r.Text != "yes" {
					t.Fatalf("chat after %s: %+v, %v", f, r, err)
				}
			}
			if n := srv.Count("/v1/chat/completions"); n != 2 {
				t.Fatalf("%d requests, want the faulty one and one retry", n)
			}
			if srv.Injected()[f] != 1 {
				t.Fatalf("injected %v", srv.Injected())
			}
		})
	}
}

// Unusable replies are retried a bounded number of times and the error
// says what happened, in how many tries.
func TestBadRepliesBounded(t *testing.T) {
	cases := []struct {
		fault llmtest.Fault
		want  string
	}{
		{llmtest.FaultEmptyChoices, "the reply had no choices"},
		{llmtest.FaultMalformed, "the reply is not a JSON completion"},
	}
	for _, c := range cases {
		seq := []llmtest.Fault{c.fault, c.fault, c.fault, c.fault, c.fault}
		srv := llmtest.New(t, llmtest.WithFaults(llmtest.Faults{Sequence: seq}))
		m := WithRetry(newTestOpenAI(t, srv), RetryPolicy{Max: 5, Base: time.Millisecond})
		_, err := m.Chat(context.Background(), Request{Messages: msgs("q")})
		if !errors.Is(err, ErrBadReply) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "3 unusable replies in a row") {
			t.Errorf("%s: err = %v", c.fault, err)
		}
		if n := srv.Count("/v1/chat/completions"); n != 1+DefaultGlitches {
			t.Errorf("%s: %d requests, want %d", c.fault, n, 1+DefaultGlitches)
		}
	}
	// One reply without logprobs is not "the server does not support them".
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: "yes", TopLogprobs: []llmtest.TopLogprob{{Token: "yes", Logprob: -0.1}}}
	}), llmtest.WithFaults(llmtest.Faults{Sequence: []llmtest.Fault{llmtest.FaultNoLogprobs}}))
	_, err := newTestOpenAI(t, srv).Decide(context.Background(), DecideRequest{Messages: msgs("q"), Choices: []string{"yes", "no"}})
	if !errors.Is(err, ErrNoLogprobs) || strings.Contains(err.Error(), "support") || !strings.Contains(err.Error(), "the reply had no logprobs") {
		t.Fatalf("one reply without logprobs: %v", err)
	}
}

// The fault draw depends on the seed and the request, not on arrival order.
func TestFaultsDeterministicBySeed(t *testing.T) {
	run := func(seed uint64) map[llmtest.Fault]int {
		srv := llmtest.New(t, llmtest.WithFaults(llmtest.Faults{Seed: seed, Rate: 0.3, Kinds: []llmtest.Fault{llmtest.Fault500, llmtest.FaultEmptyChoices}}))
		o := newTestOpenAI(t, srv)
		for i := 0; i < 40; i++ {
			o.Chat(context.Background(), Request{Messages: msgs(strings.Repeat("q", i+1))})
		}
		return srv.Injected()
	}
	a, b, c := run(1), run(1), run(2)
	if a[llmtest.Fault500]+a[llmtest.FaultEmptyChoices] == 0 || a[llmtest.Fault500]+a[llmtest.FaultEmptyChoices] > 25 {
		t.Fatalf("rate 0.3 of 40 gave %v", a)
	}
	if a[llmtest.Fault500] != b[llmtest.Fault500] || a[llmtest.FaultEmptyChoices] != b[llmtest.FaultEmptyChoices] {
		t.Fatalf("same seed, different faults: %v vs %v", a, b)
	}
	if a[llmtest.Fault500] == c[llmtest.Fault500] && a[llmtest.FaultEmptyChoices] == c[llmtest.FaultEmptyChoices] {
		t.Logf("seeds 1 and 2 drew the same counts (%v); possible but unlikely", a)
	}
}
