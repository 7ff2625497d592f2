package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/llm/llmtest"
)

// Two runs that differ only in their embedder must not be put side by
// side silently: compare and report refuse (exit 2, naming the embedder and
// both runs); --allow-mixed shows them with a warning line and a "mixed"
// list. Two runs made the same way (different systems) pass.
func TestIncomparableRunsAreRefused(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t) // a real HTTP server answering /v1/embeddings
	res := t.TempDir()
	home := t.TempDir()
	env := []string{"MEMBENCH_HOME=" + home}
	run := func(id, system, embedder string) string {
		out, code := membench(t, env, "run", "--quiet", "--system", system, "--embedder", embedder, "--results", res, "--run-id", id)
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
		return filepath.Join(res, id)
	}
	a := run("cos-hashed", "turns-cosine", "hashed")
	b := run("cos-remote", "turns-cosine", "backend=openai,model=emb-test,base-url="+srv.URL)
	c := run("full-hashed", "fullcontext", "hashed")

	// Comparable: same dataset, questions, embedder, models and judges
	// (--wide: the provenance columns).
	out, code := membench(t, env, "report", "--run", a, "--run", c, "--table", "2", "--wide")
	if code != 0 || strings.Contains(out, "WARNING") {
		t.Fatalf("comparable runs: exit %d\n%s", code, out)
	}
	for _, want := range []string{"tfidf-hash-512", "offline", "complete"} {
		if !strings.Contains(out, want) {
			t.Errorf("report rows should show %q:\n%s", want, out)
		}
	}
	out, code = membench(t, env, "compare", "--run", a, "--run", c, "--judge", "lexical")
	if code != 0 || !strings.Contains(out, "offline heuristics") {
		t.Fatalf("compare of comparable offline runs: exit %d (want 0 and an offline-heuristics verdict)\n%s", code, out)
	}

	// Incomparable: the embedder differs.
	for _, args := range [][]string{
		{"compare", "--run", a, "--run", b, "--judge", "lexical"},
		{"report", "--run", a, "--run", b},
		{"agreement", "--run", a, "--run", b},
	} {
		out, code := membench(t, env, args...)
		if code != 2 || !strings.Contains(out, "embedder differs") || !strings.Contains(out, "cos-hashed") || !strings.Contains(out, "cos-remote") || !strings.Contains(out, "--allow-mixed") {
			t.Errorf("%v: exit %d, want 2 with a message naming the embedder and both runs\n%s", args[0], code, out)
		}
	}
	out, code = membench(t, env, "report", "--run", a, "--run", b, "--allow-mixed", "--table", "2")
	if code != 0 || !strings.Contains(out, "WARNING (--allow-mixed)") || !strings.Contains(out, "embedder differs") {
		t.Errorf("report --allow-mixed: exit %d, want 0 with a warning\n%s", code, out)
	}
	out, code = membench(t, env, "compare", "--run", a, "--run", b, "--judge", "lexical", "--allow-mixed", "--json")
	if code != 0 {
		t.Fatalf("compare --allow-mixed: exit %d\n%s", code, out)
	}
	var r struct {
		Test, Verdict, Offline string
		Mixed                  []string
		JudgeA                 string `json:"judge_a"`
		N                      int
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r); err != nil {
		t.Fatalf("compare JSON: %v\n%s", err, out)
	}
	if len(r.Mixed) != 1 || !strings.Contains(r.Mixed[0], "embedder") || r.Test != "mcnemar" || r.JudgeA != "lexical" || r.N == 0 ||
		!strings.Contains(r.Verdict, "offline heuristics") || !strings.Contains(r.Offline, "offline heuristics") {
		t.Errorf("compare JSON %+v", r)
	}
}
