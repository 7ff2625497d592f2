package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

func isJudgeRequest(r llmtest.ChatRequest) bool {
	return strings.Contains(r.LastUser(), "Verdict as JSON")
}

func jsonLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// One question's answer request gets no choices three times in a row,
// another's judge request an HTML page, a third's decision replies lack
// logprobs: each question is recorded as failed with what happened, the
// others finish, the run exits 1 with the list and no results table, and
// rerunning the same command retries only those three.
func TestFailedQuestionsAreRecordedAndRetried(t *testing.T) {
	t.Parallel()
	// One server per role, so each carries its own fault.
	role := func(text string, f llmtest.Fault) string {
		// Only the first request about the question, and its retries,
		// fail: a question makes several decision requests.
		var mu sync.Mutex
		var first []byte
		srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible), llmtest.WithFaults(llmtest.Faults{
			Sequence: []llmtest.Fault{f, f, f}, // past the retry layer's two extra tries
			Only: func(r llmtest.ChatRequest) bool {
				mu.Lock()
				defer mu.Unlock()
				if first == nil && strings.Contains(r.LastUser(), text) {
					first = r.Raw
				}
				return first != nil && bytes.Equal(r.Raw, first)
			},
		}))
		return "backend=openai,model=m,base-url=" + srv.URL
	}
	results := t.TempDir()
	args := []string{"run", "--quiet", "--results", results, "--system", "turns-rerank",
		"--answer-model", role("Tomas's dog", llmtest.FaultEmptyChoices),
		"--judge-model", role("bike shop", llmtest.FaultMalformed),
		"--decide-model", role("Who is Priya's pottery teacher?", llmtest.FaultNoLogprobs),
		"--judge-spec", "llm", "--judge-spec", "f1"}
	env := []string{"OPENAI_API_KEY=sk-test-failures", "MEMBENCH_HOME=" + t.TempDir()}
	out, code := membench(t, env, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{"3 of 19 questions failed", runlog.FailuresFile, "rerun the same command",
		"(answer): ", "the reply had no choices", "(judge): ", "the reply is not a JSON completion", "(retrieve): ", "3 replies in a row to this request lacked logprobs"} {
		if !strings.Contains(strings.ToLower(out), strings.ToLower(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Overall") || strings.Contains(out, "| llm") {
		t.Errorf("a failed run printed a results table:\n%s", out)
	}
	runs, _ := filepath.Glob(filepath.Join(results, "*"))
	if len(runs) != 1 {
		t.Fatalf("run dirs %v", runs)
	}
	dir := runs[0]
	fails := jsonLines[runlog.Failure](t, filepath.Join(dir, runlog.FailuresFile))
	stages := map[string]string{}
	for _, f := range fails {
		stages[f.Stage] = f.QuestionID
	}
	if len(fails) != 3 || len(stages) != 3 {
		t.Fatalf("failures.jsonl: %+v", fails)
	}
	if n := len(jsonLines[runlog.AnswerRecord](t, filepath.Join(dir, runlog.AnswersFile))); n != 17 {
		t.Fatalf("%d answers after the first attempt, want 17 (19 less the retrieve and answer failures)", n)
	}

	// The rerun retries only the failed questions, and finishes.
	out, code = membench(t, env, args...)
	if code != 0 || !strings.Contains(out, "resuming, 3 questions left") {
		t.Fatalf("rerun: exit %d:\n%s", code, out)
	}
	answers := jsonLines[runlog.AnswerRecord](t, filepath.Join(dir, runlog.AnswersFile))
	seen := map[string]int{}
	for _, a := range answers {
		seen[a.QuestionID]++
	}
	if len(answers) != 19 || len(seen) != 19 {
		t.Fatalf("%d answer lines for %d questions; want each of 19 once", len(answers), len(seen))
	}
	pairs := map[string]int{}
	for _, j := range jsonLines[runlog.Judgment](t, filepath.Join(dir, runlog.JudgmentsFile)) {
		pairs[j.QuestionID+" "+j.Judge]++
	}
	for k, n := range pairs {
		if n != 1 {
			t.Errorf("%s judged %d times", k, n)
		}
	}
	if len(pairs) != 38 {
		t.Errorf("%d judgments, want 19 x 2", len(pairs))
	}
}
