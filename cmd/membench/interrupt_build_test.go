package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// Ctrl-C in the middle of a memory build (a real process, a real SIGINT,
// a build model behind an HTTP server that answers slowly): the process
// is gone within a second, exits 130, and the summary counts the build
// calls that were made, as costs.jsonl does.
func TestInterruptDuringBuild(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply {
		time.Sleep(250 * time.Millisecond)
		return llmtest.Reply{Text: `{"entries": []}`}
	}))
	results := t.TempDir()
	cmd := exec.Command(bin, "run", "--quiet", "--results", results, "--run-id", "cut", "--system", "structmem",
		"--build-model", "openai:gpt-4o-mini", "--judge-spec", "f1", "--concurrency", "1")
	cmd.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+t.TempDir(), "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.URL)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	// A second and more into the build, so it has written a partial cost
	// line that the line its Ctrl-C writes must not count twice.
	for srv.Count("/v1/chat/completions") < 6 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no build requests reached the server; output:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	took := time.Since(sent)
	if took > time.Second {
		t.Errorf("the run took %v to stop after Ctrl-C, want under a second", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after Ctrl-C, want 130; output:\n%s", code, out.String())
	}
	if strings.Contains(out.String(), "overall") {
		t.Errorf("an interrupted run printed a results table:\n%s", out.String())
	}
	dir := filepath.Join(results, "cut")
	costs, err := runlog.ReadJSONL[runlog.CostRecord](filepath.Join(dir, runlog.CostsFile))
	if err != nil {
		t.Fatal(err)
	}
	inCosts := 0
	// Every call once: a partial line written while the build ran is
	// repeated by the line its Ctrl-C wrote (runlog.EffectiveCosts).
	closed := map[string]bool{}
	for _, c := range costs {
		if c.Attempt != "" && !c.Partial && c.Redone {
			closed[c.Attempt] = true
		}
	}
	partial := false
	for _, c := range costs {
		partial = partial || (c.Partial && closed[c.Attempt])
	}
	if !partial {
		t.Errorf("costs.jsonl holds no partial line closed by the interrupted build's redone line:\n%+v", costs)
	}
	kept, redone := runlog.EffectiveCosts(costs)
	for _, c := range append(kept, redone...) {
		for _, tl := range c.Tallies {
			if tl.Stage == "build" {
				inCosts += tl.Calls
			}
		}
	}
	var sum runlog.Summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	seen := srv.Count("/v1/chat/completions")
	// The cut-off build is no finished memory's: its calls are in Redone.
	if made := sum.Stages["build"].Calls + sum.Redone["build"].Calls; inCosts == 0 || inCosts > seen || made != inCosts {
		t.Fatalf("build calls: costs.jsonl %d, summary.json %d, server saw %d; want costs = summary, between 1 and what the server saw", inCosts, made, seen)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if want := "build: " + strconv.Itoa(inCosts) + " calls made"; !strings.Contains(string(md), want) {
		t.Errorf("summary.md does not say %q:\n%s", want, md)
	}
}
