package harness_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// A kill after the memory dump and before the build line (the file state
// is made by hand: build.jsonl lost its line, memory.jsonl kept the dump
// and the cost line of the build is there): the resume rebuilds, drops the
// orphaned dump and writes it once more, and the build costs count once.
func TestKillBetweenMemoryAndBuildLineIsRepaired(t *testing.T) {
	cfg := membench.Config{System: "structmem", Judges: []string{"f1"}, ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	read := func(name string) []byte { b, _ := os.ReadFile(filepath.Join(dir, name)); return b }
	sorted := func(b []byte) []string {
		l := strings.Split(strings.TrimSpace(string(b)), "\n")
		sort.Strings(l)
		return l
	}
	wantMem, wantSum := sorted(read(runlog.MemoryFile)), mustSummary(t, dir)
	if len(wantMem) < 2 {
		t.Fatalf("memory.jsonl has %d lines", len(wantMem))
	}
	// As a kill leaves it: no build line, no answers, the dump and the
	// build's cost line written.
	for _, name := range []string{runlog.BuildFile, runlog.AnswersFile, runlog.JudgmentsFile, runlog.RetrievalsFile} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	var costs []string
	for _, l := range strings.Split(strings.TrimSpace(string(read(runlog.CostsFile))), "\n") {
		if strings.Contains(l, `"part":"build"`) {
			costs = append(costs, l)
		}
	}
	if len(costs) != 1 {
		t.Fatalf("want one build cost line, got %d", len(costs))
	}
	os.WriteFile(filepath.Join(dir, runlog.CostsFile), []byte(costs[0]+"\n"), 0o644)
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := sorted(read(runlog.MemoryFile)); strings.Join(got, "\n") != strings.Join(wantMem, "\n") {
		t.Fatalf("memory.jsonl after resume: %d lines, want the %d of one dump", len(got), len(wantMem))
	}
	got := mustSummary(t, dir)
	if !bytes.Equal([]byte(got), []byte(wantSum)) {
		t.Fatalf("costs after resume:\n%s\nwant\n%s", got, wantSum)
	}
}

// mustSummary is the summary's calls and tokens by stage and the build's
// (seconds differ between any two runs).
func mustSummary(t *testing.T, dir string) string {
	t.Helper()
	s, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, k := range []string{"build", "retrieve", "answer", "judge", "embed:embedding"} {
		c := s.Stages[k]
		fmt.Fprintf(&b, "%s: %d calls, %d in, %d out\n", k, c.Calls, c.InputTokens, c.OutputTokens)
	}
	fmt.Fprintf(&b, "build lines: %d calls, %d in, %d out; %d questions\n", s.Build.Calls, s.Build.InputTokens, s.Build.OutputTokens, s.Questions)
	return b.String()
}
