package main

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A run whose model server is not there fails: exit 1, no results table,
// only the error and where the partial artifacts are.
func TestFailedRunPrintsNoTable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	results := t.TempDir()
	out, code := membench(t, []string{"OPENAI_API_KEY=sk-test"}, "run", "--quiet", "--results", results,
		"--llm", "openai", "--model", "m", "--base-url", "http://"+addr+"/v1", "--judge-spec", "f1")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, table := range []string{"overall", "| category", "multi-hop"} {
		if strings.Contains(out, table) {
			t.Fatalf("a failed run printed a results table (%q):\n%s", table, out)
		}
	}
	m := regexp.MustCompile(`partial artifacts: (\S+)`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "connection refused") {
		t.Fatalf("want the error and where the partial artifacts are:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(m[1], "manifest.json")); err != nil {
		t.Errorf("the named folder holds no manifest: %v", err)
	}
}

// The missing-key error names the first role that needs a key, in the
// fixed order build, answer, decide, judge: the same on every invocation.
func TestMissingKeyNamesTheSameRole(t *testing.T) {
	t.Parallel()
	env := []string{"OPENAI_API_KEY="}
	args := []string{"run", "--quiet", "--results", t.TempDir(), "--judge-model", "openai:j", "--decide-model", "openai:d", "--answer-model", "openai:a"}
	var first string
	for i := 0; i < 5; i++ {
		out, code := membench(t, env, args...)
		if code != 2 || !strings.Contains(out, "OPENAI_API_KEY") {
			t.Fatalf("exit %d, want 2 naming OPENAI_API_KEY:\n%s", code, out)
		}
		if !strings.Contains(out, "answer model") {
			t.Fatalf("want the answer model named (the first role needing a key):\n%s", out)
		}
		if i == 0 {
			first = out
		} else if out != first {
			t.Fatalf("invocation %d said\n%s\nthe first said\n%s", i+1, out, first)
		}
	}
}
