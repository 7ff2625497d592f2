package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/membench/membench"
	openai "github.com/sashabaranov/go-openai"
)

// RetryPolicy bounds retries: Max retries after the first try, exponential
// backoff from Base capped at MaxDelay, with full jitter.
type RetryPolicy struct {
	Max      int
	Base     time.Duration // default 1s
	MaxDelay time.Duration // default 60s
	// Glitches bounds the extra tries after unusable 200 replies
	// (ErrBadReply: no choices, a non-JSON body, no logprobs); 0 means
	// DefaultGlitches, < 0 none. They are counted apart from Max.
	Glitches int
}

// DefaultGlitches is used when RetryPolicy.Glitches is 0.
const DefaultGlitches = 2

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
// retried with backoff, and unusable 200 replies (ErrBadReply) are tried
// again a few times at once; other errors (400, 401, 404, ...) return at once.
func WithRetry(m Model, p RetryPolicy) Model {
	if p.Base <= 0 {
		p.Base = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 60 * time.Second
	}
	p.Glitches = cmp.Or(p.Glitches, DefaultGlitches)
	return &Retrying{Inner: m, Policy: p, sleep: sleepCtx}
}

func (r *Retrying) ID() membench.ModelID { return r.Inner.ID() }

func (r *Retrying) Chat(ctx context.Context, req Request) (Response, error) {
	return retry(ctx, r, func() (Response, error) { return r.Inner.Chat(ctx, req) })
}

func (r *Retrying) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	return retry(ctx, r, func() (DecideResponse, error) { return r.Inner.Decide(ctx, req) })
}

func retry[T any](ctx context.Context, r *Retrying, call func() (T, error)) (T, error) {
	attempt, glitches := 0, 0
	for {
		v, err := call()
		if err == nil || ctx.Err() != nil {
			return v, err
		}
		if errors.Is(err, ErrBadReply) {
			// The server answered; asking again at once usually gets a
			// usable reply.
			if glitches >= max(r.Policy.Glitches, 0) {
				return v, gaveUp(err, glitches+1)
			}
			glitches++
			continue
		}
		if attempt >= r.Policy.Max || !Retryable(err) {
			return v, err
		}
		if serr := r.sleep(ctx, r.Policy.delay(attempt, err)); serr != nil {
			return v, err // cancelled while waiting: report the real failure
		}
		attempt++
	}
}

// gaveUp says how many unusable replies came in a row, and what it means
// when every one lacked logprobs.
func gaveUp(err error, tries int) error {
	if tries == 1 {
		return err
	}
	if errors.Is(err, ErrNoLogprobs) {
		// Say what happened; a server without logprobs support fails
		// every question this way, which the list of failures shows.
		return fmt.Errorf("%w; %d replies in a row to this request lacked logprobs (if every decision fails so, the server does not return logprobs=true with top_logprobs: OpenAI, vLLM and llama.cpp server do; use one of those or another --decide-model)", err, tries)
	}
	return fmt.Errorf("%w (%d unusable replies in a row)", err, tries)
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
