package harness_test

import (
	"bufio"
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
	"github.com/membench/membench/summary"
)

// judgeServer is a fake judge model: every chat request is a judge call
// (the other roles are offline). Its verdict depends only on the prompt;
// while broken it answers prompts hashing into 3 of 10 buckets with text
// that holds no verdict.
type judgeServer struct {
	*llmtest.Server
	broken atomic.Bool
	mu     sync.Mutex
	bad    map[string]bool // prompts answered without a verdict
}

func newJudgeServer(t *testing.T) *judgeServer {
	js := &judgeServer{bad: map[string]bool{}}
	js.Server = llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		u := r.LastUser()
		h := fnv.New32a()
		h.Write([]byte(u))
		sum := h.Sum32()
		if js.broken.Load() && sum%10 < 3 {
			js.mu.Lock()
			js.bad[u] = true
			js.mu.Unlock()
			return llmtest.Reply{Text: "Hmm, hard to say."}
		}
		if sum%7 < 4 {
			return llmtest.Reply{Text: `{"reason": "same fact", "label": "CORRECT"}`}
		}
		return llmtest.Reply{Text: `{"reason": "differs", "label": "WRONG"}`}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", js.URL)
	return js
}

func judgeFaultConfig(t *testing.T, results, cache string) membench.Config {
	return membench.Config{System: "turns-cosine", JudgeModel: "openai:gpt-4o-mini", Judges: []string{"f1", "llm"},
		ResultsDir: results, CacheDir: cache, Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
}

func verdictsOf(t *testing.T, dir, judgeName string) map[string]bool {
	t.Helper()
	js, err := runlogtest.Judgments(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, j := range js {
		if j.Judge == judgeName {
			out[j.QuestionID] = j.Correct
		}
	}
	return out
}

// linesPerPair counts raw judgments.jsonl lines per (question, judge).
func linesPerPair(t *testing.T, dir string) map[[2]string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, runlog.JudgmentsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[[2]string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var j runlog.Judgment
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		out[[2]string{j.QuestionID, j.Judge}]++
	}
	return out
}

// A judge model that gives no verdict for 30% of questions: the run ends
// normally with those verdicts invalid (asked three times, never cached),
// the summary counts them, and a rerun once the server is fixed asks only
// those again and ends with the verdicts of a clean run.
func TestUnparseableVerdictsAreInvalidAndReasked(t *testing.T) {
	srv := newJudgeServer(t)
	cache := t.TempDir()
	cfg := judgeFaultConfig(t, t.TempDir(), cache)
	srv.broken.Store(true)
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatalf("a run with unparseable verdicts must finish: %v", err)
	}
	nBad := len(srv.bad)
	if nBad == 0 || nBad == sum.Questions {
		t.Fatalf("%d of %d prompts unparseable; the test needs some of each", nBad, sum.Questions)
	}
	if sum.Invalid["llm"] != nBad || sum.Invalid["f1"] != 0 {
		t.Fatalf("summary counts invalid %v, want llm=%d", sum.Invalid, nBad)
	}
	calls := srv.Count("/v1/chat/completions")
	if want := sum.Questions + 2*nBad; calls != want {
		t.Fatalf("server saw %d judge calls, want one per question plus two re-asks per bad one = %d", calls, want)
	}
	// Invalid verdicts are logged with the raw reply and left out of the
	// accuracy: the llm column is computed over the valid ones only.
	dir := harnesstest.Dir(t, cfg)
	r, err := runlog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Invalid) != nBad || r.Invalid[0].Raw != "Hmm, hard to say." || !r.Invalid[0].Invalid {
		t.Fatalf("run.Invalid = %d records (%+v), want %d with the raw reply", len(r.Invalid), r.Invalid[0], nBad)
	}
	valid := verdictsOf(t, dir, "llm")
	if len(valid) != sum.Questions-nBad {
		t.Fatalf("%d valid llm verdicts, want %d", len(valid), sum.Questions-nBad)
	}
	var tbl strings.Builder
	summary.Print(&tbl, sum)
	if !strings.Contains(tbl.String(), "INVALID: judge llm gave no verdict on") || !strings.Contains(tbl.String(), "Hmm, hard to say.") {
		t.Fatalf("the summary must show the invalid count and a reply:\n%s", tbl.String())
	}

	// The server is fixed; the rerun re-asks exactly the invalid ones.
	srv.broken.Store(false)
	sum2, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Count("/v1/chat/completions") - calls; got != nBad {
		t.Fatalf("rerun sent %d judge calls, want only the %d invalid ones", got, nBad)
	}
	if len(sum2.Invalid) != 0 {
		t.Fatalf("after the fix, invalid = %v", sum2.Invalid)
	}
	for pair, n := range linesPerPair(t, dir) {
		if pair[1] == "f1" && n != 1 {
			t.Fatalf("f1 judged %s %d times; the rerun must not touch other judges", pair[0], n)
		}
	}

	// A clean run (new results and cache) gives the same verdicts.
	clean := judgeFaultConfig(t, t.TempDir(), t.TempDir())
	sumClean, err := harness.Run(context.Background(), clean, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, want := verdictsOf(t, dir, "llm"), verdictsOf(t, harnesstest.Dir(t, clean), "llm")
	if len(got) != len(want) || len(got) != sum.Questions {
		t.Fatalf("verdicts: %d after rerun, %d clean, %d questions", len(got), len(want), sum.Questions)
	}
	for q, c := range want {
		if got[q] != c {
			t.Fatalf("question %s: %v after rerun, %v in a clean run", q, got[q], c)
		}
	}
	if sum2.Overall.Scores["llm"] != sumClean.Overall.Scores["llm"] {
		t.Fatalf("llm accuracy %v after rerun, %v clean", sum2.Overall.Scores["llm"], sumClean.Overall.Scores["llm"])
	}
}

// A judge that fails outright (a 400) after another judge wrote its line:
// the resume judges only what is missing, leaving one line per (question,
// judge).
func TestResumeAfterFailedJudgeWritesEachPairOnce(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	var failed atomic.Int32
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if fail.Load() && n%4 == 3 {
			failed.Add(1)
			return llmtest.Reply{Status: 400, ErrorMessage: "bad request"}
		}
		return llmtest.Reply{Text: `{"label": "CORRECT"}`}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := judgeFaultConfig(t, t.TempDir(), t.TempDir())
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err == nil || failed.Load() == 0 {
		t.Fatalf("the first attempt must fail on the judge (err %v, %d failures)", err, failed.Load())
	}
	fail.Store(false)
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lines := linesPerPair(t, harnesstest.Dir(t, cfg))
	if len(lines) != 2*sum.Questions {
		t.Fatalf("%d (question, judge) pairs, want %d", len(lines), 2*sum.Questions)
	}
	for pair, n := range lines {
		if n != 1 {
			t.Fatalf("%s judged by %s on %d lines, want 1", pair[0], pair[1], n)
		}
	}
}

// Our strict and lenient judge prompts side by side in one run, each judge
// with its own prompt (prompt=lenient names the embedded one).
func TestStrictAndLenientJudgesSideBySide(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		if strings.Contains(r.Messages[0].Content, "lenient grading") {
			return llmtest.Reply{Text: `{"reason": "on topic", "label": "CORRECT"}`}
		}
		return llmtest.Reply{Text: `{"reason": "differs", "label": "WRONG"}`}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := membench.Config{System: "turns-cosine", JudgeModel: "openai:gpt-4o-mini",
		Judges:     []string{"llm,name=strict", "llm,name=lenient,prompt=lenient"},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Overall.Scores["strict"] != 0 || sum.Overall.Scores["lenient"] != 100 {
		t.Fatalf("scores %v: want strict 0 and lenient 100", sum.Overall.Scores)
	}
	m, err := runlog.LoadManifest(harnesstest.Dir(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	var lenient, strict map[string]string
	for _, in := range m.JudgeSpecs {
		switch in.Name {
		case "lenient":
			lenient = in.Prompts
		case "strict":
			strict = in.Prompts
		}
	}
	// The lenient judge lists its prompt and the one a question may ask
	// for instead (cognitive), never the strict set.
	if len(lenient) != 2 || lenient["judge_lenient"] == "" || lenient["judge_cognitive"] == "" || lenient["judge"] != "" || strict["judge"] == "" {
		t.Fatalf("manifest prompts: lenient %v, strict %v", lenient, strict)
	}
}

// A run whose judge prompt file declares PARTIAL and shows the evidence:
// the harness hands the judge each question's evidence turns as text, the
// model's PARTIAL is logged as 0.5 and the summary averages it so.
func TestPartialPromptFileInARun(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		_, ev, _ := strings.Cut(r.LastUser(), "Evidence:\n")
		ev, _, _ = strings.Cut(ev, "\nEND")
		if strings.Contains(ev, ": ") { // "Speaker: text" lines reached the judge
			return llmtest.Reply{Text: `{"reason": "half there", "label": "partial"}`}
		}
		return llmtest.Reply{Text: `{"reason": "no evidence shown", "label": "WRONG"}`}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	p := filepath.Join(t.TempDir(), "half.tmpl")
	if err := os.WriteFile(p, []byte("---labels: CORRECT PARTIAL WRONG---\nGrade in json.\n---user---\nQ: {{.Question}}\nEvidence:\n{{.Evidence}}\nEND\nA: {{.Prediction}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := membench.Config{System: "turns-cosine", JudgeModel: "openai:gpt-4o-mini",
		Judges:     []string{"llm,name=half,prompt=" + p},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Overall.Scores["half"]; got != 50 {
		t.Errorf("overall %v, want 50: every sample question has evidence and reads PARTIAL", sum.Overall.Scores)
	}
	js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(harnesstest.Dir(t, cfg), runlog.JudgmentsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if j.Score != 0.5 || j.Correct || j.Invalid {
			t.Errorf("%s: %+v, want a PARTIAL (score 0.5, not correct)", j.QuestionID, j)
		}
	}
	t.Logf("%d judgments, overall %.2f", len(js), sum.Overall.Scores["half"])
}
