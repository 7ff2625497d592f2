package kstar

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog/runlogtest"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/cmd/membench/clierr"
)

func writeRun(t *testing.T, dir, system string, k int, mean float64) {
	t.Helper()
	r := runlogtest.Run{Manifest: runlog.Manifest{Config: membench.Config{System: system, K: k, Dataset: "sample"},
		RenderedTokens: &runlog.TokenStats{N: 3, Mean: mean}}}
	r.Write(t, dir)
}

func run(args ...string) (string, error) { return testutil.Execute(NewCmd(), args...) }

func TestKStarCommand(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "ref"), "cos", 3, 200)
	writeRun(t, filepath.Join(root, "c1"), "rr", 1, 90)
	writeRun(t, filepath.Join(root, "c3"), "rr", 3, 210)
	writeRun(t, filepath.Join(root, "c4"), "rr", 4, 260)

	out, err := run("--run", root, "--reference", "cos", "--candidate", "rr", "--k", "1..5")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"k* = 3", "<- k*", "missing k (2): 2,5", "membench run --system rr --k 2 --dataset sample --results " + root} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = run("--run", root, "--reference", "cos", "--candidate", "rr", "--k", "1,4", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		KStar int `json:"k_star"`
		Rows  []struct{ K int }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if res.KStar != 4 || len(res.Rows) != 2 {
		t.Errorf("json k*=%d rows=%d, want 4 (|260-200| < |90-200|) and 2 rows", res.KStar, len(res.Rows))
	}
	for _, bad := range [][]string{
		{"--run", root, "--reference", "cos", "--candidate", "rr", "--k", "0..3"},
		{"--run", root, "--candidate", "rr"},
		{"--run", root, "--reference", "nope", "--candidate", "rr"},
		{"--run", filepath.Join(root, "missing"), "--reference", "cos", "--candidate", "rr"},
	} {
		if _, err := run(bad...); clierr.Code(err) != 2 {
			t.Errorf("%v: err %v, want a bad-input error (exit 2)", bad, err)
		}
	}
}

func TestKStarWithOptions(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "ref"), "cos", 3, 200)
	writeRun(t, filepath.Join(root, "c2"), "rr", 2, 180)
	writeRun(t, filepath.Join(root, "c5"), "rr", 5, 230)
	var out strings.Builder
	o := &Options{Runs: []string{root}, Reference: "cos", ReferenceK: 3, Candidate: "rr", KRange: "2,5", JSON: true, Out: &out}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var res struct {
		KStar int `json:"k_star"`
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil || res.KStar != 2 {
		t.Errorf("k* = %d (err %v), want 2 (|180-200| < |230-200|)\n%s", res.KStar, err, out.String())
	}
	o.ReferenceK = 0
	if err := Run(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("reference k 0: err %v, want exit 2", err)
	}
}

// --run takes several runs and globs.
func TestKStarRunFlag(t *testing.T) {
	root := t.TempDir()
	ref, c2, c5 := filepath.Join(root, "ref"), filepath.Join(root, "c2"), filepath.Join(root, "c5")
	writeRun(t, ref, "cos", 3, 200)
	writeRun(t, c2, "rr", 2, 180)
	writeRun(t, c5, "rr", 5, 230)
	for _, args := range [][]string{
		{"--run", ref, "--run", filepath.Join(root, "c*")},
		{"--run", root},
		{"--run", root},
	} {
		var out strings.Builder
		c := NewCmd()
		c.SetOut(&out)
		c.SetErr(io.Discard)
		c.SetArgs(append(args, "--reference", "cos", "--candidate", "rr", "--k", "2,5", "--json"))
		if err := c.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var res struct {
			KStar int `json:"k_star"`
		}
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil || res.KStar != 2 {
			t.Errorf("%v: k* = %d (err %v), want 2", args, res.KStar, err)
		}
	}
}

// The missing ks' commands differ only in k: a run of consecutive ks is
// one line (a shell loop), a lone k its own command; --json keeps one
// command per k.
func TestKStarMissingRangeIsOneLine(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "ref"), "cos", 3, 200)
	writeRun(t, filepath.Join(root, "c1"), "rr", 1, 90)
	writeRun(t, filepath.Join(root, "c3"), "rr", 3, 210)
	out, err := run("--run", root, "--reference", "cos", "--candidate", "rr", "--k", "1..40")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "membench run") {
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	want := []string{
		"k 2: membench run --system rr --k 2 --dataset sample --results " + root,
		"k 4–40: for k in $(seq 4 40); do membench run --system rr --k $k --dataset sample --results " + root + "; done",
	}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("command lines:\n%s\nwant:\n%s\nin:\n%s", strings.Join(cmds, "\n"), strings.Join(want, "\n"), out)
	}
	if !strings.Contains(out, "missing k (38): 2,4-40") {
		t.Errorf("the missing ks are not listed:\n%s", out)
	}
	out, err = run("--run", root, "--reference", "cos", "--candidate", "rr", "--k", "1..40", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Missing  []int    `json:"missing_k"`
		Commands []string `json:"commands"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(res.Missing) != 38 || len(res.Commands) != 38 || res.Commands[37] != "membench run --system rr --k 40 --dataset sample --results "+root {
		t.Errorf("--json: %d missing, %d commands, last %q; want one command per k", len(res.Missing), len(res.Commands), res.Commands[len(res.Commands)-1])
	}
}
