package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// datasets verify with no name checks what is installed and names the
// rest; a copy that does not match fails the command.
func TestDatasetsVerifyAll(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"MEMBENCH_HOME=" + home}
	out, code := membench(t, env, "datasets", "verify")
	if code != 0 || !strings.Contains(out, "no dataset installed") || !strings.Contains(out, "locomo, locomo-audit, longmemeval-s, longmemeval-oracle, longmemeval-m") {
		t.Fatalf("empty home: exit %d\n%s", code, out)
	}
	copyOf := filepath.Join(t.TempDir(), "oracle.json")
	os.WriteFile(copyOf, []byte(`[]`), 0o644)
	if out, code := membench(t, env, "datasets", "add", "longmemeval-oracle", copyOf); code != 0 {
		t.Fatalf("add: exit %d\n%s", code, out)
	}
	out, code = membench(t, env, "datasets", "verify")
	if code != 0 || !regexp.MustCompile(`(?m)^longmemeval-oracle: ok `).MatchString(out) ||
		!strings.Contains(out, "not installed in "+filepath.Join(home, "datasets")+": locomo, locomo-audit, longmemeval-s, longmemeval-m") {
		t.Fatalf("one installed: exit %d\n%s", code, out)
	}
	// A LoCoMo file that is not the published one fails, and the oracle
	// copy is still reported.
	os.WriteFile(filepath.Join(home, "datasets", "locomo10.json"), []byte(`[]`), 0o644)
	out, code = membench(t, env, "datasets", "verify")
	if code != 1 || !strings.Contains(out, "locomo: FAILED") || !strings.Contains(out, "longmemeval-oracle: ok") || !strings.Contains(out, "do not match their checksum: locomo;") {
		t.Fatalf("corrupt locomo: exit %d, want 1\n%s", code, out)
	}
}

// datasets add locomo-plus installs the published locomo_plus.json, and
// a run of --dataset locomo-plus then needs no --data. A file that is not
// the published one is refused (the synthetic half is in
// datasets/locomoplus: TestAddedCopyIsTheDefault).
func TestDatasetsAddLoCoMoPlus(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"MEMBENCH_HOME=" + home}
	other := filepath.Join(t.TempDir(), "locomo_plus.json")
	os.WriteFile(other, []byte(`[{"relation_type": "goal", "cue_dialogue": "A: hi", "trigger_query": "B: yo", "time_gap": "one week later"}]`), 0o644)
	out, code := membench(t, env, "datasets", "add", "locomo-plus", other)
	if line := strings.TrimSpace(out); code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "different version") {
		t.Errorf("a file that is not the published one: exit %d\n%s", code, out)
	}
	real := testutil.Shared(t, "datasets", "locomo-plus", "locomo_plus.json")
	out, code = membench(t, env, "datasets", "add", "locomo-plus", real)
	if code != 0 || !strings.Contains(out, "locomo-plus: ok  "+filepath.Join(home, "datasets", "locomo_plus.json")) {
		t.Fatalf("datasets add locomo-plus %s: exit %d\n%s", real, code, out)
	}
	if out, code := membench(t, env, "datasets", "verify", "locomo-plus"); code != 0 || !strings.Contains(out, "locomo-plus: ok") {
		t.Errorf("datasets verify locomo-plus: exit %d\n%s", code, out)
	}
	results := t.TempDir()
	out, code = membench(t, env, "run", "--quiet", "--dataset", "locomo-plus", "--limit", "2", "--results", results)
	if code != 2 || !strings.Contains(out, "membench datasets add locomo FILE") {
		t.Errorf("locomo-plus without LoCoMo installed: exit %d\n%s", code, out)
	}
	locomo := testutil.Shared(t, "datasets", "locomo10.json")
	if out, code := membench(t, env, "datasets", "add", "locomo", locomo); code != 0 {
		t.Fatalf("datasets add locomo: exit %d\n%s", code, out)
	}
	out, code = membench(t, env, "run", "--quiet", "--dataset", "locomo-plus", "--limit", "2", "--results", results, "--json")
	if code != 0 || !strings.Contains(out, `"dataset": "locomo-plus"`) {
		t.Fatalf("run --dataset locomo-plus with no --data: exit %d\n%s", code, clip(out))
	}
}
