package llm

import (
	"context"
	"fmt"
	"time"

	"github.com/membench/membench"
)

// The pieces below let HTTP services that are not models (the memory-service
// adapter) fail, retry and be metered exactly like model calls.

// ModelRetryPolicy is the policy llm.Build gives model calls: max retries
// after the first try, backoff from 1 s capped at 60 s, full jitter.
func ModelRetryPolicy(max int) RetryPolicy {
	return RetryPolicy{Max: max, Base: time.Second, MaxDelay: 60 * time.Second}
}

// RetryDo runs call under p with the model calls' rules: Retryable errors
// (429, 5xx, timeouts, resets) are retried, a server's Retry-After honoured.
func RetryDo[T any](ctx context.Context, p RetryPolicy, call func() (T, error)) (T, error) {
	w := WithRetry(nil, p).(*Retrying)
	return retry(ctx, w, call)
}

// StatusError is a failed HTTP call to a non-model service: Retryable and
// the backoff read its status and Retry-After header as for model calls.
func StatusError(op string, status int, retryAfterHeader, msg string) *HTTPError {
	return &HTTPError{Op: op, StatusCode: status, RetryAfter: parseRetryAfter(retryAfterHeader, time.Now()),
		Err: fmt.Errorf("status %d", status), msg: msg}
}

// AddCalls records work a service reported about itself (calls and tokens
// spent inside it) under role, stage and label, so it enters the same
// build and retrieve totals as membench's own model calls.
func (m *Meter) AddCalls(role string, stage membench.Stage, label string, calls int, u membench.Usage, d time.Duration) {
	m.add(role, stage, label, "", calls, u, false, d)
}
