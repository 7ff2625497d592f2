package locomo

import (
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
)

// BenchmarkLoadLoCoMo is the whole load of the real LoCoMo file (read,
// hash, check, decode, convert): most of a cached rerun's start.
func BenchmarkLoadLoCoMo(b *testing.B) {
	path := testutil.Shared(b, "datasets", "locomo10.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(path, datasets.LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
