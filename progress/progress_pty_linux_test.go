package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the terminal side the run writes to,
// and the side a terminal emulator would read.
func openPTY(t *testing.T) (term, reader *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n, unlock uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("TIOCGPTN: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("TIOCSPTLCK: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal side: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return s, m
}

// readAll reads what the terminal side wrote, once it is closed.
func readAll(term, reader *os.File) string {
	term.Close()
	var b bytes.Buffer
	io.Copy(&b, reader) // ends with EIO when the terminal side is closed
	return strings.ReplaceAll(b.String(), "\r\n", "\n")
}

// On a real terminal progress redraws one line in place; with CI set it
// logs lines there as it would to a file; with --quiet it prints nothing.
func TestProgressOnARealTerminal(t *testing.T) {
	plan := Work{Conversations: 1, Questions: 3}
	drive := func(quiet, ci bool) (bool, string) {
		term, reader := openPTY(t)
		p := New(term, plan, quiet, ci, nil)
		p.Built()
		p.Add(3)
		p.tick(p.opt.Now().Add(time.Second))
		p.Summarize()
		p.Finish()
		return p.opt.Terminal, readAll(term, reader)
	}
	live, out := drive(false, false)
	if !live || strings.Contains(out, "progress:") || !strings.Contains(out, "\r[####################] answer+judge 3/3 questions · elapsed ") ||
		!strings.Contains(out, "\rdone · 3/3 questions, 1/1 conversations built · elapsed ") || !strings.HasSuffix(out, " · 0 calls · tokens 0 in, 0 out\x1b[K\n") {
		t.Errorf("on a terminal (live %v):\n%q", live, out)
	}
	live, out = drive(false, true)
	if live || !strings.HasPrefix(out, "progress: started · 1 conversation to build, 3 questions") || !strings.Contains(out, "\nprogress: done · 3/3 questions") || strings.Contains(out, "\x1b[K") {
		t.Errorf("with CI set (live %v):\n%q", live, out)
	}
	if _, out = drive(true, false); out != "" {
		t.Errorf("--quiet printed %q", out)
	}
}

// The live line is cut to the terminal's width, so it never wraps (a
// wrapped line is not overwritten by the next redraw).
func TestProgressLiveLineFitsTheTerminal(t *testing.T) {
	term, reader := openPTY(t)
	ws := struct{ rows, cols, x, y uint16 }{rows: 24, cols: 60}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, term.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		t.Skipf("TIOCSWINSZ: %v", e)
	}
	p := New(term, Work{Conversations: 2, Questions: 100}, false, false, nil)
	p.Built()
	p.tick(p.opt.Now())
	p.Finish()
	out := readAll(term, reader)
	drawn := 0
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\r") {
		l = strings.TrimSuffix(l, "\x1b[K")
		if strings.HasPrefix(l, "[") {
			drawn++
			if n := len([]rune(l)); n > 59 || !strings.HasSuffix(l, "…") {
				t.Errorf("a %d-rune line on a 60-column terminal: %q", n, l)
			}
		}
	}
	if drawn == 0 {
		t.Errorf("no live line drawn:\n%q", out)
	}
}
