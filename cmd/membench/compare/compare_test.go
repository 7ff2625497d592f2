package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// writeRun writes a run dir without a manifest: judgments for ids
// conv-1:0..conv-1:(n-1) of judge j, correct where ok(i), and answers of
// category cat(i).
func writeRun(t *testing.T, system, j string, n int, ok func(int) bool, cat func(int) int) string {
	t.Helper()
	r := &runlogtest.Run{NoManifest: true}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("conv-1:%d", i)
		s := 0.0
		if ok(i) {
			s = 1
		}
		r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, System: system, Judge: j, Correct: ok(i), Score: s})
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, System: system, Category: cat(i)})
	}
	return r.Write(t, filepath.Join(t.TempDir(), system))
}

func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	c := NewCmd()
	var out, errb bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&errb)
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), errb.String(), err
}

// 20 questions: A right on 0-11, B right on 0-4 and 12: both 5, only A 7,
// only B 1, neither 7. Exact McNemar p = 2·P(X ≤ 1), X ~ Bin(8, 1/2) =
// 2·9/256 = 0.0703125. Questions 20-21 are category 5 and must drop out.
func pairFixture(t *testing.T) (string, string) {
	cat := func(i int) int {
		if i >= 20 {
			return 5
		}
		return 1
	}
	a := writeRun(t, "sysA", "llm", 22, func(i int) bool { return i < 12 || i >= 20 }, cat)
	b := writeRun(t, "sysB", "gpt", 22, func(i int) bool { return i < 5 || i == 12 }, cat)
	return a, b
}

func TestMcNemarJSON(t *testing.T) {
	a, b := pairFixture(t)
	out, _, err := run(t, "--run", a, "--run", filepath.Join(b, "judgments.jsonl"), "--judge-a", "llm", "--judge-b", "gpt", "--test", "mcnemar", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "accuracy_a,accuracy_b,both,excluded,invalid_a,invalid_b,judge_a,judge_b,judged_one_side,kappa,mean_a,mean_b,measure,n,neither,only_a,only_b,only_in_a,only_in_b,p_value,run_a,run_b,statistic,test,verdict" {
		t.Errorf("keys %s", got)
	}
	if m["n"].(float64) != 20 || m["both"].(float64) != 5 || m["only_a"].(float64) != 7 || m["only_b"].(float64) != 1 || m["neither"].(float64) != 7 {
		t.Errorf("table %v", m)
	}
	if p := m["p_value"].(float64); math.Abs(p-18.0/256) > 1e-12 {
		t.Errorf("p %v, want %v", p, 18.0/256)
	}
	if m["statistic"].(float64) != 1 || m["accuracy_a"].(float64) != 60 || m["accuracy_b"].(float64) != 30 {
		t.Errorf("statistic/accuracy %v", m)
	}
	// kappa: po = 12/20, pe = (12·6 + 8·14)/400 = 0.46 → (0.6−0.46)/0.54.
	if k := m["kappa"].(float64); math.Abs(k-0.14/0.54) > 1e-12 {
		t.Errorf("kappa %v", k)
	}
}

func TestNonInferiorityAndMissing(t *testing.T) {
	a, b := pairFixture(t)
	// Drop B's last two category-1 lines to see them reported.
	p := filepath.Join(b, "judgments.jsonl")
	data, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(p, []byte(strings.Join(lines[:18], "")+strings.Join(lines[20:], "")), 0o644)
	out, stderr, err := run(t, "--run", a, "--run", b, "--judge-a", "llm", "--judge-b", "gpt", "--test", "noninferiority", "--margin", "-5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "2 question ids judged in A") || !strings.Contains(stderr, "conv-1:18") {
		t.Errorf("missing ids not reported: %q", stderr)
	}
	var r analysis.CompareResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal([]byte(out), &m)
	if r.JudgedOneSide != 2 || r.OnlyInA != 2 || r.Test != "noninferiority" || r.Verdict == "" {
		t.Errorf("one-sided count, test or verdict: %+v", r)
	}
	// The mean difference is exactly the difference of the printed means.
	if math.Abs(*r.MeanDiff-(r.MeanA-r.MeanB)) > 1e-9 {
		t.Errorf("mean diff %v but means %v - %v", *r.MeanDiff, r.MeanA, r.MeanB)
	}
	for _, k := range []string{"mean_diff", "lower_bound", "margin"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s in %v", k, m)
		}
	}
	// 18 paired: d = +100 on 7 (5..11), −100 on 1 (12), 0 on 10: mean 33.33 points.
	if r.N != 18 || math.Abs(*r.MeanDiff-600.0/18) > 1e-9 || *r.Margin != -5 || *r.LowerBound >= *r.MeanDiff {
		t.Errorf("result %v", m)
	}
}

func TestBadInput(t *testing.T) {
	a, b := pairFixture(t)
	if _, _, err := run(t, "--run", a, "--run", b, "--judge", "nosuch"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown judge: %v", err)
	}
	if _, _, err := run(t, "--run", a); err == nil {
		t.Error("missing --b accepted")
	}
	if _, _, err := run(t, "--run", a, "--run", b, "--judge-a", "llm", "--judge-b", "gpt", "--test", "t-test"); err == nil {
		t.Error("unknown test accepted")
	}
}

// "--margin 5" (as the issue and papers write it) is the same test as -5.
func TestPositiveMarginIsATolerance(t *testing.T) {
	a, b := pairFixture(t)
	neg, _, err := run(t, "--run", a, "--run", b, "--judge-a", "llm", "--judge-b", "gpt", "--test", "noninferiority", "--margin", "-5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	pos, stderr, err := run(t, "--run", a, "--run", b, "--judge-a", "llm", "--judge-b", "gpt", "--test", "noninferiority", "--margin", "5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if neg != pos || !strings.Contains(stderr, "read as -5") {
		t.Fatalf("--margin 5 should equal --margin -5 and say so:\n%s\n%s\n%s", neg, pos, stderr)
	}
}

// Two systems with the same outcome on every question: all paired
// differences are zero, so the non-inferiority test has no spread; the
// output says the case is degenerate instead of printing a bare
// "non-inferior".
func TestNonInferiorityDegenerate(t *testing.T) {
	same := func(i int) bool { return i%3 == 0 }
	cat := func(int) int { return 1 }
	a := writeRun(t, "sysA", "llm", 12, same, cat)
	b := writeRun(t, "sysB", "llm", 12, same, cat)
	out, _, err := run(t, "--run", a, "--run", b, "--test", "noninferiority", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r analysis.CompareResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Degenerate || !strings.HasPrefix(r.Verdict, "degenerate: all 12 paired differences are +0.00 points") || *r.MeanDiff != 0 ||
		r.PValue != nil || r.Statistic != nil || !strings.Contains(r.Verdict, "above the margin -5.00") {
		t.Errorf("result %+v", r)
	}
	text, _, err := run(t, "--run", a, "--run", b, "--test", "noninferiority")
	if err != nil || !strings.Contains(text, "degenerate") {
		t.Errorf("text output %v:\n%s", err, text)
	}
	// One discordant question gives spread again: not degenerate.
	c := writeRun(t, "sysC", "llm", 12, func(i int) bool { return same(i) || i == 1 }, cat)
	out, _, _ = run(t, "--run", c, "--run", b, "--test", "noninferiority", "--json")
	r = analysis.CompareResult{}
	json.Unmarshal([]byte(out), &r)
	if r.Degenerate || strings.Contains(r.Verdict, "degenerate") {
		t.Errorf("one discordant pair: %+v", r)
	}
}

// The table of a verdict judge with PARTIAL verdicts shows the score with
// PARTIAL at 0.5 beside the share CORRECT, and says that McNemar counts a
// PARTIAL as wrong.
func TestPrintPartial(t *testing.T) {
	a := writeRun(t, "a", "llm", 4, func(i int) bool { return i == 0 }, func(int) int { return 1 })
	// Questions 1 and 2 of A are PARTIAL.
	var jl []byte
	for i, s := range []float64{1, 0.5, 0.5, 0} {
		b, _ := json.Marshal(runlog.Judgment{QuestionID: fmt.Sprintf("conv-1:%d", i), System: "a", Judge: "llm", Correct: s == 1, Score: s})
		jl = append(append(jl, b...), '\n')
	}
	os.WriteFile(filepath.Join(a, runlog.JudgmentsFile), jl, 0o644)
	b := writeRun(t, "b", "llm", 4, func(i int) bool { return i < 2 }, func(int) int { return 1 })
	out, _, err := run(t, "--run", a, "--run", b, "--judge", "llm", "--test", "mcnemar")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"score 50.00 (PARTIAL = 0.5)", "share CORRECT 25.00", "PARTIAL verdicts (2 in A, 0 in B)", "count them as wrong"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("\n%s", out)
}

// The questions left out by the default exclusion are said to be left
// out by default, with the flag that keeps them; a user's own
// --exclude-group is named as given, and none keeps them all.
func TestExclusionNoteSaysWhoExcluded(t *testing.T) {
	a, b := pairFixture(t)
	args := []string{"--run", a, "--run", b, "--judge-a", "llm", "--judge-b", "gpt"}
	_, stderr, err := run(t, args...)
	want := "compare: 2 shared questions whose right answer is to decline are left out by default, as the summary's overall leaves them out; --exclude-group none keeps them\n"
	if err != nil || stderr != want {
		t.Errorf("default: %v\n%q\nwant %q", err, stderr, want)
	}
	_, stderr, err = run(t, append(args, "--exclude-group", "abstention")...)
	if want := "compare: 2 shared questions excluded by --exclude-group abstention\n"; err != nil || stderr != want {
		t.Errorf("given: %v\n%q\nwant %q", err, stderr, want)
	}
	if _, stderr, err = run(t, append(args, "--exclude-group", "none")...); err != nil || strings.Contains(stderr, "excluded") || strings.Contains(stderr, "left out") {
		t.Errorf("none: %v\n%q", err, stderr)
	}
}
