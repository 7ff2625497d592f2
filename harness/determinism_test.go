package harness_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil"
)

// The offline pipeline is deterministic: two runs of the same config give
// byte-identical answers and judgments (timings aside) and the same scores.
func TestOfflineStructMemIsDeterministic(t *testing.T) {
	cases := []struct{ name, dataset, data string }{{"sample", "sample", ""}}
	if locomo, ok := testutil.SharedPath("datasets", "locomo10.json"); ok {
		cases = append(cases, struct{ name, dataset, data string }{"locomo-conv-26", "locomo", locomo})
	} else {
		t.Logf("LoCoMo file not found at %s: conv-26 case skipped (only the sample is checked)", locomo)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var dirs []string
			var overall []map[string]float64
			for i := 0; i < 2; i++ {
				cfg := harnesstest.Config(t, "structmem")
				cfg.Dataset, cfg.Data = c.dataset, c.data
				if c.dataset == "locomo" {
					cfg.Conversations = []string{"conv-26"}
				}
				cfg.Concurrency = 1 + 3*i // determinism must not depend on concurrency
				sum, err := harness.Run(context.Background(), cfg, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				dirs = append(dirs, harnesstest.Dir(t, cfg))
				overall = append(overall, sum.Overall.Scores)
			}
			for _, f := range []string{runlog.AnswersFile, runlog.JudgmentsFile, runlog.MemoryFile} {
				a := sortedLines(t, filepath.Join(dirs[0], f))
				b := sortedLines(t, filepath.Join(dirs[1], f))
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs between two identical offline runs", f)
				}
			}
			for j, v := range overall[0] {
				if overall[1][j] != v {
					t.Errorf("judge %s: %v vs %v", j, v, overall[1][j])
				}
			}
		})
	}
}

// sortedLines returns the file's lines sorted: concurrent questions append
// in completion order, which is not part of the output's meaning.
func sortedLines(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	sort.Slice(lines, func(i, j int) bool { return bytes.Compare(lines[i], lines[j]) < 0 })
	return bytes.Join(lines, []byte("\n"))
}
