package main

import (
	"encoding/json"
	"os"
	"os/exec"
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
	prompt := oneWordAnswerPrompt(t)
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

// kstar's suggested commands make runs the guard accepts beside the
// reference (every setting repeated: answer prompt, judges, turn step,
// question set); a run with other options never replaces the default one;
// an incomplete run is refused (exit 2) when it is the only run at its k.
func TestKStarCommandsReproduceTheReference(t *testing.T) {
	res := t.TempDir()
	prompt := oneWordAnswerPrompt(t)
	out, code := membench(t, nil, "run", "--quiet", "--system", "turns-rerank", "--k", "3", "--limit", "20", "--turn-step", "1m",
		"--answer-prompt", prompt, "--judge-spec", "lexical", "--results", res, "--run-id", "ref")
	if code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, out)
	}
	out, code = membench(t, nil, "kstar", "--run", res, "--reference", "turns-rerank", "--candidate", "turns-cosine", "--k", "2..4")
	if code != 0 {
		t.Fatalf("kstar: exit %d\n%s", code, out)
	}
	// One line for the three missing ks: "k 2–4: for k in ...; done".
	var cmds []string
	for _, line := range strings.Split(out, "\n") {
		if _, c, ok := strings.Cut(strings.TrimSpace(line), "k 2–4: "); ok {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) != 1 || !strings.HasPrefix(cmds[0], "for k in $(seq 2 4); do membench run ") {
		t.Fatalf("want one loop over the missing ks 2-4:\n%s", out)
	}
	for _, want := range []string{"--answer-prompt " + prompt, "--judge-spec lexical", "--turn-step 1m0s", "--limit 20"} {
		if !strings.Contains(cmds[0], want) {
			t.Errorf("suggested command lacks %q: %s", want, cmds[0])
		}
	}
	for _, c := range cmds {
		sh := exec.Command("sh", "-c", strings.Replace(c, "membench run", bin+" run --quiet", 1))
		sh.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+t.TempDir())
		if o, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c, err, o)
		}
	}
	// A later run at k=2 with another option must not replace the default.
	out, code = membench(t, nil, "run", "--quiet", "--system", "turns-cosine", "--k", "2", "--opt", "order=score", "--limit", "20", "--turn-step", "1m",
		"--answer-prompt", prompt, "--judge-spec", "lexical", "--results", res, "--run-id", "cos-k2-score")
	if code != 0 {
		t.Fatalf("option run: exit %d\n%s", code, out)
	}
	out, code = membench(t, nil, "kstar", "--run", res, "--reference", "turns-rerank", "--candidate", "turns-cosine", "--k", "2..4", "--json")
	if code != 0 || !strings.Contains(out, `"missing_k": null`) {
		t.Fatalf("kstar over the made runs: exit %d (the loop must make every missing k, comparable)\n%s", code, out)
	}
	out, code = membench(t, nil, "kstar", "--run", res, "--reference", "turns-rerank", "--candidate", "turns-cosine", "--k", "2,4", "--json")
	if code != 0 {
		t.Fatalf("kstar over the made runs: exit %d (the suggested runs must be comparable)\n%s", code, out)
	}
	var r struct {
		KStar int `json:"k_star"`
		Rows  []struct {
			K      int
			RunDir string `json:"run_dir"`
		}
		Notes []string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Rows) != 2 || r.KStar == 0 {
		t.Fatalf("rows %+v k* %d", r.Rows, r.KStar)
	}
	for _, row := range r.Rows {
		if strings.Contains(row.RunDir, "cos-k2-score") {
			t.Errorf("the order=score run replaced the default run at k=%d", row.K)
		}
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "cos-k2-score") {
		t.Errorf("notes should name the skipped run: %v", r.Notes)
	}
	// An interrupted run: no rendered tokens yet, 12 retrievals.
	var k4 string
	for _, row := range r.Rows {
		if row.K == 4 {
			k4 = row.RunDir
		}
	}
	mp := filepath.Join(k4, "manifest.json")
	var m map[string]any
	mb, _ := os.ReadFile(mp)
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "rendered_tokens")
	mb, _ = json.Marshal(m)
	rp := filepath.Join(k4, "retrievals.jsonl")
	rb, err := os.ReadFile(rp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(rb), "\n")
	if err := os.WriteFile(rp, []byte(strings.Join(lines[:12], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mp, mb, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = membench(t, nil, "kstar", "--run", res, "--reference", "turns-rerank", "--candidate", "turns-cosine", "--k", "2,4")
	if code != 2 || !strings.Contains(out, "incomplete (12 of ") || !strings.Contains(out, filepath.Base(k4)) {
		t.Errorf("incomplete candidate: exit %d, want 2 naming the run and 12 of its questions\n%s", code, out)
	}
}

// `membench judge` refuses a judge name the run holds with another spec
// (exit 2, naming both specs); the same spec again, or a new name, is fine.
func TestJudgeRefusesANameWithAnotherSpec(t *testing.T) {
	res := t.TempDir()
	out, code := membench(t, nil, "run", "--quiet", "--results", res, "--run-id", "r", "--limit", "10")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	dir := filepath.Join(res, "r")
	if out, code := membench(t, nil, "judge", "--run", dir, "--judge-spec", "f1"); code != 0 {
		t.Fatalf("same spec again: exit %d\n%s", code, out)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "judgments.jsonl"))
	out, code = membench(t, nil, "judge", "--run", dir, "--judge-spec", "f1,threshold=0.3")
	if code != 2 || !strings.Contains(out, `"threshold":0.5`) || !strings.Contains(out, `"threshold":0.3`) || !strings.Contains(out, `judge name "f1"`) {
		t.Fatalf("another spec under f1: exit %d, want 2 naming both specs\n%s", code, out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "judgments.jsonl")); string(after) != string(before) {
		t.Error("the refused judge wrote verdicts")
	}
	if out, code := membench(t, nil, "judge", "--run", dir, "--judge-spec", "f1,threshold=0.3,name=f1-strict"); code != 0 {
		t.Fatalf("a new name: exit %d\n%s", code, out)
	}
}

// A `datasets synth` file marks its runs' manifests synthetic, and every
// output computed from them says SYNTHETIC.
func TestSyntheticRunsSaySo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "synth.json")
	if out, code := membench(t, nil, "datasets", "synth", "--shape", "locomo", "--questions", "10", "--seed", "1", "--out", file); code != 0 {
		t.Fatalf("synth: exit %d\n%s", code, out)
	}
	res := filepath.Join(dir, "res")
	var runs []string
	for _, sys := range []string{"turns-cosine", "fullcontext"} {
		out, code := membench(t, nil, "run", "--system", sys, "--dataset", "locomo", "--data", file, "--results", res, "--run-id", sys)
		if code != 0 || !strings.Contains(out, "SYNTHETIC") {
			t.Fatalf("run %s: exit %d, want the summary to say SYNTHETIC\n%s", sys, code, out)
		}
		runs = append(runs, filepath.Join(res, sys))
	}
	// Predictions scored against the synthetic file are marked the same.
	scored := filepath.Join(dir, "scored")
	if out, code := membench(t, nil, "score", "--dataset", "locomo", "--data", file, "--predictions", filepath.Join(runs[0], "answers.jsonl"), "--out", scored); code != 0 {
		t.Fatalf("score: exit %d\n%s", code, out)
	}
	for _, d := range []string{runs[0], scored} {
		mb, _ := os.ReadFile(filepath.Join(d, "manifest.json"))
		if !strings.Contains(string(mb), `"synthetic": true`) {
			t.Errorf("%s: manifest not marked synthetic:\n%s", d, mb)
		}
	}
	if out, code := membench(t, nil, "report", "--run", scored); code != 0 || !strings.Contains(out, "SYNTHETIC") {
		t.Errorf("report of the scored predictions: exit %d, want SYNTHETIC in the output\n%s", code, out)
	}
	for _, args := range [][]string{
		{"report", "--run", res},
		{"report", "--run", res, "--json"},
		{"compare", "--run", runs[0], "--run", runs[1], "--judge", "lexical"},
		{"diagnose", "--run", runs[0]},
		{"agreement", "--run", runs[0], "--judge", "lexical", "--judge", "f1"},
	} {
		out, code := membench(t, nil, args...)
		if code != 0 || !strings.Contains(out, "SYNTHETIC") {
			t.Errorf("%v: exit %d, want SYNTHETIC in the output\n%s", args, code, out)
		}
	}
}

// oneWordAnswerPrompt is a copy of the default answer prompt with one more
// instruction: a prompt file whose content differs from the default's.
func oneWordAnswerPrompt(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../prompts/templates/answer.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	prompt := filepath.Join(t.TempDir(), "answer.tmpl")
	if err := os.WriteFile(prompt, append([]byte("Answer in one word.\n"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	return prompt
}
