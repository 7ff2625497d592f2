package llm

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// RetryPolicy bounds retries: Max retries after the first try, exponential
// backoff from Base capped at MaxDelay, with full jitter.
type RetryPolicy struct {
	Max      int
	Base     time.Duration // default 1s
	MaxDelay time.Duration // default 60s
}

// maxRetryAfter caps a server's Retry-After so a bad header cannot stall a
// run for hours.
const maxRetryAfter = 5 * time.Minute

// Retrying retries transient failures of its inner model.
type Retrying struct {
	Inner  Model
	Policy RetryPolicy
	sleep  func(ctx context.Context, d time.Duration) error
}

// WithRetry wraps m so 429s, 5xx, timeouts and connection resets are
// retried; other errors (400, 401, 404, ErrNoLogprobs, ...) return at once.
func WithRetry(m Model, p RetryPolicy) Model {
	if p.Base <= 0 {
		p.Base = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 60 * time.Second
	}
	return &Retrying{Inner: m, Policy: p, sleep: sleepCtx}
}

func (r *Retrying) ID() ModelID { return r.Inner.ID() }

func (r *Retrying) Chat(ctx context.Context, req Request) (Response, error) {
	return retry(ctx, r, func() (Response, error) { return r.Inner.Chat(ctx, req) })
}

func (r *Retrying) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	return retry(ctx, r, func() (DecideResponse, error) { return r.Inner.Decide(ctx, req) })
}

func retry[T any](ctx context.Context, r *Retrying, call func() (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		v, err := call()
		if err == nil || attempt >= r.Policy.Max || ctx.Err() != nil || !Retryable(err) {
			return v, err
		}
		if serr := r.sleep(ctx, r.Policy.delay(attempt, err)); serr != nil {
			return v, err // cancelled while waiting: report the real failure
		}
	}
}

// delay is the wait before retry number attempt+1: the server's
// Retry-After if it gave one, else a uniform draw from
// [0, min(MaxDelay, Base·2^attempt)].
func (p RetryPolicy) delay(attempt int, err error) time.Duration {
	var he *HTTPError
	if errors.As(err, &he) && he.RetryAfter > 0 {
		return min(he.RetryAfter, maxRetryAfter)
	}
	ceil := p.MaxDelay
	if attempt < 30 {
		ceil = min(p.MaxDelay, p.Base<<attempt)
	}
	if ceil <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

// Retryable reports whether err is worth another try: HTTP 408, 409, 429
// and 5xx, timeouts, connection resets and truncated responses.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if code := statusCode(err); code != 0 {
		return code == http.StatusRequestTimeout || code == http.StatusConflict ||
			code == http.StatusTooManyRequests || code >= 500
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func statusCode(err error) int {
	var he *HTTPError
	if errors.As(err, &he) && he.StatusCode != 0 {
		return he.StatusCode
	}
	var ae *openai.APIError
	if errors.As(err, &ae) {
		return ae.HTTPStatusCode
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	return 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
