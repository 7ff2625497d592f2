package llm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/cachefile"
	_ "modernc.org/sqlite" // registers driver "sqlite"
)

// Cache stores model responses in SQLite, keyed by everything that changes
// what the server sees (see cacheKey). One *sql.DB per file, safe for
// concurrent use; WAL lets several processes read while one writes.
//
// A hit returns Cached=true with the usage of the original call, so a meter
// counts it as a cached call and still reports the tokens it stands for;
// cost reports subtract cached calls' tokens if they want money spent.
//
// Each entry carries a CRC-32C of what a hit returns (see entrySum): an
// entry that fails it (a bit flip that left the SQLite file valid) is a
// miss, asked again, overwritten and counted in Damaged. A file SQLite
// itself finds damaged, at open or on a query, is set aside and the cache
// starts again empty (internal/cachefile); the move is reported on Log.
type Cache struct {
	file    *cachefile.File[*cacheDB]
	path    string
	damaged atomic.Int64
	front   atomic.Pointer[front] // nil until Preload starts one
}

// cacheDB is one open cache file.
type cacheDB struct {
	db  *sql.DB
	get *sql.Stmt
	put *sql.Stmt
}

func (d *cacheDB) Close() error { return cachefile.CloseDB(d.db, d.get, d.put) }

// cacheVersion is bumped when the key or stored value changes meaning.
const cacheVersion = 1

// NewCache opens (creating if needed) the cache file at path. Notes about
// a damaged file set aside wait for Log (Close writes any left to stderr).
func NewCache(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("llm cache: empty path; pass a file such as .membench/cache.sqlite or disable the cache")
	}
	f, err := cachefile.Open("llm cache", path, openCacheDB)
	if err != nil {
		return nil, err
	}
	return &Cache{file: f, path: path}, nil
}

// openCacheDB opens the file, making the table. An entry without a
// checksum (crc NULL) is damaged: asked again.
func openCacheDB(path string) (*cacheDB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	setUp := func(db *sql.DB) error {
		_, err := db.Exec(`CREATE TABLE IF NOT EXISTS responses (
		key TEXT PRIMARY KEY,
		kind TEXT NOT NULL,
		model TEXT NOT NULL,
		text TEXT NOT NULL DEFAULT '',
		probs TEXT NOT NULL DEFAULT '',
		input_tokens INTEGER NOT NULL,
		output_tokens INTEGER NOT NULL,
		created_at TEXT NOT NULL,
		crc INTEGER)`)
		return err
	}
	db, st, err := cachefile.OpenDB("llm cache", path, dsn, setUp,
		`SELECT kind, text, probs, input_tokens, output_tokens, crc FROM responses WHERE key = ?`,
		// OR REPLACE: two concurrent misses of one key store the same thing,
		// and a damaged entry is overwritten.
		`INSERT OR REPLACE INTO responses
			(key, kind, model, text, probs, input_tokens, output_tokens, created_at, crc)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	return &cacheDB{db: db, get: st[0], put: st[1]}, nil
}

// Close closes the database.
func (c *Cache) Close() error { return c.file.Close() }

// Log sends the notes about a damaged file set aside to w (the run's log):
// any made at open at once, later ones as they happen.
func (c *Cache) Log(w io.Writer) { c.file.Log(w) }

// Damaged is the number of entries found damaged (and asked again) so far.
func (c *Cache) Damaged() int64 { return c.damaged.Load() }

// Path is the cache file.
func (c *Cache) Path() string { return c.path }

// Len counts stored responses.
func (c *Cache) Len() (int, error) {
	var n int
	err := c.file.Do(func(d *cacheDB) error {
		return d.db.QueryRow(`SELECT COUNT(*) FROM responses`).Scan(&n)
	})
	return n, err
}

// cacheKey lists every input that changes a response. Task, Stage, Label
// and Inputs are left out: the server never sees them. The API key is not
// part of ModelID and so never stored.
type cacheKey struct {
	Version     int                `json:"v"`
	Backend     string             `json:"backend"`
	Model       string             `json:"model"`
	BaseURL     string             `json:"base_url"`
	Kind        string             `json:"kind"` // chat | decide
	Messages    []membench.Message `json:"messages"`
	Temperature float64            `json:"temperature"`
	MaxTokens   int                `json:"max_tokens"`
	JSON        bool               `json:"json"`
	Seed        *int               `json:"seed"`
	Choices     []string           `json:"choices"`
}

// hash is the sha256 of the key's JSON (json.Marshal's bytes); struct fields marshal in a fixed order, so the encoding is
// canonical.
func (k cacheKey) hash() string {
	k.Version = cacheVersion
	b, err := json.Marshal(k)
	if err != nil {
		panic("llm cache: key not marshalable: " + err.Error())
	}
	return HashText(string(b))
}

func chatKey(id membench.ModelID, req Request) string {
	return cacheKey{Backend: id.Backend, Model: id.Model, BaseURL: id.BaseURL, Kind: "chat",
		Messages: req.Messages, Temperature: req.Temperature, MaxTokens: req.MaxTokens,
		JSON: req.JSON, Seed: req.Seed}.hash()
}

func decideKey(id membench.ModelID, req DecideRequest) string {
	return cacheKey{Backend: id.Backend, Model: id.Model, BaseURL: id.BaseURL, Kind: "decide",
		Messages: req.Messages, Choices: req.Choices}.hash()
}

// Wrap returns m with its successful responses cached.
func (c *Cache) Wrap(m Model) Model { return &Cached{Inner: m, Cache: c} }

// Cached is a model whose responses go through a Cache.
type Cached struct {
	Inner Model
	Cache *Cache
}

func (w *Cached) ID() membench.ModelID { return w.Inner.ID() }

func (w *Cached) Chat(ctx context.Context, req Request) (Response, error) {
	id := w.Inner.ID()
	key := chatKey(id, req)
	if !req.Fresh {
		e, found, err := w.Cache.lookup(ctx, key, "chat")
		if err != nil {
			return Response{}, err
		}
		// An entry the caller cannot use (stored before it said so) is a
		// miss: it is asked again and overwritten by a usable reply.
		if found && (req.Accept == nil || req.Accept(e.text) == nil) {
			return Response{Text: e.text, Usage: e.usage(), Cached: true}, nil
		}
	}
	r, err := w.Inner.Chat(ctx, req)
	if err != nil {
		return r, err
	}
	if req.Accept != nil && req.Accept(r.Text) != nil {
		return r, nil // never kept: a re-ask must reach the server
	}
	return r, w.Cache.store(ctx, key, "chat", id.Model, r.Text, "", r.Usage)
}

func (w *Cached) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	id := w.Inner.ID()
	key := decideKey(id, req)
	e, found, err := w.Cache.lookup(ctx, key, "decide")
	if err != nil {
		return DecideResponse{}, err
	}
	if found {
		r := DecideResponse{Usage: e.usage(), Cached: true}
		if err := json.Unmarshal([]byte(e.probs), &r.Probs); err != nil {
			return DecideResponse{}, fmt.Errorf("llm cache %s: corrupt entry %s: %w", w.Cache.path, key, err)
		}
		return r, nil
	}
	r, err := w.Inner.Decide(ctx, req)
	if err != nil {
		return r, err
	}
	b, err := json.Marshal(r.Probs)
	if err != nil {
		return r, err
	}
	return r, w.Cache.store(ctx, key, "decide", id.Model, "", string(b), r.Usage)
}

// entry is a stored response as read, before its checksum is checked.
type entry struct {
	kind, text, probs string
	in, out           int
	crc               sql.NullInt64
}

func (e entry) usage() membench.Usage { return membench.Usage{InputTokens: e.in, OutputTokens: e.out} }

// lookup reads an entry of the given kind; a missing or damaged one is a
// miss (found false).
func (c *Cache) lookup(ctx context.Context, key, kind string) (entry, bool, error) {
	e, found, err := c.read(ctx, key)
	if err != nil || !found {
		return entry{}, false, err
	}
	if !e.crc.Valid || e.crc.Int64 != int64(entrySum(key, e.kind, e.text, e.probs, e.in, e.out)) || e.kind != kind {
		c.damaged.Add(1)
		return entry{}, false, nil
	}
	return e, true, nil
}

// read returns key's entry from the preloaded front when there is one and
// it holds the key, else from the file. A key the front lacks is still
// asked of the file: another process may have stored it since the scan.
func (c *Cache) read(ctx context.Context, key string) (entry, bool, error) {
	if f := c.front.Load(); f != nil {
		if e, ok := f.get(ctx, key); ok {
			return e, true, nil
		}
	}
	var e entry
	err := c.file.Do(func(d *cacheDB) error {
		err := d.get.QueryRowContext(ctx, key).Scan(&e.kind, &e.text, &e.probs, &e.in, &e.out, &e.crc)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("llm cache %s: read: %w", c.path, err)
		}
		return err
	})
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, cachefile.ErrReplaced) {
		return entry{}, false, nil // a fresh file holds nothing
	}
	if err != nil {
		return entry{}, false, err
	}
	return e, true, nil
}

func (c *Cache) store(ctx context.Context, key, kind, model, text, probs string, u membench.Usage) error {
	crc := entrySum(key, kind, text, probs, u.InputTokens, u.OutputTokens)
	put := func(d *cacheDB) error {
		_, err := d.put.ExecContext(ctx, key, kind, model, text, probs, u.InputTokens, u.OutputTokens,
			time.Now().UTC().Format(time.RFC3339), int64(crc))
		if err != nil {
			return fmt.Errorf("llm cache %s: write: %w", c.path, err)
		}
		return nil
	}
	if err := c.file.Write(put); err != nil {
		return err
	}
	if f := c.front.Load(); f != nil {
		// What the file now holds (a re-ask with Fresh replaces an entry).
		f.put(key, entry{kind: kind, text: text, probs: probs, in: u.InputTokens, out: u.OutputTokens,
			crc: sql.NullInt64{Int64: int64(crc), Valid: true}})
	}
	return nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// entrySum is the CRC-32C of everything a hit returns, each field
// length-prefixed so that no two entries share an encoding.
func entrySum(key, kind, text, probs string, in, out int) uint32 {
	var s uint32
	for _, f := range []string{key, kind, text, probs, strconv.Itoa(in), strconv.Itoa(out)} {
		s = crc32.Update(s, castagnoli, strconv.AppendInt(nil, int64(len(f)), 10))
		s = crc32.Update(s, castagnoli, []byte{':'})
		s = crc32.Update(s, castagnoli, []byte(f))
	}
	return s
}
