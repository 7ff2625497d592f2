package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// A build cut off by kill -9 leaves its spend in costs.jsonl: the calls it
// had written in partial lines are in the killed run's summary (as cut
// off), and after the resume they are counted apart from one clean pass,
// whose calls and tokens equal an uninterrupted run's. Offline structmem on
// a synthetic LoCoMo-shaped file (3 conversations, 60 questions); the kill
// lands while a conversation's build has written partial lines but no
// build line.
func TestKill9MidBuildRecordsItsSpend(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the binary several times")
	}
	work := t.TempDir()
	data := filepath.Join(work, "synthetic-locomo.json")
	if out, code := membench(t, nil, "datasets", "synth", "--shape", "locomo", "--questions", "60", "--seed", "3", "--out", data); code != 0 {
		t.Fatal(out)
	}
	home := filepath.Join(work, "home")
	args := func(results string) []string {
		return []string{"run", "--quiet", "--results", results, "--dataset", "locomo", "--data", data, "--system", "structmem", "--concurrency", "1"}
	}
	env := []string{"MEMBENCH_HOME=" + home}
	only := func(results string) string {
		runs, _ := filepath.Glob(filepath.Join(results, "*"))
		if len(runs) != 1 {
			t.Fatalf("run dirs under %s: %v", results, runs)
		}
		return runs[0]
	}
	ref := filepath.Join(work, "reference")
	if out, code := membench(t, env, args(ref)...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, out)
	}
	want := loadState(t, only(ref))
	refSum, err := summary.Compute(only(ref))
	if err != nil {
		t.Fatal(err)
	}
	// The finished builds' own lines repeat their partial lines' calls:
	// counted once, nothing is cut off.
	refCosts := jsonLines[runlog.CostRecord](t, filepath.Join(only(ref), runlog.CostsFile))
	partials := 0
	for _, c := range refCosts {
		if c.Partial {
			partials++
		}
	}
	if partials == 0 || len(refSum.Redone) != 0 || refSum.Stages["build"].Calls != refSum.Build.Calls {
		t.Fatalf("uninterrupted run: %d partial lines, redone %v, build stage %d calls vs %d in build.jsonl; want partial lines counted once", partials, refSum.Redone, refSum.Stages["build"].Calls, refSum.Build.Calls)
	}

	// cutOff sums the LLM calls of partial lines whose build never closed.
	cutOff := func(dir string) (calls, tokens int) {
		_, redone := runlog.EffectiveCosts(jsonLines[runlog.CostRecord](t, filepath.Join(dir, runlog.CostsFile)))
		for _, c := range redone {
			for _, tl := range c.Tallies {
				if c.Partial && tl.Label != "embedding" {
					calls += tl.Calls
					tokens += tl.InputTokens + tl.OutputTokens
				}
			}
		}
		return calls, tokens
	}
	// The kill must land between a partial line and its build line; a
	// build that finishes first (a loaded machine's scheduling) is tried
	// again in a fresh directory.
	var results, dir string
	var cut, cutTokens int
	for try := 0; try < 3 && cut == 0; try++ {
		results = filepath.Join(work, fmt.Sprintf("killed-%d", try))
		cmd := exec.Command(bin, args(results)...)
		cmd.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+home)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		midBuild := func() bool {
			m, _ := filepath.Glob(filepath.Join(results, "*"))
			if len(m) != 1 {
				return false
			}
			built := map[string]bool{}
			for _, b := range readLines[runlog.BuildRecord](filepath.Join(m[0], runlog.BuildFile)) {
				built[b.ConversationID] = true
			}
			for _, c := range readLines[runlog.CostRecord](filepath.Join(m[0], runlog.CostsFile)) {
				if c.Partial && !built[c.ConversationID] {
					return true
				}
			}
			return false
		}
		for deadline := time.Now().Add(2 * time.Minute); !midBuild() && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Kill() // SIGKILL: no deferred write runs
		if cmd.Wait() == nil {
			t.Fatalf("the run finished before the kill:\n%s", out.String())
		}
		dir = only(results)
		cut, cutTokens = cutOff(dir)
	}
	if cut == 0 {
		t.Fatal("three kills found no build cut off with partial lines on disk")
	}
	killed, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := killed.RedoneCalls().Calls; got != cut {
		t.Errorf("killed run's summary: %d calls cut off, want the %d of its unfinished build's partial lines", got, cut)
	}

	out, code := membench(t, env, args(results)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, out)
	}
	if d := loadState(t, dir).diff(want); len(d) != 0 {
		t.Errorf("resumed run differs from the uninterrupted one in %v", d)
	}
	sum, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	red := sum.RedoneCalls()
	if red.Calls != cut || red.InputTokens+red.OutputTokens != cutTokens {
		t.Errorf("resumed run: %d calls and %d tokens cut off or redone, want the cut-off build's %d calls and %d tokens", red.Calls, red.InputTokens+red.OutputTokens, cut, cutTokens)
	}
	made := sum.Stages["build"].Calls + sum.Redone["build"].Calls
	if made != refSum.Build.Calls+cut {
		t.Errorf("build calls made over both attempts %d, want %d (an uninterrupted run's) + %d (cut off)", made, refSum.Build.Calls, cut)
	}
	var notes bytes.Buffer
	summary.Print(&notes, sum)
	if !strings.Contains(notes.String(), fmt.Sprintf("cut off or redone after an interruption: %d calls", cut)) {
		t.Errorf("the summary does not state the %d cut-off calls:\n%s", cut, notes.String())
	}
	t.Logf("kill -9 mid-build: %d build calls (%d tokens) of the cut-off build recorded; uninterrupted build %d calls; resumed run's build calls made %d", cut, cutTokens, refSum.Build.Calls, made)
}

// readLines is jsonLines for a file being written: a missing file or a
// torn last line gives what is complete.
func readLines[T any](path string) []T {
	v, _ := runlog.ReadJSONL[T](path)
	return v
}
