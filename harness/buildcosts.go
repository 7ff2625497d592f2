package harness

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/runlog"
)

// A running build writes the calls it made since its last line when
// buildCostBatch model calls have completed, or buildCostEvery has passed
// with any usage, checked every buildCostPoll: a kill -9 mid-build loses
// only the calls since the last line (about buildCostBatch, or a second's;
// Ctrl-C loses none).
const (
	buildCostBatch = 8
	buildCostEvery = time.Second
	buildCostPoll  = 50 * time.Millisecond
)

// partialCosts writes a running build's spend to costs.jsonl as it goes
// (runlog.CostRecord.Partial, one attempt id), so the calls of a build cut
// off by a kill are counted (as redone: the resume builds again). The
// attempt's closing line repeats them all, and readers then drop these.
type partialCosts struct {
	attempt string
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// startPartialCosts writes meter's new usage in batches until Stop.
func startPartialCosts(meter *llm.Meter, rec *runlog.Recorder, conv string) *partialCosts {
	id := make([]byte, 8)
	rand.Read(id)
	p := &partialCosts{attempt: hex.EncodeToString(id), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(buildCostPoll)
		defer tick.Stop()
		var last []membench.Tally
		lastAt := time.Now()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			now := meter.Snapshot()
			d := llm.Minus(now, last)
			calls := 0
			for _, t := range d {
				if t.Label != "embedding" { // an embedding tally counts texts
					calls += t.Calls
				}
			}
			if len(d) == 0 || (calls < buildCostBatch && time.Since(lastAt) < buildCostEvery) {
				continue
			}
			// A failed write loses this line only; the closing line still
			// counts every call of a build that ends.
			if rec.Cost(runlog.CostRecord{ConversationID: conv, Tallies: d, Attempt: p.attempt, Partial: true}) == nil {
				last, lastAt = now, time.Now()
			}
		}
	}()
	return p
}

// Stop ends the writing and waits for it, so no partial line follows the
// attempt's closing line. Nil-safe and idempotent.
func (p *partialCosts) Stop() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.stop) })
	<-p.done
}
