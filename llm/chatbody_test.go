package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/membench/membench/internal/jsonenc/jsonenctest"
)

// A field added to chatBody (or its messages and format) without teaching
// AppendJSON fails here.
func TestChatBodyCoversEveryField(t *testing.T) {
	jsonenctest.EveryField[chatBody](t)
}

// The hand-written body is json.Marshal's on the shapes Chat and Decide
// send and on the edges of omitempty and float32 formatting.
func TestChatBodyIsMarshal(t *testing.T) {
	seed, neg := 3, -1
	bodies := []chatBody{
		{Model: "gpt-4o-mini", Messages: []chatMessage{{Role: "system", Content: "be <brief> & \"exact\""}, {Role: "user", Content: "é\u2028\xff\n"}}, MaxTokens: 200, Temperature: math.SmallestNonzeroFloat32},
		{Model: "o3-mini", Messages: []chatMessage{{Role: "user", Content: "json"}}, MaxCompletionTokens: 64, Temperature: 0.7, ResponseFormat: &chatFormat{Type: "json_object"}, Seed: &seed},
		{Model: "m", Messages: []chatMessage{{Role: "user", Content: "yes?"}, {Role: "assistant"}}, MaxTokens: 1, LogProbs: true, TopLogProbs: 20},
		{Messages: []chatMessage{}, Temperature: 1e21, Seed: &neg},
		{Temperature: float32(math.Copysign(0, -1))},
		{Temperature: 1e-7, Stream: true},
		{},
	}
	for i, c := range bodies {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.AppendJSON(nil)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("body %d: AppendJSON %s (ok %v), json.Marshal %s", i, got, ok, want)
		}
	}
	if _, ok := (chatBody{Temperature: float32(math.NaN())}).AppendJSON(nil); ok {
		t.Error("AppendJSON accepted a NaN temperature json.Marshal refuses")
	}
}

func FuzzChatBody(f *testing.F) {
	f.Add("gpt-4o-mini", "system <b>", "user \u2028 \xff\n", "", float32(0.7), 200, 3, true)
	f.Add("", "", "", "json_object", float32(1e-45), 0, 0, false)
	f.Fuzz(func(t *testing.T, model, sys, user, format string, temp float32, maxTok, top int, lp bool) {
		c := chatBody{Model: model, Messages: []chatMessage{{Role: "system", Content: sys}, {Role: "user", Content: user}},
			MaxTokens: maxTok, MaxCompletionTokens: top, Temperature: temp, LogProbs: lp, TopLogProbs: top, Seed: &maxTok}
		if format != "" {
			c.ResponseFormat = &chatFormat{Type: format}
		}
		want, err := json.Marshal(c)
		got, ok := c.AppendJSON(nil)
		if err != nil {
			if ok {
				t.Fatalf("json.Marshal refuses %+v (%v), AppendJSON accepted it", c, err)
			}
			return
		}
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON %s (ok %v), json.Marshal %s", got, ok, want)
		}
	})
}

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
