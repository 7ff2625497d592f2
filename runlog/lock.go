package runlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the lock a writer of a run directory holds (see LockDir).
const LockFile = ".lock"

// BusyError says another process is writing the run directory.
type BusyError struct {
	Dir string
	PID int // 0 when the holder wrote no pid
}

func (e *BusyError) Error() string {
	who := "another membench process"
	if e.PID > 0 {
		who = fmt.Sprintf("membench process %d", e.PID)
	}
	return fmt.Sprintf("run directory %s is being written by %s; wait for it to finish or stop it (two writers would write every record twice), or give another --run-id", e.Dir, who)
}

// BadInput makes a busy run directory exit 2: the command was not run.
func (e *BusyError) BadInput() bool { return true }

// DirLock is a held lock on a run directory.
type DirLock struct{ f *os.File }

// LockDir takes the run directory's writer lock: an OS file lock on
// dir/.lock, which holds the holder's pid. Every command that writes a run
// (run, score, judge, grade, merge) takes it first, so two writers never
// interleave their lines. The OS releases it when the process ends, however
// it ends (kill -9 included). A second writer gets a *BusyError at once.
func LockDir(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := flock(f); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		if errors.Is(err, errLocked) {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
			return nil, &BusyError{Dir: dir, PID: pid}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The pid is for the message a second writer prints.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DirLock{f: f}, nil
}

// Unlock releases the lock (nil-safe; closing the file releases it).
func (l *DirLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
