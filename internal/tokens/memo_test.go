package tokens

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// The memo returns the encoder's own count, for new texts, repeats, and
// texts pushed out of both generations and counted again; it stays bounded.
func TestMemoEqualsEncoderAndStaysBounded(t *testing.T) {
	texts := make([]string, 3000)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s #%d", samples[i%len(samples)], i)
	}
	check := func(when string) {
		for i, s := range texts {
			if got, want := Count(s), count(s); got != want {
				t.Fatalf("%s: text %d: Count = %d, encoder = %d", when, i, got, want)
			}
		}
	}
	check("first count")
	check("memoised")
	// Flood every shard with three capacities of other keys: the texts above
	// are evicted, the memo stays within its bound, and recounts are right.
	for i := range 3 * memoShards * memoShardCap {
		k := memoKey{uint64(i), -1} // no real text has length -1
		counts.shards[k.h%memoShards].put(k, 0)
	}
	if n, bound := memoLen(), 2*memoShards*memoShardCap; n > bound {
		t.Fatalf("memo holds %d entries, bound is %d", n, bound)
	}
	check("after eviction")
	// Same length, different text: the length in the key does not conflate them.
	if Count("aaaa aaaa") != count("aaaa aaaa") || Count("a a a a a") != count("a a a a a") {
		t.Fatal("texts of equal length share a memo entry")
	}
}

func TestMemoConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				s := fmt.Sprintf("%s %d", samples[(i+g)%len(samples)], i%500) // shared and repeated
				if got, want := Count(s), count(s); got != want {
					errs <- fmt.Sprintf("goroutine %d: Count(%q) = %d, want %d", g, s, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// locomoTexts reads LoCoMo utterances from ../shared when present, else
// builds varied sentences from the samples.
func locomoTexts(n int) []string {
	var out []string
	if path, ok := testutil.SharedPath("datasets", "locomo10.json"); ok {
		var convs []struct {
			Conversation map[string]json.RawMessage `json:"conversation"`
		}
		if raw, err := os.ReadFile(path); err == nil && json.Unmarshal(raw, &convs) == nil {
			for _, c := range convs {
				for k, v := range c.Conversation {
					var turns []struct {
						Text string `json:"text"`
					}
					if strings.HasPrefix(k, "session_") && json.Unmarshal(v, &turns) == nil {
						for _, t := range turns {
							out = append(out, t.Text)
						}
					}
				}
			}
		}
	}
	for i := 0; len(out) < n; i++ {
		out = append(out, fmt.Sprintf("%s (%d)", samples[i%len(samples)], i))
	}
	return out[:n]
}

// BenchmarkCount counts 2,000 LoCoMo utterances per op: "encoder" is the
// o200k encoder alone (what every call cost before), "memo-hit" the same
// texts once memoised (what a repeat costs now).
func BenchmarkCount(b *testing.B) {
	texts := locomoTexts(2000)
	b.Run("encoder", func(b *testing.B) {
		for b.Loop() {
			for _, s := range texts {
				count(s)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
	})
	b.Run("memo-hit", func(b *testing.B) {
		for _, s := range texts {
			Count(s)
		}
		b.ResetTimer()
		for b.Loop() {
			for _, s := range texts {
				Count(s)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
	})
}

// memoLen is the number of memoised texts (for tests).
func memoLen() int {
	total := 0
	for i := range counts.shards {
		m := &counts.shards[i]
		m.mu.Lock()
		total += len(m.cur) + len(m.old)
		m.mu.Unlock()
	}
	return total
}
