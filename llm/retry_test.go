package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/membench/membench/llm/llmtest"
)

func TestRetryHonoursRetryAfter(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if n <= 2 {
			return llmtest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "1", ErrorMessage: "rate limited"}
		}
		return llmtest.Reply{Text: "finally"}
	}))
	m := WithRetry(newTestOpenAI(t, srv), RetryPolicy{Max: 4, Base: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	var waits []time.Duration
	m.(*Retrying).sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return sleepCtx(ctx, d)
	}
	r, err := m.Chat(context.Background(), Request{Messages: msgs("q")})
	if err != nil || r.Text != "finally" {
		t.Fatalf("got %+v, %v", r, err)
	}
	if n := srv.Count("/v1/chat/completions"); n != 3 {
		t.Fatalf("requests = %d, want 3", n)
	}
	// The server's Retry-After (1s) wins over the 1-2ms backoff.
	if len(waits) != 2 || waits[0] != time.Second || waits[1] != time.Second {
		t.Fatalf("waits = %v, want [1s 1s]", waits)
	}
}

func TestRetryNotOnClientErrors(t *testing.T) {
	for _, status := range []int{400, 401, 404} {
		srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply {
			return llmtest.Reply{Status: status}
		}))
		m := WithRetry(newTestOpenAI(t, srv), RetryPolicy{Max: 5, Base: time.Millisecond})
		_, err := m.Chat(context.Background(), Request{Messages: msgs("q")})
		if err == nil {
			t.Fatalf("status %d: no error", status)
		}
		if n := srv.Count("/v1/chat/completions"); n != 1 {
			t.Fatalf("status %d: %d requests, want 1", status, n)
		}
	}
}

func TestRetryGivesUpAfterMax(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusBadGateway}
	}))
	m := WithRetry(newTestOpenAI(t, srv), RetryPolicy{Max: 2, Base: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	_, err := m.Chat(context.Background(), Request{Messages: msgs("q")})
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 502 {
		t.Fatalf("err = %v", err)
	}
	if n := srv.Count("/v1/chat/completions"); n != 3 {
		t.Fatalf("requests = %d, want 1 + 2 retries", n)
	}
}

// A server that never sends logprobs: a bounded number of tries, then an
// error that says every reply lacked them.
func TestRetryDecideNoLogprobsBounded(t *testing.T) {
	srv := llmtest.New(t)
	m := WithRetry(newTestOpenAI(t, srv), RetryPolicy{Max: 3, Base: time.Millisecond})
	_, err := m.Decide(context.Background(), DecideRequest{Messages: msgs("q"), Choices: []string{"yes", "no"}})
	if !errors.Is(err, ErrNoLogprobs) || srv.Count("/v1/chat/completions") != 1+DefaultGlitches {
		t.Fatalf("err = %v, requests = %d", err, srv.Count("/v1/chat/completions"))
	}
	if !strings.Contains(err.Error(), "3 replies in a row to this request lacked logprobs") || !strings.Contains(err.Error(), "--decide-model") {
		t.Fatalf("message does not say every reply lacked logprobs: %v", err)
	}
}

func TestRetryable(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{&HTTPError{StatusCode: 429}, true},
		{&HTTPError{StatusCode: 503}, true},
		{&HTTPError{StatusCode: 401}, false},
		{&openai.APIError{HTTPStatusCode: 500}, true},
		{&openai.RequestError{HTTPStatusCode: 404}, false},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{io.ErrUnexpectedEOF, true},
		{context.Canceled, false},
		{ErrNoLogprobs, false},
		{errors.New("offline backend: no heuristic"), false},
	}
	for _, c := range cases {
		if got := Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestRetryDelayBounds(t *testing.T) {
	p := RetryPolicy{Base: 100 * time.Millisecond, MaxDelay: time.Second}
	for attempt := 0; attempt < 40; attempt++ {
		ceil := min(time.Second, 100*time.Millisecond<<min(attempt, 20))
		for i := 0; i < 50; i++ {
			if d := p.delay(attempt, errors.New("x")); d < 0 || d > ceil {
				t.Fatalf("attempt %d: delay %v outside [0,%v]", attempt, d, ceil)
			}
		}
	}
	if d := p.delay(0, &HTTPError{RetryAfter: time.Hour}); d != maxRetryAfter {
		t.Fatalf("huge Retry-After not capped: %v", d)
	}
}

func TestRetryStopsOnCancel(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Status: 429, RetryAfter: "30"}
	}))
	m := WithRetry(newTestOpenAI(t, srv), RetryPolicy{Max: 5})
	ctx, cancel := context.WithCancel(context.Background())
	m.(*Retrying).sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepCtx(ctx, d)
	}
	_, err := m.Chat(ctx, Request{Messages: msgs("q")})
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 429 || he.RetryAfter != 30*time.Second {
		t.Fatalf("err = %#v", err)
	}
	if srv.Count("/v1/chat/completions") != 1 {
		t.Fatal("retried after cancel")
	}
}
