package llm

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/tokens"

	"github.com/membench/membench/llm/llmtest"
)

const testKey = "sk-test-SECRET-0123456789abcdef"

func newTestOpenAI(t *testing.T, srv *llmtest.Server) *OpenAI {
	t.Helper()
	o, err := NewOpenAI(OpenAIConfig{Model: "gpt-4o-mini", BaseURL: srv.URL, APIKey: testKey, EmbeddingModel: "emb-small"})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func msgs(user string) []membench.Message {
	return []membench.Message{{Role: "system", Content: "You answer briefly."}, {Role: "user", Content: user}}
}

func TestOpenAIChatRoundTrip(t *testing.T) {
	var got llmtest.ChatRequest
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		got = r
		return llmtest.Reply{Text: `{"answer":"Paris"}`, PromptTokens: 42, CompletionTokens: 7}
	}))
	o := newTestOpenAI(t, srv)
	seed := 7
	resp, err := o.Chat(context.Background(), Request{Task: "answer", Messages: msgs("capital of France?"),
		Temperature: 0, MaxTokens: 64, JSON: true, Seed: &seed, Stage: membench.StageAnswer, Label: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"answer":"Paris"}` || resp.Usage != (membench.Usage{InputTokens: 42, OutputTokens: 7}) || resp.Cached {
		t.Fatalf("response = %+v", resp)
	}
	if got.Model != "gpt-4o-mini" || len(got.Messages) != 2 || got.Messages[1].Content != "capital of France?" || got.Messages[0].Role != "system" {
		t.Fatalf("server saw %+v", got)
	}
	if got.MaxTokens == nil || *got.MaxTokens != 64 || got.Seed == nil || *got.Seed != 7 {
		t.Fatalf("max_tokens/seed not sent: %s", got.Raw)
	}
	if got.ResponseFormat == nil || got.ResponseFormat.Type != "json_object" {
		t.Fatalf("response_format not json_object: %s", got.Raw)
	}
	// Temperature 0 must reach the server (go-openai would omit a plain 0).
	if got.Temperature == nil || *got.Temperature > 1e-6 {
		t.Fatalf("temperature 0 not sent as ~0: %s", got.Raw)
	}
	if got.Authorization != "Bearer "+testKey {
		t.Fatalf("Authorization = %q", got.Authorization)
	}
	// Task, Stage and Label are ours; the server must not see them.
	for _, tag := range []string{`"task"`, `"stage"`, `"label"`} {
		if strings.Contains(string(got.Raw), tag) {
			t.Errorf("request body leaks %s: %s", tag, got.Raw)
		}
	}
}

func TestOpenAIChatTemperatureAndUsageFallback(t *testing.T) {
	var temp *float64
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		temp = r.Temperature
		return llmtest.Reply{Text: "three little words", OmitUsage: true}
	}))
	o := newTestOpenAI(t, srv)
	req := Request{Messages: msgs("say three words"), Temperature: 0.7}
	resp, err := o.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if temp == nil || math.Abs(*temp-0.7) > 1e-6 {
		t.Fatalf("temperature sent = %v", temp)
	}
	want := membench.Usage{InputTokens: PromptTokens(req.Messages), OutputTokens: 3}
	if resp.Usage != want {
		t.Fatalf("fallback usage = %+v, want %+v", resp.Usage, want)
	}
}

func decideServer(t *testing.T, top []llmtest.TopLogprob) (*llmtest.Server, *llmtest.ChatRequest) {
	var got llmtest.ChatRequest
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		got = r
		return llmtest.Reply{Text: strings.TrimSpace(top[0].Token), TopLogprobs: top}
	}))
	return srv, &got
}

func TestOpenAIDecideLogprobs(t *testing.T) {
	srv, got := decideServer(t, []llmtest.TopLogprob{
		{Token: "yes", Logprob: -0.105}, {Token: "no", Logprob: -2.3}, {Token: "Maybe", Logprob: -5},
	})
	o := newTestOpenAI(t, srv)
	r, err := o.Decide(context.Background(), DecideRequest{Task: "judge", Messages: msgs("correct?"), Choices: []string{"yes", "no"}})
	if err != nil {
		t.Fatal(err)
	}
	py, pn := math.Exp(-0.105), math.Exp(-2.3)
	if math.Abs(r.Probs["yes"]-py/(py+pn)) > 1e-9 || math.Abs(r.Probs["yes"]+r.Probs["no"]-1) > 1e-9 {
		t.Fatalf("probs = %v, want yes=%.4f", r.Probs, py/(py+pn))
	}
	if r.Probs["yes"] < 0.89 || r.Probs["yes"] > 0.91 {
		t.Fatalf("p(yes) = %v, want ≈0.9", r.Probs["yes"])
	}
	if !got.Logprobs || got.TopLogprobs != 20 || got.MaxTokens == nil || *got.MaxTokens != 1 {
		t.Fatalf("decide request = %s", got.Raw)
	}
}

func TestOpenAIDecideMergesVariants(t *testing.T) {
	// " Yes" and "YES" both count for "yes"; "No" for "no".
	srv, _ := decideServer(t, []llmtest.TopLogprob{
		{Token: " Yes", Logprob: math.Log(0.5)}, {Token: "YES", Logprob: math.Log(0.1)},
		{Token: "No", Logprob: math.Log(0.2)}, {Token: "Perhaps", Logprob: math.Log(0.2)},
	})
	o := newTestOpenAI(t, srv)
	r, err := o.Decide(context.Background(), DecideRequest{Messages: msgs("q"), Choices: []string{"yes", "no"}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Probs["yes"]-0.75) > 1e-9 || math.Abs(r.Probs["no"]-0.25) > 1e-9 {
		t.Fatalf("probs = %v, want yes=0.75 no=0.25", r.Probs)
	}
}

func TestOpenAIDecideNoMatch(t *testing.T) {
	srv, _ := decideServer(t, []llmtest.TopLogprob{{Token: "The", Logprob: -0.1}, {Token: "I", Logprob: -2}})
	o := newTestOpenAI(t, srv)
	_, err := o.Decide(context.Background(), DecideRequest{Messages: msgs("q"), Choices: []string{"yes", "no"}})
	if err == nil || !strings.Contains(err.Error(), "no top token matches any choice") || errors.Is(err, ErrNoLogprobs) {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenAIDecideWithoutLogprobs(t *testing.T) {
	srv := llmtest.New(t) // default handler returns "logprobs": null
	o := newTestOpenAI(t, srv)
	_, err := o.Decide(context.Background(), DecideRequest{Messages: msgs("q"), Choices: []string{"yes", "no"}})
	if !errors.Is(err, ErrNoLogprobs) {
		t.Fatalf("err = %v, want ErrNoLogprobs", err)
	}
}

func TestOpenAIEmbeddings(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithEmbedDim(16))
	o := newTestOpenAI(t, srv)
	if o.Name() != "openai:emb-small@"+srv.URL {
		t.Fatalf("Name = %q", o.Name())
	}
	texts := make([]string, 600) // three batches: 256, 256, 88
	for i := range texts {
		texts[i] = strings.Repeat("word ", i%7+1) + string(rune('a'+i%26))
	}
	vecs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	if n := srv.Count("/v1/embeddings"); n != 3 {
		t.Fatalf("embedding requests = %d, want 3 batches", n)
	}
	for i, v := range vecs {
		want := llmtest.Vector(texts[i], 16)
		for j := range v {
			if math.Abs(float64(v[j]-want[j])) > 1e-6 {
				t.Fatalf("vector %d out of order or wrong: %v vs %v", i, v, want)
			}
		}
	}
	var body struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.Unmarshal(srv.Bodies("/v1/embeddings")[2], &body); err != nil || body.Model != "emb-small" || len(body.Input) != 88 {
		t.Fatalf("last batch body: %+v, %v", body, err)
	}
}

func TestOpenAIKeyNeverInErrors(t *testing.T) {
	// The worst case: a server that echoes the whole key in its message.
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusUnauthorized, ErrorMessage: "Incorrect API key provided: " + strings.TrimPrefix(r.Authorization, "Bearer ")}
	}))
	o := newTestOpenAI(t, srv)
	_, err := o.Chat(context.Background(), Request{Messages: msgs("q")})
	if err == nil {
		t.Fatal("expected 401 error")
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("key leaked: %v", err)
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testKey) {
			t.Fatalf("key leaked in wrapped error %T: %v", e, e)
		}
	}
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("err = %#v", err)
	}
}

func TestNewOpenAIKeyRules(t *testing.T) {
	_, err := NewOpenAI(OpenAIConfig{Model: "gpt-4o-mini"})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("missing key for api.openai.com: err = %v", err)
	}
	o, err := NewOpenAI(OpenAIConfig{Model: "llama3", BaseURL: "http://localhost:11434/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.APIKey != "none" || o.ID().BaseURL != "http://localhost:11434/v1" {
		t.Fatalf("cfg = %+v", o.cfg)
	}
	if _, err := NewOpenAI(OpenAIConfig{Model: "m", BaseURL: "localhost:8000"}); err == nil {
		t.Fatal("expected error for base URL without scheme")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"-1":                            0,
		"soon":                          0,
		"Wed, 01 Jan 2025 12:00:30 GMT": 30 * time.Second,
		"Wed, 01 Jan 2025 11:00:00 GMT": 0,
	}
	for in, want := range cases {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

// A text longer than an embedding model accepts is cut, not refused.
func TestOpenAIEmbeddingsTruncateLongInputs(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithEmbedDim(8))
	o := newTestOpenAI(t, srv)
	long := strings.Repeat("a window of memory entries ", 3000) // ~18k tokens
	if _, err := o.Embed(context.Background(), []string{long, "short"}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Input []string `json:"input"`
	}
	if err := json.Unmarshal(srv.Bodies("/v1/embeddings")[0], &body); err != nil {
		t.Fatal(err)
	}
	if n := tokens.Count(body.Input[0]); n > embedMaxTokens || !strings.HasPrefix(long, body.Input[0]) || body.Input[1] != "short" {
		t.Fatalf("sent %d tokens for the long text (max %d); short text %q", n, embedMaxTokens, body.Input[1])
	}
}
