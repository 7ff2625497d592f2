package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRootHoldsGoMod(t *testing.T) {
	r := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("RepoRoot %s: %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(r, "internal", "testutil", "testutil.go")); err != nil {
		t.Fatalf("RepoRoot %s is not this repo: %v", r, err)
	}
}

func TestSharedAbsentSkipsAndNamesPath(t *testing.T) {
	missing := "no-such-file-for-testutil.json"
	p, ok := SharedPath("datasets", missing)
	if ok {
		t.Fatalf("%s reported present", p)
	}
	want := filepath.Join(RepoRoot(t), "..", "shared", "datasets", missing)
	if p != want {
		t.Fatalf("SharedPath = %s, want %s", p, want)
	}
	var skipped bool
	t.Run("absent", func(st *testing.T) {
		defer func() { skipped = st.Skipped() }()
		Shared(st, "datasets", missing)
		st.Error("Shared returned for a missing path")
	})
	if !skipped {
		t.Error("Shared did not skip on a missing path")
	}
}
