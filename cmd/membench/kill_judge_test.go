package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// kill -9 in the middle of a membench judge pass loses no spend a verdict
// rests on: each verdict's calls are in costs.jsonl, keyed to it, before
// the verdict; the rerun judges the rest, and the run ends with each of
// the 19 verdicts and its one call counted once.
func TestKill9DuringJudgeKeepsEachVerdictsCost(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	if out, code := membench(t, nil, "run", "--quiet", "--results", results, "--run-id", "base", "--judge-spec", "f1"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	dir := filepath.Join(results, "base")
	const served = 5 // judge replies before the server stalls
	var mu sync.Mutex
	n := 0
	gate := make(chan struct{})
	srv := llmtest.New(t, llmtest.WithChat(func(i int, r llmtest.ChatRequest) llmtest.Reply {
		mu.Lock()
		n++
		stall := n > served
		mu.Unlock()
		if stall {
			<-gate
		}
		return llmtest.Plausible(i, r)
	}))
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before the server's own cleanup closes it
	args := []string{"judge", "--run", dir, "--judge-spec", "llm", "--concurrency", "1", "--judge-model", "backend=openai,model=m,base-url=" + srv.URL}
	home := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+home, "OPENAI_API_KEY=sk-test-kill-judge")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	llmLines := func() []runlog.Judgment {
		var js []runlog.Judgment
		for _, j := range readLines[runlog.Judgment](filepath.Join(dir, runlog.JudgmentsFile)) {
			if j.Judge == "llm" {
				js = append(js, j)
			}
		}
		return js
	}
	for deadline := time.Now().Add(2 * time.Minute); len(llmLines()) < served; {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the judge pass wrote %d verdicts, want %d before the stall:\n%s", len(llmLines()), served, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill() // SIGKILL while the next judge request waits
	cmd.Wait()

	judged := llmLines()
	keyed := map[string]int{}
	for _, c := range jsonLines[runlog.CostRecord](t, filepath.Join(dir, runlog.CostsFile)) {
		if c.Part == "judge:llm" {
			keyed[c.QuestionID] += c.Tallies[0].Calls
		}
	}
	for _, j := range judged {
		if keyed[j.QuestionID] != 1 {
			t.Errorf("killed pass: verdict on %s has %d calls in costs.jsonl, want 1", j.QuestionID, keyed[j.QuestionID])
		}
	}
	sum, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Stages["judge"].Calls; got != len(judged) || len(judged) != served {
		t.Errorf("killed pass: %d verdicts, the summary counts %d judge calls; want %d each", len(judged), got, served)
	}

	release()
	if o, code := membench(t, []string{"MEMBENCH_HOME=" + home, "OPENAI_API_KEY=sk-test-kill-judge"}, args...); code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, o)
	}
	if got := len(llmLines()); got != 19 {
		t.Fatalf("%d llm verdicts after the rerun, want 19", got)
	}
	sum, err = summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The request the kill cut off was answered by the server but paid
	// by no process that lived to write it: the rerun asks it again.
	if got := sum.Stages["judge"].Calls; got != 19 || len(sum.Redone) != 0 {
		t.Errorf("after the rerun: %d judge calls, redone %v; want 19 and none", got, sum.Redone)
	}
}
