package datasettest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/badinput"
)

// Parse never panics, and what it refuses is bad input.
func FuzzTinyQA(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "tiny.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"conversations":[{"id":"c","sessions":[{"date":"x"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := Parse(b, "fuzz.json", 0)
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("refusal is not bad input: %v", err)
			}
			return
		}
		for _, q := range ds.Questions() {
			if _, ok := (datasets.Spec{Groups: Groups}).Group(q.Group); !ok {
				t.Fatalf("question %s in unknown group %q", q.ID, q.Group)
			}
		}
	})
}
