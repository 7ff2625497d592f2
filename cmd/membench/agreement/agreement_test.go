package agreement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

func write(t *testing.T, dir string, js []runlog.Judgment) string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	var b []byte
	for _, j := range js {
		l, _ := json.Marshal(j)
		b = append(append(b, l...), '\n')
	}
	p := filepath.Join(dir, "judgments.jsonl")
	os.WriteFile(p, b, 0o644)
	return p
}

// labels: 10 questions; x agrees with y on 8 (4 yes-yes, 4 no-no, 1 each
// discordant): Cohen κ = (0.8−0.5)/0.5 = 0.6; phi = Pearson r = 0.6;
// Fleiss (pooled margins 0.5) = 0.6 too.
var x = []bool{true, true, true, true, true, false, false, false, false, false}
var y = []bool{true, true, true, true, false, true, false, false, false, false}

func judgments(system, name string, v []bool) []runlog.Judgment {
	var out []runlog.Judgment
	for i, c := range v {
		s := 0.0
		if c {
			s = 1
		}
		out = append(out, runlog.Judgment{QuestionID: fmt.Sprintf("q%d", i), System: system, Judge: name, Correct: c, Score: s})
	}
	return out
}

func run(t *testing.T, args ...string) (string, string) {
	t.Helper()
	c := NewCmd()
	var out, errb bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&errb)
	c.SetArgs(args)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String()
}

func TestKnownKappaAcrossFiles(t *testing.T) {
	root := t.TempDir()
	// Same judge name in two files (--raters run): raters are kept apart
	// by system.
	a := write(t, filepath.Join(root, "v1"), judgments("mb-v1", "peer-llm", x))
	extra := append(judgments("mb-v2", "peer-llm", y), runlog.Judgment{QuestionID: "q99", System: "mb-v2", Judge: "peer-llm"})
	b := write(t, filepath.Join(root, "v2"), extra)
	out, stderr := run(t, "--raters", "run", "--run", a, "--run", filepath.Dir(b), "--json")
	var res struct {
		Judges      []string `json:"judges"`
		N           int      `json:"n"`
		FleissKappa float64  `json:"fleiss_kappa"`
		Pairs       []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"judges", "n", "fleiss_kappa", "pairs"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no key %s in %s", k, out)
		}
	}
	if strings.Join(res.Judges, ",") != "mb-v1/peer-llm,mb-v2/peer-llm" || res.N != 10 {
		t.Errorf("judges %v n %d", res.Judges, res.N)
	}
	if !strings.Contains(stderr, "1 questions not judged by every rater") {
		t.Errorf("dropped not reported: %q", stderr)
	}
	if len(res.Pairs) != 1 {
		t.Fatalf("pairs %v", res.Pairs)
	}
	p := res.Pairs[0]
	for _, k := range []string{"a", "b", "cohen_kappa", "pearson_r", "p_value"} {
		if _, ok := p[k]; !ok {
			t.Errorf("pair lacks %s: %v", k, p)
		}
	}
	if math.Abs(p["cohen_kappa"].(float64)-0.6) > 1e-12 || math.Abs(p["pearson_r"].(float64)-0.6) > 1e-12 || math.Abs(res.FleissKappa-0.6) > 1e-12 {
		t.Errorf("kappa %v r %v fleiss %v, want 0.6", p["cohen_kappa"], p["pearson_r"], res.FleissKappa)
	}
	// r = 0.6, n = 10: t = 0.6·sqrt(8/0.64) = 2.1213, two-sided p ≈ 0.0667.
	if pv := p["p_value"].(float64); math.Abs(pv-0.0667) > 0.001 {
		t.Errorf("p %v", pv)
	}
}

func TestHumanAgreementPerSystem(t *testing.T) {
	root := t.TempDir()
	var js []runlog.Judgment
	js = append(js, judgments("s1", "human", x)...)
	js = append(js, judgments("s1", "llm", y)...) // 8/10 with human
	js = append(js, judgments("s1", "gpt", x)...) // 10/10
	js = append(js, judgments("s2", "human", y)...)
	js = append(js, judgments("s2", "llm", y)...) // 10/10
	js = append(js, judgments("s2", "gpt", x)...) // 8/10
	p := write(t, filepath.Join(root, "r"), js)
	out, _ := run(t, "--run", p, "--json")
	var res analysis.AgreementResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, h := range res.Human {
		got[h.System+"/"+h.Judge] = h.Agreement
	}
	// Over both systems each judge agrees on 18 of 20 items.
	want := map[string]float64{"s1/llm": 80, "s1/gpt": 100, "s2/llm": 100, "s2/gpt": 80, "(all)/llm": 90, "(all)/gpt": 90}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s agreement %v, want %v (all %v)", k, got[k], v, got)
		}
	}
	for _, j := range res.Judges {
		if strings.HasSuffix(j, "/human") {
			t.Errorf("human should not be a pairwise rater: %v", res.Judges)
		}
	}
}

// Table 5's shape: raters are judges and items are (system, question)
// pairs pooled over the runs. The textbook 2×2 table (50 items: yes-yes
// 20, yes-no 5, no-yes 10, no-no 15) gives p_o = 0.7, p_e = 0.5·0.6 +
// 0.5·0.4 = 0.5, Cohen κ = 0.4; Fleiss' κ for two raters is Scott's π:
// pooled yes share 0.55, p_e = 0.55² + 0.45² = 0.505, π = 0.195/0.495 =
// 0.393939...; phi = (20·15 − 5·10)/sqrt(25·25·30·20) = 250/612.37 =
// 0.408248. The 50 items are split over two runs of different systems
// with the same question ids, so a per-question join would see only 25.
func TestTable5ItemsAreSystemQuestionPairs(t *testing.T) {
	var gpt, qwen []bool
	add := func(n int, a, b bool) {
		for i := 0; i < n; i++ {
			gpt, qwen = append(gpt, a), append(qwen, b)
		}
	}
	add(20, true, true)
	add(5, true, false)
	add(10, false, true)
	add(15, false, false)
	// Interleave so that each run holds a mix of the four cells.
	var g1, q1, g2, q2 []bool
	for i := range gpt {
		if i%2 == 0 {
			g1, q1 = append(g1, gpt[i]), append(q1, qwen[i])
		} else {
			g2, q2 = append(g2, gpt[i]), append(q2, qwen[i])
		}
	}
	root := t.TempDir()
	r1 := write(t, filepath.Join(root, "full"), append(judgments("fullcontext", "gpt", g1), judgments("fullcontext", "qwen", q1)...))
	r2 := write(t, filepath.Join(root, "sm"), append(judgments("structmem", "gpt", g2), judgments("structmem", "qwen", q2)...))
	// An invalid verdict (no verdict in the reply) is left out and counted.
	inv := runlog.Judgment{QuestionID: "q99", System: "structmem", Judge: "qwen", Invalid: true, Raw: "Hmm"}
	r2 = write(t, filepath.Dir(r2), append(append(judgments("structmem", "gpt", g2), judgments("structmem", "qwen", q2)...),
		runlog.Judgment{QuestionID: "q99", System: "structmem", Judge: "gpt", Correct: true, Score: 1}, inv))
	out, stderr := run(t, "--run", filepath.Dir(r1), "--run", filepath.Dir(r2), "--json")
	var res analysis.AgreementResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.N != 50 || res.Dropped != 1 || res.Invalid["qwen"] != 1 || strings.Join(res.Judges, ",") != "gpt,qwen" ||
		strings.Join(res.Systems, ",") != "fullcontext,structmem" || res.Raters != "judge" {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(stderr, "1 system-question pairs not judged by every rater were dropped") {
		t.Errorf("stderr %q", stderr)
	}
	p := res.Pairs[0]
	if math.Abs(*p.CohenKappa-0.4) > 1e-12 || math.Abs(*res.FleissKappa-0.195/0.495) > 1e-12 || math.Abs(*p.PearsonR-250/math.Sqrt(25*25*30*20)) > 1e-12 {
		t.Errorf("kappa %v fleiss %v r %v, want 0.4, 0.393939, 0.408248", *p.CohenKappa, *res.FleissKappa, *p.PearsonR)
	}
	text, _ := run(t, "--run", filepath.Dir(r1), "--run", filepath.Dir(r2))
	for _, want := range []string{"system-question pairs judged by all: 50 (dropped 1)", "note: judge qwen gave no verdict on 1 items", "Fleiss κ over 2 judges: 0.3939"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// Lexical metrics agree with each other by construction: by default the
// raters are the verdict judges only (f1 and bleu1 are named as left out);
// --judge adds a metric.
func TestDefaultRatersAreVerdictJudges(t *testing.T) {
	root := t.TempDir()
	js := append(judgments("sys", "gpt", x), judgments("sys", "qwen", y)...)
	js = append(js, judgments("sys", "f1", x)...)
	js = append(js, judgments("sys", "bleu1", x)...)
	p := write(t, filepath.Join(root, "r"), js)
	out, _ := run(t, "--run", p, "--json")
	var res struct {
		Judges  []string `json:"judges"`
		LeftOut []string `json:"metrics_left_out"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Judges, ",") != "gpt,qwen" || strings.Join(res.LeftOut, ",") != "bleu1,f1" {
		t.Errorf("default raters %v, left out %v; want gpt,qwen and bleu1,f1", res.Judges, res.LeftOut)
	}
	out, _ = run(t, "--run", p)
	if !strings.Contains(out, "--judge") || !strings.Contains(out, "not raters by default") {
		t.Errorf("text output should say the metrics were left out:\n%s", out)
	}
	out, _ = run(t, "--run", p, "--judge", "gpt", "--judge", "f1", "--json")
	res.Judges = nil
	json.Unmarshal([]byte(out), &res)
	if strings.Join(res.Judges, ",") != "f1,gpt" {
		t.Errorf("--judge gpt --judge f1: raters %v", res.Judges)
	}
}

// With --answer-key, judges rate with their verdicts under that key: a
// run made under the audited key whose judges were added under the
// published one (NAME+published) is rated by those under --answer-key
// published, and by its own otherwise.
func TestAgreementUnderAnAnswerKey(t *testing.T) {
	m := runlog.Manifest{Dataset: "locomo", Config: membench.Config{System: "s"}, Judges: []string{"p", "q", "p+published", "q+published"},
		AnswerKey: &runlog.AnswerKeyInfo{Key: "audited sha256:aaaa"},
		JudgeSpecs: []membench.JudgeInfo{{Name: "p", Kind: "llm", Class: membench.JudgeVerdict}, {Name: "q", Kind: "llm", Class: membench.JudgeVerdict},
			{Name: "p+published", Kind: "llm", Class: membench.JudgeVerdict, AnswerKey: "published sha256:bbbb"},
			{Name: "q+published", Kind: "llm", Class: membench.JudgeVerdict, AnswerKey: "published sha256:bbbb"}}}
	r := &runlogtest.Run{Manifest: m}
	for i := range x {
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: fmt.Sprintf("q%d", i), System: "s", Group: "single-hop"})
	}
	r.Judgments = append(r.Judgments, judgments("s", "p", x)...)
	r.Judgments = append(r.Judgments, judgments("s", "q", x)...) // own key: full agreement
	r.Judgments = append(r.Judgments, judgments("s", "p+published", x)...)
	r.Judgments = append(r.Judgments, judgments("s", "q+published", y)...) // published key: kappa 0.6
	dir := r.Write(t, filepath.Join(t.TempDir(), "run"))

	kappa := func(args ...string) (float64, []string) {
		out, _ := run(t, append([]string{"--run", dir, "--json", "--judge", "p", "--judge", "q"}, args...)...)
		var res analysis.AgreementResult
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Pairs) != 1 || res.Pairs[0].CohenKappa == nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return *res.Pairs[0].CohenKappa, res.Judges
	}
	if k, judges := kappa(); k != 1 || strings.Join(judges, ",") != "p,q" {
		t.Errorf("the run's own key: kappa %v between %v, want 1 between p and q", k, judges)
	}
	if k, judges := kappa("--answer-key", "published"); math.Abs(k-0.6) > 1e-9 || strings.Join(judges, ",") != "p,q" {
		t.Errorf("under the published key: kappa %v between %v, want 0.6 between p and q", k, judges)
	}

	for _, tc := range []struct {
		src, key, want string
	}{
		{dir, filepath.Join(t.TempDir(), "missing.json"), "missing.json"},
		{write(t, filepath.Join(t.TempDir(), "loose"), r.Judgments), "published", "needs run directories"},
	} {
		c := NewCmd()
		c.SetOut(io.Discard)
		c.SetErr(io.Discard)
		c.SetArgs([]string{"--run", tc.src, "--answer-key", tc.key})
		if err := c.Execute(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--run %s --answer-key %s: %v, want an error naming %q", tc.src, tc.key, err, tc.want)
		}
	}
}
