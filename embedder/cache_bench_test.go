package embedder

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// BenchmarkCacheHit is the cost of a cached single-text lookup (a question's
// embedding on a warm rerun), from as many goroutines as a c=64 run uses.
func BenchmarkCacheHit(b *testing.B) {
	ctx := context.Background()
	c, err := NewCache(&countingEmbedder{name: "bench", inner: NewHashed(512)}, filepath.Join(b.TempDir(), "emb.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { b.StopTimer(); c.Close() }() // closing frees the page cache: not a lookup cost
	const n = 6000
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("utterance %d about topic %d", i, i%41)
	}
	for lo := 0; lo < n; lo += 500 {
		if _, err := c.Embed(ctx, texts[lo:lo+500]); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(7919) % n
			if _, err := c.Embed(ctx, texts[i:i+1]); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCacheMissSingle is the cost of a single-text miss (a question's
// embedding on a cold run): the lookup, the inner embedder and the write.
func BenchmarkCacheMissSingle(b *testing.B) {
	ctx := context.Background()
	c, err := NewCache(&countingEmbedder{name: "bench", inner: NewHashed(512)}, filepath.Join(b.TempDir(), "emb.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { b.StopTimer(); c.Close() }()
	var next atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Embed(ctx, []string{fmt.Sprintf("question %d about topic", next.Add(1))}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkHashedSingle is the hashed embedder computing a question's
// vector outright, to set beside BenchmarkCacheHit: an embedder this cheap
// is not worth a lookup.
func BenchmarkHashedSingle(b *testing.B) {
	ctx := context.Background()
	h := NewHashed(512)
	// Embed gives the dense vector; EmbedSparse its nonzero components
	// alone, which the turns systems' sparse index takes.
	for _, way := range []string{"dense", "sparse"} {
		b.Run(way, func(b *testing.B) {
			b.ReportAllocs()
			var next atomic.Int64
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(7919) % 6000
					text := []string{fmt.Sprintf("What did utterance %d say about topic %d?", i, i%41)}
					var err error
					if way == "dense" {
						_, err = h.Embed(ctx, text)
					} else {
						_, err = h.EmbedSparse(ctx, text)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
