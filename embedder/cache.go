package embedder

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/membench/membench/internal/cachefile"
	"github.com/membench/membench/llm"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Cache is an llm.Embedder that keeps every vector on disk in SQLite, keyed
// by (embedder name, sha256 of the text), and sends only misses to the inner
// embedder. One *sql.DB in WAL mode with a busy timeout and a sized pool
// makes it safe for many goroutines and for several processes sharing the
// file.
//
// Each row carries the vector's length and a CRC-32C over key, length and
// bytes: a row that fails the check (a bit flip that left the SQLite file
// valid) is a miss, recomputed, overwritten and counted in Damaged, never
// a wrong vector. A file SQLite itself finds damaged, at open or on a
// query, is set aside and the cache starts again empty
// (internal/cachefile); the move is reported on Log.
//
// Layout, for ≤ 2.2 KB per 512-d entry: rows are appended to a rowid table
// (so its pages fill up) on 64 KiB pages (31 vectors per page instead of one
// per 4 KiB page with an overflow page), found through a 16-byte key index.
type Cache struct {
	inner   llm.Embedder
	name    string
	file    *cachefile.File[*vectorDB]
	path    string
	damaged atomic.Int64

	// Misses are written by one goroutine in batches (one transaction per
	// batch, not per Embed call): a commit rewrites whole 64 KiB WAL pages,
	// so a question's single vector committed alone cost more than
	// embedding it. Vectors waiting to be written are served from pending.
	wmu     sync.Mutex
	pending map[cacheKey][]float32
	queue   []cacheKey
	werr    error // the first failed batch; returned by Embed and Close
	kick    chan struct{}
	stopped chan struct{}
	closed  bool
}

// vectorDB is one open cache file.
type vectorDB struct {
	db      *sql.DB
	get     *sql.Stmt
	getMany *sql.Stmt // lookupChunk keys at once
	put     *sql.Stmt
}

func (d *vectorDB) Close() error { return cachefile.CloseDB(d.db, d.get, d.getMany, d.put) }

// lookupChunk is the number of keys per prepared SELECT ... IN (...); a
// shorter remainder is looked up key by key.
const lookupChunk = 64

// keyLen is the stored key width: the first 16 bytes of sha256(name, 0,
// sha256(text)); 128 bits make a collision practically impossible.
const keyLen = 16

// pageSize must be set before the first table exists.
const pageSize = 65536

// NewCache opens (creating if needed) the cache file at path. Entries of
// files written before entries carried checksums cannot be verified, so
// they count as misses.
func NewCache(inner llm.Embedder, path string) (*Cache, error) {
	if inner == nil {
		return nil, fmt.Errorf("embedding cache %s: no inner embedder", path)
	}
	f, err := cachefile.Open("embedding cache", path, openVectorDB)
	if err != nil {
		return nil, err
	}
	c := &Cache{inner: inner, name: inner.Name(), file: f, path: path}
	c.pending = map[cacheKey][]float32{}
	c.kick = make(chan struct{}, 1)
	c.stopped = make(chan struct{})
	go c.writer()
	return c, nil
}

// openVectorDB opens the file, making (or replacing) the table.
func openVectorDB(path string) (*vectorDB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Reads copy pages into SQLite's bounded page cache rather than mapping
	// the file: every mapped page a read touches stays in the process's
	// resident set, so a warm run's RSS would grow with the cache file.
	q.Add("_pragma", "mmap_size(0)")
	// The page cache holds the key index's pages (about 25 bytes an entry)
	// up to 128 pages (8 MiB) a connection; with SQLite's default of 2 MB
	// a batch of random keys re-read most index pages from the file.
	q.Add("_pragma", "cache_size(128)")
	q.Add("_pragma", "wal_autocheckpoint(64)") // checkpoint soon (64 pages = 4 MiB)
	q.Set("_txlock", "immediate")              // writers take the lock up front: no upgrade deadlocks
	db, st, err := cachefile.OpenDB("embedding cache", path, "file:"+path+"?"+q.Encode(), setUp,
		`SELECT key, dim, crc, vec FROM vectors WHERE key = ?`,
		`SELECT key, dim, crc, vec FROM vectors WHERE key IN (?`+strings.Repeat(",?", lookupChunk-1)+`)`,
		`INSERT OR REPLACE INTO vectors (key, dim, crc, vec) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	return &vectorDB{db: db, get: st[0], getMany: st[1], put: st[2]}, nil
}

// setUp gives a new file 64 KiB pages and WAL and creates the table. It
// runs on one connection: page_size is a per-connection setting until the
// file is written.
func setUp(db *sql.DB) error {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA page_size=%d`, pageSize)); err != nil { // no-op once the file exists
		return err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA journal_mode=WAL`); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS vectors (
		id INTEGER PRIMARY KEY,
		key BLOB NOT NULL UNIQUE,
		dim INTEGER NOT NULL,
		crc INTEGER NOT NULL,
		vec BLOB NOT NULL)`)
	return err
}

// Log sends the notes about a damaged file set aside to w (the run's log):
// any made at open at once, later ones as they happen.
func (c *Cache) Log(w io.Writer) { c.file.Log(w) }

// Name is the inner embedder's name: cached vectors are the same vectors.
func (c *Cache) Name() string { return c.name }

// Damaged is the number of entries found damaged (and recomputed) so far.
func (c *Cache) Damaged() int64 { return c.damaged.Load() }

// Close writes the vectors still pending and closes the database.
func (c *Cache) Close() error {
	c.wmu.Lock()
	already := c.closed
	c.closed = true
	c.wmu.Unlock()
	if !already {
		close(c.kick)
		<-c.stopped
	}
	err := c.file.Close()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	return err
}

// writer writes queued vectors, a batch per transaction, until Close.
func (c *Cache) writer() {
	defer close(c.stopped)
	for {
		_, open := <-c.kick
		for {
			c.wmu.Lock()
			keys := c.queue
			c.queue = nil
			vecs := make([][]float32, len(keys))
			for i, k := range keys {
				vecs[i] = c.pending[k]
			}
			c.wmu.Unlock()
			if len(keys) == 0 {
				break
			}
			err := c.store(context.Background(), keys, vecs)
			c.wmu.Lock()
			for _, k := range keys {
				delete(c.pending, k)
			}
			if err != nil && c.werr == nil {
				c.werr = err
			}
			c.wmu.Unlock()
		}
		if !open {
			return
		}
	}
}

// enqueue hands computed vectors to the writer; they are served from
// memory until written.
func (c *Cache) enqueue(keys []cacheKey, vecs [][]float32) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	if c.closed {
		return fmt.Errorf("embedding cache %s: closed", c.path)
	}
	for i, k := range keys {
		if len(vecs[i]) == 0 {
			continue // nothing to key an entry by; the embedder's own problem
		}
		// A key already pending keeps its vector (the same text's), so
		// every pending key is in the queue exactly once.
		if _, ok := c.pending[k]; !ok {
			c.queue = append(c.queue, k)
			c.pending[k] = vecs[i]
		}
	}
	select {
	case c.kick <- struct{}{}:
	default: // the writer is already due to run
	}
	return nil
}

// Flush blocks until every vector handed to the writer so far is written.
func (c *Cache) Flush() error {
	for {
		c.wmu.Lock()
		n, err := len(c.pending), c.werr
		c.wmu.Unlock()
		if err != nil || n == 0 {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

type cacheKey [keyLen]byte

func (c *Cache) key(text string) cacheKey {
	t := sha256.Sum256([]byte(text))
	h := sha256.New()
	h.Write([]byte(c.name))
	h.Write([]byte{0})
	h.Write(t[:])
	return cacheKey(h.Sum(nil))
}

// Embed returns cached vectors and computes only the missing ones, each
// distinct text once.
func (c *Cache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	where := make(map[cacheKey][]int, len(texts)) // key -> positions in texts
	var uniq []cacheKey
	for i, t := range texts {
		k := c.key(t)
		if _, ok := where[k]; !ok {
			uniq = append(uniq, k)
		}
		where[k] = append(where[k], i)
	}
	found, err := c.lookup(ctx, uniq)
	if err != nil {
		return nil, err
	}
	var missTexts []string
	var missKeys []cacheKey
	for _, k := range uniq {
		if v, ok := found[k]; ok {
			for _, i := range where[k] {
				out[i] = v
			}
			continue
		}
		missKeys = append(missKeys, k)
		missTexts = append(missTexts, texts[where[k][0]])
	}
	if len(missTexts) == 0 {
		return out, nil
	}
	vecs, err := c.inner.Embed(ctx, missTexts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(missTexts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", c.name, len(vecs), len(missTexts))
	}
	if err := c.enqueue(missKeys, vecs); err != nil {
		return nil, err
	}
	for j, k := range missKeys {
		for _, i := range where[k] {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

func (c *Cache) lookup(ctx context.Context, keys []cacheKey) (map[cacheKey][]float32, error) {
	found := make(map[cacheKey][]float32, len(keys))
	c.wmu.Lock()
	if len(c.pending) > 0 {
		rest := keys[:0:0]
		for _, k := range keys {
			if v, ok := c.pending[k]; ok {
				found[k] = v
			} else {
				rest = append(rest, k)
			}
		}
		keys = rest
	}
	c.wmu.Unlock()
	// A file found damaged is replaced by an empty one: the keys not read
	// yet are misses.
	read := func(query func(d *vectorDB) (*sql.Rows, error)) error {
		return c.file.Do(func(d *vectorDB) error {
			rows, err := query(d)
			if err == nil {
				err = c.readRows(rows, found)
			}
			if err != nil {
				return fmt.Errorf("embedding cache %s: %w", c.path, err)
			}
			return nil
		})
	}
	// Whole chunks by the prepared IN (...) query, the remainder key by key.
	args := make([]any, lookupChunk)
	for lo := 0; lo < len(keys); {
		query, n := func(d *vectorDB) (*sql.Rows, error) { return d.get.QueryContext(ctx, keys[lo][:]) }, 1
		if len(keys)-lo >= lookupChunk {
			for i := range lookupChunk {
				args[i] = keys[lo+i][:]
			}
			query, n = func(d *vectorDB) (*sql.Rows, error) { return d.getMany.QueryContext(ctx, args...) }, lookupChunk
		}
		err := read(query)
		if errors.Is(err, cachefile.ErrReplaced) {
			return found, nil
		}
		if err != nil {
			return nil, err
		}
		lo += n
	}
	return found, nil
}

// readRows adds the sound entries among rows to found; the others are
// counted damaged (misses: the store overwrites them).
func (c *Cache) readRows(rows *sql.Rows, found map[cacheKey][]float32) error {
	defer rows.Close()
	for rows.Next() {
		var h, blob []byte
		var dim int64
		var crc int64
		if err := rows.Scan(&h, &dim, &crc, &blob); err != nil {
			return err
		}
		if len(h) != keyLen || dim < 0 || int64(len(blob)) != 4*dim || uint32(crc) != checksum(h, blob) || crc>>32 != 0 {
			c.damaged.Add(1)
			continue
		}
		found[cacheKey(h)] = llm.VectorOf(blob)
	}
	return rows.Err()
}

// store writes a batch in one transaction; a file found damaged meanwhile
// is replaced, and the batch written to the fresh one.
func (c *Cache) store(ctx context.Context, keys []cacheKey, vecs [][]float32) error {
	return c.file.Write(func(d *vectorDB) error {
		if err := c.write(ctx, d, keys, vecs); err != nil {
			return fmt.Errorf("embedding cache %s: %w", c.path, err)
		}
		return nil
	})
}

func (c *Cache) write(ctx context.Context, d *vectorDB, keys []cacheKey, vecs [][]float32) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st := tx.StmtContext(ctx, d.put)
	for i, k := range keys {
		blob := llm.Vector(vecs[i]).Bytes()
		if _, err := st.ExecContext(ctx, k[:], len(vecs[i]), int64(checksum(k[:], blob)), blob); err != nil {
			return err
		}
	}
	return tx.Commit()
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum covers the key and the vector bytes (whose length is the
// dimension): a vector moved to another key fails it as well as a flipped bit.
func checksum(key, blob []byte) uint32 {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(blob)))
	s := crc32.Update(0, castagnoli, key)
	s = crc32.Update(s, castagnoli, n[:])
	return crc32.Update(s, castagnoli, blob)
}
