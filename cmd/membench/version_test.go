package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `membench version` and `--version` print the same line, which names a
// module version or a revision with its dirty flag; a run's manifest
// records the same version.
func TestVersionCommandFlagAndManifestAgree(t *testing.T) {
	t.Parallel()
	cmdOut, code := membench(t, nil, "version")
	flagOut, code2 := membench(t, nil, "--version")
	if code != 0 || code2 != 0 || cmdOut != flagOut {
		t.Fatalf("version (exit %d):\n%s--version (exit %d):\n%s", code, cmdOut, code2, flagOut)
	}
	m := regexp.MustCompile(`^membench (v\S+|devel\+[0-9a-f]{12}(-dirty)?|dev)( \(.*\))?\n$`).FindStringSubmatch(cmdOut)
	if m == nil {
		t.Fatalf("version line %q: want membench v1.2.3 or devel+REVISION[-dirty]", cmdOut)
	}
	if m[1] == "dev" {
		t.Logf("no version information in this build (no stamp, no checkout): %q", cmdOut)
	}
	results := t.TempDir()
	if out, code := membench(t, nil, "run", "--quiet", "--results", results, "--run-id", "v", "--limit", "2", "--judge-spec", "f1"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(results, "v", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Membench  string `json:"membench"`
		GitCommit string `json:"git_commit"`
		GitDirty  bool   `json:"git_dirty"`
		From      string `json:"version_from"`
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if man.Membench != m[1] || (m[1] != "dev" && !strings.HasPrefix(m[1], "v") && !strings.HasPrefix(man.GitCommit, strings.TrimSuffix(strings.TrimPrefix(m[1], "devel+"), "-dirty"))) {
		t.Errorf("manifest says membench %q, git %q; version says %q", man.Membench, man.GitCommit, m[1])
	}
	if man.GitDirty != strings.HasSuffix(m[1], "-dirty") {
		t.Errorf("manifest git_dirty %v, version %q", man.GitDirty, m[1])
	}
}
