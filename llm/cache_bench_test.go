package llm

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/membench/membench"
)

// BenchmarkCacheHit is one LLM-cache hit for an answer-sized prompt (about
// 2 KB of messages) in a cache of 4,000 entries, from 4 goroutines: what a
// fully cached rerun pays per request (key hashing and the SQLite read).
func BenchmarkCacheHit(b *testing.B) {
	c, err := NewCache(filepath.Join(b.TempDir(), "llm.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	id := membench.ModelID{Backend: "openai", Model: "m", BaseURL: "http://127.0.0.1:1/v1"}
	ctx := context.Background()
	const n = 4000
	reqs := make([]Request, n)
	for i := range reqs {
		ctxText := strings.Repeat(fmt.Sprintf("turn %d said something about the weather. ", i), 40)
		reqs[i] = Request{Messages: []membench.Message{{Role: "system", Content: "Answer from the context."}, {Role: "user", Content: ctxText + "\nQuestion?"}}, MaxTokens: 64}
		if err := c.store(ctx, chatKey(id, reqs[i]), "chat", id.Model, fmt.Sprint("answer ", i), "", membench.Usage{InputTokens: 500, OutputTokens: 5}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	b.SetParallelism(2) // 2 × GOMAXPROCS goroutines
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			_, found, err := c.lookup(ctx, chatKey(id, reqs[i%n]), "chat")
			if err != nil || !found {
				b.Fatalf("lookup: %v %v", found, err)
			}
			i += 7
		}
	})
	b.StopTimer()
	// CPU time, not wall: on a shared machine wall time moves with the load.
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCachePreload is Preload's scan of a cache of 4,000 answer-sized
// entries (what a fully cached LoCoMo rerun reads instead of 3,972
// lookups); cpu-µs/entry is its CPU per entry, to set next to
// BenchmarkCacheHit's cpu-µs/op.
func BenchmarkCachePreload(b *testing.B) {
	c, err := NewCache(filepath.Join(b.TempDir(), "llm.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	const n = 4000
	for i := range n {
		key := cacheKey{Model: "m", Messages: []membench.Message{{Role: "user", Content: fmt.Sprint("q", i)}}}.hash()
		if err := c.store(ctx, key, "chat", "m", fmt.Sprintf(`{"label": "CORRECT", "reason": "answer %d matches"}`, i), "", membench.Usage{InputTokens: 500, OutputTokens: 5}); err != nil {
			b.Fatal(err)
		}
	}
	size, err := c.Bytes()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for b.Loop() {
		m, err := c.scan()
		if err != nil || len(m) != n {
			b.Fatalf("scan: %d entries, %v", len(m), err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N)/n, "cpu-µs/entry")
	b.ReportMetric(float64(size)/n, "bytes/entry")
}
