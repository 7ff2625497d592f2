package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
)

// Merged shards of a paid run are priced from the joined cost records,
// at the table the shards were priced with (their --prices file), or at
// merge --prices FILE: summary.json holds what pricing the merged records
// gives, and its total is the shards' totals added up.
func TestMergePricesTheJoinedRecords(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	env := []string{"OPENAI_API_KEY=sk-test-merge-dollars"}
	dir := t.TempDir()
	data := filepath.Join(dir, "synth.json")
	if out, code := membench(t, nil, "datasets", "synth", "--shape", "longmemeval-s", "--questions", "4", "--seed", "3", "--out", data); code != 0 {
		t.Fatal(out)
	}
	own, other := filepath.Join(dir, "own.yaml"), filepath.Join(dir, "other.yaml")
	for path, price := range map[string]int{own: 100, other: 7} {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("models:\n  gpt-4o-mini: {input: %d, output: %d}\n", price, price)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	merge := []string{"merge"}
	shardTotal := 0.0
	for i := range 2 {
		id := fmt.Sprintf("shard-%d", i)
		if out, code := membench(t, env, "run", "--quiet", "--no-cache", "--dataset", "longmemeval", "--data", data, "--results", dir, "--run-id", id,
			"--shard", fmt.Sprintf("%d/2", i), "--prices", own, "--llm", "openai", "--model", "gpt-4o-mini", "--base-url", srv.URL, "--judge-spec", "llm"); code != 0 {
			t.Fatalf("%s: exit %d\n%s", id, code, out)
		}
		var s runlog.Summary
		testutil.ReadJSON(t, filepath.Join(dir, id, runlog.SummaryJSON), &s)
		if s.Dollars == nil || s.Dollars.Total.USD == nil {
			t.Fatalf("%s: dollars %+v", id, s.Dollars)
		}
		shardTotal += *s.Dollars.Total.USD
		merge = append(merge, "--run", filepath.Join(dir, id))
	}
	for _, c := range []struct {
		name, prices, want string
	}{{"merged", "", own}, {"merged-other", other, other}} {
		args := append(merge, "--out", filepath.Join(dir, c.name))
		if c.prices != "" {
			args = append(args, "--prices", c.prices)
		}
		if out, code := membench(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		out := filepath.Join(dir, c.name)
		table, err := prices.Load(c.want)
		if err != nil {
			t.Fatal(err)
		}
		want, err := prices.Dollars(out, table)
		if err != nil {
			t.Fatal(err)
		}
		var s runlog.Summary
		testutil.ReadJSON(t, filepath.Join(out, runlog.SummaryJSON), &s)
		if s.Dollars == nil || s.Dollars.Line != want.Line || s.Dollars.PricesFrom != c.want {
			t.Fatalf("%s: summary.json dollars %+v,\nwant the merged records priced with %s: %s", c.name, s.Dollars, c.want, want.Line)
		}
		if c.want == own && math.Abs(*s.Dollars.Total.USD-shardTotal) > 1e-9 {
			t.Errorf("%s: total $%v, the shards' totals add up to $%v", c.name, *s.Dollars.Total.USD, shardTotal)
		}
		t.Logf("%s: %s", c.name, s.Dollars.Line)
	}
}
