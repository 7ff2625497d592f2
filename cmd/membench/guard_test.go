package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two runs that differ only in the answer prompt gave different answers
// for a reason no system explains: compare refuses them (exit 2, naming
// the answer prompt), and a third run of the same system at another k is
// still comparable (one option differs, the one compared).
func TestCompareRefusesAnotherAnswerPrompt(t *testing.T) {
	res := t.TempDir()
	b, err := os.ReadFile("../../internal/prompts/templates/answer.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	prompt := filepath.Join(t.TempDir(), "answer.tmpl")
	if err := os.WriteFile(prompt, append([]byte("Answer in one word.\n"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(id string, extra ...string) string {
		args := append([]string{"run", "--quiet", "--system", "turns-cosine", "--results", res, "--run-id", id, "--limit", "20"}, extra...)
		out, code := membench(t, nil, args...)
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
		return filepath.Join(res, id)
	}
	a := run("plain")
	p := run("prompted", "--answer-prompt", prompt)
	k := run("plain-k5", "--k", "5")

	out, code := membench(t, nil, "compare", "--run", a, "--run", p, "--judge", "lexical")
	if code != 2 || !strings.Contains(out, "answer prompt differs") || !strings.Contains(out, "plain") || !strings.Contains(out, "prompted") {
		t.Fatalf("compare across answer prompts: exit %d, want 2 naming the answer prompt\n%s", code, out)
	}
	out, code = membench(t, nil, "compare", "--run", a, "--run", k, "--judge", "lexical")
	if code != 0 {
		t.Fatalf("compare of one system at two ks: exit %d, want 0\n%s", code, out)
	}
	out, code = membench(t, nil, "compare", "--run", k, "--run", run("k5-n", "--k", "5", "--turn-step", "1m"), "--judge", "lexical")
	if code != 2 || !strings.Contains(out, "turn step differs") {
		t.Fatalf("compare across turn steps: exit %d, want 2 naming the turn step\n%s", code, out)
	}
}
