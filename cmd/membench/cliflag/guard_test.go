package cliflag

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
)

func TestGuardOut(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "results", "R")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, runlog.ManifestFile), []byte(`{"run_id":"R"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(run, runlog.ManifestFile), filepath.Join(root, "link.json"))
	os.Symlink(run, filepath.Join(root, "linkdir"))
	refused := []string{
		filepath.Join(run, runlog.ManifestFile),
		filepath.Join(run, runlog.SummaryMD),
		filepath.Join(run, "view.html"),
		filepath.Join(run, "sub", "deeper", "view.html"),
		run,
		filepath.Join(root, "link.json"),
		filepath.Join(root, "linkdir", "new.html"),
	}
	for _, p := range refused {
		err := GuardOut("--out", p)
		if err == nil {
			t.Errorf("GuardOut(%s) = nil; want it refused", p)
			continue
		}
		if !badinput.Is(err) || !strings.HasPrefix(err.Error(), "--out "+p+":") || !strings.Contains(err.Error(), "inside the run folder ") || !strings.Contains(err.Error(), "write it outside") {
			t.Errorf("GuardOut(%s) = %v; want bad input naming the flag, the run folder and the fix", p, err)
		}
	}
	for _, p := range []string{
		filepath.Join(root, "results", "R-view.html"),
		filepath.Join(root, "results", "R2", "view.html"),
		filepath.Join(root, "new", "dir", "view.html"),
		"relative-view.html",
	} {
		if err := GuardOut("--out", p); err != nil {
			t.Errorf("GuardOut(%s) = %v; want nil", p, err)
		}
	}
	// The suggested path is itself allowed.
	err := GuardOut("--out", filepath.Join(run, "v.html"))
	suggested := err.Error()[strings.LastIndex(err.Error(), " ")+1:]
	if err := GuardOut("--out", suggested); err != nil {
		t.Errorf("the suggested %s is refused too: %v", suggested, err)
	}
}
