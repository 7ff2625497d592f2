package harness

import (
	"context"
	"sync"

	"github.com/membench/membench/datasets"
)

// pool is the run's one budget of question work (--concurrency N): every
// conversation's questions run on the same N workers, so N questions are
// in progress across the run however many conversations are open (not N
// per conversation, nor N conversations of N questions). Model requests
// are bounded separately, by the resources' llm.Limiter of the same N,
// which memory builds and a question's own fan-out share; so the run keeps
// N requests in flight whenever N questions (or builds) have work.
//
// The workers live until close: a goroutine per question would start with
// a small stack and grow it again on every question's way through the HTTP
// client and the encoders, while a long-lived worker keeps its stack.
type pool struct {
	tasks   chan func()   // to an idle worker
	workers chan struct{} // one token per started worker, at most N
}

func newPool(n int) *pool {
	return &pool{tasks: make(chan func()), workers: make(chan struct{}, max(1, n))}
}

// close lets the idle workers exit; nothing may be submitted after it.
func (p *pool) close() { close(p.tasks) }

func (p *pool) work(task func()) {
	for task != nil {
		task()
		task = <-p.tasks // nil once closed
	}
}

// submit hands task to an idle worker, or to a new one while fewer than N
// are started; it waits for one otherwise. False if ctx ended first.
func (p *pool) submit(ctx context.Context, task func()) bool {
	select {
	case p.tasks <- task:
		return true
	default:
	}
	select {
	case p.tasks <- task:
	case p.workers <- struct{}{}:
		go p.work(task)
	case <-ctx.Done():
		return false
	}
	return true
}

// each runs fn on every question, each on a worker of the pool; the first
// error cancels the rest and is returned. A cancelled ctx stops handing out
// questions and is returned as the error.
func (p *pool) each(ctx context.Context, qs []*datasets.Question, fn func(context.Context, *datasets.Question) error) error {
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	stopped := false
	for _, q := range qs {
		wg.Add(1)
		ok := gctx.Err() == nil && p.submit(gctx, func() {
			defer wg.Done()
			if err := fn(gctx, q); err != nil {
				once.Do(func() { first = err; cancel(err) })
			}
		})
		if !ok {
			wg.Done()
			stopped = true
			break
		}
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if stopped {
		return ctx.Err()
	}
	return nil
}
