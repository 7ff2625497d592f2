package harness

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a bar on a terminal and silence elsewhere (CI, pipes, --quiet).
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(total int, what string, quiet bool, w io.Writer) *progress {
	f, ok := w.(*os.File)
	if quiet || total == 0 || !ok || !term.IsTerminal(int(f.Fd())) || os.Getenv("CI") != "" {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))}
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
