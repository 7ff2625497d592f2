package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// The summary a run writes must equal the summary computed from its files
// alone, on a fresh run, a run resumed after a torn write, one resumed
// after lines were lost and a rerun with nothing to do.
func TestRunSummaryEqualsTheFiles(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	check := func(stage string) {
		t.Helper()
		if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		dir := harnesstest.Dir(t, cfg)
		fromFiles, err := summary.Compute(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(fromFiles, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var written runlog.Summary
		testutil.ReadJSON(t, filepath.Join(dir, runlog.SummaryJSON), &written)
		// Dollars are the run's pricing of the records, not read from them.
		if written.Dollars == nil {
			t.Fatalf("%s: no dollars in summary.json", stage)
		}
		written.Dollars = nil
		got, _ := json.MarshalIndent(&written, "", "  ")
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: the run's summary differs from the files' summary:\n%s\nwant\n%s", stage, got, want)
		}
		if written.Questions == 0 {
			t.Fatalf("%s: empty summary", stage)
		}
	}
	check("fresh run")
	dir := harnesstest.Dir(t, cfg)
	for _, f := range []string{runlog.AnswersFile, runlog.JudgmentsFile, runlog.RetrievalsFile, runlog.CostsFile} {
		lines := readLines(t, filepath.Join(dir, f))
		writeLines(t, filepath.Join(dir, f), lines[:len(lines)-2])
		// An interrupted write: a last line without its end.
		torn, err := os.OpenFile(filepath.Join(dir, f), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		torn.WriteString(`{"question_id": "torn`)
		torn.Close()
	}
	check("resumed run after a torn write")
	for _, f := range []string{runlog.AnswersFile, runlog.JudgmentsFile} {
		lines := readLines(t, filepath.Join(dir, f))
		writeLines(t, filepath.Join(dir, f), lines[:len(lines)-3])
	}
	check("resumed run")
	check("rerun with nothing to do")
}
