package structmem

import (
	"context"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// BenchmarkBuildConv26 builds StructMem over conv-26 (LoCoMo's first
// conversation) with the offline backend and the hashed embedder, so it
// measures the pipeline itself: prompt rendering, parsing, windows, seeds,
// vector search. calls/op and input-tokens/op are the build's model usage
// (offline token counts are those of the real rendered prompts).
func BenchmarkBuildConv26(b *testing.B) {
	ds, err := locomo.Load(testutil.Shared(b, "datasets", "locomo10.json"), datasets.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var conv *datasets.Conversation
	for _, c := range ds.Conversations {
		if c.ID == "conv-26" {
			conv = c
		}
	}
	if conv == nil {
		b.Skip("conv-26 not in the LoCoMo file")
	}
	var calls, in, out int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		meter := llm.NewMeter()
		env := systems.Env{
			Build:       llm.WithMeter(llm.NewOffline(), meter, "build"),
			Embedder:    embedder.NewHashed(512),
			Meter:       meter,
			Concurrency: 1,
		}
		m, err := New(Name, env, fullDefaults)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Ingest(context.Background(), conv); err != nil {
			b.Fatal(err)
		}
		t := meter.Total(membench.StageBuild)
		calls, in, out = calls+t.Calls, in+t.InputTokens, out+t.OutputTokens
	}
	b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
	b.ReportMetric(float64(in)/float64(b.N), "input-tokens/op")
	b.ReportMetric(float64(out)/float64(b.N), "output-tokens/op")
}
