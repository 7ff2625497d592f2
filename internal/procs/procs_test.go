package procs

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestGovernorRule(t *testing.T) {
	g := newGovernor(2)
	steps := []struct {
		cores float64
		want  int
	}{
		{0.1, 0}, {0.1, 0}, {0.1, 0},
		{0.35, 0}, // busy enough: the calm count starts again
		{0.1, 0}, {0.1, 0}, {0.1, 0},
		{0.1, 1},  // four calm samples in a row: one P
		{0.6, 0},  // on one P, under high: stays
		{0.05, 0}, // still one P
		{0.9, 2},  // needs more: every core back at once
		{0.9, 0},
		{0.1, 0}, {0.1, 0}, {0.1, 0}, {0.1, 1},
	}
	for i, s := range steps {
		if got := g.step(s.cores); got != s.want {
			t.Fatalf("step %d (%.2f cores): set %d, want %d", i, s.cores, got, s.want)
		}
	}
}

// TestGovernorFollowsTheCPU runs the governor's loop on this process: idle,
// it goes down to one P; busy, it gets its cores back; stopped, it
// restores them. Its "busy" is 0.25 cores rather than Hold's 0.7, so that
// the spinning goroutines pass it on a CI machine that other test
// processes keep busy too (the rule itself is TestGovernorRule's).
func TestGovernorFollowsTheCPU(t *testing.T) {
	full := runtime.GOMAXPROCS(0)
	if full < 2 {
		t.Skip("one P already: nothing to govern")
	}
	if _, ok := cpuTime(); !ok {
		t.Skip("no CPU clock on this system")
	}
	g := newGovernor(full)
	g.low, g.high = 0.1, 0.25
	release := start(g)
	defer func() {
		if release != nil {
			release()
		}
	}()
	waitFor(t, "one P while idle", func() bool { return runtime.GOMAXPROCS(0) == 1 })
	if got := Max(); got != full {
		t.Fatalf("on one P, Max() = %d, want the %d to give back", got, full)
	}

	var stopSpin atomic.Bool
	defer stopSpin.Store(true)
	for range full {
		go func() {
			for !stopSpin.Load() {
			}
		}()
	}
	waitFor(t, "every P back while busy", func() bool { return runtime.GOMAXPROCS(0) == full })
	stopSpin.Store(true)
	waitFor(t, "one P again once idle", func() bool { return runtime.GOMAXPROCS(0) == 1 })
	release()
	release = nil
	if got := runtime.GOMAXPROCS(0); got != full {
		t.Fatalf("after stop GOMAXPROCS = %d, want %d back", got, full)
	}
	if got := Max(); got != full {
		t.Fatalf("after stop Max() = %d, want GOMAXPROCS %d", got, full)
	}
}

func TestHoldIsShared(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one P already: nothing to govern")
	}
	if _, ok := cpuTime(); !ok {
		t.Skip("no CPU clock on this system")
	}
	a, b := Hold(), Hold()
	if holders != 2 {
		t.Fatalf("holders = %d, want 2", holders)
	}
	a()
	a() // letting go twice counts once
	if holders != 1 {
		t.Fatalf("holders = %d after one release, want 1", holders)
	}
	b()
	if holders != 0 || stop != nil || lent.Load() != 0 {
		t.Fatalf("after both: holders %d, governor stopped %v, lent %d; want 0, true, 0", holders, stop == nil, lent.Load())
	}
	// Held again after a full release: a new governor.
	c := Hold()
	if holders != 1 || stop == nil || int(lent.Load()) != runtime.GOMAXPROCS(0) {
		t.Fatalf("held again: holders %d, governor running %v, lent %d", holders, stop != nil, lent.Load())
	}
	c()
}

// waitFor polls cond for up to 30 s: long enough for a loaded CI machine,
// where the governor's samples still come every 250 ms.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("not reached in 30 s: %s (GOMAXPROCS %d)", what, runtime.GOMAXPROCS(0))
}
