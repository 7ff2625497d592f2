package llm

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/membench/membench"
)

// Limiter is a run's one budget of model requests in flight (--concurrency
// N): every role, judge and remote embedder sending requests shares it, so
// at most N are outstanding however the work is split between
// conversations, questions and memory builds. It sits right above the
// backend (below cache, retry and rate limit), so cache hits, retry
// back-offs and rate-limit waits hold no slot.
type Limiter struct {
	slots chan struct{}
	busy  atomic.Int64
	peak  atomic.Int64
}

// NewLimiter allows n requests in flight (n < 1 means 1).
func NewLimiter(n int) *Limiter { return &Limiter{slots: make(chan struct{}, max(1, n))} }

// Size is the budget.
func (l *Limiter) Size() int { return cap(l.slots) }

// Peak is the most requests that were in flight at once so far.
func (l *Limiter) Peak() int { return int(l.peak.Load()) }

func (l *Limiter) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	n := l.busy.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return nil
}

func (l *Limiter) release() {
	l.busy.Add(-1)
	<-l.slots
}

// WithLimit sends m's requests through l (nil l: m unchanged).
func WithLimit(m Model, l *Limiter) Model {
	if l == nil {
		return m
	}
	return &limited{inner: m, l: l}
}

type limited struct {
	inner Model
	l     *Limiter
}

func (w *limited) ID() membench.ModelID { return w.inner.ID() }

func (w *limited) Chat(ctx context.Context, req Request) (Response, error) {
	return held(ctx, w.l, func() (Response, error) { return w.inner.Chat(ctx, req) })
}

func (w *limited) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	return held(ctx, w.l, func() (DecideResponse, error) { return w.inner.Decide(ctx, req) })
}

// held runs call holding one of l's slots.
func held[T any](ctx context.Context, l *Limiter, call func() (T, error)) (T, error) {
	if err := l.acquire(ctx); err != nil {
		var zero T
		return zero, err
	}
	defer l.release()
	return call()
}

// LimitEmbedder sends e's requests through l (nil l: e unchanged).
func LimitEmbedder(e Embedder, l *Limiter) Embedder {
	if l == nil {
		return e
	}
	return &limitedEmbedder{inner: e, l: l}
}

type limitedEmbedder struct {
	inner Embedder
	l     *Limiter
}

func (w *limitedEmbedder) Name() string { return w.inner.Name() }

func (w *limitedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return held(ctx, w.l, func() ([][]float32, error) { return w.inner.Embed(ctx, texts) })
}

// DefaultConns is the idle connections per host an openai backend keeps
// when it is given no client of its own.
const DefaultConns = 64

// NewHTTPClient is an HTTP client for conns requests in flight to one
// server: http.DefaultTransport keeps only 2 idle connections per host, so
// at a higher concurrency most requests would open (and then drop) a new
// TCP connection. Idle connections are kept for conns per host.
func NewHTTPClient(conns int, timeout time.Duration) *http.Client {
	conns = max(conns, 2)
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          0, // no total bound; per host below
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: t, Timeout: timeout}
}
