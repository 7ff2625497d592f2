package main

import (
	"encoding/csv"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// Two runs judged by a fake model judge that gives no verdict on about 3
// prompts in 10: every table counts those invalid verdicts beside n (the
// run's summary, report, compare, prereg), leaving them out by default;
// --invalid-as wrong counts them as WRONG instead, as the papers' scripts
// do, so n grows by them and the accuracy falls, and they are still
// counted.
func TestInvalidVerdictsBesideNAndAsWrong(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		h := fnv.New32a()
		h.Write([]byte(r.LastUser()))
		switch {
		case h.Sum32()%10 < 3:
			return llmtest.Reply{Text: "Hmm, hard to say."}
		case h.Sum32()%7 < 4:
			return llmtest.Reply{Text: `{"reason": "same fact", "label": "CORRECT"}`}
		}
		return llmtest.Reply{Text: `{"reason": "differs", "label": "WRONG"}`}
	}))
	res := t.TempDir()
	env := []string{"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.URL}
	run := func(id, system string) (string, string) {
		out, code := membench(t, env, "run", "--system", system, "--judge-model", "openai:gpt-4o-mini",
			"--judge-spec", "llm", "--judge-spec", "f1", "--results", res, "--run-id", id)
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
		return filepath.Join(res, id), out
	}
	a, outA := run("cos", "turns-cosine")
	b, _ := run("full", "fullcontext")
	_, inv, err := runlogtest.Verdicts(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv) == 0 {
		t.Fatal("the fixture needs invalid verdicts")
	}

	// The run's own table: an invalid column beside n, its overall row
	// the summary's count of overall questions without a verdict.
	var sum runlog.Summary
	testutil.ReadJSON(t, filepath.Join(a, runlog.SummaryJSON), &sum)
	if !strings.Contains(outA, "│ invalid │") || !strings.Contains(outA, "│ "+strconv.Itoa(sum.Overall.N)+" │ "+strconv.Itoa(sum.Overall.Invalid["llm"])+" ") {
		t.Errorf("summary table lacks invalid %d beside n %d:\n%s", sum.Overall.Invalid["llm"], sum.Overall.N, outA)
	}

	// report: n and invalid; under --invalid-as wrong n grows by the
	// invalid ones, which still show, and the correct count is the same.
	report := func(extra ...string) (n, invalid int, overall float64) {
		out, code := membench(t, nil, append([]string{"report", "--run", a, "--table", "2", "--judge", "llm", "--format", "csv"}, extra...)...)
		if code != 0 {
			t.Fatalf("report %v: exit %d\n%s", extra, code, out)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) < 2 || rows[0][2] != "n" || rows[0][3] != "invalid" {
			t.Fatalf("report csv (%v):\n%s", err, out)
		}
		n, _ = strconv.Atoi(rows[1][2])
		invalid, _ = strconv.Atoi(rows[1][3])
		overall, _ = strconv.ParseFloat(rows[1][4], 64)
		return n, invalid, overall
	}
	n0, i0, o0 := report()
	n1, i1, o1 := report("--invalid-as", "wrong")
	if i0 == 0 || i1 != i0 || n1 != n0+i0 || o1 >= o0 || int(o0*float64(n0)/100+0.5) != int(o1*float64(n1)/100+0.5) {
		t.Errorf("report: skip n %d invalid %d overall %.2f; wrong n %d invalid %d overall %.2f; want n+invalid, same correct count, lower overall", n0, i0, o0, n1, i1, o1)
	}

	// compare: every question paired as WRONG on the side without a
	// verdict; the counts stay.
	type cmp struct {
		N              int     `json:"n"`
		InvalidA       int     `json:"invalid_a"`
		InvalidB       int     `json:"invalid_b"`
		AccuracyA      float64 `json:"accuracy_a"`
		InvalidAsWrong bool    `json:"invalid_as_wrong"`
	}
	compare := func(extra ...string) cmp {
		out, code := membench(t, nil, append([]string{"compare", "--run", a, "--run", b, "--judge", "llm", "--exclude-group", "none", "--json"}, extra...)...)
		if code != 0 {
			t.Fatalf("compare %v: exit %d\n%s", extra, code, out)
		}
		var c cmp
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &c); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return c
	}
	skip, wrong := compare(), compare("--invalid-as", "wrong")
	total := 0
	for _, g := range sum.Groups {
		total += g.N
	}
	if skip.InvalidAsWrong || !wrong.InvalidAsWrong || wrong.N != total || skip.N >= total || wrong.InvalidA != skip.InvalidA || wrong.InvalidB != skip.InvalidB || wrong.InvalidA == 0 {
		t.Errorf("compare: skip %+v, wrong %+v; want every one of %d questions paired under wrong, the invalid counts kept", skip, wrong, total)
	}
	out, code := membench(t, nil, "compare", "--run", a, "--run", b, "--judge", "llm", "--invalid-as", "wrong")
	if code != 0 || !strings.Contains(out, "invalid: ") || !strings.Contains(out, "counted as WRONG") {
		t.Errorf("compare text: exit %d, want invalid beside n and the note\n%s", code, out)
	}
	if out, code := membench(t, nil, "compare", "--run", a, "--run", b, "--invalid-as", "maybe"); code != 2 || !strings.Contains(out, "skip") {
		t.Errorf("--invalid-as maybe: exit %d, want 2 naming the values\n%s", code, out)
	}

	// prereg: invalid A / B beside n.
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte("title: t\njudge: llm\nsystems: {a: cos, b: full}\nhypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n"), 0o644)
	if out, code := membench(t, nil, "prereg", "lock", plan, "--run", res); code != 0 {
		t.Fatalf("lock: %d\n%s", code, out)
	}
	out, code = membench(t, nil, "prereg", "test", plan, "--run", res, "--exploratory", "--invalid-as", "wrong")
	if code != 0 || !strings.Contains(out, "invalid A / B") || !strings.Contains(out, "counted as WRONG") {
		t.Errorf("prereg test: exit %d, want invalid A / B beside n\n%s", code, out)
	}
}
