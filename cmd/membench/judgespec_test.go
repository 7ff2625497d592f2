package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A judge spec's mistake is reported under the flag the user gave
// (--judge-spec; --audit-model for audits), with the nearest judge.
func TestJudgeSpecErrorNamesItsFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "r")
	if out, code := membench(t, nil, "run", "--quiet", "--limit", "2", "--system", "structmem", "--results", dir, "--run-id", "r"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	wrong := filepath.Join(dir, "wrong.scored.json")
	os.WriteFile(wrong, []byte(`{"detailed_results": {"u_0": [{"question_id": "locomo_0_qa0", "question": "What?", "golden_answer": "a", "generated_answer": "b", "category": 1}]}}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--results", filepath.Join(dir, "x"), "--judge-spec", "lexcial"}, `--judge-spec "lexcial": unknown judge "lexcial" (did you mean "lexical"?)`},
		{[]string{"score", "--predictions", filepath.Join(run, "answers.jsonl"), "--out", filepath.Join(dir, "s"), "--judge-spec", "lexcial"}, `--judge-spec "lexcial": unknown judge "lexcial" (did you mean "lexical"?)`},
		{[]string{"judge", "--run", run, "--judge-spec", "lexcial"}, `--judge-spec "lexcial": unknown judge "lexcial" (did you mean "lexical"?)`},
		{[]string{"audit", "judge", "--wrong", wrong, "--judge-spec", "lexcial"}, `--judge-spec "lexcial": unknown judge "lexcial" (did you mean "lexical"?)`},
		{[]string{"run", "--results", filepath.Join(dir, "y"), "--judge-spec", "a=offline", "--judge-spec", "a=offline"}, `--judge-spec "a=offline": a judge named a is already configured`},
		{[]string{"audit", "extraction", "--run", run, "--audit-model", "nosuch:x"}, `--audit-model "nosuch:x": `},
		{[]string{"audit", "extraction", "--run", run, "--audit-model", "a=offline", "--audit-model", "a=offline"}, `--audit-model "a=offline" and --audit-model "a=offline" both make a judge named "a"`},
	} {
		out, code := membench(t, nil, c.args...)
		line := strings.TrimSpace(out)
		if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, c.want) || strings.Contains(line, `--judge "`) {
			t.Errorf("membench %s: exit %d\n%s\nwant exit 2, one line containing %s", strings.Join(c.args, " "), code, out, c.want)
		}
	}
}
