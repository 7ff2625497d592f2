package progress

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
)

// logEvery is how often progress is logged when the output is not a
// terminal (a pipe, a file, a cluster log), so long runs show life.
const logEvery = 30 * time.Second

// The run's stages as progress names them. Conversations build while
// others' questions are answered; the stage is build until every memory
// is built.
const (
	stageBuild   = "build"
	stageAnswer  = "answer+judge"
	stageSummary = "summary"
)

// Work is what an attempt of a run has to do: memories to build
// and questions to answer and judge.
type Work struct {
	Conversations, Questions int
}

// options choose how progress shows. The zero value is a log
// line every logEvery on the real clock.
type options struct {
	Quiet    bool // print nothing
	Terminal bool // one live line, redrawn; otherwise log lines
	// Now is the clock; Manual leaves ticking to the caller (p.tick), so
	// a test drives time instead of sleeping.
	Now    func() time.Time
	Manual bool
	// Width is the terminal's width in columns (0: unknown).
	Width func() int
	// Dollars prices the usage so far ("$0.0123", "unknown (no price
	// for X)"); nil leaves dollars out of the line.
	Dollars func([]membench.Tally) string
}

// Bar reports a run's stage, counts, elapsed time, a smoothed ETA of
// the stage, and the calls and tokens spent so far. On a terminal it is
// one line redrawn a few times a second; elsewhere a line at the start,
// every logEvery, at each stage change and at the end. --quiet silences both.
type Bar struct {
	w    io.Writer
	opt  options
	plan Work

	mu          sync.Mutex
	start       time.Time
	stage       string
	built, done int
	eta         *etaSmoother
	lastLine    time.Time
	finished    bool
	// Calls and tokens: the meters in use now, read when a line is drawn,
	// and the sums of those already let go, by role, stage and label.
	live    map[*llm.Meter]struct{}
	settled map[tallyKey]membench.Tally

	stop chan struct{}
	wg   sync.WaitGroup
}

type tallyKey struct {
	role  string
	stage membench.Stage
	label string
	model string // priced by it
}

// New is the run's progress on w: a live line when w is a terminal and
// CI is not set, log lines otherwise; dollars as options.Dollars.
func New(w io.Writer, plan Work, quiet, ci bool, dollars func([]membench.Tally) string) *Bar {
	opt := options{Quiet: quiet, Dollars: dollars}
	if f, ok := w.(*os.File); ok && !ci && term.IsTerminal(int(f.Fd())) {
		opt.Terminal = true
		opt.Width = func() int {
			if c, _, err := term.GetSize(int(f.Fd())); err == nil {
				return c
			}
			return 0
		}
	}
	return start(w, plan, opt)
}

func start(w io.Writer, plan Work, opt options) *Bar {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	now := opt.Now()
	p := &Bar{w: w, opt: opt, plan: plan, start: now, live: map[*llm.Meter]struct{}{}, settled: map[tallyKey]membench.Tally{}}
	if opt.Quiet || (plan.Questions == 0 && plan.Conversations == 0) {
		p.opt.Quiet = true
		return p
	}
	p.stage = p.stageNow()
	p.eta = newETA(now, p.counted(), p.stageTotal())
	if !opt.Terminal {
		var todo []string
		if plan.Conversations > 0 {
			todo = append(todo, plural(plan.Conversations, "conversation")+" to build")
		}
		todo = append(todo, plural(plan.Questions, "question")+" to answer and judge")
		p.println(now, fmt.Sprintf("started · %s · a line every %s and at each stage", strings.Join(todo, ", "), fmtDur(logEvery)))
	}
	if !opt.Manual {
		poll := 250 * time.Millisecond
		if !opt.Terminal {
			poll = time.Second
		}
		p.stop = make(chan struct{})
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			t := time.NewTicker(poll)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.tick(p.opt.Now())
				}
			}
		}()
	}
	return p
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// stageNow is the stage the counts say; the caller holds p.mu (or owns p).
func (p *Bar) stageNow() string {
	switch {
	case p.stage == stageSummary:
		return stageSummary
	case p.built < p.plan.Conversations:
		return stageBuild
	default:
		return stageAnswer
	}
}

func (p *Bar) counted() int {
	if p.stage == stageBuild {
		return p.built
	}
	return p.done
}

func (p *Bar) stageTotal() int {
	if p.stage == stageBuild {
		return p.plan.Conversations
	}
	return p.plan.Questions
}

// Built marks one conversation's memory as built.
func (p *Bar) Built() { p.count(1, 0) }

// Add marks n questions as answered and judged.
func (p *Bar) Add(n int) { p.count(0, n) }

func (p *Bar) count(built, done int) {
	if p == nil || p.opt.Quiet {
		return
	}
	now := p.opt.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.built += built
	p.done += done
	p.moveTo(now, p.stageNow())
	p.eta.observe(now, p.counted())
}

// Summarize marks the questions done and the summary being computed.
func (p *Bar) Summarize() {
	if p == nil || p.opt.Quiet {
		return
	}
	now := p.opt.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.moveTo(now, stageSummary)
}

// moveTo enters stage (when it is a new one): its ETA starts afresh, and
// off a terminal a line says so. The caller holds p.mu.
func (p *Bar) moveTo(now time.Time, stage string) {
	if stage == p.stage || p.finished {
		return
	}
	p.stage = stage
	p.eta = newETA(now, p.counted(), p.stageTotal())
	if p.opt.Terminal {
		p.redraw(now)
	} else {
		p.println(now, p.body(now))
	}
}

// tick draws the live line, or logs a line when one is due; the ticker
// goroutine calls it, and tests call it with their own clock.
func (p *Bar) tick(now time.Time) {
	if p.opt.Quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	// The ETA is smoothed at every tick, printed or not, so the log
	// lines show the same estimate a terminal would.
	p.eta.update(now, p.counted())
	if p.opt.Terminal {
		p.redraw(now)
	} else if now.Sub(p.lastLine) >= logEvery {
		p.println(now, p.body(now))
	}
}

// track counts m's calls and tokens in the run's so far; calling the
// returned func folds them in for good when m is no longer used.
func (p *Bar) Track(m *llm.Meter) (untrack func()) {
	if p == nil || p.opt.Quiet {
		return func() {}
	}
	p.mu.Lock()
	p.live[m] = struct{}{}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.live, m)
		fold(p.settled, m)
	}
}

// fold adds m's tallies into sums.
func fold(sums map[tallyKey]membench.Tally, m *llm.Meter) {
	for _, t := range m.Snapshot() {
		k := tallyKey{t.Role, t.Stage, t.Label, t.Model}
		s := sums[k]
		s.Role, s.Stage, s.Label, s.Model = t.Role, t.Stage, t.Label, t.Model
		s.Add(t)
		sums[k] = s
	}
}

// usage is every tally so far, settled and live; the caller holds p.mu.
func (p *Bar) usage() []membench.Tally {
	sum := maps.Clone(p.settled)
	for m := range p.live {
		fold(sum, m)
	}
	out := slices.Collect(maps.Values(sum))
	slices.SortFunc(out, func(a, b membench.Tally) int {
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.Role, b.Role), cmp.Compare(a.Label, b.Label))
	})
	return out
}

// body is the line's text after any prefix: stage and counts, elapsed,
// ETA, calls and tokens. The caller holds p.mu.
func (p *Bar) body(now time.Time) string {
	var b strings.Builder
	switch p.stage {
	case stageBuild:
		fmt.Fprintf(&b, "build %d/%d conversations", p.built, p.plan.Conversations)
		if p.done > 0 {
			fmt.Fprintf(&b, ", %d/%d questions answered", p.done, p.plan.Questions)
		}
	case stageAnswer:
		fmt.Fprintf(&b, "answer+judge %d/%d questions", p.done, p.plan.Questions)
	default:
		fmt.Fprintf(&b, "%s · %d/%d questions", p.stage, p.done, p.plan.Questions)
	}
	fmt.Fprintf(&b, " · elapsed %s", fmtDur(now.Sub(p.start)))
	if (p.stage == stageBuild || p.stage == stageAnswer) && p.counted() < p.stageTotal() {
		if d, ok := p.eta.update(now, p.counted()); ok {
			fmt.Fprintf(&b, " · eta %s", fmtDur(d))
		} else {
			b.WriteString(" · eta ?")
		}
	}
	b.WriteString(spent(p.usage(), p.opt.Dollars))
	return b.String()
}

// spent is " · N calls · tokens X in, Y out" for LLM calls (embeddings
// are not calls; llm.Meter.Total leaves them out the same way).
func spent(ts []membench.Tally, dollars func([]membench.Tally) string) string {
	var sum membench.Tally
	for _, t := range ts {
		if t.Label == "embedding" {
			continue
		}
		sum.Add(t)
	}
	s := fmt.Sprintf(" · %d calls", sum.Calls)
	if sum.CachedCalls > 0 {
		s += fmt.Sprintf(" (%d from cache)", sum.CachedCalls)
	}
	s += fmt.Sprintf(" · tokens %s in, %s out", fmtCount(sum.InputTokens), fmtCount(sum.OutputTokens))
	if dollars != nil {
		s += " · " + dollars(ts)
	}
	return s
}

// println writes one log line; the caller holds p.mu.
func (p *Bar) println(now time.Time, s string) {
	fmt.Fprintf(p.w, "progress: %s\n", s)
	p.lastLine = now
}

// redraw draws the live line over the last, cut to the terminal's width
// so it never wraps; the caller holds p.mu.
func (p *Bar) redraw(now time.Time) {
	line := bar(p.counted(), p.stageTotal()) + " " + p.body(now)
	if p.opt.Width != nil {
		if w := p.opt.Width(); w > 1 && utf8.RuneCountInString(line) > w-1 {
			r := []rune(line)
			line = string(r[:w-2]) + "…"
		}
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
}

func bar(done, total int) string {
	const width = 20
	n := 0
	if total > 0 {
		n = min(width, done*width/total)
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

// Finish ends the progress: a last line with what was done (the live
// line stays on the terminal as the record).
func (p *Bar) Finish() {
	if p == nil || p.opt.Quiet {
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
	now := p.opt.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	word := "done"
	if p.done < p.plan.Questions || p.built < p.plan.Conversations {
		word = "stopped"
	}
	s := fmt.Sprintf("%s · %d/%d questions", word, p.done, p.plan.Questions)
	if p.plan.Conversations > 0 {
		s += fmt.Sprintf(", %d/%d conversations built", p.built, p.plan.Conversations)
	}
	s += fmt.Sprintf(" · elapsed %s", fmtDur(now.Sub(p.start))) + spent(p.usage(), p.opt.Dollars)
	if p.opt.Terminal {
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", s)
	} else {
		p.println(now, s)
	}
}

// fmtDur is a duration to the second in a form time.ParseDuration reads:
// 45s, 1m20s, 2h05m.
func fmtDur(d time.Duration) string {
	s := int64(max(d, 0).Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
	}
}

// fmtCount is a token count in three or four figures: 950, 45.2k, 1.23M.
func fmtCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	}
}

// etaSmoother estimates the time left in a stage. The rate is the items
// done over a window reaching back over at least the latest half of the
// stage's items and half of its time, so a burst of answers (N in flight
// finish together) neither races nor stalls the estimate. The ETA shown
// counts down between estimates and may leave that countdown by a factor
// of 2 per etaHalving of clock time at most, so it never jumps.
type etaSmoother struct {
	total   int
	start   time.Time
	base    int         // items done when the stage started
	samples []etaSample // (time, done) at each change, oldest still needed first
	shown   time.Duration
	shownAt time.Time
	has     bool
}

type etaSample struct {
	at   time.Time
	done int
}

const (
	etaHalving   = 5 * time.Second
	etaMaxWindow = 200 // items: the window's reach in a long stage
	etaBurst     = 100 * time.Millisecond
)

func newETA(now time.Time, done, total int) *etaSmoother {
	return &etaSmoother{total: total, start: now, base: done, samples: []etaSample{{now, done}}}
}

func (e *etaSmoother) observe(now time.Time, done int) {
	last := &e.samples[len(e.samples)-1]
	if done == last.done {
		return
	}
	// Answers that finish together (N in flight at one latency) are one
	// event: the gaps between events are what a stall is told by.
	if len(e.samples) > 1 && now.Sub(last.at) < etaBurst {
		last.done = done
		return
	}
	e.samples = append(e.samples, etaSample{now, done})
	// The window only moves forward: samples before its start are never
	// read again.
	e.samples = e.samples[e.from(now, done):]
}

// from is the index of the sample the window starts at: the later of
// the last one at or before the latest half of the items (at most
// etaMaxWindow of them) and the last one at or before half the stage's
// time, so a change of rate shows within half the stage at most.
func (e *etaSmoother) from(now time.Time, done int) int {
	want := done - max(1, min((done-e.base)/2, etaMaxWindow))
	half := e.start.Add(now.Sub(e.start) / 2)
	byItems, byTime := 0, 0
	for i, s := range e.samples {
		if s.done <= want {
			byItems = i
		}
		if !s.at.After(half) {
			byTime = i
		}
	}
	// The window holds one event at least.
	return min(max(byItems, byTime), len(e.samples)-2)
}

// target is the raw estimate: items left over the window's rate. The
// rate holds between events while the wait is no longer than the
// window's mean gap between them; a longer wait counts against it.
func (e *etaSmoother) target(now time.Time, done int) (time.Duration, bool) {
	left := e.total - done
	if left <= 0 || done <= e.base {
		return 0, false
	}
	i := e.from(now, done)
	s, last := e.samples[i], e.samples[len(e.samples)-1]
	events := len(e.samples) - 1 - i
	span := last.at.Sub(s.at)
	if events < 1 || span <= 0 || done <= s.done {
		return 0, false
	}
	if wait, gap := now.Sub(last.at), span/time.Duration(events); wait > gap {
		span += wait - gap
	}
	rate := float64(done-s.done) / span.Seconds()
	return time.Duration(float64(left) / rate * float64(time.Second)), true
}

// update moves the shown ETA towards the estimate, within its bounds,
// and returns it.
func (e *etaSmoother) update(now time.Time, done int) (time.Duration, bool) {
	t, ok := e.target(now, done)
	if !ok {
		return 0, false
	}
	if !e.has {
		e.shown, e.shownAt, e.has = t, now, true
		return t, true
	}
	dt := max(now.Sub(e.shownAt), 0)
	c := max(e.shown-dt, time.Second)
	f := math.Exp2(dt.Seconds() / etaHalving.Seconds())
	lo, hi := time.Duration(float64(c)/f), time.Duration(float64(c)*f)
	e.shown, e.shownAt = min(max(t, lo), hi), now
	return e.shown, true
}
