package harness

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/membench/membench/datasets"
)

// pool is the run's one budget of question work (--concurrency N): every
// conversation's questions take a slot of the same N, so N questions are
// in progress across the run however many conversations are open (not N
// per conversation, nor N conversations of N questions). Model requests
// are bounded separately, by the resources' llm.Limiter of the same N,
// which memory builds and a question's own fan-out share; so the run keeps
// N requests in flight whenever N questions (or builds) have work.
type pool struct {
	slots chan struct{}
}

func newPool(n int) *pool {
	return &pool{slots: make(chan struct{}, max(1, n))}
}

// each runs fn on every question, each in a slot of the pool; the first
// error cancels the rest and is returned. A cancelled ctx stops handing out
// questions and is returned as the error.
func (p *pool) each(ctx context.Context, qs []*datasets.Question, fn func(context.Context, *datasets.Question) error) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, q := range qs {
		held := false
		select {
		case p.slots <- struct{}{}:
			held = true
		case <-gctx.Done():
		}
		if gctx.Err() != nil { // select may pick a free slot over a cancelled context
			if held {
				<-p.slots
			}
			break
		}
		g.Go(func() error {
			defer func() { <-p.slots }()
			return fn(gctx, q)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}
