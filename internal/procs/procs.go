// Package procs puts the process on one P (GOMAXPROCS=1) while a run
// waits on the network, and gives every core back as soon as it computes.
//
// Why: a run against a remote model spends most of its time waiting for
// replies, and each reply wakes the program in a burst of a few goroutines
// (net/http's read and write loops, the question's worker). With two Ps the
// Go scheduler wakes a second thread for each burst, which on a small VM
// costs more CPU than the work it runs, with no gain in wall time. A build
// that embeds or an offline backend needs every core, so the setting
// follows the CPU the process actually uses, and a run starts on every
// core so that short CPU-bound runs are never slowed.
//
// A limit of the rule: it raises on the CPU the process got, not on the
// CPU it wanted. On a machine that others keep busy, one thread may never
// get 0.7 of a core, and work that starts after a wait then stays on one P
// for a while; GOMAXPROCS in the environment turns the governor off. The
// runtime's scheduling-latency histogram was tried as a second signal and
// is too noisy for this: an I/O-bound run on one P shows long waits too.
package procs

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// interval is how often the process's CPU use is sampled.
const interval = 250 * time.Millisecond

// governor decides from each sample of CPU use how many Ps the process
// should have; it holds no clock, so its rule is tested on its own.
type governor struct {
	full int // the GOMAXPROCS the process had when the governor started
	// low is the CPU use (in cores) under which the process is waiting;
	// calm is how many samples in a row must be under it before the
	// process goes down to one P, so a pause between two bursts of work
	// does not. high is the CPU use over one sample that, on one P, means
	// the process has work for more: it gets its cores back at once.
	low, high float64
	calm      int
	single    bool
	quiet     int // samples in a row under low
}

// newGovernor has the rule Hold uses.
func newGovernor(full int) *governor {
	return &governor{full: full, low: 0.3, high: 0.7, calm: 4}
}

// step takes the CPU use (cores) over the last interval and returns the
// GOMAXPROCS to set, or 0 to leave it as it is.
func (g *governor) step(cores float64) int {
	if g.single {
		if cores > g.high {
			g.single, g.quiet = false, 0
			return g.full
		}
		return 0
	}
	if cores >= g.low {
		g.quiet = 0
		return 0
	}
	if g.quiet++; g.quiet >= g.calm {
		g.single, g.quiet = true, 0
		return 1
	}
	return 0
}

var (
	mu      sync.Mutex
	holders int
	stop    func()
	lent    atomic.Int32 // the Ps to give back while the governor runs, else 0
)

// Max is how many Ps the process may use: GOMAXPROCS, or while the
// governor runs, the value it gives back. Worker pools are sized by it, so
// a batch started on one P spreads over every core as soon as the
// governor sees it computing, instead of staying on one worker to its end.
func Max() int {
	if n := lent.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// Hold starts the governor unless it is running already (several runs in
// one process share it) and returns the function that lets go; the last
// to let go stops it and puts GOMAXPROCS back. With a single P to begin
// with it does nothing. A GOMAXPROCS the user set is the caller's to
// respect (runlog.Host.FixedProcs): this package reads no environment.
func Hold() (release func()) {
	if _, ok := cpuTime(); !ok {
		return func() {} // no CPU clock on this system
	}
	mu.Lock()
	defer mu.Unlock()
	if holders == 0 {
		n := runtime.GOMAXPROCS(0)
		if n < 2 {
			return func() {}
		}
		stop = start(newGovernor(n))
	}
	holders++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if holders--; holders == 0 {
				stop()
				stop = nil
			}
		})
	}
}

// start runs g in a goroutine and returns its stop.
func start(g *governor) func() {
	lent.Store(int32(g.full))
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		cpu0, _ := cpuTime()
		wall0 := time.Now()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			cpu1, _ := cpuTime()
			wall1 := time.Now()
			if n := g.step(float64(cpu1-cpu0) / float64(wall1.Sub(wall0))); n > 0 {
				runtime.GOMAXPROCS(n)
			}
			cpu0, wall0 = cpu1, wall1
		}
	}()
	return func() {
		close(quit)
		<-done
		if g.single {
			runtime.GOMAXPROCS(g.full)
		}
		lent.Store(0)
	}
}
