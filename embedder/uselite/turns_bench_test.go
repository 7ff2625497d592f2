package uselite

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/systems/turns"
)

// turnsOut makes TestLoCoMoTurnTexts write the texts it checked to a JSON
// file, so scripts/npm-embed-bench.js times the npm runtime on exactly the
// texts BenchmarkEmbedTurns embeds.
var turnsOut = flag.String("turns-out", "", "write the LoCoMo turn texts (JSON array of strings) to this file")

// locomoTurns is every LoCoMo turn as turns-cosine embeds it (speaker,
// text, image caption; turns.EmbedText), per conversation in dataset order.
func locomoTurns(tb testing.TB) [][]string {
	path := testutil.Shared(tb, "datasets", "locomo10.json")
	ds, err := locomo.Load(path, datasets.LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]string
	for _, c := range ds.Conversations {
		var texts []string
		for _, t := range c.AllTurns() {
			texts = append(texts, turns.EmbedText(t))
		}
		out = append(out, texts)
	}
	return out
}

// The benchmark's texts are the run's: all 5,882 turns of the 10 LoCoMo
// conversations.
func TestLoCoMoTurnTexts(t *testing.T) {
	var all []string
	for _, c := range locomoTurns(t) {
		all = append(all, c...)
	}
	if len(all) != 5882 {
		t.Fatalf("LoCoMo has %d turns, want 5,882", len(all))
	}
	for i, s := range all {
		if s == "" {
			t.Fatalf("turn %d is empty", i)
		}
	}
	if *turnsOut != "" {
		raw, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*turnsOut, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// turnsBatch is systems/turns' embedBatch: a build embeds a conversation's
// turns in calls of at most 256 texts.
const turnsBatch = 256

// BenchmarkEmbedTurns embeds LoCoMo turns as a turns-cosine build does: per
// conversation, in calls of 256 texts, each call split over GOMAXPROCS
// workers. n=1000 is the first 1,000 turns (the npm runtime is timed on
// the same ones); all is the whole dataset. Run with -cpu 1,2 for one core
// and two. Reports texts per wall second, per CPU-second, and cores: CPU
// seconds per wall second, which is 2 when both cores were ours and busy.
func BenchmarkEmbedTurns(b *testing.B) {
	m := loadModel(b)
	convs := locomoTurns(b)
	for _, size := range []int{1000, 0} {
		name := "all"
		if size > 0 {
			name = fmt.Sprintf("n=%d", size)
		}
		var sel [][]string
		count, left := 0, size
		for _, c := range convs {
			if size > 0 {
				if left == 0 {
					break
				}
				c = c[:min(len(c), left)]
				left -= len(c)
			}
			sel = append(sel, c)
			count += len(c)
		}
		tokens := 0
		for _, c := range sel {
			for _, t := range c {
				tokens += min(len(m.Tokenize(t)), m.MaxTokens())
			}
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			cpu0, t0 := cpuSeconds(), time.Now()
			for b.Loop() {
				for _, c := range sel {
					for lo := 0; lo < len(c); lo += turnsBatch {
						if _, err := m.Embed(ctx, c[lo:min(lo+turnsBatch, len(c))]); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			wall, cpu := time.Since(t0).Seconds(), cpuSeconds()-cpu0
			texts := float64(count * b.N)
			b.ReportMetric(texts/wall, "texts/s")
			b.ReportMetric(texts/cpu, "texts/cpu-s")
			b.ReportMetric(cpu/wall, "cores")
			b.ReportMetric(m.net.denseFLOPs(tokens, count)/float64(count)/1e6, "MFLOP/text")
			b.ReportMetric(float64(tokens)/float64(count), "tok/text")
		})
	}
}
