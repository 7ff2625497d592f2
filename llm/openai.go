package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/tokens"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// OpenAIConfig configures the OpenAI-compatible backend (OpenAI, vLLM,
// Ollama, llama.cpp server, ...).
type OpenAIConfig struct {
	Model          string
	BaseURL        string // default DefaultBaseURL
	APIKey         string // "" → error for api.openai.com, "none" elsewhere
	APIKeyEnv      string // only to name the variable in errors (default OPENAI_API_KEY)
	EmbeddingModel string // for Embed; default text-embedding-3-small
	TopLogprobs    int    // for Decide; default 20 (OpenAI's maximum)
	Timeout        time.Duration
	HTTPClient     *http.Client // default: NewHTTPClient(DefaultConns, Timeout), Timeout 120s
}

// OpenAI is the OpenAI-compatible chat/decide/embedding backend.
type OpenAI struct {
	cfg    OpenAIConfig
	shown  string // the base URL without credentials: what ids, logs and errors show
	client *openai.Client
}

// embedBatch is the most texts sent in one embeddings request.
const embedBatch = 256

// NewOpenAI checks cfg and builds the client. The key is kept only inside
// the go-openai client config and is scrubbed from every returned error.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai backend: no model name; set the model (e.g. --llm openai:gpt-4o-mini)")
	}
	cfg.BaseURL = strings.TrimRight(cmp.Or(cfg.BaseURL, DefaultBaseURL), "/")
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai backend: base URL %q is not an http(s) URL; use e.g. http://localhost:8000/v1", RedactText(cfg.BaseURL))
	}
	cfg.APIKeyEnv = cmp.Or(cfg.APIKeyEnv, "OPENAI_API_KEY")
	if cfg.APIKey == "" {
		if isOpenAIHost(u.Host) {
			return nil, fmt.Errorf("openai backend: no API key for %s; set the environment variable %s", RedactText(cfg.BaseURL), cfg.APIKeyEnv)
		}
		cfg.APIKey = "none" // local servers accept any key
	}
	cfg.EmbeddingModel = cmp.Or(cfg.EmbeddingModel, string(openai.SmallEmbedding3))
	if cfg.TopLogprobs <= 0 {
		cfg.TopLogprobs = 20
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = NewHTTPClient(DefaultConns, cfg.Timeout)
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = headerDoer{hc}
	return &OpenAI{cfg: cfg, shown: RedactText(cfg.BaseURL), client: openai.NewClientWithConfig(oc)}, nil
}

func isOpenAIHost(host string) bool {
	h := strings.ToLower(host)
	return h == "api.openai.com" || strings.HasSuffix(h, ".openai.com")
}

func (o *OpenAI) ID() membench.ModelID {
	// Redacted: the id goes into manifests and cache keys; a password is
	// not part of which model answered.
	return membench.ModelID{Backend: "openai", Model: o.cfg.Model, BaseURL: o.shown}
}

// Name identifies the embedder: "openai:<embedding model>@<base url>".
func (o *OpenAI) Name() string { return "openai:" + o.cfg.EmbeddingModel + "@" + o.shown }

func toWire(msgs []membench.Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		out[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	return out
}

// reasoningModel reports models that go-openai refuses max_tokens for.
func reasoningModel(m string) bool {
	return slices.ContainsFunc([]string{"o1", "o3", "o4", "gpt-5", "gpt-6"}, func(p string) bool { return strings.HasPrefix(m, p) })
}

func (o *OpenAI) Chat(ctx context.Context, req Request) (Response, error) {
	cr := o.chatRequest(req)
	resp, err := o.call(ctx, cr)
	if err != nil {
		return Response{}, err
	}
	text := resp.Choices[0].Message.Content
	return Response{Text: text, Usage: o.usage(resp.Usage, req.Messages, text)}, nil
}

// chatRequest is req as a chat completion request.
func (o *OpenAI) chatRequest(req Request) openai.ChatCompletionRequest {
	cr := openai.ChatCompletionRequest{
		Model:    o.cfg.Model,
		Messages: toWire(req.Messages),
		Seed:     req.Seed,
	}
	// go-openai drops temperature 0 (float32 with omitempty), which servers
	// read as their default of 1; the smallest non-zero float32 is sent as
	// 1e-45 instead, which every server treats as greedy.
	cr.Temperature = float32(req.Temperature)
	if req.Temperature == 0 && !reasoningModel(o.cfg.Model) {
		cr.Temperature = math.SmallestNonzeroFloat32
	}
	o.setMaxTokens(&cr, req.MaxTokens)
	if req.JSON {
		cr.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return cr
}

// usage takes the server's counts, falling back to our token counter when a
// server leaves usage out.
func (o *OpenAI) usage(u openai.Usage, msgs []membench.Message, text string) membench.Usage {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return membench.Usage{InputTokens: PromptTokens(msgs), OutputTokens: tokens.Count(text)}
	}
	out := membench.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		// A server reporting more cached than prompt tokens is wrong; the
		// cached count never exceeds what was sent.
		out.CachedInputTokens = min(max(u.PromptTokensDetails.CachedTokens, 0), u.PromptTokens)
	}
	return out
}

// Decide asks for one token with top logprobs and reads the choice
// probabilities from the first position. Temperature is left at the server
// default (1) so the reported distribution is the model's own.
func (o *OpenAI) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	if len(req.Choices) == 0 {
		return DecideResponse{}, errors.New("decide: no choices given")
	}
	cr := o.decideRequest(req)
	resp, err := o.call(ctx, cr)
	if err != nil {
		return DecideResponse{}, err
	}
	if resp.Choices[0].LogProbs == nil || len(resp.Choices[0].LogProbs.Content) == 0 || len(resp.Choices[0].LogProbs.Content[0].TopLogProbs) == 0 {
		return DecideResponse{}, fmt.Errorf("openai %s at %s: %w (%w)", o.cfg.Model, o.shown, ErrNoLogprobs, ErrBadReply)
	}
	first := resp.Choices[0].LogProbs.Content[0]
	probs, err := choiceProbs(first.TopLogProbs, req.Choices)
	if err != nil {
		return DecideResponse{}, fmt.Errorf("openai %s, task %s: %w", o.cfg.Model, req.Task, err)
	}
	u := o.usage(resp.Usage, req.Messages, first.Token)
	return DecideResponse{Probs: probs, Usage: u}, nil
}

// decideRequest is req as a chat completion request for one token with
// top logprobs.
func (o *OpenAI) decideRequest(req DecideRequest) openai.ChatCompletionRequest {
	cr := openai.ChatCompletionRequest{
		Model:       o.cfg.Model,
		Messages:    toWire(req.Messages),
		LogProbs:    true,
		TopLogProbs: o.cfg.TopLogprobs,
	}
	o.setMaxTokens(&cr, 1)
	return cr
}

// setMaxTokens bounds the reply in the field the model reads.
func (o *OpenAI) setMaxTokens(cr *openai.ChatCompletionRequest, n int) {
	if reasoningModel(o.cfg.Model) {
		cr.MaxCompletionTokens = n
	} else {
		//lint:ignore SA1019 vLLM, llama.cpp and Ollama read max_tokens; only reasoning models need max_completion_tokens
		cr.MaxTokens = n
	}
}

// choiceProbs sums the probability of every top token that matches a choice
// (spaces trimmed, case ignored: " Yes" counts for "yes") and renormalises
// over the choices.
func choiceProbs(top []openai.TopLogProbs, choices []string) (map[string]float64, error) {
	probs := make(map[string]float64, len(choices))
	for _, c := range choices {
		probs[c] = 0
	}
	var total float64
	for _, t := range top {
		tok := strings.TrimSpace(t.Token)
		for _, c := range choices {
			if strings.EqualFold(tok, strings.TrimSpace(c)) {
				p := math.Exp(t.LogProb)
				probs[c] += p
				total += p
				break
			}
		}
	}
	if total == 0 {
		seen := make([]string, 0, len(top))
		for _, t := range top {
			seen = append(seen, strconv.Quote(t.Token))
		}
		return nil, fmt.Errorf("no top token matches any choice %q (top tokens: %s); reword the prompt so the answer starts with one of the choices", choices, strings.Join(seen, " "))
	}
	for c := range probs {
		probs[c] /= total
	}
	return probs, nil
}

// call runs one chat completion through go-openai's client.
func (o *OpenAI) call(ctx context.Context, cr openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	hold := &captured{}
	resp, err := o.client.CreateChatCompletion(context.WithValue(ctx, captureKey{}, hold), cr)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if err != nil && (errors.As(err, &se) || errors.As(err, &te)) {
		// A 2xx status with a body that is not a completion (a proxy's
		// HTML page): the reply is unusable, the request may be fine.
		return openai.ChatCompletionResponse{}, fmt.Errorf("openai chat %s at %s: the reply is not a JSON completion (%s) (%w)", o.cfg.Model, o.shown, err, ErrBadReply)
	}
	if err != nil {
		return openai.ChatCompletionResponse{}, o.wrapErr("chat "+o.cfg.Model, err, hold)
	}
	if len(resp.Choices) == 0 {
		return resp, fmt.Errorf("openai %s at %s: the reply had no choices (%w)", o.cfg.Model, o.shown, ErrBadReply)
	}
	return resp, nil
}

// Embed returns one vector per text, in order, in batches of ≤ 256.
// embedMaxTokens bounds one embedding input (see Embed).
const embedMaxTokens = 7000

func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	// Embedding models refuse inputs over 8,191 tokens of their own
	// encoding; long texts (a StructMem window embedded as one text) are cut
	// with a margin, since o200k counts differ from cl100k's.
	texts = append([]string(nil), texts...)
	for i, t := range texts {
		if len(t) > embedMaxTokens { // a token is at least one byte
			texts[i] = tokens.Truncate(t, embedMaxTokens)
		}
	}
	for start := 0; start < len(texts); start += embedBatch {
		batch := texts[start:min(start+embedBatch, len(texts))]
		hold := &captured{}
		resp, err := o.client.CreateEmbeddings(context.WithValue(ctx, captureKey{}, hold), openai.EmbeddingRequestStrings{
			Input: batch, Model: openai.EmbeddingModel(o.cfg.EmbeddingModel),
		})
		if err != nil {
			return nil, o.wrapErr("embeddings "+o.cfg.EmbeddingModel, err, hold)
		}
		if len(resp.Data) != len(batch) {
			return nil, fmt.Errorf("openai embeddings %s: sent %d texts, got %d vectors", o.cfg.EmbeddingModel, len(batch), len(resp.Data))
		}
		vecs := make([][]float32, len(batch))
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(batch) || vecs[d.Index] != nil {
				return nil, fmt.Errorf("openai embeddings %s: bad or repeated index %d in response", o.cfg.EmbeddingModel, d.Index)
			}
			vecs[d.Index] = normalise(d.Embedding)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// normalise makes v unit length (Embedder promises unit vectors; most
// servers already return them).
func normalise(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 || math.Abs(n-1) < 1e-6 {
		return v
	}
	s := 1 / math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) * s)
	}
	return v
}

// HTTPError is a failed API call: status code (0 for transport errors),
// the server's Retry-After (0 if none) and the underlying error. Its
// message never contains the API key.
type HTTPError struct {
	Op         string
	StatusCode int
	RetryAfter time.Duration
	Err        error
	msg        string
}

func (e *HTTPError) Error() string { return e.msg }
func (e *HTTPError) Unwrap() error { return e.Err }

// wrapErr scrubs the key from err (including inside go-openai's error
// values, whose messages may echo what the server said about the key) and
// attaches status and Retry-After.
func (o *OpenAI) wrapErr(op string, err error, hold *captured) error {
	key := o.cfg.APIKey
	var password string
	if u, err := url.Parse(o.cfg.BaseURL); err == nil && u.User != nil {
		p, _ := u.User.Password()
		password = cmp.Or(p, u.User.Username())
	}
	scrub := func(s string) string {
		if key != "" && key != "none" {
			s = strings.ReplaceAll(s, key, "[redacted]")
		}
		s = RedactText(s)
		if len(password) >= 4 { // a shorter one would blank out ordinary words
			s = strings.ReplaceAll(s, password, redacted)
		}
		return s
	}
	e := &HTTPError{Op: op, Err: err}
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae):
		ae.Message = scrub(ae.Message)
		e.StatusCode = ae.HTTPStatusCode
	case errors.As(err, &re):
		re.Body = []byte(scrub(string(re.Body)))
		e.StatusCode = re.HTTPStatusCode
	}
	e.RetryAfter = hold.retryAfter(time.Now())
	e.msg = scrub(fmt.Sprintf("openai %s at %s: %v", op, o.shown, err))
	return e
}

// go-openai turns error responses into *openai.APIError / *RequestError
// without their headers, so a wrapping HTTPDoer notes Retry-After in a
// per-call holder carried by the request context.
type captureKey struct{}

type captured struct {
	mu     sync.Mutex
	header string
}

func (c *captured) retryAfter(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return parseRetryAfter(c.header, now)
}

type headerDoer struct{ c *http.Client }

func (d headerDoer) Do(r *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(r)
	if err == nil && resp.StatusCode >= 400 {
		if c, ok := r.Context().Value(captureKey{}).(*captured); ok {
			c.mu.Lock()
			c.header = resp.Header.Get("Retry-After")
			c.mu.Unlock()
		}
	}
	return resp, err
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent/bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 || s > 24*3600 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
