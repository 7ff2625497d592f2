package structmem

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// fakeModel answers through an optional per-task function and falls back
// to the offline backend; it records every request.
type fakeModel struct {
	mu     sync.Mutex
	answer func(req llm.Request, attempt int) (string, bool) // attempt 0 = first try, 1 = repair
	reqs   []llm.Request
	calls  map[string]int
}

func newFake(answer func(llm.Request, int) (string, bool)) *fakeModel {
	return &fakeModel{answer: answer, calls: map[string]int{}}
}

func (f *fakeModel) ID() membench.ModelID { return membench.ModelID{Backend: "fake", Model: "test"} }

func (f *fakeModel) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.calls[req.Task]++
	f.mu.Unlock()
	attempt := 0
	if n := len(req.Messages); n >= 2 && req.Messages[n-2].Role == "assistant" {
		attempt = 1
	}
	if f.answer != nil {
		if text, ok := f.answer(req, attempt); ok {
			return llm.Response{Text: text, Usage: membench.Usage{InputTokens: 10, OutputTokens: 5}}, nil
		}
	}
	return llm.NewOffline().Chat(ctx, req)
}

func (f *fakeModel) Decide(ctx context.Context, req llm.DecideRequest) (llm.DecideResponse, error) {
	return llm.DecideResponse{}, fmt.Errorf("not used")
}

func (f *fakeModel) count(task string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[task]
}

var day0 = time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)

// mkSession builds a session at t whose turns alternate between Caroline
// and Melanie, 30 s apart (as the loaders step turn times).
func mkSession(id string, t time.Time, texts ...string) *datasets.Session {
	s := &datasets.Session{ID: id, Time: t}
	for i, x := range texts {
		sp := "Caroline"
		if i%2 == 1 {
			sp = "Melanie"
		}
		tt := time.Time{}
		if !t.IsZero() {
			tt = t.Add(time.Duration(i) * 30 * time.Second)
		}
		s.Turns = append(s.Turns, &datasets.Turn{ID: fmt.Sprintf("%s:%d", id, i+1), Speaker: sp, Text: x, Time: tt})
	}
	return s
}

// testConv: four sessions; s1 and s2 fall in one hour, s3 a day later,
// s4 four days later.
func testConv() *datasets.Conversation {
	return &datasets.Conversation{
		ID:       "conv-test",
		Speakers: []string{"Caroline", "Melanie"},
		Sessions: []*datasets.Session{
			mkSession("D1", day0,
				"I went to the LGBTQ support group yesterday and it was so powerful.",
				"That's wonderful! I painted a sunrise over the lake last week.",
				"I'm planning to study counseling because I want to help people."),
			mkSession("D2", day0.Add(40*time.Minute),
				"Your sunrise painting sounds beautiful, Melanie.",
				"Thanks! Painting helps me relax after work with my kids."),
			mkSession("D3", day0.Add(26*time.Hour),
				"I applied to a counseling program at the university.",
				"We should go camping with the kids next month.",
				"The support group gave me courage to apply for counseling."),
			mkSession("D4", day0.Add(4*24*time.Hour),
				"Melanie, I finished a painting class and painted a lake sunrise myself!",
				"I'm so proud of you, Caroline. The camping trip with my kids was amazing."),
		},
	}
}

func testEnv(model llm.Model, opts membench.Options) systems.Env {
	return systems.Env{Build: model, Embedder: embedder.NewHashed(512), Options: opts, Concurrency: 3}
}

func build(t *testing.T, name string, env systems.Env, conv *datasets.Conversation) (*Memory, membench.BuildStats) {
	t.Helper()
	spec, err := systems.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.New(env)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sys.Ingest(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	return sys.(*Memory), st
}
