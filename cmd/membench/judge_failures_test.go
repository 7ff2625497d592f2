package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// membench judge on a finished run, with the judge model's replies to two
// questions malformed past the retry layer: the pass goes on, records both
// in failures.jsonl with judge and reason, exits 1 listing them and prints
// no table; a rerun judges only those two, and the final verdicts equal a
// clean pass over a copy of the same run.
func TestJudgeRecordsFailedQuestionsAndRerunFillsThem(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	if out, code := membench(t, nil, "run", "--quiet", "--results", results, "--run-id", "base", "--judge-spec", "f1"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	dir, cleanDir := filepath.Join(results, "base"), filepath.Join(t.TempDir(), "clean")
	if err := os.CopyFS(cleanDir, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	failing := []string{"bike shop", "Tomas's dog"}
	faulty := llmtest.New(t, llmtest.WithChat(llmtest.Plausible), llmtest.WithFaults(llmtest.Faults{
		// The first try and the retry layer's two more: a persistently
		// unusable reply. The fourth arrival (the rerun) is clean.
		Sequence: []llmtest.Fault{llmtest.FaultMalformed, llmtest.FaultMalformed, llmtest.FaultMalformed},
		Only: func(r llmtest.ChatRequest) bool {
			if !isJudgeRequest(r) {
				return false
			}
			for _, f := range failing {
				if strings.Contains(r.LastUser(), f) {
					return true
				}
			}
			return false
		},
	}))
	judgeArgs := func(srv *llmtest.Server, dir string) []string {
		return []string{"judge", "--run", dir, "--judge-spec", "llm", "--judge-model", "backend=openai,model=m,base-url=" + srv.URL}
	}
	env := []string{"OPENAI_API_KEY=sk-test-judge-failures", "MEMBENCH_HOME=" + t.TempDir()}

	out, code := membench(t, env, judgeArgs(faulty, dir)...)
	if code != 1 {
		t.Fatalf("judge with two unusable replies: exit %d, want 1\n%s", code, out)
	}
	t.Logf("judge pass with two persistently unusable replies, exit %d:\n%s", code, out)
	fails := jsonLines[runlog.Failure](t, filepath.Join(dir, runlog.FailuresFile))
	if len(fails) != 2 {
		t.Fatalf("failures.jsonl holds %d lines, want 2: %+v", len(fails), fails)
	}
	failed := map[string]bool{}
	for _, f := range fails {
		failed[f.QuestionID] = true
		if f.Stage != "judge" || f.Judge != "llm" || f.System == "" || f.ConversationID == "" || !strings.Contains(f.Reason, "not a JSON completion") {
			t.Errorf("failure line %+v: want stage judge, judge llm, the system, the conversation and the reason", f)
		}
		if !strings.Contains(out, f.QuestionID+" (judge): ") {
			t.Errorf("output does not list %s:\n%s", f.QuestionID, out)
		}
	}
	if len(failed) != 2 {
		t.Fatalf("failures name %d questions, want 2: %+v", len(failed), fails)
	}
	for _, want := range []string{"2 of 19 questions failed", runlog.FailuresFile, "Rerun the same command"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "judgments added") || strings.Contains(out, "Overall") {
		t.Errorf("a judge pass with failures printed a table:\n%s", out)
	}
	llmVerdicts := func(dir string) map[string]runlog.Judgment {
		got := map[string]runlog.Judgment{}
		for _, j := range jsonLines[runlog.Judgment](t, filepath.Join(dir, runlog.JudgmentsFile)) {
			if j.Judge == "llm" {
				if _, dup := got[j.QuestionID]; dup {
					t.Errorf("%s: %s judged twice by llm", dir, j.QuestionID)
				}
				got[j.QuestionID] = j
			}
		}
		return got
	}
	first := llmVerdicts(dir)
	if len(first) != 17 {
		t.Fatalf("%d llm verdicts after the failed pass, want 17", len(first))
	}
	for q := range failed {
		if _, ok := first[q]; ok {
			t.Errorf("%s failed but has a verdict", q)
		}
	}

	// The rerun sends exactly the two failed requests (the others are
	// judged already) and finishes.
	before := faulty.Count("/v1/chat/completions")
	out, code = membench(t, env, judgeArgs(faulty, dir)...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, out)
	}
	if sent := faulty.Count("/v1/chat/completions") - before; sent != 2 {
		t.Errorf("rerun sent %d judge requests, want 2 (only the failed questions)", sent)
	}
	if !strings.Contains(out, "judgments added") {
		t.Errorf("rerun printed no table:\n%s", out)
	}

	clean := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	if out, code := membench(t, []string{"OPENAI_API_KEY=sk-test-judge-failures"}, judgeArgs(clean, cleanDir)...); code != 0 {
		t.Fatalf("clean judge pass: exit %d\n%s", code, out)
	}
	got, want := llmVerdicts(dir), llmVerdicts(cleanDir)
	if len(got) != 19 || len(want) != 19 {
		t.Fatalf("%d llm verdicts after the rerun, %d after a clean pass; want 19 each", len(got), len(want))
	}
	for q, w := range want {
		g := got[q]
		if g.Correct != w.Correct || g.Score != w.Score || g.Invalid != w.Invalid || g.Raw != w.Raw {
			t.Errorf("%s: verdict %+v after failure and rerun, %+v in a clean pass", q, g, w)
		}
	}
	sum, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	cleanSum, err := summary.Compute(cleanDir)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := sum.Overall.Scores["llm"], cleanSum.Overall.Scores["llm"]; g != w || sum.Overall.Judged["llm"] != 0 {
		t.Errorf("overall llm score %v (judged %v) after failure and rerun, %v in a clean pass", g, sum.Overall.Judged, w)
	}
	// Each verdict's call is in costs.jsonl once, keyed to it: the two
	// passes together cost what the clean pass did.
	if g, w := sum.Stages["judge"], cleanSum.Stages["judge"]; g.Calls != 19 || g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens {
		t.Errorf("judge stage %+v after failure and rerun, %+v in a clean pass; want 19 calls each, same tokens", g, w)
	}
	keyed := map[string]int{}
	for _, c := range jsonLines[runlog.CostRecord](t, filepath.Join(dir, runlog.CostsFile)) {
		if c.Part == "judge:llm" {
			keyed[c.QuestionID]++
		}
	}
	for q := range got {
		if keyed[q] != 1 {
			t.Errorf("%s: %d judge:llm cost lines, want 1", q, keyed[q])
		}
	}
}

// membenchStdout runs the binary and returns stdout and stderr apart, for
// commands whose stdout is read by scripts (--json).
func membenchStdout(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), append([]string{"MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME=" + t.TempDir()}, env...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	code = testutil.ExitCode(t, cmd)
	return o.String(), e.String(), code
}

// With --json, run and judge passes that end with failed questions print
// on stdout what failed and where it is recorded (no scores), and exit 1.
func TestFailedPassWithJSONPrintsTheFailures(t *testing.T) {
	t.Parallel()
	faulty := func() *llmtest.Server {
		return llmtest.New(t, llmtest.WithChat(llmtest.Plausible), llmtest.WithFaults(llmtest.Faults{
			Sequence: []llmtest.Fault{llmtest.FaultMalformed, llmtest.FaultMalformed, llmtest.FaultMalformed},
			Only: func(r llmtest.ChatRequest) bool {
				return isJudgeRequest(r) && strings.Contains(r.LastUser(), "bike shop")
			},
		}))
	}
	env := []string{"OPENAI_API_KEY=sk-test-json-failures"}
	check := func(what, stdout, stderr string, code int, dir string) {
		t.Helper()
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("%s --json: stdout is not one JSON object (%v):\n%s", what, err, stdout)
		}
		var f cliflag.FailedJSON
		if err := json.Unmarshal([]byte(stdout), &f); err != nil {
			t.Fatal(err)
		}
		if f.Status != "failed" || f.Total != 19 || f.Questions != 1 || len(f.Failures) != 1 ||
			f.Failures[0].Stage != "judge" || f.FailuresFile != filepath.Join(dir, runlog.FailuresFile) {
			t.Errorf("%s --json printed %+v; want status failed, 1 of 19 questions, stage judge, %s", what, f, filepath.Join(dir, runlog.FailuresFile))
		}
		for _, k := range []string{"overall", "scores", "summary", "judges"} {
			if _, ok := got[k]; ok {
				t.Errorf("%s --json of a failed pass printed results (%q):\n%s", what, k, stdout)
			}
		}
	}

	results := t.TempDir()
	srv := faulty()
	stdout, stderr, code := membenchStdout(t, env, "run", "--quiet", "--json", "--results", results, "--run-id", "r",
		"--judge-spec", "llm", "--judge-model", "backend=openai,model=m,base-url="+srv.URL)
	check("run", stdout, stderr, code, filepath.Join(results, "r"))

	results = t.TempDir()
	if out, code := membench(t, nil, "run", "--quiet", "--results", results, "--run-id", "base", "--judge-spec", "f1"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	dir := filepath.Join(results, "base")
	srv = faulty()
	stdout, stderr, code = membenchStdout(t, env, "judge", "--json", "--run", dir, "--judge-spec", "llm",
		"--judge-model", "backend=openai,model=m,base-url="+srv.URL)
	check("judge", stdout, stderr, code, dir)
}
