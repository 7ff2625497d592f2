package embedder

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/membench/membench/llm"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Cache is an llm.Embedder that keeps every vector on disk in SQLite, keyed
// by (embedder name, sha256 of the text), and sends only misses to the inner
// embedder. One *sql.DB in WAL mode with a busy timeout makes it safe for
// many goroutines and for several processes sharing the file.
type Cache struct {
	inner llm.Embedder
	name  string
	db    *sql.DB
	path  string
}

// lookupChunk bounds the number of keys per SELECT ... IN (...).
const lookupChunk = 400

// NewCache opens (creating if needed) the cache file at path.
func NewCache(inner llm.Embedder, path string) (*Cache, error) {
	if inner == nil {
		return nil, fmt.Errorf("embedding cache %s: no inner embedder", path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("embedding cache %s: %w", path, err)
		}
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate") // writers take the lock up front: no upgrade deadlocks
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("embedding cache %s: %w", path, err)
	}
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS embeddings (
		embedder TEXT NOT NULL,
		text_sha256 BLOB NOT NULL,
		vec BLOB NOT NULL,
		PRIMARY KEY (embedder, text_sha256)
	) WITHOUT ROWID`); err != nil {
		db.Close()
		return nil, fmt.Errorf("embedding cache %s: not a usable SQLite file (%v); delete it to start a fresh cache", path, err)
	}
	return &Cache{inner: inner, name: inner.Name(), db: db, path: path}, nil
}

// Name is the inner embedder's name: cached vectors are the same vectors.
func (c *Cache) Name() string { return c.name }

// Close closes the database.
func (c *Cache) Close() error { return c.db.Close() }

// Embed returns cached vectors and computes only the missing ones, each
// distinct text once.
func (c *Cache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	where := map[[32]byte][]int{} // key -> positions in texts
	var uniq [][32]byte
	for i, t := range texts {
		k := sha256.Sum256([]byte(t))
		keys[i] = k
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
	var missKeys [][32]byte
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
	if err := c.store(ctx, missKeys, vecs); err != nil {
		return nil, err
	}
	for j, k := range missKeys {
		for _, i := range where[k] {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

func (c *Cache) lookup(ctx context.Context, keys [][32]byte) (map[[32]byte][]float32, error) {
	found := make(map[[32]byte][]float32, len(keys))
	for lo := 0; lo < len(keys); lo += lookupChunk {
		chunk := keys[lo:min(lo+lookupChunk, len(keys))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, c.name)
		for _, k := range chunk {
			args = append(args, k[:])
		}
		q := "SELECT text_sha256, vec FROM embeddings WHERE embedder = ? AND text_sha256 IN (?" +
			strings.Repeat(",?", len(chunk)-1) + ")"
		rows, err := c.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("embedding cache %s: %w", c.path, err)
		}
		for rows.Next() {
			var h, blob []byte
			if err := rows.Scan(&h, &blob); err != nil {
				rows.Close()
				return nil, fmt.Errorf("embedding cache %s: %w", c.path, err)
			}
			var k [32]byte
			if len(h) != len(k) || len(blob)%4 != 0 {
				continue // a damaged row is a miss; the store overwrites it
			}
			copy(k[:], h)
			found[k] = decodeVec(blob)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("embedding cache %s: %w", c.path, err)
		}
	}
	return found, nil
}

func (c *Cache) store(ctx context.Context, keys [][32]byte, vecs [][]float32) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("embedding cache %s: %w", c.path, err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, "INSERT OR REPLACE INTO embeddings (embedder, text_sha256, vec) VALUES (?, ?, ?)")
	if err != nil {
		return fmt.Errorf("embedding cache %s: %w", c.path, err)
	}
	defer st.Close()
	for i, k := range keys {
		if _, err := st.ExecContext(ctx, c.name, k[:], encodeVec(vecs[i])); err != nil {
			return fmt.Errorf("embedding cache %s: %w", c.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("embedding cache %s: %w", c.path, err)
	}
	return nil
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
