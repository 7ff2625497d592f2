package summary

import (
	"os"
	"testing"
)

// BenchmarkCompute reads and summarises the run in MEMBENCH_BENCH_RUN
// (a finished run directory, e.g. full LoCoMo): what a rerun with nothing
// left to do spends at its end.
func BenchmarkCompute(b *testing.B) {
	dir := os.Getenv("MEMBENCH_BENCH_RUN")
	if dir == "" {
		b.Skip("set MEMBENCH_BENCH_RUN to a run directory")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compute(dir); err != nil {
			b.Fatal(err)
		}
	}
}
