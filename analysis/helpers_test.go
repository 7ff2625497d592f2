package analysis

import (
	"testing"
	"time"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// fakeRun is a run directory written by hand with the run log's types,
// finished on a fixed date unless its manifest says otherwise.
type fakeRun runlogtest.Run

func (fr fakeRun) write(t *testing.T, dir string) string {
	t.Helper()
	if fr.Manifest.Finished.IsZero() {
		fr.Manifest.Finished = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	r := runlogtest.Run(fr)
	return r.Write(t, dir)
}

func mustLoad(t *testing.T, dir string) *runlog.Run {
	t.Helper()
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
