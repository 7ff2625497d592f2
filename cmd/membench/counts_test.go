package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// On a LongMemEval file with _abs questions, every command counts the same
// questions (abstention questions left out of overall); compare's figures
// for the f1 metric agree with the summary and with each other.
func TestSameNEverywhereAndCompareAgreesWithSummary(t *testing.T) {
	t.Parallel()
	data, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "longmemeval_mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	res := t.TempDir()
	env := []string{"MEMBENCH_HOME=" + t.TempDir()}
	run := func(id, system string) string {
		out, code := membench(t, env, "run", "--quiet", "--dataset", "longmemeval", "--data", data, "--system", system, "--embedder", "hashed", "--results", res, "--run-id", id)
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
		return filepath.Join(res, id)
	}
	a, b := run("lme-cos", "turns-cosine"), run("lme-full", "fullcontext")

	var sum struct {
		Questions int
		Overall   struct {
			N      int
			Scores map[string]float64
		}
	}
	testutil.ReadJSON(t, filepath.Join(a, "summary.json"), &sum)
	var sumB struct {
		Overall struct{ Scores map[string]float64 }
	}
	testutil.ReadJSON(t, filepath.Join(b, "summary.json"), &sumB)
	abs := 0
	answers, _ := os.ReadFile(filepath.Join(a, "answers.jsonl"))
	for _, l := range strings.Split(strings.TrimSpace(string(answers)), "\n") {
		if strings.Contains(l, `"abstention":true`) {
			abs++
		}
	}
	n := sum.Overall.N
	if abs == 0 || n != sum.Questions-abs {
		t.Fatalf("summary overall n %d of %d questions with %d abstention: want them left out", n, sum.Questions, abs)
	}

	// report tables 2 and 3: the n column.
	for _, table := range []string{"2", "3"} {
		out, code := membench(t, env, "report", "--run", a, "--table", table, "--format", "csv")
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if code != 0 || err != nil || len(rows) < 2 {
			t.Fatalf("report --table %s: exit %d, %v\n%s", table, code, err, out)
		}
		if rows[1][2] != strconv.Itoa(n) {
			t.Errorf("report --table %s n = %s, summary says %d", table, rows[1][2], n)
		}
	}
	// diagnose: overall questions.
	out, code := membench(t, env, "diagnose", "--run", a, "--json")
	var d struct {
		Diagnosis  struct{ Overall struct{ Questions int } }
		Abstention []struct{ N int }
	}
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Diagnosis.Overall.Questions != n || len(d.Abstention) != 1 || d.Abstention[0].N != abs {
		t.Errorf("diagnose overall questions %d, abstention %+v (exit %d); summary says %d and %d\n%s", d.Diagnosis.Overall.Questions, d.Abstention, code, n, abs, out)
	}
	// compare under f1: n, and the figures of the summary.
	var c struct {
		N                      int
		Measure                string
		Threshold              *float64
		MeanA                  float64  `json:"mean_a"`
		MeanB                  float64  `json:"mean_b"`
		MeanDiff               *float64 `json:"mean_diff"`
		Excluded               int
		Test, Verdict, Offline string
	}
	out, code = membench(t, env, "compare", "--run", a, "--run", b, "--judge", "f1", "--test", "noninferiority", "--json")
	if code != 0 || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &c) != nil {
		t.Fatalf("compare: exit %d\n%s", code, out)
	}
	if c.N != n || c.Excluded != abs {
		t.Errorf("compare n %d (excluded %d), summary n %d with %d abstention", c.N, c.Excluded, n, abs)
	}
	if c.Measure != "mean score" || math.Abs(c.MeanA-sum.Overall.Scores["f1"]) > 1e-9 || math.Abs(c.MeanB-sumB.Overall.Scores["f1"]) > 1e-9 {
		t.Errorf("compare f1 means %v, %v (%s); summaries say %v, %v", c.MeanA, c.MeanB, c.Measure, sum.Overall.Scores["f1"], sumB.Overall.Scores["f1"])
	}
	if c.MeanDiff == nil || math.Abs(*c.MeanDiff-(c.MeanA-c.MeanB)) > 1e-9 {
		t.Errorf("mean diff %v is not mean_a - mean_b = %v", c.MeanDiff, c.MeanA-c.MeanB)
	}
	if !strings.Contains(c.Verdict, "offline heuristics") {
		t.Errorf("verdict of offline runs: %q", c.Verdict)
	}
	out, code = membench(t, env, "compare", "--run", a, "--run", b, "--judge", "f1", "--test", "mcnemar", "--json")
	if code != 0 || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &c) != nil {
		t.Fatalf("compare mcnemar: exit %d\n%s", code, out)
	}
	if c.Measure != "thresholded outcome" || c.Threshold == nil || *c.Threshold != 0.5 || c.N != n {
		t.Errorf("mcnemar on f1: measure %q threshold %v n %d", c.Measure, c.Threshold, c.N)
	}
	text, _ := membench(t, env, "compare", "--run", a, "--run", b, "--judge", "f1")
	if !strings.Contains(text, "thresholded outcome") || !strings.Contains(text, "mean score") {
		t.Errorf("compare's text must say which f1 figure it tests:\n%s", text)
	}
}
