package uselite

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/membench/membench/internal/testutil"
)

// locomoUtterances reads up to n real utterances from ../shared/datasets/
// locomo10.json, falling back to the golden sentences.
func locomoUtterances(b *testing.B, n int) []string {
	path, _ := testutil.SharedPath("datasets", "locomo10.json")
	var out []string
	if raw, err := os.ReadFile(path); err == nil {
		var convs []struct {
			Conversation map[string]json.RawMessage `json:"conversation"`
		}
		if err := json.Unmarshal(raw, &convs); err == nil {
			for _, c := range convs {
				// Sessions in file order, so every run embeds the same texts.
				keys := slices.SortedFunc(maps.Keys(c.Conversation), func(a, b string) int {
					return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b))
				})
				for _, k := range keys {
					v := c.Conversation[k]
					if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "date_time") {
						continue
					}
					var turns []struct {
						Text string `json:"text"`
					}
					if json.Unmarshal(v, &turns) == nil {
						for _, t := range turns {
							out = append(out, t.Text)
						}
					}
				}
			}
		}
	}
	if len(out) == 0 {
		out = loadGolden(b).Sentences
	}
	for len(out) < n {
		out = append(out, out...)
	}
	return out[:n]
}

// BenchmarkEmbedLoCoMo embeds 1,000 LoCoMo utterances per iteration and
// reports utterances/second.
func BenchmarkEmbedLoCoMo(b *testing.B) {
	m := loadModel(b)
	texts := locomoUtterances(b, 1000)
	ctx := context.Background()
	tokens := 0
	for _, t := range texts {
		tokens += min(len(m.Tokenize(t)), m.MaxTokens())
	}
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for b.Loop() {
		if _, err := m.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "utt/s")
	// On a shared machine wall time depends on the neighbours; texts per
	// CPU-second (x2 for two busy cores) does much less.
	b.ReportMetric(float64(len(texts)*b.N)/(cpuSeconds()-cpu0), "utt/cpu-s")
	// The dense layers' arithmetic rate, to hold against BenchmarkGemm's.
	flops := m.net.denseFLOPs(tokens, len(texts)) * float64(b.N)
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	b.ReportMetric(float64(tokens)/float64(len(texts)), "tok/utt")
}

// denseFLOPs is the floating-point operations of the dense layers for
// texts sentences of tokens tokens in all (attention is a few percent more).
func (n *network) denseFLOPs(tokens, texts int) float64 {
	perToken := 0
	for _, l := range n.layers {
		perToken += l.dIn*3*l.dAtt + l.dAtt*l.dOut + l.dOut*l.dFF + l.dFF*l.dOut
		if l.resW != nil {
			perToken += l.dIn * l.dOut
		}
	}
	return 2 * (float64(perToken)*float64(tokens) + float64(n.dOut*n.dOut)*float64(texts))
}

// cpuSeconds is this process's user+system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkTokenize measures the tokenizer alone.
func BenchmarkTokenize(b *testing.B) {
	m := loadModel(b)
	texts := locomoUtterances(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			m.Tokenize(t)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "utt/s")
}
