// Package harnesstest holds the test helpers that need the run's plan;
// it is its own package because internal/testutil is imported by the
// plan's and the engine's tests and so cannot import them.
package harnesstest

import (
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/plan"
)

// Dir is the run directory harness.Run makes of cfg (the id comes from
// the resolved config: embedder chosen, k in one place, data hash).
func Dir(tb testing.TB, cfg membench.Config) string {
	tb.Helper()
	r, err := plan.Resolve(cfg, plan.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return r.Dir
}

// Config is an offline run of system on the sample in temp folders, with
// the hashed embedder so that it does not depend on the installed model.
func Config(tb testing.TB, system string) membench.Config {
	tb.Helper()
	return membench.Config{System: system, ResultsDir: tb.TempDir(), CacheDir: tb.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: tb.TempDir(), Embedder: "hashed"}}
}
