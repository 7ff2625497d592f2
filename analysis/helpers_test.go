package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/judge"
)

// fakeRun is a run directory written by hand with the harness types.
type fakeRun struct {
	Manifest   harness.Manifest
	Retrievals []harness.RetrievalRecord
	Answers    []harness.AnswerRecord
	Judgments  []judge.Judgment
	Builds     []harness.BuildRecord
}

func writeJSONL[T any](t *testing.T, path string, xs []T) {
	t.Helper()
	if xs == nil {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, x := range xs {
		if err := enc.Encode(x); err != nil {
			t.Fatal(err)
		}
	}
}

func (fr fakeRun) write(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if fr.Manifest.RunID == "" {
		fr.Manifest.RunID = filepath.Base(dir)
	}
	if fr.Manifest.Finished.IsZero() {
		fr.Manifest.Finished = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if err := harness.WriteJSON(filepath.Join(dir, harness.ManifestFile), fr.Manifest); err != nil {
		t.Fatal(err)
	}
	writeJSONL(t, filepath.Join(dir, harness.RetrievalsFile), fr.Retrievals)
	writeJSONL(t, filepath.Join(dir, harness.AnswersFile), fr.Answers)
	writeJSONL(t, filepath.Join(dir, harness.JudgmentsFile), fr.Judgments)
	writeJSONL(t, filepath.Join(dir, harness.BuildFile), fr.Builds)
	return dir
}

func mustLoad(t *testing.T, dir string) *Run {
	t.Helper()
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
