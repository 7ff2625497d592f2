package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileStopsAtTheCap(t *testing.T) {
	_, err := ReadFile("/dev/zero", 1<<10, "give a file")
	if !IsInputError(err) || !strings.Contains(err.Error(), MaxBytesFlag) {
		t.Fatalf("/dev/zero under a 1KiB cap: %v, want an input error naming %s", err, MaxBytesFlag)
	}
	p := filepath.Join(t.TempDir(), "f.json")
	os.WriteFile(p, []byte(strings.Repeat("x", 1<<10)), 0o644)
	if b, err := ReadFile(p, 1<<10, "give a file"); err != nil || len(b) != 1<<10 {
		t.Fatalf("a file of exactly the cap: %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none"), 0, "give a file"); err == nil || !strings.HasSuffix(err.Error(), "give a file") {
		t.Fatalf("a missing file: %v", err)
	}
}
