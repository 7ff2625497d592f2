package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// The CLI's contract with users: bad input exits 2 with one line naming the
// flag or file and the fix, and nothing already in the results dir is lost.

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "membench-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "membench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// inProcessEnv are the variables commands read through clienv, from the
// context: a command line that sets only these runs in this process.
var inProcessEnv = map[string]bool{"MEMBENCH_HOME": true, "MEMBENCH_EMBEDDER": true, "CI": true, "JOB_COMPLETION_INDEX": true}

// membench runs one command line with env added to the environment and
// returns its combined output and exit code. It runs in-process, so tests
// can run side by side; a line that sets other variables (OPENAI_*, read
// by the model backends from the process) runs the built binary.
func membench(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	full := append([]string{"MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME=" + t.TempDir()}, env...)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !inProcessEnv[k] {
			return membenchProcess(t, full, args...)
		}
	}
	var out lockedBuffer
	code := execute(context.Background(), args, append(os.Environ(), full...), &out, &out)
	return out.String(), code
}

// membenchProcess runs the built binary.
func membenchProcess(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	code := testutil.ExitCode(t, cmd)
	return out.String(), code
}

// lockedBuffer is one output for stdout and stderr, which a command may
// write from several goroutines (the progress line).
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestBadInputExitsTwoAndNamesTheProblem(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"a":`), 0o644)
	preds := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(preds, []byte("{\"question_id\": \"sample:0\", \"prediction\": \"x\"}\nnot json\n"), 0o644)
	cases := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"run", "--system", "nope"}, nil, "turns-cosine"},
		{[]string{"run", "--dataset", "locomo", "--data", "/nonexistent.json"}, nil, "--data"},
		{[]string{"run", "--dataset", "locomo", "--data", bad}, nil, bad},
		{[]string{"run", "--llm", "openai", "--model", "gpt-4o-mini"}, []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL="}, "OPENAI_API_KEY"},
		{[]string{"run", "--judge-spec", "nonsense"}, nil, "known"},
		{[]string{"run", "--opt", "zz=1"}, nil, "zz"},
		{[]string{"run", "--k", "x"}, nil, "--k"},
		{[]string{"score", "--dataset", "sample", "--predictions", preds, "--out", t.TempDir()}, nil, "line 2"},
		{[]string{"frobnicate"}, nil, "unknown command"},
		// The model flags of run, score, judge and sweep (llm.FlagSpec).
		{[]string{"run", "--llm", "offline", "--model", "gpt-4o-mini"}, nil, "--model/--base-url go with --llm openai"},
		{[]string{"score", "--dataset", "sample", "--predictions", preds, "--out", t.TempDir(), "--llm", "vllm"}, nil, `--llm "vllm"`},
		{[]string{"judge", "--run", t.TempDir(), "--judge-spec", "lexical", "--llm", "openai"}, nil, "--llm openai needs --model"},
		{[]string{"sweep", "--config", "../../configs/sample_k_sweep.yaml", "--base-url", "http://h/v1"}, nil, "--llm openai needs --model"},
	}
	for _, c := range cases {
		out, code := membench(t, c.env, c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("membench %s: exit %d, output %q; want exit 2 mentioning %q", strings.Join(c.args, " "), code, out, c.want)
		}
	}
}

func TestDefaultRunNeedsNoFlags(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	out, code := membench(t, nil, "run", "--quiet", "--results", results)
	if code != 0 || !strings.Contains(out, "overall (without adversarial)") || !strings.Contains(out, "build:") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// A bad rerun must not destroy the finished run's artifacts.
	runs, _ := filepath.Glob(filepath.Join(results, "*", "answers.jsonl"))
	if len(runs) != 1 {
		t.Fatalf("want one run dir, got %v", runs)
	}
	before, _ := os.ReadFile(runs[0])
	if _, code := membench(t, nil, "run", "--quiet", "--results", results, "--run-id", filepath.Base(filepath.Dir(runs[0])), "--k", "3"); code != 2 {
		t.Fatalf("a different config under the same run id must be refused with exit 2, got %d", code)
	}
	after, _ := os.ReadFile(runs[0])
	if !bytes.Equal(before, after) {
		t.Fatal("refused rerun changed answers.jsonl")
	}
}
