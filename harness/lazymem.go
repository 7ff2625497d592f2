package harness

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/membench/membench/datasets"
)

// A lazily loaded dataset (LongMemEval, datasets.LoadOptions.Lazy) reads a
// question's haystack back when its memory is built and drops it when the
// question is done, so what the run holds is the haystacks in flight. The
// memory plan keeps that bounded and flat in the number of questions:
//
//   - Haystack slots: at most haystackBudget / footprint conversations are
//     hydrated at once, whatever --concurrency is. A LongMemEval item is
//     one question, so --concurrency 64 would otherwise hold 64 M-sized
//     haystacks at once. Requests stay bounded by --concurrency;
//     with large haystacks fewer questions are in progress at once.
//   - A soft memory limit (debug.SetMemoryLimit): the live heap measured at
//     the start plus the slots' footprint. With GOGC's default the heap
//     grew to twice the live heap before a collection, and how close each
//     run came to that depended on when its collections fell, so the peak
//     varied from run to run and more so on a loaded machine. The limit is
//     raised whenever the live heap comes near it (a system holding more
//     per turn than measured), so the collector never runs back to back.
//     A limit already set (GOMEMLIMIT, or another run in this process),
//     or GOGC=off, is left alone.

// footprintPerByte is the live heap one conversation in flight holds per
// byte of its item in the file: turns-cosine with 512-d vectors stays below
// it, and the margin leaves room for systems that keep more per turn.
const footprintPerByte = 8

// haystackBudget is the live heap the haystack slots may take together
// (a variable for tests).
var haystackBudget int64 = 512 << 20

// minHeadroom is the least room the limit leaves above the live heap, so
// that collections do not follow each other closely.
const minHeadroom = 32 << 20

type memPlan struct {
	slots chan struct{} // nil: conversations are resident, no bound
	stop  func()
	held  atomic.Int32 // slots held now, and the most held at once
	peak  atomic.Int32
}

// planMemory sizes the slots and sets the limit for the conversations'
// lazily loaded items; resident datasets get a plan that does nothing.
func planMemory(convs []*datasets.Conversation, concurrency int, log io.Writer) *memPlan {
	var largest int64
	for _, c := range convs {
		largest = max(largest, c.LazyBytes())
	}
	if largest == 0 {
		return &memPlan{stop: func() {}}
	}
	n := max(1, concurrency)
	fp := footprintPerByte * largest
	slots := int(min(int64(n), max(1, haystackBudget/fp)))
	if slots < n {
		fmt.Fprintf(log, "memory: at most %d questions' haystacks in memory at once (items up to %.1f MB; --concurrency %d still bounds requests)\n", slots, float64(largest)/1e6, n)
	}
	return &memPlan{slots: make(chan struct{}, slots), stop: softLimit(int64(slots) * fp)}
}

// acquire takes a haystack slot (none needed when the plan has no bound).
func (m *memPlan) acquire(done <-chan struct{}) bool {
	if m == nil || m.slots == nil {
		return true
	}
	select {
	case m.slots <- struct{}{}:
		n := m.held.Add(1)
		for p := m.peak.Load(); n > p && !m.peak.CompareAndSwap(p, n); p = m.peak.Load() {
		}
		return true
	case <-done:
		return false
	}
}

func (m *memPlan) release() {
	if m != nil && m.slots != nil {
		m.held.Add(-1)
		<-m.slots
	}
}

// softLimit sets the memory limit to the live heap now plus need, keeps it
// above the live heap as the run goes, and returns the function that puts
// the previous limit back.
func softLimit(need int64) (stop func()) {
	prev := debug.SetMemoryLimit(-1)
	gogc := debug.SetGCPercent(100)
	debug.SetGCPercent(gogc)
	if prev != math.MaxInt64 || gogc < 0 {
		return func() {} // the user's own setting
	}
	runtime.GC()
	limit := liveHeap() + need + minHeadroom
	debug.SetMemoryLimit(limit)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			live := liveHeap()
			if room := max(minHeadroom, live/4); live+room > limit {
				limit = live + 2*room
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
		debug.SetMemoryLimit(prev)
	}
}

// liveHeap is the heap marked live by the last collection.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
