package llm

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm/llmtest"
)

func TestParseSpec(t *testing.T) {
	good := map[string]Spec{
		"offline":            {Backend: "offline"},
		"openai:gpt-4o-mini": {Backend: "openai", Model: "gpt-4o-mini"},
		"openai:llama3.1:8b": {Backend: "openai", Model: "llama3.1:8b"},
		"model=gpt-4o":       {Backend: "openai", Model: "gpt-4o"},
		"name=gpt4o,backend=openai,model=gpt-4o-mini,base-url=http://localhost:8000/v1,rpm=500,tpm=90000,retries=-1,no-cache=true,api-key-env=VLLM_KEY": {
			Name: "gpt4o", Backend: "openai", Model: "gpt-4o-mini", BaseURL: "http://localhost:8000/v1",
			RPM: 500, TPM: 90000, Retries: -1, NoCache: true, APIKeyEnv: "VLLM_KEY"},
	}
	for in, want := range good {
		got, err := ParseSpec(in)
		if err != nil || got != want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                               "empty",
		"openai":                         "needs a model",
		"anthropic:claude":               `unknown backend "anthropic"`,
		"backend=openai,modle=x":         `unknown key "modle"`,
		"backend=openai,model=x,rpm=abc": `key "rpm"`,
		"backend=openai,model=x,tpm=-5":  `key "tpm"`,
		"backend=openai,model":           `"model" is not key=value`,
		"model=a,model=b":                `key "model" given twice`,
		"name=x,rpm=3":                   "key backend missing",
	}
	for in, frag := range bad {
		_, err := ParseSpec(in)
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("ParseSpec(%q) err = %v, want it to mention %s", in, err, frag)
		}
	}
}

func TestBuildOpenAIStack(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if n == 1 {
			return llmtest.Reply{Status: 503} // retried by the stack
		}
		return llmtest.Reply{Text: "ok", PromptTokens: 10, CompletionTokens: 2}
	}))
	t.Setenv("MB_TEST_KEY", testKey)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cache, err := NewCache(filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	meter := NewMeter()
	spec, err := ParseSpec("backend=openai,model=gpt-4o-mini,api-key-env=MB_TEST_KEY,rpm=6000")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(spec, BuildDeps{Cache: cache, Meter: meter, Role: "answer"})
	if err != nil {
		t.Fatal(err)
	}
	if id := m.ID(); id != (membench.ModelID{Backend: "openai", Model: "gpt-4o-mini", BaseURL: srv.URL}) {
		t.Fatalf("ID = %+v", id)
	}
	// Make the retry fast: find the Retrying layer through the stack.
	for cur := m; cur != nil; {
		switch w := cur.(type) {
		case *Metered:
			cur = w.Inner
		case *Cached:
			cur = w.Inner
		case *Retrying:
			w.Policy.Base, w.Policy.MaxDelay = 1, 1
			cur = nil
		default:
			t.Fatalf("unexpected layer %T before retry", cur)
		}
	}
	req := Request{Messages: msgs("q"), Stage: membench.StageAnswer, Label: "qa"}
	for i := 0; i < 2; i++ {
		if r, err := m.Chat(context.Background(), req); err != nil || r.Text != "ok" {
			t.Fatalf("call %d: %+v, %v", i, r, err)
		}
	}
	if n := srv.Count("/v1/chat/completions"); n != 2 {
		t.Fatalf("server requests = %d, want 2 (one 503 + one success; second call cached)", n)
	}
	tot := meter.Total(membench.StageAnswer)
	if tot.Calls != 2 || tot.CachedCalls != 1 || tot.InputTokens != 20 || tot.OutputTokens != 4 {
		t.Fatalf("meter = %+v", tot)
	}
	for _, a := range srv.Authorizations() {
		if a != "Bearer "+testKey {
			t.Fatalf("key from env not used: %q", a)
		}
	}
}

func TestBuildOfflineAndErrors(t *testing.T) {
	cache, err := NewCache(filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	m, err := Build(Spec{Backend: "offline"}, BuildDeps{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*Offline); !ok {
		t.Fatalf("offline model wrapped as %T; want the bare backend (not cached)", m)
	}
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("MB_EMPTY_KEY", "")
	_, err = Build(Spec{Backend: "openai", Model: "gpt-4o-mini", APIKeyEnv: "MB_EMPTY_KEY"}, BuildDeps{})
	if err == nil || !strings.Contains(err.Error(), "MB_EMPTY_KEY") {
		t.Fatalf("missing key err = %v", err)
	}
	if _, err := Build(Spec{Backend: "nope"}, BuildDeps{}); err == nil || !strings.Contains(err.Error(), "unknown backend") {
		t.Fatalf("bad backend err = %v", err)
	}
}

func TestRateLimitPaces(t *testing.T) {
	srv := llmtest.New(t)
	inner := newTestOpenAI(t, srv)
	if WithRateLimit(inner, 0, 0) != Model(inner) {
		t.Fatal("zero limits should not wrap")
	}
	// 60 rpm → burst 6, then one request per second.
	rl := WithRateLimit(inner, 60, 0).(*RateLimited)
	// The bucket refills while the burst runs, which takes a while on a
	// loaded machine or under -race: allow for the time it took.
	start := time.Now()
	for i := 0; i < 6; i++ {
		if r, err := rl.Chat(context.Background(), Request{Messages: msgs("q")}); err != nil || r.Text != "echo: q" {
			t.Fatalf("request %d within burst: %+v, %v", i, r, err)
		}
	}
	if d, took := rl.reservationDelay(1), time.Since(start); d < 900*time.Millisecond-took || d > 1100*time.Millisecond {
		t.Fatalf("7th request would wait %v (burst took %v), want ≈1s less the burst's time", d, took)
	}
	// A context that ends sooner than the wait fails without calling.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := rl.Chat(ctx, Request{Messages: msgs("q")}); err == nil {
		t.Fatal("rate-limited call with short deadline succeeded")
	}
	if n := srv.Count("/v1/chat/completions"); n != 6 {
		t.Fatalf("server requests = %d, want 6", n)
	}

	// 600 tpm → burst 60 tokens refilled at 10/s. A Chat with max_tokens 20
	// and a prompt of p tokens is charged p+20.
	tl := WithRateLimit(inner, 0, 600).(*RateLimited)
	req := Request{Messages: msgs("q"), MaxTokens: 20}
	charge := PromptTokens(req.Messages) + 20
	start = time.Now()
	if _, err := tl.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	left := 60 - charge
	want := time.Duration(float64(30-left) / 10 * float64(time.Second))
	if d, took := tl.reservationDelay(30), time.Since(start); d < want-100*time.Millisecond-took || d > want+100*time.Millisecond {
		t.Fatalf("30 tokens after spending %d wait %v (call took %v), want ≈%v", charge, d, took, want)
	}
	// An oversized request is charged the whole burst, not refused forever.
	if d := tl.reservationDelay(10_000); d > 7*time.Second {
		t.Fatalf("oversized request waits %v", d)
	}
}

func TestFlagSpec(t *testing.T) {
	cases := []struct {
		backend, model, base, want string
		spec                       Spec // what ParseSpec reads back
	}{
		{"", "", "", "", Spec{}},
		{"openai", "gpt-4o-mini", "", "backend=openai,model=gpt-4o-mini", Spec{Backend: "openai", Model: "gpt-4o-mini"}},
		// The README's role-spec form must not reach the server as a model name.
		{"", "openai:gpt-4o-mini", "", "backend=openai,model=gpt-4o-mini", Spec{Backend: "openai", Model: "gpt-4o-mini"}},
		{"openai", "openai:gpt-4o-mini", "http://h/v1", "backend=openai,model=gpt-4o-mini,base-url=http://h/v1", Spec{Backend: "openai", Model: "gpt-4o-mini", BaseURL: "http://h/v1"}},
		{"", "Qwen/Qwen2.5-32B-Instruct", "", "backend=openai,model=Qwen/Qwen2.5-32B-Instruct", Spec{Backend: "openai", Model: "Qwen/Qwen2.5-32B-Instruct"}},
		{"offline", "", "", "offline", Spec{Backend: "offline"}},
	}
	for _, c := range cases {
		got, err := FlagSpec(c.backend, c.model, c.base)
		if err != nil || got != c.want {
			t.Errorf("FlagSpec(%q,%q,%q) = %q, %v; want %q", c.backend, c.model, c.base, got, err, c.want)
			continue
		}
		if got == "" {
			continue
		}
		if sp, err := ParseSpec(got); err != nil || sp != c.spec {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", got, sp, err, c.spec)
		}
	}
	bad := []struct{ backend, model, base, want string }{
		{"offline", "gpt-4o-mini", "", "--model/--base-url go with --llm openai"},
		{"openai", "", "", "--llm openai needs --model"},
		{"", "", "http://h/v1", "--llm openai needs --model"},
		{"vllm", "m", "", `--llm "vllm": want offline or openai`},
		{"openai", "a,b", "", "may not contain a comma"},
	}
	for _, b := range bad {
		_, err := FlagSpec(b.backend, b.model, b.base)
		var se *SpecError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("FlagSpec(%q,%q,%q): err %v, want a *SpecError saying %q", b.backend, b.model, b.base, err, b.want)
		}
	}
}

func TestSpecErrorsAreBadInput(t *testing.T) {
	for _, s := range []string{"", "backend=nope", "openai", "k", "backend=offline,backend=offline"} {
		_, err := ParseSpec(s)
		var se *SpecError
		if !badinput.Is(err) || !errors.As(err, &se) {
			t.Errorf("ParseSpec(%q) = %v, want a *SpecError that is bad input", s, err)
		}
	}
}

// reservationDelay is how long a request of est tokens would wait now
// (for tests and diagnostics; it does not consume the allowance).
func (r *RateLimited) reservationDelay(est int) time.Duration {
	var d time.Duration
	now := time.Now()
	if r.req != nil {
		res := r.req.ReserveN(now, 1)
		d = max(d, res.DelayFrom(now))
		res.CancelAt(now)
	}
	if r.tok != nil {
		res := r.tok.ReserveN(now, min(max(est, 1), r.tok.Burst()))
		d = max(d, res.DelayFrom(now))
		res.CancelAt(now)
	}
	return d
}
