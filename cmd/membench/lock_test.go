package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// Two writers of one run directory, as real processes: while a run holds
// it, a second run of the same command, a judge and a grade of it exit 2
// at once with one line naming the directory and the holder's pid; the
// first run finishes with each record once. A kill -9 frees the lock.
func TestSecondWriterOfARunDirExitsTwo(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	gate := make(chan struct{}) // answers wait until it is closed
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		mu.Lock()
		g := gate
		mu.Unlock()
		<-g
		return llmtest.Plausible(n, r)
	}))
	results, home := t.TempDir(), t.TempDir()
	args := []string{"run", "--quiet", "--results", results, "--run-id", "shared", "--answer-model", "backend=openai,model=m,base-url=" + srv.URL, "--judge-spec", "f1"}
	dir := filepath.Join(results, "shared")
	start := func(home string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+home, "OPENAI_API_KEY=sk-test-lock")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	waitForAnswerRequest := func(cmd *exec.Cmd) {
		deadline := time.Now().Add(2 * time.Minute)
		for srv.Count("/v1/chat/completions") == 0 {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the first run sent no answer request")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	first, firstOut := start(home)
	waitForAnswerRequest(first) // it holds the lock and waits for replies

	pid := fmt.Sprintf("membench process %d", first.Process.Pid)
	for _, second := range [][]string{
		args,
		{"judge", "--run", dir, "--judge-spec", "em"},
		{"grade", "--run", dir},
	} {
		out, code := membench(t, []string{"MEMBENCH_HOME=" + home, "OPENAI_API_KEY=sk-test-lock"}, second...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(out, dir) || !strings.Contains(out, pid) {
			t.Errorf("membench %s while %s writes: exit %d, output %q; want exit 2, one line naming %s and %s",
				second[0], pid, code, out, dir, pid)
		}
	}
	mu.Lock()
	close(gate)
	mu.Unlock()
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, firstOut)
	}
	seen := map[string]int{}
	for _, a := range jsonLines[runlog.AnswerRecord](t, filepath.Join(dir, runlog.AnswersFile)) {
		if seen[a.QuestionID]++; seen[a.QuestionID] > 1 {
			t.Errorf("%s answered twice", a.QuestionID)
		}
	}
	if len(seen) != 19 {
		t.Errorf("%d questions answered, want 19", len(seen))
	}

	// kill -9 leaves the lock file, but not the lock.
	mu.Lock()
	gate = make(chan struct{})
	mu.Unlock()
	args = append(args, "--run-id", "killed")
	before := srv.Count("/v1/chat/completions")
	// A fresh cache, so the run sends requests again.
	killedHome := t.TempDir()
	killed, _ := start(killedHome)
	deadline := time.Now().Add(2 * time.Minute)
	for srv.Count("/v1/chat/completions") == before {
		if time.Now().After(deadline) {
			killed.Process.Kill()
			t.Fatal("the run to kill sent no request")
		}
		time.Sleep(10 * time.Millisecond)
	}
	killed.Process.Kill() // SIGKILL
	killed.Wait()
	if _, err := os.Stat(filepath.Join(results, "killed", runlog.LockFile)); err != nil {
		t.Fatalf("lock file: %v", err)
	}
	mu.Lock()
	close(gate)
	mu.Unlock()
	if out, code := membench(t, []string{"MEMBENCH_HOME=" + killedHome, "OPENAI_API_KEY=sk-test-lock"}, args...); code != 0 {
		t.Fatalf("run after kill -9: exit %d\n%s", code, out)
	}
}

// score takes the lock of its output directory: while another process
// (here the test itself) holds it, score exits 2 naming the holder's pid.
func TestScoreIntoALockedDirExitsTwo(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "scored")
	lock, err := runlog.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	preds := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(preds, []byte(`{"question_id": "sample-1:0", "prediction": "Biscuit"}`+"\n"), 0o644)
	got, code := membench(t, nil, "score", "--dataset", "sample", "--predictions", preds, "--out", out)
	want := fmt.Sprintf("membench process %d", os.Getpid())
	if code != 2 || strings.Count(strings.TrimSpace(got), "\n") != 0 || !strings.Contains(got, out) || !strings.Contains(got, want) {
		t.Fatalf("score into a locked dir: exit %d, %q; want exit 2 naming %s and %s", code, got, out, want)
	}
	lock.Unlock()
	if got, code := membench(t, nil, "score", "--dataset", "sample", "--predictions", preds, "--out", out); code != 0 {
		t.Fatalf("score after unlock: exit %d\n%s", code, got)
	}
}

// merge takes the lock of its --out directory before writing anything:
// while another process (here the test itself) holds it, as a second merge
// into the same new directory would, merge exits 2 with one line naming
// the directory and the holder's pid, and writes nothing; once the lock is
// released the same merge succeeds.
func TestMergeIntoALockedDirExitsTwo(t *testing.T) {
	t.Parallel()
	shards := t.TempDir()
	out := filepath.Join(t.TempDir(), "merged")
	merge := []string{"merge", "--out", out}
	for i := 0; i < 2; i++ {
		id := fmt.Sprintf("shard-%d", i)
		if got, code := membench(t, nil, "run", "--quiet", "--results", shards, "--run-id", id, "--shard", fmt.Sprintf("%d/2", i), "--judge-spec", "f1"); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, code, got)
		}
		merge = append(merge, "--run", filepath.Join(shards, id))
	}
	lock, err := runlog.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	got, code := membench(t, nil, merge...)
	want := fmt.Sprintf("membench process %d", os.Getpid())
	if code != 2 || strings.Count(strings.TrimSpace(got), "\n") != 0 || !strings.Contains(got, out) || !strings.Contains(got, want) {
		t.Fatalf("merge into a locked dir: exit %d, %q; want exit 2, one line naming %s and %s", code, got, out, want)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != runlog.LockFile {
			t.Errorf("merge refused by the lock wrote %s", e.Name())
		}
	}
	lock.Unlock()
	if got, code := membench(t, nil, merge...); code != 0 {
		t.Fatalf("merge after unlock: exit %d\n%s", code, got)
	}
	if _, err := runlog.LoadManifest(out); err != nil {
		t.Fatalf("merged run: %v", err)
	}
}
