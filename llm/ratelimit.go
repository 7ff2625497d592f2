package llm

import (
	"context"

	"github.com/membench/membench"
	"golang.org/x/time/rate"
)

// defaultMaxTokensEstimate is the output allowance counted against the
// tokens-per-minute budget when a request sets no max_tokens.
const defaultMaxTokensEstimate = 512

// RateLimited paces calls to its inner model by requests and estimated
// tokens per minute.
type RateLimited struct {
	Inner Model
	req   *rate.Limiter // nil = unlimited
	tok   *rate.Limiter // nil = unlimited
}

// WithRateLimit wraps m with limits of rpm requests and tpm tokens per
// minute (0 = unlimited). Tokens are estimated before the call as prompt
// tokens plus max_tokens. Bursts are a tenth of a minute's allowance, so a
// run starts at once but never front-loads a whole minute.
func WithRateLimit(m Model, rpm, tpm int) Model {
	if rpm <= 0 && tpm <= 0 {
		return m
	}
	r := &RateLimited{Inner: m}
	if rpm > 0 {
		r.req = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, rpm/10))
	}
	if tpm > 0 {
		r.tok = rate.NewLimiter(rate.Limit(float64(tpm)/60), max(1, tpm/10))
	}
	return r
}

func (r *RateLimited) ID() membench.ModelID { return r.Inner.ID() }

func (r *RateLimited) wait(ctx context.Context, est int) error {
	if r.req != nil {
		if err := r.req.Wait(ctx); err != nil {
			return err
		}
	}
	if r.tok != nil {
		// A request larger than the burst could never pass; charge the burst.
		if err := r.tok.WaitN(ctx, min(max(est, 1), r.tok.Burst())); err != nil {
			return err
		}
	}
	return nil
}

func (r *RateLimited) Chat(ctx context.Context, req Request) (Response, error) {
	out := req.MaxTokens
	if out <= 0 {
		out = defaultMaxTokensEstimate
	}
	if err := r.wait(ctx, PromptTokens(req.Messages)+out); err != nil {
		return Response{}, err
	}
	return r.Inner.Chat(ctx, req)
}

func (r *RateLimited) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	if err := r.wait(ctx, PromptTokens(req.Messages)+1); err != nil {
		return DecideResponse{}, err
	}
	return r.Inner.Decide(ctx, req)
}
