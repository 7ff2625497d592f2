// Package testutil finds the repository root and the read-only reference
// folder kept beside it (../shared: the real LoCoMo file, peers' results,
// the embedding golden file), so tests share one lookup and one skip rule.
package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// root walks up from the working directory (the test's package folder)
// to the first folder holding go.mod.
func root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = up
	}
}

// RepoRoot returns the repository root; without one the test tree is
// broken, so the test fails.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := root()
	if err != nil {
		tb.Fatalf("repo root: %v", err)
	}
	return dir
}

// SharedPath returns <root>/../shared/<parts...> and whether it exists, for
// tests that fall back to a smaller case when the shared data is absent.
// The path is "" only when no repo root is found.
func SharedPath(parts ...string) (string, bool) {
	dir, err := root()
	if err != nil {
		return "", false
	}
	p := filepath.Join(append([]string{dir, "..", "shared"}, parts...)...)
	_, err = os.Stat(p)
	return p, err == nil
}

// Shared returns <root>/../shared/<parts...>, skipping the test when it is
// absent: the shared folder is optional reference data, not part of the repo.
func Shared(tb testing.TB, parts ...string) string {
	tb.Helper()
	p, ok := SharedPath(parts...)
	if !ok {
		if p == "" {
			p = filepath.Join(append([]string{"..", "shared"}, parts...)...)
		}
		tb.Skipf("shared reference data absent at %s (expected in ../shared beside the repo root)", p)
	}
	return p
}
