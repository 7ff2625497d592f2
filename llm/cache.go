package llm

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers driver "sqlite"
)

// Cache stores model responses in SQLite, keyed by everything that changes
// what the server sees (see cacheKey). One *sql.DB per file, safe for
// concurrent use; WAL lets several processes read while one writes.
//
// A hit returns Cached=true with the usage of the original call, so a meter
// counts it as a cached call and still reports the tokens it stands for;
// cost reports subtract cached calls' tokens if they want money spent.
type Cache struct {
	db   *sql.DB
	path string
}

// cacheVersion is bumped when the key or stored value changes meaning.
const cacheVersion = 1

// NewCache opens (creating if needed) the cache file at path.
func NewCache(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("llm cache: empty path; pass a file such as .membench/cache.sqlite or disable the cache")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("llm cache %s: %w", path, err)
		}
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("llm cache %s: %w", path, err)
	}
	_, err = db.Exec(`CREATE TABLE IF NOT EXISTS responses (
		key TEXT PRIMARY KEY,
		kind TEXT NOT NULL,
		model TEXT NOT NULL,
		text TEXT NOT NULL DEFAULT '',
		probs TEXT NOT NULL DEFAULT '',
		input_tokens INTEGER NOT NULL,
		output_tokens INTEGER NOT NULL,
		created_at TEXT NOT NULL)`)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("llm cache %s: cannot create table (is it an SQLite file?): %w", path, err)
	}
	return &Cache{db: db, path: path}, nil
}

// Close closes the database.
func (c *Cache) Close() error { return c.db.Close() }

// Path is the cache file.
func (c *Cache) Path() string { return c.path }

// Len counts stored responses.
func (c *Cache) Len() (int, error) {
	var n int
	err := c.db.QueryRow(`SELECT COUNT(*) FROM responses`).Scan(&n)
	return n, err
}

// cacheKey lists every input that changes a response. Task, Stage, Label
// and Inputs are left out: the server never sees them. The API key is not
// part of ModelID and so never stored.
type cacheKey struct {
	Version     int       `json:"v"`
	Backend     string    `json:"backend"`
	Model       string    `json:"model"`
	BaseURL     string    `json:"base_url"`
	Kind        string    `json:"kind"` // chat | decide
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens"`
	JSON        bool      `json:"json"`
	Seed        *int      `json:"seed"`
	Choices     []string  `json:"choices"`
}

// hash is the sha256 of the key's JSON; struct fields marshal in a fixed
// order, so the encoding is canonical.
func (k cacheKey) hash() string {
	k.Version = cacheVersion
	b, err := json.Marshal(k)
	if err != nil {
		panic("llm cache: key not marshalable: " + err.Error())
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func chatKey(id ModelID, req Request) string {
	return cacheKey{Backend: id.Backend, Model: id.Model, BaseURL: id.BaseURL, Kind: "chat",
		Messages: req.Messages, Temperature: req.Temperature, MaxTokens: req.MaxTokens,
		JSON: req.JSON, Seed: req.Seed}.hash()
}

func decideKey(id ModelID, req DecideRequest) string {
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

func (w *Cached) ID() ModelID { return w.Inner.ID() }

func (w *Cached) Chat(ctx context.Context, req Request) (Response, error) {
	id := w.Inner.ID()
	key := chatKey(id, req)
	var r Response
	found, err := w.Cache.get(ctx, key, &r.Text, nil, &r.Usage)
	if err != nil {
		return Response{}, err
	}
	if found {
		r.Cached = true
		return r, nil
	}
	r, err = w.Inner.Chat(ctx, req)
	if err != nil {
		return r, err
	}
	return r, w.Cache.put(ctx, key, "chat", id.Model, r.Text, "", r.Usage)
}

func (w *Cached) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	id := w.Inner.ID()
	key := decideKey(id, req)
	var r DecideResponse
	var probs string
	found, err := w.Cache.get(ctx, key, nil, &probs, &r.Usage)
	if err != nil {
		return DecideResponse{}, err
	}
	if found {
		if err := json.Unmarshal([]byte(probs), &r.Probs); err != nil {
			return DecideResponse{}, fmt.Errorf("llm cache %s: corrupt entry %s: %w", w.Cache.path, key, err)
		}
		r.Cached = true
		return r, nil
	}
	r, err = w.Inner.Decide(ctx, req)
	if err != nil {
		return r, err
	}
	b, err := json.Marshal(r.Probs)
	if err != nil {
		return r, err
	}
	return r, w.Cache.put(ctx, key, "decide", id.Model, "", string(b), r.Usage)
}

func (c *Cache) get(ctx context.Context, key string, text, probs *string, u *Usage) (bool, error) {
	var t, p string
	err := c.db.QueryRowContext(ctx,
		`SELECT text, probs, input_tokens, output_tokens FROM responses WHERE key = ?`, key).
		Scan(&t, &p, &u.InputTokens, &u.OutputTokens)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("llm cache %s: read: %w", c.path, err)
	}
	if text != nil {
		*text = t
	}
	if probs != nil {
		*probs = p
	}
	return true, nil
}

func (c *Cache) put(ctx context.Context, key, kind, model, text, probs string, u Usage) error {
	// OR REPLACE: two concurrent misses of one key store the same thing.
	_, err := c.db.ExecContext(ctx,
		`INSERT OR REPLACE INTO responses (key, kind, model, text, probs, input_tokens, output_tokens, created_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		key, kind, model, text, probs, u.InputTokens, u.OutputTokens, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return fmt.Errorf("llm cache %s: write: %w", c.path, err)
	}
	return nil
}
