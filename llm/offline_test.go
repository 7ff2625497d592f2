package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/tokens"
)

// register installs test handlers and removes them afterwards, so -count=N
// does not trip the duplicate check.
func register(t *testing.T, task string, h ChatHandler) {
	RegisterOffline(task, h)
	t.Cleanup(func() {
		regMu.Lock()
		delete(chatHandlers, task)
		regMu.Unlock()
	})
}

func registerDecide(t *testing.T, task string, h DecideHandler) {
	RegisterOfflineDecide(task, h)
	t.Cleanup(func() {
		regMu.Lock()
		delete(decideHandlers, task)
		regMu.Unlock()
	})
}

func TestOfflineUnknownTaskListsKnown(t *testing.T) {
	register(t, "ztest.echo", func(req Request) (string, error) { return "x", nil })
	registerDecide(t, "ztest.pick", func(req DecideRequest) (map[string]float64, error) { return nil, nil })
	o := NewOffline()
	_, err := o.Chat(context.Background(), Request{Task: "ztest.nope"})
	if err == nil {
		t.Fatal("unknown task answered")
	}
	for _, want := range []string{"ztest.nope", "ztest.echo", "ztest.pick (decide)", "--llm openai"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("chat error %q lacks %q", err, want)
		}
	}
	_, err = o.Decide(context.Background(), DecideRequest{Task: "ztest.nope"})
	if err == nil || !strings.Contains(err.Error(), "ztest.nope") || !strings.Contains(err.Error(), "ztest.pick (decide)") {
		t.Fatalf("decide error = %v", err)
	}
	// A chat task is not a decision task.
	if _, err := o.Decide(context.Background(), DecideRequest{Task: "ztest.echo"}); err == nil {
		t.Fatal("chat handler served a decision")
	}
}

func TestOfflineTokenCounts(t *testing.T) {
	const answer = "She went to the beach on 7 May 2023."
	var seen any
	register(t, "ztest.answer", func(req Request) (string, error) {
		seen = req.Inputs
		return answer, nil
	})
	registerDecide(t, "ztest.yesno", func(req DecideRequest) (map[string]float64, error) {
		return map[string]float64{"yes": 0.25, "no": 0.75}, nil
	})
	msgs := []membench.Message{
		{Role: "system", Content: "You answer questions about a conversation."},
		{Role: "user", Content: "Where did Caroline go on 7 May 2023?"},
	}
	o := NewOffline()
	r, err := o.Chat(context.Background(), Request{Task: "ztest.answer", Messages: msgs, Inputs: 42})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != answer || seen != 42 {
		t.Fatalf("text %q, handler saw inputs %v", r.Text, seen)
	}
	wantIn := tokens.CountMessages(msgs[0].Content, msgs[1].Content)
	if r.Usage.InputTokens != wantIn || r.Usage.InputTokens != PromptTokens(msgs) {
		t.Errorf("input tokens = %d, want %d", r.Usage.InputTokens, wantIn)
	}
	if r.Usage.OutputTokens != tokens.Count(answer) || r.Usage.OutputTokens == 0 {
		t.Errorf("output tokens = %d, want %d", r.Usage.OutputTokens, tokens.Count(answer))
	}

	d, err := o.Decide(context.Background(), DecideRequest{Task: "ztest.yesno", Messages: msgs, Choices: []string{"yes", "no"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Probs["no"] != 0.75 || d.Usage.InputTokens != wantIn || d.Usage.OutputTokens != 1 {
		t.Errorf("decide = %+v", d)
	}
	if id := o.ID(); id.Backend != "offline" || id.Model != "offline-heuristic" {
		t.Errorf("ID = %+v", id)
	}
}

func TestOfflineHandlerErrorAndCancel(t *testing.T) {
	boom := errors.New("bad inputs")
	register(t, "ztest.fail", func(req Request) (string, error) { return "", boom })
	o := NewOffline()
	_, err := o.Chat(context.Background(), Request{Task: "ztest.fail"})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "ztest.fail") {
		t.Fatalf("err = %v, want wrapped handler error naming the task", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Chat(ctx, Request{Task: "ztest.fail"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: err = %v", err)
	}
}

func TestDuplicateRegistrationPanics(t *testing.T) {
	register(t, "ztest.dup", func(req Request) (string, error) { return "", nil })
	registerDecide(t, "ztest.dupd", func(req DecideRequest) (map[string]float64, error) { return nil, nil })
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(r.(string), what) {
				t.Errorf("panic = %v, want one naming %s", r, what)
			}
		}()
		f()
	}
	mustPanic("ztest.dup", func() { RegisterOffline("ztest.dup", func(Request) (string, error) { return "", nil }) })
	mustPanic("ztest.dupd", func() {
		RegisterOfflineDecide("ztest.dupd", func(DecideRequest) (map[string]float64, error) { return nil, nil })
	})
	// The same name may be used once as chat and once as decide.
	registerDecide(t, "ztest.dup", func(DecideRequest) (map[string]float64, error) { return nil, nil })
}
