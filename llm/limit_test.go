package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
)

// One limiter shared by two models (two roles) bounds their requests in
// flight together, and the sized client reuses its connections.
func TestLimiterIsOneBudgetAcrossModels(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithLatency(30*time.Millisecond))
	lim := llm.NewLimiter(5)
	hc := llm.NewHTTPClient(5, 10*time.Second)
	var models []llm.Model
	for _, name := range []string{"answerer", "judge"} {
		m, err := llm.Build(llm.Spec{Backend: "openai", Model: name, BaseURL: srv.URL, Retries: -1}, llm.BuildDeps{Limit: lim, HTTP: hc})
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	const rounds, per = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, rounds*per)
	for i := 0; i < rounds*per; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := models[i%2].Chat(context.Background(), llm.Request{Messages: []membench.Message{{Role: "user", Content: fmt.Sprint("q", i)}}})
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if p := srv.Peak(); p != 5 {
		t.Fatalf("server saw %d requests at once; want exactly the budget, 5 (80 callers were waiting)", p)
	}
	if p := lim.Peak(); p != 5 {
		t.Fatalf("limiter peak %d, want 5", p)
	}
	if c := srv.Conns(); c > 5 {
		t.Fatalf("%d TCP connections for 80 requests at 5 in flight; want at most 5 (idle connections kept)", c)
	}
}

// Bursts of N requests that end together: the sized client keeps all N
// connections idle for the next burst; http.DefaultTransport keeps 2 and
// reconnects the rest every time.
func TestHTTPClientKeepsConnectionsForTheBudget(t *testing.T) {
	const n, bursts = 8, 4
	run := func(hc *http.Client) int {
		srv := llmtest.New(t, llmtest.WithLatency(20*time.Millisecond))
		m, err := llm.Build(llm.Spec{Backend: "openai", Model: "m", BaseURL: srv.URL, Retries: -1}, llm.BuildDeps{HTTP: hc})
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < bursts; b++ {
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					if _, err := m.Chat(context.Background(), llm.Request{Messages: []membench.Message{{Role: "user", Content: fmt.Sprint(b, i)}}}); err != nil {
						t.Error(err)
					}
				}(i)
			}
			wg.Wait()
		}
		return srv.Conns()
	}
	sized := run(llm.NewHTTPClient(n, 10*time.Second))
	std := run(&http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()})
	if sized > n {
		t.Errorf("sized client: %d connections for %d bursts of %d; want %d", sized, bursts, n, n)
	}
	if std <= n {
		t.Errorf("standard transport: %d connections; expected it to reconnect (this test would not tell the two apart)", std)
	}
}

// A waiting request gives up with its context and takes no slot.
func TestLimiterWaitHonoursContext(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithLatency(200*time.Millisecond))
	lim := llm.NewLimiter(1)
	m, err := llm.Build(llm.Spec{Backend: "openai", Model: "m", BaseURL: srv.URL, Retries: -1}, llm.BuildDeps{Limit: lim})
	if err != nil {
		t.Fatal(err)
	}
	go m.Chat(context.Background(), llm.Request{Messages: []membench.Message{{Role: "user", Content: "slow"}}})
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := m.Chat(ctx, llm.Request{Messages: []membench.Message{{Role: "user", Content: "waits"}}}); err == nil {
		t.Fatal("a request waiting for the only slot did not give up with its context")
	}
	if n := srv.Count("/v1/chat/completions"); n != 1 {
		t.Fatalf("%d requests reached the server; want 1", n)
	}
}
