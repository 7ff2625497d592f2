package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// An unquoted --run glob is expanded by the shell; the command says so and
// the quoted pattern it suggests runs.
func TestUnquotedGlob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, id := range []string{"sample-a", "sample-b", "sample-c"} {
		if out, code := in(t, dir, "run", "--quiet", "--run-id", id, "--k", "2"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
	}
	shell := func(line string) (string, int) {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+filepath.Join(dir, ".home"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		code := testutil.ExitCode(t, cmd)
		return out.String(), code
	}
	quoted := regexp.MustCompile(`e\.g\. (--run '[^']+')`)
	for _, cmdline := range []string{
		"membench view --run results/sample-* --out page.html",
		"membench diagnose --run results/sample-* --judge lexical",
		"membench kstar --json results/sample-*", // no --run before the paths
	} {
		out, code := shell(cmdline)
		m := quoted.FindStringSubmatch(out)
		if code != 2 || !strings.Contains(out, `unexpected argument "results/sample-`) || m == nil {
			t.Errorf("%s: exit %d, want 2 naming the stray path and the quoted pattern:\n%s", cmdline, code, out)
			continue
		}
		if m[1] != "--run 'results/sample-*'" {
			t.Errorf("%s: suggests %s, want --run 'results/sample-*'", cmdline, m[1])
		}
		if !strings.Contains(out, "shell") {
			t.Errorf("%s: the hint does not name the shell: %s", cmdline, out)
		}
	}
	if out, code := shell("membench view --run 'results/sample-*' --out page.html"); code != 0 {
		t.Errorf("the suggested quoting does not run: exit %d\n%s", code, out)
	}
	// A flag that takes one path: no pattern to quote, take one.
	out, code := shell("membench run --quiet --results results/sample-*")
	if code != 2 || !strings.Contains(out, "--results takes one path") {
		t.Errorf("run --results with a glob: exit %d\n%s", code, out)
	}
	// A stray word that is no path keeps cobra's plain refusal.
	out, code = shell("membench kstar --run results/sample-a nothing-here")
	if code != 2 || strings.Contains(out, "glob") || !strings.Contains(out, `"nothing-here"`) {
		t.Errorf("stray non-path: exit %d\n%s", code, out)
	}
}
