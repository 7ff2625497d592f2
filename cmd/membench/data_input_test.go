package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// A --data file that is not the dataset's JSON exits 2 at its first bad
// byte, naming the file and the place, and no file is read past the size
// cap (--max-data-size): /dev/zero ends at byte 0, not when memory runs out.
func TestDataFilesAreCheckedAndCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "datasets", "sample", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cut := write("cut.json", sample[:len(sample)*2/3])
	html := write("page.json", []byte("<html>\n<body>404</body></html>\n"))
	whole := write("sample.json", sample)
	results := filepath.Join(dir, "results")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"locomo /dev/zero", []string{"--dataset", "locomo", "--data", "/dev/zero"}, "/dev/zero line 1 (byte 0): malformed JSON"},
		{"longmemeval /dev/zero", []string{"--dataset", "longmemeval", "--data", "/dev/zero"}, "/dev/zero line 1 (byte 0): malformed JSON"},
		{"cut short", []string{"--dataset", "locomo", "--data", cut}, "malformed JSON: the file ends inside a value (cut short?)"},
		{"not JSON", []string{"--dataset", "locomo", "--data", html}, html + " line 1 (byte 0): malformed JSON: invalid character '<'"},
		{"over the cap", []string{"--dataset", "locomo", "--data", whole, "--max-data-size", "4KiB"}, "is larger than 4KiB, the most membench reads of a dataset file; if it is the right file, raise the cap with --max-data-size"},
		{"cap not a size", []string{"--max-data-size", "lots"}, "--max-data-size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code := membench(t, nil, append([]string{"run", "--quiet", "--results", results}, c.args...)...)
			line := strings.TrimSpace(out)
			if code != 2 || !strings.Contains(line, c.want) || strings.Contains(line, "\n") {
				t.Errorf("membench run %s: exit %d, output %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, clip(out), c.want)
			}
		})
	}
	// The same file under a cap it fits in runs.
	if out, code := membench(t, nil, "run", "--quiet", "--results", results, "--dataset", "locomo", "--data", whole, "--max-data-size", "1MiB", "--limit", "2"); code != 0 {
		t.Fatalf("sample under a 1MiB cap: exit %d\n%s", code, clip(out))
	}
	// score and datasets take the flag too.
	if out, code := membench(t, nil, "datasets", "verify", "longmemeval-m", "--file", "/dev/zero", "--max-data-size", "1MiB"); code != 2 || !strings.Contains(out, "/dev/zero is larger than 1MiB") {
		t.Errorf("datasets verify /dev/zero: exit %d, %q", code, clip(out))
	}
}
