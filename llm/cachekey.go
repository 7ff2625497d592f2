package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"sync"

	"github.com/membench/membench/internal/jsonenc"
)

// keyHasher writes a cacheKey's JSON, byte for byte what json.Marshal
// writes for it, into sha256 through a reused buffer, because every cached
// call hashes a key and encoding/json's reflection and per-byte escaping
// showed in a warm rerun's profile.
// TestCacheKeyIsMarshalHash, FuzzCacheKeyHash and
// TestCacheKeyHashCoversEveryField hold it to json.Marshal.
type keyHasher struct {
	h   hash.Hash
	buf []byte // pieces gathered before each write
}

var keyHashers = sync.Pool{New: func() any { return &keyHasher{h: sha256.New(), buf: make([]byte, 0, 4<<10)} }}

// hashOf returns the hex sha256 of k's JSON; ok is false for a key
// json.Marshal would refuse (a temperature that is NaN or infinite).
func hashOf(k cacheKey) (sum string, ok bool) {
	if !jsonenc.Finite(k.Temperature) {
		return "", false
	}
	w, b := getHasher()
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(k.Version), 10)
	b = append(b, `,"backend":`...)
	b = jsonenc.String(b, k.Backend)
	b = append(b, `,"model":`...)
	b = jsonenc.String(b, k.Model)
	b = append(b, `,"base_url":`...)
	b = jsonenc.String(b, k.BaseURL)
	b = append(b, `,"kind":`...)
	b = jsonenc.String(b, k.Kind)
	b = append(b, `,"messages":`...)
	b = w.messages(b, k.Messages)
	b = append(b, `,"temperature":`...)
	b = jsonenc.Float(b, k.Temperature, 64)
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(k.MaxTokens), 10)
	b = append(b, `,"json":`...)
	b = strconv.AppendBool(b, k.JSON)
	b = append(b, `,"seed":`...)
	if k.Seed == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*k.Seed), 10)
	}
	b = append(b, `,"choices":`...)
	b = jsonenc.Strings(b, k.Choices)
	b = append(b, '}')
	return w.sum(b), true
}

// getHasher is a reset keyHasher and its empty buffer.
func getHasher() (*keyHasher, []byte) {
	w := keyHashers.Get().(*keyHasher)
	w.h.Reset()
	return w, w.buf[:0]
}

// sum hashes the rest of the JSON, b, returns the hex digest and puts w
// back.
func (w *keyHasher) sum(b []byte) string {
	w.h.Write(b)
	if cap(b) <= 64<<10 {
		w.buf = b[:0] // a long prompt's buffer is not kept
	}
	var s [sha256.Size]byte
	out := hex.EncodeToString(w.h.Sum(s[:0]))
	keyHashers.Put(w)
	return out
}

// messages appends msgs as json.Marshal writes a []Message (null for
// nil), hashing what is gathered as it grows.
func (w *keyHasher) messages(b []byte, msgs []Message) []byte {
	if msgs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = m.AppendJSON(b)
		b = w.flushLarge(b)
	}
	return append(b, ']')
}

// flushLarge hashes what b holds once it is large, so the buffer stays
// near one message's size.
func (w *keyHasher) flushLarge(b []byte) []byte {
	if len(b) < 4<<10 {
		return b
	}
	w.h.Write(b)
	return b[:0]
}
