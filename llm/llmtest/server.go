// Package llmtest is an in-process fake of an OpenAI-compatible server for
// tests: chat completions (with logprobs/top_logprobs), embeddings and
// usage, speaking the real JSON wire format. It does not import package llm,
// so llm's own tests can use it.
package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one chat message as sent on the wire.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the decoded body of POST /v1/chat/completions. Pointer
// fields are nil when the client left them out of the JSON.
type ChatRequest struct {
	Model               string    `json:"model"`
	Messages            []Message `json:"messages"`
	Temperature         *float64  `json:"temperature"`
	MaxTokens           *int      `json:"max_tokens"`
	MaxCompletionTokens *int      `json:"max_completion_tokens"`
	Seed                *int      `json:"seed"`
	ResponseFormat      *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Logprobs    bool `json:"logprobs"`
	TopLogprobs int  `json:"top_logprobs"`

	// Authorization is the request's Authorization header.
	Authorization string `json:"-"`
	// Raw is the request body as received.
	Raw []byte `json:"-"`
}

// LastUser returns the content of the last user message ("" if none).
func (r ChatRequest) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// TopLogprob is one candidate token at the first output position.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// Reply scripts one chat response.
type Reply struct {
	Text string
	// TopLogprobs are returned (truncated to the request's top_logprobs)
	// when the request asked for logprobs; empty means the server returns
	// "logprobs": null, like a server without logprob support.
	TopLogprobs []TopLogprob
	// Status, when non-zero and not 200, makes the server fail with an
	// OpenAI-style error body carrying ErrorMessage.
	Status       int
	ErrorMessage string
	RetryAfter   string // Retry-After header value, sent with errors
	// PromptTokens/CompletionTokens override the usage; OmitUsage drops the
	// usage object entirely (some local servers do).
	PromptTokens, CompletionTokens int
	OmitUsage                      bool
	// CachedTokens, when non-zero, is sent as
	// usage.prompt_tokens_details.cached_tokens (overriding the prefix
	// cache's count; see WithPrefixCache).
	CachedTokens int
}

// ChatHandler scripts chat replies. n is the 1-based number of this chat
// request on the server.
type ChatHandler func(n int, req ChatRequest) Reply

// EmbedRequest is the decoded body of POST /v1/embeddings.
type EmbedRequest struct {
	Model         string   `json:"model"`
	Input         []string `json:"-"`
	Authorization string   `json:"-"`
}

// EmbedHandler scripts embedding replies; a non-zero status fails the call.
type EmbedHandler func(n int, req EmbedRequest) (vectors [][]float32, status int)

// Option configures a Server.
type Option func(*Server)

// WithChat installs the chat handler.
func WithChat(h ChatHandler) Option { return func(s *Server) { s.chat = h } }

// WithEmbed installs the embeddings handler.
func WithEmbed(h EmbedHandler) Option { return func(s *Server) { s.embed = h } }

// WithEmbedDim sets the dimension of the default deterministic vectors (8).
func WithEmbedDim(d int) Option { return func(s *Server) { s.dim = d } }

// WithLatency makes every chat and embeddings reply take d (a model
// server's fixed latency), for throughput measurements.
func WithLatency(d time.Duration) Option { return func(s *Server) { s.latency = d } }

// WithoutBodies stops the server keeping request bodies (Bodies returns
// none), so long benchmarks do not grow the process.
func WithoutBodies() Option { return func(s *Server) { s.noBodies = true } }

// WithTokenizer makes the server count usage with count (tokens of one
// text) the way OpenAI counts a chat prompt (3 per message and 3 to
// prime the reply) instead of by whitespace-separated words, for tests
// that compare usage with what membench counted itself.
func WithTokenizer(count func(string) int) Option { return func(s *Server) { s.count = count } }

// WithPrefixCache makes the server act as a provider's prompt cache: it
// remembers the prompts it has answered and reports, in
// usage.prompt_tokens_details.cached_tokens, the longest prefix of a new
// prompt it has seen before, in whole blocks of block tokens (1: exact;
// OpenAI caches in blocks of 128), and nothing below min tokens (OpenAI:
// 1024). Tokens are counted as the server counts prompt tokens: per
// message 3 tokens of framing (role first) then its whitespace-separated
// words.
func WithPrefixCache(block, min int) Option {
	return func(s *Server) { s.prefix = &prefixCache{block: max(block, 1), min: min, seen: map[[32]byte]bool{}} }
}

// prefixCache holds a chain hash of every whole block of every prompt
// answered: a prompt's first n blocks were seen iff the hash of its n-th
// block is held. Block hashes keep a full-LoCoMo run's memory small.
type prefixCache struct {
	block, min int
	seen       map[[32]byte]bool
}

// promptTokens is the prompt as the server counts it, one string a token.
func promptTokens(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, "\x00role:"+m.Role, "\x00start", "\x00end")
		out = append(out, strings.Fields(m.Content)...)
	}
	return out
}

// lookup returns the cached tokens of prompt and remembers its blocks; the
// caller holds the server's lock.
func (c *prefixCache) lookup(prompt []string) int {
	h := sha256.New()
	var sum [32]byte
	cached, missed := 0, false
	for n := 1; n*c.block <= len(prompt); n++ {
		for _, tok := range prompt[(n-1)*c.block : n*c.block] {
			// Length-prefixed, so no two token lists hash alike.
			fmt.Fprintf(h, "%d:%s", len(tok), tok)
		}
		h.Sum(sum[:0])
		if !missed && c.seen[sum] {
			cached = n * c.block
		} else {
			missed = true
			c.seen[sum] = true
		}
	}
	if cached < c.min {
		return 0
	}
	return cached
}

// Server is the fake. URL is the base URL including /v1.
type Server struct {
	URL string

	chat     ChatHandler
	embed    EmbedHandler
	dim      int
	latency  time.Duration
	noBodies bool
	prefix   *prefixCache     // nil: no prompt cache
	count    func(string) int // nil: a token per word

	inFlight, peak int
	conns          int // TCP connections accepted

	faults   *Faults
	seen     map[[32]byte]int // times each chat body arrived, for Faults
	injected map[Fault]int

	ts     *httptest.Server
	mu     sync.Mutex
	counts map[string]int
	bodies map[string][][]byte
	auth   []string
}

// New starts a fake server, closed when the test ends. The default chat
// handler replies "echo: <last user message>" without logprobs.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{dim: 8, counts: map[string]int{}, bodies: map[string][][]byte{}, injected: map[Fault]int{}}
	s.chat = func(_ int, r ChatRequest) Reply { return Reply{Text: "echo: " + r.LastUser()} }
	for _, o := range opts {
		o(s)
	}
	if s.embed == nil {
		s.embed = func(_ int, r EmbedRequest) ([][]float32, int) {
			out := make([][]float32, len(r.Input))
			for i, in := range r.Input {
				out[i] = Vector(in, s.dim)
			}
			return out, 0
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbed)
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/v1"
	s.ts = ts
	return s
}

// Close stops the server now (e.g. to prove a replay needs no network).
func (s *Server) Close() { s.ts.Close() }

// locked reads what f returns under the server's lock.
func locked[T any](s *Server, f func() T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
}

// Count returns how many requests reached path ("/v1/chat/completions").
func (s *Server) Count(path string) int { return locked(s, func() int { return s.counts[path] }) }

// Bodies returns copies of the request bodies received on path, in order.
func (s *Server) Bodies(path string) [][]byte {
	return locked(s, func() [][]byte { return slices.Clone(s.bodies[path]) })
}

// Peak is the most requests the server was handling at once.
func (s *Server) Peak() int { return locked(s, func() int { return s.peak }) }

// Conns is the number of TCP connections clients opened to the server.
func (s *Server) Conns() int { return locked(s, func() int { return s.conns }) }

// enter counts a request in flight; the returned func counts it out.
func (s *Server) enter() func() {
	s.mu.Lock()
	s.inFlight++
	s.peak = max(s.peak, s.inFlight)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}
}

// wait sleeps the configured latency; false when the client gave up.
func (s *Server) wait(r *http.Request) bool {
	if s.latency <= 0 {
		return true
	}
	t := time.NewTimer(s.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Authorizations returns the Authorization header of every request.
func (s *Server) Authorizations() []string {
	return locked(s, func() []string { return append([]string(nil), s.auth...) })
}

func (s *Server) record(r *http.Request) ([]byte, int, error) {
	body, err := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[r.URL.Path]++
	if !s.noBodies {
		s.bodies[r.URL.Path] = append(s.bodies[r.URL.Path], body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
	}
	return body, s.counts[r.URL.Path], err
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	defer s.enter()()
	body, n, err := s.record(r)
	var req ChatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad request body: "+err.Error(), "")
		return
	}
	req.Raw = body
	req.Authorization = r.Header.Get("Authorization")
	fault := s.draw(body, req)
	if s.serveFault(w, fault) {
		return
	}
	if !s.wait(r) {
		return
	}
	rep := s.chat(n, req)
	if rep.Status != 0 && rep.Status != http.StatusOK {
		writeError(w, rep.Status, rep.ErrorMessage, rep.RetryAfter)
		return
	}
	switch fault {
	case FaultSlow:
		select {
		case <-time.After(s.faults.Delay):
		case <-r.Context().Done(): // the client gave up
			return
		}
	case FaultBadVerdict:
		rep.Text = "Hmm. Hard to say; it depends."
	}
	var logprobs any // JSON null unless requested and scripted
	if req.Logprobs && len(rep.TopLogprobs) > 0 && fault != FaultNoLogprobs {
		top := rep.TopLogprobs
		if req.TopLogprobs > 0 && len(top) > req.TopLogprobs {
			top = top[:req.TopLogprobs]
		}
		logprobs = map[string]any{"content": []any{map[string]any{
			"token": top[0].Token, "logprob": top[0].Logprob, "top_logprobs": top,
		}}}
	}
	choices := []any{map[string]any{
		"index":         0,
		"message":       map[string]any{"role": "assistant", "content": rep.Text},
		"finish_reason": "stop",
		"logprobs":      logprobs,
	}}
	if fault == FaultEmptyChoices {
		choices = []any{}
	}
	resp := map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake-%d", n), "object": "chat.completion",
		"created": 1700000000, "model": req.Model,
		"choices": choices,
	}
	if !rep.OmitUsage {
		pt, ct := rep.PromptTokens, rep.CompletionTokens
		count := s.count
		if count == nil {
			count = func(t string) int { return len(strings.Fields(t)) }
		}
		if pt == 0 {
			if s.count != nil {
				pt = 3 // the reply's priming
			}
			for _, m := range req.Messages {
				pt += count(m.Content) + 3
			}
		}
		if ct == 0 {
			ct = count(rep.Text)
		}
		usage := map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
		cached := rep.CachedTokens
		if s.prefix != nil {
			toks := promptTokens(req.Messages)
			s.mu.Lock()
			fromPrefix := s.prefix.lookup(toks)
			s.mu.Unlock()
			if cached == 0 {
				cached = min(fromPrefix, pt)
			}
		}
		if cached != 0 || s.prefix != nil {
			usage["prompt_tokens_details"] = map[string]int{"cached_tokens": cached, "audio_tokens": 0}
		}
		resp["usage"] = usage
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	defer s.enter()()
	body, n, err := s.record(r)
	var raw struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err == nil {
		err = json.Unmarshal(body, &raw)
	}
	req := EmbedRequest{Model: raw.Model, Authorization: r.Header.Get("Authorization")}
	if err == nil {
		// input may be one string or a list of strings.
		var one string
		if json.Unmarshal(raw.Input, &one) == nil {
			req.Input = []string{one}
		} else {
			err = json.Unmarshal(raw.Input, &req.Input)
		}
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad request body: "+err.Error(), "")
		return
	}
	if !s.wait(r) {
		return
	}
	vecs, status := s.embed(n, req)
	if status != 0 && status != http.StatusOK {
		writeError(w, status, "scripted embeddings failure", "")
		return
	}
	data := make([]any, len(vecs))
	tok := 0
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	for _, in := range req.Input {
		tok += len(strings.Fields(in))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "model": req.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": tok, "total_tokens": tok},
	})
}

// Vector is the default deterministic embedding: lower-cased words hashed
// into dim buckets, L2-normalised. Texts sharing words get similar vectors.
func Vector(text string, dim int) []float32 {
	v := make([]float32, dim)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dim)]++
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0] = 1
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

func writeError(w http.ResponseWriter, status int, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": "fake_error", "code": status,
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
