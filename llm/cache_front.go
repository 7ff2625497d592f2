package llm

import (
	"context"
	"sync"
)

// PreloadBytesPerCall bounds Preload: the database (as its pages stand,
// write-ahead log included) is read whole only when it holds at most this
// many bytes per lookup the caller expects. A sequential scan costs far
// less per byte than an SQLite lookup costs per key (BenchmarkCachePreload
// against BenchmarkCacheHit), so at this bound the scan costs less than
// the hits it replaces.
const PreloadBytesPerCall = 1 << 10

// front is an in-memory copy of the cache's entries, read by one scan, so
// that a hit costs a map lookup instead of an SQLite query (which is most
// of a fully cached rerun's model work). Checksums are
// still checked on every hit (lookup), so a damaged entry is counted and
// asked again as before; stores update it after the file.
type front struct {
	ready chan struct{} // closed when the scan has finished
	mu    sync.RWMutex
	m     map[string]entry
	ok    bool // the scan succeeded; otherwise every read goes to the file
}

// Preload reads the whole cache into memory, in the background, when the
// file is small next to the expected number of lookups (expected times
// PreloadBytesPerCall); it reports whether it started. Lookups made before
// the scan ends wait for it. It is for a process that is about to make
// many calls, most of them likely hits (a rerun); a later Preload does
// nothing.
func (c *Cache) Preload(expected int) bool {
	if expected <= 0 || c.front.Load() != nil {
		return false
	}
	if size, err := c.Bytes(); err != nil || size > int64(expected)*PreloadBytesPerCall {
		return false
	}
	f := &front{ready: make(chan struct{})}
	if !c.front.CompareAndSwap(nil, f) {
		return false
	}
	go func() {
		defer close(f.ready)
		m, err := c.scan()
		if err != nil {
			return // reads go to the file, which reports its own errors
		}
		f.mu.Lock()
		f.m, f.ok = m, true
		f.mu.Unlock()
	}()
	return true
}

// scan reads every entry (one read transaction: a consistent snapshot).
// A file found damaged on the way is replaced (the scan then fails, and
// reads go to the fresh file).
func (c *Cache) scan() (map[string]entry, error) {
	m := map[string]entry{}
	err := c.file.Do(func(d *cacheDB) error {
		rows, err := d.db.Query(`SELECT key, kind, text, probs, input_tokens, output_tokens, crc FROM responses`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key string
			var e entry
			if err := rows.Scan(&key, &e.kind, &e.text, &e.probs, &e.in, &e.out, &e.crc); err != nil {
				return err
			}
			m[key] = e
		}
		return rows.Err()
	})
	return m, err
}

// get waits for the scan (or ctx) and returns key's entry if the scan
// found it or it was stored since.
func (f *front) get(ctx context.Context, key string) (entry, bool) {
	select {
	case <-f.ready:
	case <-ctx.Done():
		return entry{}, false // the file read reports ctx's error
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if !f.ok {
		return entry{}, false
	}
	e, ok := f.m[key]
	return e, ok
}

// put records a stored entry (after the scan, so the scan cannot replace
// it with an older copy).
func (f *front) put(key string, e entry) {
	<-f.ready
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ok {
		f.m[key] = e
	}
}

// Bytes is the database's size: its pages, counting those only in the
// write-ahead log (whose file keeps every version of a page).
func (c *Cache) Bytes() (int64, error) {
	var pages, size int64
	err := c.file.Do(func(d *cacheDB) error {
		if err := d.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
			return err
		}
		return d.db.QueryRow(`PRAGMA page_size`).Scan(&size)
	})
	return pages * size, err
}
