// Package tokens is the program's one token counter (o200k_base, the
// gpt-4o family's encoding), so every reported token count agrees.
package tokens

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/tiktoken-go/tokenizer"
)

var codec = sync.OnceValue(func() tokenizer.Codec {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		panic("tokens: o200k_base unavailable: " + err.Error())
	}
	return enc
})

// Count returns the o200k_base token count of s. Counts are memoised by
// text (see memo): the harness counts the same turns, prompts and contexts
// many times, and the regexp-driven encoder is the expensive part. Long
// texts are counted in memoised pieces (see split.go), so a long turn is
// encoded once however many prompts hold it.
func Count(s string) int {
	if s == "" {
		return 0
	}
	return memoised(s, measure)
}

// memoised returns s's count from the memo or an open store, else from
// f, and keeps it in both.
func memoised(s string, f func(string) int) int {
	k := memoKey{maphash.String(seed, s), len(s)}
	sh := &counts.shards[k.h%memoShards]
	if n, ok := sh.get(k); ok {
		return n
	}
	// Then the counts earlier processes kept (see Store).
	var list []*Store
	var sk storeKey
	if p := stores.Load(); p != nil && len(*p) > 0 {
		list = *p
		sk = keyOf(s)
		if n, ok := fromStores(list, sk); ok {
			sh.put(k, n)
			return n
		}
	}
	n := f(s)
	sh.put(k, n)
	if list != nil {
		keep(list, sk, n)
	}
	return n
}

// measure counts a text the memo lacks: whole when short or when it has
// no cut, else as the sum of its memoised pieces.
func measure(s string) int {
	if len(s) < splitFrom {
		return count(s)
	}
	at := cuts(s)
	if len(at) == 0 {
		return count(s)
	}
	n, start := 0, 0
	for _, c := range at {
		n += memoised(s[start:c], count)
		start = c
	}
	return n + memoised(s[start:], count)
}

// encoded counts texts run through the encoder, encodedBytes their bytes
// (for tests).
var encoded, encodedBytes atomic.Int64

func count(s string) int {
	encoded.Add(1)
	encodedBytes.Add(int64(len(s)))
	n, err := codec().Count(s)
	if err != nil {
		return len(s) / 4
	}
	return n
}

// The memo is bounded and safe for concurrent use: shards with their own
// lock, each holding two generations of at most memoShardCap entries. When
// the current generation fills, it becomes the old one and the previous old
// one is dropped, so memory stays bounded and recently used texts survive
// (a hit in the old generation is moved to the current one).
//
// Keys are a 64-bit seeded hash plus the length: a wrong count needs two
// texts of one length to collide in 64 bits, which at a million distinct
// texts is about one chance in 10^7 per process (the seed differs per run).
const (
	memoShards   = 64
	memoShardCap = 2048 // x2 generations x64 shards: up to 262,144 texts, ~10 MB
)

type memoKey struct {
	h uint64
	n int
}

type memoShard struct {
	mu       sync.Mutex
	cur, old map[memoKey]int32
}

var (
	seed   = maphash.MakeSeed()
	counts struct{ shards [memoShards]memoShard }
)

func (m *memoShard) get(k memoKey) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.cur[k]; ok {
		return int(n), true
	}
	if n, ok := m.old[k]; ok {
		m.insert(k, n)
		return int(n), true
	}
	return 0, false
}

func (m *memoShard) put(k memoKey, n int) {
	m.mu.Lock()
	m.insert(k, int32(n))
	m.mu.Unlock()
}

func (m *memoShard) insert(k memoKey, n int32) {
	switch {
	case m.cur == nil:
		// Grown as texts come: sized for the cap up front, the 64 shards
		// would take fresh memory in every run that most runs, counting far
		// fewer texts than the cap, never use.
		m.cur = map[memoKey]int32{}
	case len(m.cur) >= memoShardCap:
		m.old, m.cur = m.cur, make(map[memoKey]int32, memoShardCap)
	}
	m.cur[k] = n
}

// perMessage is the chat format's overhead per message for the gpt-4o
// family: 3 separator tokens plus the role name, which is one token for
// system, user and assistant (OpenAI's cookbook counts the role's tokens on
// top of the 3).
const perMessage = 3 + 1

// CountMessages counts a chat prompt the way the API bills it, approximately:
// content tokens plus a fixed overhead per message and for the reply primer.
func CountMessages(contents ...string) int {
	n := 3
	for _, c := range contents {
		n += perMessage + Count(c)
	}
	return n
}

// Truncate returns the longest prefix of s that has at most n tokens,
// cut at a token boundary.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	ids, _, err := codec().Encode(s)
	if err != nil || len(ids) <= n {
		return s
	}
	out, err := codec().Decode(ids[:n])
	if err != nil {
		return s
	}
	return out
}
