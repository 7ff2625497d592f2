// Package llm is the model layer: small interfaces for chat, decisions over
// fixed choices and embeddings, backends that implement them (openai,
// offline) and decorators that wrap them (meter, cache, retry, rate limit).
package llm

import (
	"context"
	"errors"

	"github.com/membench/membench"
)

// Request is one chat completion. Task names the job ("answer", "judge",
// "structmem.extract_fact", ...) so the offline backend can answer it from
// Inputs with a heuristic; the OpenAI backend only sends Messages.
type Request struct {
	Task        string             `json:"task"`
	Messages    []membench.Message `json:"messages"`
	Temperature float64            `json:"temperature"`
	MaxTokens   int                `json:"max_tokens,omitempty"`
	JSON        bool               `json:"json,omitempty"` // ask for a JSON object response
	Seed        *int               `json:"seed,omitempty"`
	// Inputs carries the structured data the prompt was rendered from. It is
	// never sent and never part of the cache key (Messages already render it).
	Inputs any `json:"-"`
	// Stage and Label are metering tags; they do not change the output.
	Stage membench.Stage `json:"-"`
	Label string         `json:"-"` // finer tag, e.g. "extract_fact", "consolidate"
	// Fresh skips the cache read: the caller re-asks because the cached or
	// previous reply was unusable. A usable reply is still stored.
	Fresh bool `json:"-"`
	// Accept, when set, says whether a reply is usable (e.g. a judge reply
	// that carries a verdict). The cache neither stores nor serves a reply
	// it rejects, so one bad reply is never replayed from the cache.
	Accept func(text string) error `json:"-"`
}

// Response is a chat completion's result.
type Response struct {
	Text   string         `json:"text"`
	Usage  membench.Usage `json:"usage"`
	Cached bool           `json:"cached,omitempty"`
}

// DecideRequest asks for a probability over fixed choices (e.g. "yes","no"),
// read from the first generated token's logprobs, never parsed from text.
type DecideRequest struct {
	Task     string             `json:"task"`
	Messages []membench.Message `json:"messages"`
	Choices  []string           `json:"choices"`
	Inputs   any                `json:"-"`
	Stage    membench.Stage     `json:"-"`
	Label    string             `json:"-"`
}

// DecideResponse holds the renormalised probability of each choice.
type DecideResponse struct {
	Probs  map[string]float64 `json:"probs"`
	Usage  membench.Usage     `json:"usage"`
	Cached bool               `json:"cached,omitempty"`
}

// Model is what every backend and decorator implements.
type Model interface {
	Chat(ctx context.Context, req Request) (Response, error)
	Decide(ctx context.Context, req DecideRequest) (DecideResponse, error)
	// ID names the model for manifests and cache keys: backend, model name
	// and base URL, never a key.
	ID() membench.ModelID
}

// Embedder turns texts into unit vectors.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies the embedder for manifests and caches ("use-lite",
	// "tfidf-hash-512", "openai:text-embedding-3-small@url").
	Name() string
}

// SparseEmbedder is an Embedder whose vectors are mostly zeros and that can
// give them as their nonzero components alone, equal to Embed's vectors
// bit for bit: a sparse index then never sees, allocates or scans the
// zeros (the hashed embedder sets about 40 of 512).
type SparseEmbedder interface {
	Embedder
	EmbedSparse(ctx context.Context, texts []string) ([]SparseVector, error)
}

// SparseVector is a vector of width Dim whose nonzero components are
// Value at Index, in increasing Index order; every other one is zero.
type SparseVector struct {
	Dim   int
	Index []int32
	Value []float32
}

// Sparse returns e as a SparseEmbedder when its vectors come from one,
// through its meters if e is metered (a MeteredEmbedder has EmbedSparse
// whatever it wraps); nil otherwise.
func Sparse(e Embedder) SparseEmbedder {
	if m, ok := e.(*MeteredEmbedder); ok {
		if Sparse(m.Inner) == nil {
			return nil
		}
		return m
	}
	s, _ := e.(SparseEmbedder)
	return s
}

// ErrNoLogprobs is returned by Decide when a reply carries no logprobs. One
// such reply is a glitch (it is also an ErrBadReply, retried); the retry
// layer says when every try lacked them, which is what a server without
// logprob support does.
var ErrNoLogprobs = errors.New("the reply had no logprobs")

// ErrBadReply marks a 200 reply that cannot be used: no choices, a body that
// is not JSON, no logprobs where they were asked for. It is a fault of one
// reply, not of the request, so the retry layer tries again a few times
// (RetryPolicy.Glitches) even though the status was not an error.
var ErrBadReply = errors.New("unusable reply")
