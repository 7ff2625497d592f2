package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/membench/membench/runlog"
)

// fakeRun is a run directory written by hand with the harness types.
type fakeRun struct {
	Manifest   runlog.Manifest
	Retrievals []runlog.RetrievalRecord
	Answers    []runlog.AnswerRecord
	Judgments  []runlog.Judgment
	Builds     []runlog.BuildRecord
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
	if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), fr.Manifest); err != nil {
		t.Fatal(err)
	}
	writeJSONL(t, filepath.Join(dir, runlog.RetrievalsFile), fr.Retrievals)
	writeJSONL(t, filepath.Join(dir, runlog.AnswersFile), fr.Answers)
	writeJSONL(t, filepath.Join(dir, runlog.JudgmentsFile), fr.Judgments)
	writeJSONL(t, filepath.Join(dir, runlog.BuildFile), fr.Builds)
	return dir
}

func mustLoad(t *testing.T, dir string) *runlog.Run {
	t.Helper()
	r, err := runlog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
