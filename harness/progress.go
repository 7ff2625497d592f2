package harness

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is one bar over questions whose description tracks the build
// stage ("build 3/10 conversations"), on a terminal only: silent in CI,
// pipes and with --quiet.
type progress struct {
	bar               *progressbar.ProgressBar
	mu                sync.Mutex
	built, totalBuild int
}

func newProgress(total, conversations int, quiet bool, w io.Writer) *progress {
	f, ok := w.(*os.File)
	if quiet || total == 0 || !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	p := &progress{totalBuild: conversations}
	p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(p.describe()),
		progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
	return p
}

func (p *progress) describe() string {
	return fmt.Sprintf("build %d/%d conversations · questions", p.built, p.totalBuild)
}

// Built marks one conversation's memory as built.
func (p *progress) Built() {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	p.built++
	d := p.describe()
	p.mu.Unlock()
	p.bar.Describe(d)
}

func (p *progress) Add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

func (p *progress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
