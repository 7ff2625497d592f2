package datasets_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/datasets"
	_ "github.com/membench/membench/datasets/locomo"
	_ "github.com/membench/membench/datasets/longmemeval"
	_ "github.com/membench/membench/datasets/sample"

	"github.com/membench/membench/internal/badinput"
)

// Loader errors are the user's input (exit 2 at the CLI), named by file.
func TestLoadErrorsAreBadInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`[{"sample_id": `), 0o644); err != nil {
		t.Fatal(err)
	}
	noID := filepath.Join(dir, "noid.json")
	if err := os.WriteFile(noID, []byte(`[{"conversation": {}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	lme := filepath.Join(dir, "lme.json")
	if err := os.WriteFile(lme, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path string }{
		{"nope", ""},
		{"locomo", filepath.Join(dir, "missing.json")},
		{"locomo", broken},
		{"locomo", noID},
		{"longmemeval", lme},
		{"sample", broken},
	} {
		_, err := datasets.Load(c.name, c.path, datasets.LoadOptions{Home: dir})
		if err == nil || !badinput.Is(err) {
			t.Errorf("Load(%s, %s) = %v, want a bad-input error", c.name, c.path, err)
		}
	}
	ds, err := datasets.Load("sample", "", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Filter([]string{"no-such-conv"}, 0); !badinput.Is(err) {
		t.Errorf("Filter with an unknown conversation: %v, want a bad-input error", err)
	}
}
