package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Reused body buffers never leak into another request: many requests at
// once, against a server that reads some bodies whole and answers others
// with an error before reading them (some of them large, so the client is
// still writing when its call returns), each body read arrives exactly as
// json.Marshal wrote it. Run with -race (the gate does not): a buffer
// reused while the transport still reads it is a data race.
func TestChatBodiesReusedSafely(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{} // model → body
	var n, early atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%7 == 0 || r.ContentLength > 500_000 {
			// Answered before the body is read: for a large body the
			// client is still writing it when its call returns.
			early.Add(1)
			w.WriteHeader(http.StatusBadGateway)
			w.(http.Flusher).Flush()
			if r.ContentLength > 500_000 {
				time.Sleep(300 * time.Millisecond)
			}
			return
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var c chatBody
		if err := json.Unmarshal(b, &c); err != nil {
			t.Errorf("body %q: %v", b, err)
		}
		mu.Lock()
		got[c.Model] = string(b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if len(c.Model)%5 == 0 {
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down"}}`)
			return
		}
		fmt.Fprint(w, `{"choices":[{"message":{"content":"ok"}}]}`)
	}))
	defer srv.Close()
	o, err := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: srv.URL, APIKey: testKey, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	var wg sync.WaitGroup
	for i := range 400 {
		model := fmt.Sprintf("model-%d-%s", i, strings.Repeat("<&>", i%50))
		content := strings.Repeat(fmt.Sprint(i, " words "), i%300)
		if i%50 == 1 {
			content = strings.Repeat("x", 800_000) // pooled (under 1 MB), more than the socket takes at once
		}
		body := chatBody{Model: model, Messages: []chatMessage{{Role: "user", Content: content}}, MaxTokens: i}
		b, _ := json.Marshal(body)
		want[model] = string(b)
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.post(context.Background(), body, &captured{}) // failures are part of the test
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got)+int(early.Load()) != len(want) || early.Load() == 0 {
		t.Fatalf("server read %d bodies and answered %d early, %d sent", len(got), early.Load(), len(want))
	}
	for m, b := range got {
		if want[m] != b {
			t.Fatalf("%s: server read\n %s\nsent json.Marshal's\n %s", m, b, want[m])
		}
	}
}
