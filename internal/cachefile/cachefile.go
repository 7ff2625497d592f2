// Package cachefile keeps a cache's SQLite file usable when the file
// itself is damaged. A file SQLite calls "not a database" or "malformed",
// at open or when a query meets a bad page, is moved aside under a dated
// name with its write-ahead log, an empty file takes its place, and one
// line says where the old one went. A cache only saves work, so starting
// it again beats stopping every run on it.
package cachefile

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// IsDamage reports whether err is SQLite saying the file is not a sound
// database (SQLITE_CORRUPT or SQLITE_NOTADB, with any extended code).
// Busy, locked, read-only, permission and I/O errors are not damage: the
// file may be sound and in use by another process, and must stay where it is.
func IsDamage(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// ErrReplaced is returned by Do when the query met damage and the file was
// replaced by an empty one: what was being read counts as missing; a write
// may be made again.
var ErrReplaced = errors.New("the cache file was damaged and has been replaced by an empty one")

// Handle is an open file: its database and prepared statements.
type Handle interface{ Close() error }

// CloseDB closes a handle's prepared statements (nil ones are skipped:
// an open that failed half way) and then its database.
func CloseDB(db *sql.DB, stmts ...*sql.Stmt) error {
	for _, st := range stmts {
		if st != nil {
			st.Close()
		}
	}
	return db.Close()
}

// OpenDB opens the SQLite database at dsn, runs setUp on it and prepares
// queries; the statements come back in the order of queries. what and path
// name the cache in error messages ("llm cache /x/llm.sqlite: ..."). On an
// error everything opened so far is closed again.
func OpenDB(what, path, dsn string, setUp func(*sql.DB) error, queries ...string) (*sql.DB, []*sql.Stmt, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	// database/sql's default pool opens a connection per concurrent call (29
	// at c=64); SQLite serialises writers anyway, and readers run in parallel
	// under WAL: more connections than cores only cost memory and open time.
	conns := max(4, 2*runtime.GOMAXPROCS(0))
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	err = setUp(db)
	stmts := make([]*sql.Stmt, 0, len(queries))
	for _, q := range queries {
		if err != nil {
			break
		}
		var st *sql.Stmt
		st, err = db.Prepare(q)
		stmts = append(stmts, st)
	}
	if err != nil {
		CloseDB(db, stmts...)
		return nil, nil, fmt.Errorf("%s %s: cannot open it: %w (if another process holds it, let it finish; or give another --cache-dir)", what, path, err)
	}
	return db, stmts, nil
}

// File is a cache file whose handle is swapped for a fresh file's when the
// file turns out damaged. Queries run under a read lock (Do), so a swap
// waits for those in flight and none runs on a closed handle.
type File[H Handle] struct {
	what, path string
	open       func(path string) (H, error)

	mu     sync.RWMutex
	h      H
	gen    int         // bumped by each swap, so that one damage is handled once
	opened os.FileInfo // the file h has open: only that one is moved aside
	broken error       // set when a damaged file could not be replaced

	log logLines
}

// Open opens path with open, making its folder first; a file found
// damaged is set aside and open is called again on an empty one. what
// names the cache in messages ("llm cache").
func Open[H Handle](what, path string, open func(path string) (H, error)) (*File[H], error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	f := &File[H]{what: what, path: path, open: open}
	before, _ := os.Stat(path)
	h, err := open(path)
	if IsDamage(err) {
		if err := f.setAside(before, err); err != nil {
			return nil, err
		}
		before = nil
		h, err = open(path)
	}
	if err != nil {
		return nil, err
	}
	f.h = h
	if before != nil {
		f.opened = before
	} else {
		f.opened, _ = os.Stat(path)
	}
	return f, nil
}

// Do runs fn on the current handle. When fn's error is damage, the file
// is set aside, a fresh one opened, and Do returns ErrReplaced.
func (f *File[H]) Do(fn func(h H) error) error {
	f.mu.RLock()
	if f.broken != nil {
		f.mu.RUnlock()
		return f.broken
	}
	h, gen := f.h, f.gen
	err := fn(h)
	f.mu.RUnlock()
	if !IsDamage(err) {
		return err
	}
	if err := f.replace(gen, err); err != nil {
		return err
	}
	return fmt.Errorf("%s %s: %w", f.what, f.path, ErrReplaced)
}

// Write is Do for a write: when the file was replaced, fn runs again on
// the fresh one.
func (f *File[H]) Write(fn func(h H) error) error {
	err := f.Do(fn)
	if errors.Is(err, ErrReplaced) {
		err = f.Do(fn)
	}
	return err
}

// replace swaps a damaged file (the one of generation gen) for a fresh one.
func (f *File[H]) replace(gen int, cause error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken != nil {
		return f.broken
	}
	if f.gen != gen {
		return nil // another query met the same damage first
	}
	f.h.Close()
	if err := f.setAside(f.opened, cause); err != nil {
		f.broken = err
		return err
	}
	h, err := f.open(f.path)
	if err != nil {
		f.broken = fmt.Errorf("%s %s: a fresh file could not be opened after setting the damaged one aside: %w", f.what, f.path, err)
		return f.broken
	}
	f.h, f.gen = h, f.gen+1
	f.opened, _ = os.Stat(f.path)
	return nil
}

// setAside moves the damaged file away and says so on the log. opened is
// the file as found before opening it (nil if unknown): when path names
// another file by now, another process has already replaced it.
func (f *File[H]) setAside(opened os.FileInfo, cause error) error {
	var se *sqlite.Error
	if errors.As(cause, &se) {
		cause = se // SQLite's words, without the caller's context
	}
	to, err := moveAside(f.path, opened, time.Now())
	if err != nil {
		return fmt.Errorf("%s %s is damaged (%v) and could not be moved aside: %w; delete it (the cache starts again empty) or give another --cache-dir", f.what, f.path, cause, err)
	}
	if to == "" {
		f.log.add(fmt.Sprintf("%s: %s was damaged (%v); another process has already replaced it, continuing with the new file", f.what, f.path, cause))
		return nil
	}
	f.log.add(fmt.Sprintf("%s: %s was damaged (%v); moved it to %s, and the cache restarts empty", f.what, f.path, cause, to))
	return nil
}

// Log sends the notes about damaged files to w: those made so far at once,
// later ones as they are made.
func (f *File[H]) Log(w io.Writer) { f.log.to(w) }

// Close closes the handle; notes no log has taken are written to stderr,
// so that a replaced file is never passed over in silence.
func (f *File[H]) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log.to(os.Stderr)
	if f.broken != nil {
		return nil // replace closed the handle already
	}
	return f.h.Close()
}

// moveAside renames path, with its -wal and -shm files, to
// path.damaged-<UTC time> and returns the new name. It returns "" when
// path no longer is the file opened (or is gone): another process set it
// aside first, and the file now there is sound as far as we know.
func moveAside(path string, opened os.FileInfo, now time.Time) (string, error) {
	cur, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if opened != nil && !os.SameFile(opened, cur) {
		return "", nil
	}
	to := path + ".damaged-" + now.UTC().Format("20060102T150405Z")
	for i := 2; exists(to) || exists(to+"-wal"); i++ {
		to = fmt.Sprintf("%s.damaged-%s-%d", path, now.UTC().Format("20060102T150405Z"), i)
	}
	// The write-ahead log goes first: SQLite would replay an old log into
	// the fresh file, and a crash between the renames must not leave the
	// log behind without its file.
	for _, sfx := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+sfx, to+sfx); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	return to, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// logLines holds notes until a writer is given.
type logLines struct {
	mu      sync.Mutex
	w       io.Writer
	pending []string
}

func (l *logLines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		l.pending = append(l.pending, line)
		return
	}
	fmt.Fprintln(l.w, line)
}

func (l *logLines) to(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		l.w = w
	}
	for _, line := range l.pending {
		fmt.Fprintln(l.w, line)
	}
	l.pending = nil
}
