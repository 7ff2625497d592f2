package harness

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/membench/membench/datasets"
)

// pool is the run's one budget of question work (--concurrency N): every
// conversation's questions take a slot from the same pool, so N questions
// are in progress across the run however many conversations are open (not
// N per conversation, nor N conversations of N questions). Model requests
// are bounded separately, by the resources' llm.Limiter of the same N,
// which memory builds and a question's own fan-out share; so the run keeps
// N requests in flight whenever N questions (or builds) have work.
type pool chan struct{}

func newPool(n int) pool { return make(pool, max(1, n)) }

// each runs fn on every question, each holding a slot of the pool while it
// runs; the first error cancels the rest and is returned. A cancelled ctx
// stops handing out slots and is returned as the error.
func (sl pool) each(ctx context.Context, qs []*datasets.Question, fn func(context.Context, *datasets.Question) error) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, q := range qs {
		select {
		case sl <- struct{}{}:
		case <-gctx.Done():
			if err := g.Wait(); err != nil {
				return err
			}
			return gctx.Err()
		}
		g.Go(func() error {
			defer func() { <-sl }()
			return fn(gctx, q)
		})
	}
	return g.Wait()
}
