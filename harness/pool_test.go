package harness

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/membench/membench/datasets"
)

func questions(n int) []*datasets.Question {
	qs := make([]*datasets.Question, n)
	for i := range qs {
		qs[i] = &datasets.Question{ID: string(rune('a' + i%26))}
	}
	return qs
}

// Three callers share one pool of 4: never more than 4 questions at once,
// 4 reached, and every slot is free again after.
func TestPoolIsOneBudget(t *testing.T) {
	p := newPool(4)
	var now, peak, ran atomic.Int64
	fn := func(ctx context.Context, q *datasets.Question) error {
		n := now.Add(1)
		for {
			m := peak.Load()
			if n <= m || peak.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		now.Add(-1)
		ran.Add(1)
		return nil
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if err := p.each(context.Background(), questions(20), fn); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ran.Load() != 60 || peak.Load() != 4 {
		t.Fatalf("ran %d questions with up to %d at once; want 60 with up to 4", ran.Load(), peak.Load())
	}
	if held := len(p.slots); held != 0 {
		t.Fatalf("%d slots still held after every pass returned", held)
	}
}

// The first error cancels the questions still running and is returned;
// questions not yet handed out never start.
func TestPoolFirstErrorStopsTheRest(t *testing.T) {
	p := newPool(2)
	boom := errors.New("boom")
	var started atomic.Int64
	err := p.each(context.Background(), questions(50), func(ctx context.Context, q *datasets.Question) error {
		if started.Add(1) == 3 {
			return boom
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond): // long enough that a pool still handing out work would start them all
			return nil
		}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if s := started.Load(); s > 4 {
		t.Fatalf("%d questions started after the error, want the rest not handed out", s)
	}
}

// A cancelled context hands out nothing and is the error; a finished pass
// is nil.
func TestPoolCancelled(t *testing.T) {
	p := newPool(2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int64
	err := p.each(ctx, questions(10), func(context.Context, *datasets.Question) error { ran.Add(1); return nil })
	if !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Fatalf("err = %v after %d questions; want context.Canceled and none run", err, ran.Load())
	}
	if err := p.each(context.Background(), questions(10), func(context.Context, *datasets.Question) error { return nil }); err != nil {
		t.Fatalf("a finished pass returned %v", err)
	}
}
