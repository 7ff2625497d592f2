package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/view"
)

// A paid judge added to a finished run (membench judge) is priced with the
// run's other calls: after it, summary.json, summary.md, report --table
// dollars and the view's headline show the same judge and total dollars,
// for a paid run and for an offline one (whose summary said $0 offline).
func TestJudgeAddedLaterKeepsDollarsInStep(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	env := []string{"OPENAI_API_KEY=sk-test-judge-dollars"}
	results := t.TempDir()
	runs := map[string][]string{
		"paid":    {"--llm", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--judge-spec", "llm", "--judge-spec", "f1"},
		"offline": {"--judge-spec", "lexical", "--judge-spec", "f1"},
	}
	for _, id := range []string{"paid", "offline"} {
		args := append([]string{"run", "--quiet", "--no-cache", "--results", results, "--run-id", id}, runs[id]...)
		if out, code := membench(t, env, args...); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
		dir := filepath.Join(results, id)
		before := agreedDollars(t, dir)
		out, code := membench(t, env, "judge", "--run", dir, "--no-cache", "--judge-spec", "name=big,backend=openai,model=gpt-4o,base-url="+srv.URL)
		if code != 0 {
			t.Fatalf("judge %s: exit %d\n%s", id, code, out)
		}
		after := agreedDollars(t, dir)
		t.Logf("%s run: before the judge %v, after %v", id, before, after)
		if after.total == before.total || after.judge == before.judge || strings.Contains(after.total, "offline") || !strings.HasPrefix(after.judge, "$0.") {
			t.Errorf("%s run: dollars before the judge %v, after %v; want the added judge's gpt-4o calls priced in the judge stage and the total", id, before, after)
		}
	}
}

// figures is a run's judge-stage and total dollars as one place shows them.
type figures struct{ judge, total string }

// agreedDollars reads a run's judge and total dollars from summary.json,
// summary.md, report --table dollars and the view's headline, fails the
// test unless all four agree, and returns them.
func agreedDollars(t *testing.T, dir string) figures {
	t.Helper()
	var s runlog.Summary
	testutil.ReadJSON(t, filepath.Join(dir, runlog.SummaryJSON), &s)
	if s.Dollars == nil {
		t.Fatalf("%s: summary.json has no dollars", dir)
	}
	// summary.json holds dollars as numbers: written as the others write
	// them (to $0.0001 below a dollar, well within a cent).
	str := func(a runlog.Amount) string {
		if a.USD == nil {
			return "unknown"
		}
		return prices.Amount{Dollars: *a.USD, Paid: !a.Offline}.String()
	}
	fromJSON := figures{judge: "-", total: str(s.Dollars.Total)}
	if a, ok := s.Dollars.Stages["judge"]; ok {
		fromJSON.judge = str(a)
	}

	md, err := os.ReadFile(filepath.Join(dir, runlog.SummaryMD))
	if err != nil {
		t.Fatal(err)
	}
	fromMD := figures{judge: "-"}
	for _, line := range strings.Split(string(md), "\n") {
		if _, rest, ok := strings.Cut(line, "dollars: "); ok {
			for _, part := range strings.Split(strings.SplitN(rest, " (prices", 2)[0], " · ") {
				if v, ok := strings.CutPrefix(part, "judge "); ok {
					fromMD.judge = v
				}
				if v, ok := strings.CutPrefix(part, "total "); ok {
					fromMD.total = v
				}
			}
		}
	}

	out, code := membench(t, nil, "report", "--run", dir, "--table", "dollars", "--format", "csv")
	if code != 0 {
		t.Fatalf("report --table dollars: exit %d\n%s", code, out)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.SplitN(out, "\n\n", 2)[0])).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("report --table dollars --format csv: %v\n%s", err, out)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	fromReport := figures{judge: rows[1][col["judge"]], total: rows[1][col["total"]]}

	b, err := view.Build([]string{dir}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	head := b.Runs[0].Head
	fromView := figures{judge: "-", total: head.Total}
	for _, d := range head.Dollars {
		if d[0] == "judge" {
			fromView.judge = d[1]
		}
	}

	if fromJSON != fromMD || fromMD != fromReport || fromMD != fromView {
		t.Errorf("%s: dollars (judge, total) disagree: summary.json %v, summary.md %v, report --table dollars %v, view headline %v", dir, fromJSON, fromMD, fromReport, fromView)
	}
	return fromMD
}

// A run priced with --prices FILE keeps that table when a judge is added
// without --prices; judge --prices names another, and a prices file that
// does not read is refused (exit 2) before any judge call.
func TestJudgePricesWithTheRunsTable(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	env := []string{"OPENAI_API_KEY=sk-test-judge-prices"}
	tmp := t.TempDir()
	own := filepath.Join(tmp, "own.yaml")
	if err := os.WriteFile(own, []byte("as_of: 2030-01-01\nmodels:\n  gpt-4o-mini: {input: 100, output: 100}\n  gpt-4o: {input: 200, output: 200}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	if out, code := membench(t, env, "run", "--quiet", "--no-cache", "--results", results, "--run-id", "r", "--prices", own,
		"--llm", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--judge-spec", "llm"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	dir := filepath.Join(results, "r")
	judge := func(extra ...string) (string, int) {
		return membench(t, env, append([]string{"judge", "--run", dir, "--no-cache", "--judge-spec", "name=big,backend=openai,model=gpt-4o,base-url=" + srv.URL}, extra...)...)
	}
	calls := srv.Count("/v1/chat/completions")
	out, code := judge("--prices", filepath.Join(tmp, "missing.yaml"))
	if code != 2 || !strings.Contains(out, "--prices") || srv.Count("/v1/chat/completions") != calls {
		t.Fatalf("judge --prices with a missing file: exit %d after %d calls, want 2 before any call, naming --prices\n%s", code, srv.Count("/v1/chat/completions")-calls, out)
	}
	if out, code := judge(); code != 0 {
		t.Fatalf("judge: exit %d\n%s", code, out)
	}
	table, err := prices.Load(own)
	if err != nil {
		t.Fatal(err)
	}
	want, err := prices.Dollars(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	var s runlog.Summary
	testutil.ReadJSON(t, filepath.Join(dir, runlog.SummaryJSON), &s)
	if s.Dollars == nil || s.Dollars.PricesFrom != own || s.Dollars.Line != want.Line {
		t.Fatalf("after judge: dollars %+v, want the run's own prices file %s: %s", s.Dollars, own, want.Line)
	}
	t.Logf("judged with the run's prices: %s", s.Dollars.Line)
}
