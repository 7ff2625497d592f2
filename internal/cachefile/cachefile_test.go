package cachefile

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testDB is a handle over one table; busy waits only briefly, so that a
// lock held elsewhere fails fast.
type testDB struct{ db *sql.DB }

func (d *testDB) Close() error { return d.db.Close() }

func openTest(path string) (*testDB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(50)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		db.Close()
		return nil, err
	}
	return &testDB{db}, nil
}

func fill(t *testing.T, path string, n int) {
	t.Helper()
	d, err := openTest(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i := range n {
		if _, err := d.db.Exec(`INSERT INTO t (k, v) VALUES (?, ?)`, i, strings.Repeat("v", 200)); err != nil {
			t.Fatal(err)
		}
	}
}

func aside(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".damaged-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Damage is what SQLite says of a file that is not a database or is
// malformed; a lock held by another connection, or a path SQLite cannot
// open, is not damage.
func TestIsDamage(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, bytes.Repeat([]byte("garbage "), 1000), 0o644)
	_, err := openTest(garbage)
	if err == nil || !IsDamage(err) {
		t.Errorf("garbage file: %v, IsDamage false", err)
	}
	if err != nil && !IsDamage(errors.Join(errors.New("context"), err)) {
		t.Error("IsDamage does not see through wrapping")
	}

	locked := filepath.Join(dir, "locked")
	fill(t, locked, 3)
	holder, err := sql.Open("sqlite", "file:"+locked)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	d, err := openTest(locked)
	if err == nil {
		_, err = d.db.Exec(`INSERT INTO t (k, v) VALUES (100, 'x')`)
		d.Close()
	}
	if err == nil || IsDamage(err) {
		t.Errorf("a file locked by another connection: %v, IsDamage %v; want a lock error that is not damage", err, IsDamage(err))
	}
	conn.ExecContext(context.Background(), `ROLLBACK`)

	_, err = openTest(dir) // a directory
	if err == nil || IsDamage(err) {
		t.Errorf("a directory: %v, IsDamage %v", err, IsDamage(err))
	}
	if IsDamage(nil) || IsDamage(errors.New("database disk image is malformed")) {
		t.Error("IsDamage is true for an error that is not SQLite's")
	}
}

// A file held locked by another process's transaction stays where it is:
// Open fails with the lock error, and nothing is moved aside.
func TestOpenLeavesALockedFileAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	fill(t, path, 3)
	// Rollback-journal mode, so an exclusive transaction keeps readers out.
	holder, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range []string{`PRAGMA journal_mode=DELETE`, `BEGIN EXCLUSIVE`, `INSERT INTO t (k, v) VALUES (99, 'x')`} {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	f, err := Open("test cache", path, openTest)
	if err == nil {
		f.Close()
		t.Fatal("opened a file another connection holds exclusively")
	}
	if IsDamage(err) {
		t.Errorf("the lock error counts as damage: %v", err)
	}
	if a := aside(t, path); len(a) != 0 {
		t.Errorf("a locked file was moved aside: %v", a)
	}
	conn.ExecContext(context.Background(), `ROLLBACK`)
	f, err = Open("test cache", path, openTest)
	if err != nil {
		t.Fatalf("after the lock is released: %v", err)
	}
	var n int
	f.Do(func(d *testDB) error { return d.db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n) })
	f.Close()
	if n != 3 {
		t.Errorf("%d rows after the lock, want the 3 there were", n)
	}
}

// Many queries meeting one damaged page replace the file once; each of
// them sees ErrReplaced or a sound answer, and later queries use the new
// file.
func TestDoReplacesOnceUnderConcurrentQueries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	fill(t, path, 400)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096 * 3; i < 4096*4; i++ { // a page of the table
		b[i] = 0xA5
	}
	os.WriteFile(path, b, 0o644)
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")

	f, err := Open("test cache", path, openTest)
	if err != nil {
		t.Fatalf("the damage is not on a page read at open, yet: %v", err)
	}
	var log bytes.Buffer
	f.Log(&log)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := f.Do(func(d *testDB) error {
				var s sql.NullString // NULL once the file is the fresh one
				return d.db.QueryRow(`SELECT group_concat(v) FROM t`).Scan(&s)
			})
			if err != nil && !errors.Is(err, ErrReplaced) {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a query failed with %v", err)
	}
	if a := aside(t, path); len(a) != 1 {
		t.Errorf("set aside: %v; want the one file", a)
	}
	if n := strings.Count(log.String(), "\n"); n != 1 {
		t.Errorf("log has %d lines, want 1:\n%s", n, log.String())
	}
	var n int
	if err := f.Do(func(d *testDB) error { return d.db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n) }); err != nil || n != 0 {
		t.Errorf("after the swap: %d rows, %v; want an empty file", n, err)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
}

// A damaged file that another process has already replaced is not moved
// again: the sound file now at the path stays.
func TestMoveAsideLeavesAnotherProcesssFreshFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.sqlite")
	os.WriteFile(path, []byte("damaged"), 0o644)
	opened, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// The other process: moves it away and makes a fresh one.
	os.Rename(path, path+".damaged-elsewhere")
	fill(t, path, 1)
	to, err := moveAside(path, opened, time.Now())
	if err != nil || to != "" {
		t.Fatalf("moveAside = %q, %v; want nothing moved", to, err)
	}
	if _, err := openTest(path); err != nil {
		t.Errorf("the fresh file is gone or hurt: %v", err)
	}
	// Moved twice in one second, the names differ.
	now := time.Now()
	a, err := moveAside(path, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("damaged again"), 0o644)
	b, err := moveAside(path, nil, now)
	if err != nil || a == b || a == "" || b == "" {
		t.Fatalf("two moves in one second: %q and %q, %v", a, b, err)
	}
	for _, p := range []string{a, a + "-wal", b} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
