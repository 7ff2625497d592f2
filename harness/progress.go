package harness

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// logEvery is how often progress is logged when the output is not a
// terminal (a pipe, a file, a cluster log), so long runs show life.
const logEvery = 30 * time.Second

// progress reports the build stage (conversations built) and the answer
// stage (questions answered and judged). On a terminal it is one bar whose
// description tracks the build; elsewhere it is a log line every logEvery
// with done/total, rate and ETA per stage. --quiet silences both, and CI
// gets the log lines, not the bar.
type progress struct {
	bar *progressbar.ProgressBar

	mu                sync.Mutex
	built, totalBuild int
	done, total       int
	start             time.Time
	w                 io.Writer
	stop              chan struct{}
	wg                sync.WaitGroup
}

func newProgress(total, conversations int, quiet bool, w io.Writer) *progress {
	return newProgressEvery(total, conversations, quiet, w, logEvery)
}

func newProgressEvery(total, conversations int, quiet bool, w io.Writer, every time.Duration) *progress {
	p := &progress{totalBuild: conversations, total: total, start: time.Now(), w: w}
	if quiet || total == 0 {
		return p
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(p.describe()),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
		return p
	}
	p.stop = make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				fmt.Fprintln(p.w, p.line(time.Now()))
			}
		}
	}()
	return p
}

func (p *progress) describe() string {
	return fmt.Sprintf("build %d/%d conversations · questions", p.built, p.totalBuild)
}

// line is one log line: each stage's done/total, rate and ETA from the
// rate measured so far in this process.
func (p *progress) line(now time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := now.Sub(p.start)
	return fmt.Sprintf("progress %s elapsed: build %s · answer %s",
		el.Round(time.Second), stage(p.built, p.totalBuild, "conversations", el), stage(p.done, p.total, "questions", el))
}

func stage(done, total int, unit string, el time.Duration) string {
	s := fmt.Sprintf("%d/%d %s", done, total, unit)
	if done == 0 || el <= 0 {
		return s + " (no rate yet)"
	}
	rate := float64(done) / el.Seconds()
	if done >= total {
		return fmt.Sprintf("%s (%.3g/s, done)", s, rate)
	}
	eta := time.Duration(float64(total-done) / rate * float64(time.Second))
	return fmt.Sprintf("%s (%.3g/s, ETA %s)", s, rate, eta.Round(time.Second))
}

// Built marks one conversation's memory as built.
func (p *progress) Built() {
	p.mu.Lock()
	p.built++
	d := p.describe()
	p.mu.Unlock()
	if p.bar != nil {
		p.bar.Describe(d)
	}
}

func (p *progress) Add(n int) {
	p.mu.Lock()
	p.done += n
	p.mu.Unlock()
	if p.bar != nil {
		p.bar.Add(n)
	}
}

func (p *progress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
	if p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
}
