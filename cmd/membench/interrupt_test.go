package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/membench/membench/internal/testutil"
)

// Ctrl-C stops the run gracefully: the attempt's costs and a summary are
// written, the exit says how to resume, and the rerun finishes the work
// without duplicating any answer.
func TestInterruptedRunRecordsCostsAndResumes(t *testing.T) {
	t.Parallel()
	data := testutil.Shared(t, "datasets", "locomo10.json")
	results := t.TempDir()
	home := t.TempDir()
	args := []string{"run", "--quiet", "--results", results, "--dataset", "locomo", "--data", data, "--conversations", "conv-26", "--system", "structmem"}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+home)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the first answers are on disk.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		m, _ := filepath.Glob(filepath.Join(results, "*", "answers.jsonl"))
		if len(m) == 1 {
			if st, err := os.Stat(m[0]); err == nil && st.Size() > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no answers written")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	runs, _ := filepath.Glob(filepath.Join(results, "*"))
	if len(runs) != 1 {
		t.Fatalf("want one run dir, got %v", runs)
	}
	dir := runs[0]
	answers := func() []string {
		b, _ := os.ReadFile(filepath.Join(dir, "answers.jsonl"))
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	if err == nil && len(answers()) == 199 {
		t.Skip("the run finished before the interrupt landed")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(out.String(), "rerun") {
		t.Fatalf("interrupted run: exit %d, output:\n%s\nwant exit 130 and a hint to rerun", code, out.String())
	}
	for _, f := range []string{"costs.jsonl", "summary.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("interrupted run left no %s (%v)", f, err)
		}
	}
	o, code := membench(t, []string{"MEMBENCH_HOME=" + home}, args...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, o)
	}
	seen := map[string]bool{}
	for _, l := range answers() {
		i := strings.Index(l, `"question_id":"`)
		id := l[i+15 : i+15+strings.Index(l[i+15:], `"`)]
		if seen[id] {
			t.Fatalf("question %s answered twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 199 {
		t.Fatalf("after resume %d questions answered, want 199 (conv-26)", len(seen))
	}
}
