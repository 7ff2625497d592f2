package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run ids, dataset names and judge names become folders, file names and
// table rows: anything but letters, digits and . _ + - (at most 100
// characters) exits 2 with one line naming the flag, before the results
// directory is made.
func TestUnsafeNamesExitTwo(t *testing.T) {
	t.Parallel()
	results := filepath.Join(t.TempDir(), "results")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"run id with a newline", []string{"--run-id", "a\nb"}, "--run-id"},
		{"run id with a tab", []string{"--run-id", "a\tb"}, "--run-id"},
		{"run id with an escape", []string{"--run-id", "x\x1b[31mred"}, "--run-id"},
		{"run id of 300 characters", []string{"--run-id", strings.Repeat("r", 300)}, "--run-id"},
		{"run id .", []string{"--run-id", "."}, "--run-id"},
		{"run id ..", []string{"--run-id", ".."}, "--run-id"},
		{"run id with a space", []string{"--run-id", "my run"}, "--run-id"},
		{"dataset with a newline", []string{"--dataset", "sample\n"}, "--dataset"},
		{"dataset of 300 characters", []string{"--dataset", strings.Repeat("d", 300)}, "--dataset"},
		{"judge name with a space", []string{"--judge-spec", "f1,name=my judge"}, "judge name"},
		{"judge name with an escape", []string{"--judge-spec", "f1,name=j\x1b[2J"}, "judge name"},
		{"judge name of 300 characters", []string{"--judge-spec", "f1,name=" + strings.Repeat("j", 300)}, "judge name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code := membench(t, nil, append([]string{"run", "--quiet", "--results", results}, c.args...)...)
			line := strings.TrimSpace(out)
			if code != 2 || !strings.Contains(line, c.want) || strings.ContainsAny(line, "\n\t\x1b") {
				t.Errorf("membench run %q: exit %d, output %q; want exit 2 and one clean line naming %s", c.args, code, clip(out), c.want)
			}
		})
	}
	if _, err := os.Stat(results); err == nil {
		entries, _ := os.ReadDir(results)
		t.Errorf("bad names left %d entries in --results", len(entries))
	}
	// The limit itself is allowed.
	id := strings.Repeat("r", 100)
	if out, code := membench(t, nil, "run", "--quiet", "--results", results, "--run-id", id, "--judge-spec", "f1,name=F1.v2+x_y-z"); code != 0 {
		t.Fatalf("a 100-character run id and a judge named F1.v2+x_y-z: exit %d\n%s", code, clip(out))
	}
	if _, err := os.Stat(filepath.Join(results, id)); err != nil {
		t.Fatal(err)
	}
}

// A mistyped command, flag, system, dataset or judge names the real one;
// a word far from every name gets no guess. All exit 2 with one line.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string // "" = no guess at all
	}{
		{[]string{"rnu"}, `(did you mean "run"?)`},
		{[]string{"reprot", "--run", "x"}, `(did you mean "report"?)`},
		{[]string{"datasets", "lst"}, `(did you mean "list"?)`},
		{[]string{"run", "--sytem", "x"}, "(did you mean --system?)"},
		{[]string{"run", "--run_id=x"}, "(did you mean --run-id?)"},
		{[]string{"compare", "--rnu", "x"}, "(did you mean --run?)"},
		{[]string{"run", "--system", "structmen"}, `(did you mean "structmem"?)`},
		{[]string{"run", "--dataset", "lcomo"}, `(did you mean "locomo"?)`},
		{[]string{"run", "--judge-spec", "lexcal"}, `(did you mean "lexical"?)`},
		{[]string{"datasets", "fetch", "lcomo"}, `(did you mean "locomo"?)`},
		{[]string{"frobnicate"}, ""},
		{[]string{"run", "--system", "x"}, ""},
		{[]string{"run", "--frobnicate"}, ""},
		{[]string{"run", "-z"}, ""},
	} {
		out, code := membench(t, nil, c.args...)
		line := strings.TrimSpace(out)
		if code != 2 || strings.Count(line, "\n") != 0 {
			t.Errorf("membench %s: exit %d, want 2 with one line:\n%s", strings.Join(c.args, " "), code, out)
			continue
		}
		if c.want == "" && strings.Contains(out, "did you mean") {
			t.Errorf("membench %s guessed: %s", strings.Join(c.args, " "), line)
		}
		if c.want != "" && !strings.Contains(out, c.want) {
			t.Errorf("membench %s: %s\nwant %s", strings.Join(c.args, " "), line, c.want)
		}
	}
	// A group alone still prints its help.
	if out, code := membench(t, nil, "datasets"); code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("membench datasets: exit %d\n%s", code, out)
	}
}
