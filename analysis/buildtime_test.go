package analysis

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
	"github.com/membench/membench/summary"
)

// Build time is one figure: the summary's Build.Seconds, the wall time of
// memory construction (two conversations built side by side count once),
// which summary.md and report's Time s show alike. A run whose builds
// have no start time shows the per-conversation sum, marked as such in both.
func TestBuildTimeIsTheSummarysInReport(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name      string
		started   [2]time.Time
		cell, md  string
		summedOut bool
	}{
		// [0, 4.0] and [1, 6.2]: 6.2 s of wall time, 9.2 s summed.
		{"parallel", [2]time.Time{t0, t0.Add(time.Second)}, "6.2", "6.2 s (wall time of memory construction", false},
		{"no start times", [2]time.Time{}, "9.2*", "9.2 s (Ingest time summed over conversations", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fr := runlogtest.New("structmem", 0, "lexical").Scored(4, 2, 1)
			fr.Builds = []runlog.BuildRecord{
				{ConversationID: "c1", System: "structmem", Seconds: 4.0, Started: c.started[0]},
				{ConversationID: "c2", System: "structmem", Seconds: 5.2, Started: c.started[1]},
			}
			dir := fr.Write(t, filepath.Join(t.TempDir(), "run"))
			r := mustLoad(t, dir)
			s := r.Summary
			if s.BuildSecondsSummed != c.summedOut {
				t.Errorf("BuildSecondsSummed %v, want %v", s.BuildSecondsSummed, c.summedOut)
			}
			md := strings.Join(summary.Table(s).Notes, "\n")
			if !strings.Contains(md, "build: 0 calls, 0 input + 0 output tokens, "+c.md) {
				t.Errorf("summary.md build line, want %q:\n%s", c.md, md)
			}
			tb, err := Table2([]*runlog.Run{r}, "lexical", Wide)
			if err != nil {
				t.Fatal(err)
			}
			col := -1
			for i, h := range tb.Header {
				if h == "Time s" {
					col = i
				}
			}
			if col < 0 || len(tb.Rows) != 1 || tb.Rows[0][col] != c.cell {
				t.Errorf("report Time s column %d of %v, want %s", col, tb.Rows, c.cell)
			}
		})
	}
}
