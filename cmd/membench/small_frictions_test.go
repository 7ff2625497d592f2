package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/testutil"
)

// More frictions of a first hour: a YAML typo, the flag a judge spec came
// from, --concurrency 0, kstar's list of missing ks, datasets add
// locomo-plus.

// goTypeName matches what yaml.v3 says of a Go type ("in type
// runlog.Config", "into int", "!!str").
var goTypeName = regexp.MustCompile(`in type|into |!!|\b[a-z]+\.[A-Z]\w+\b|unmarshal`)

// A typo in a YAML file names the file, the line and the key, suggests
// the key meant and names no Go type; exit 2, one line.
func TestFrictionsYAMLTypoNamesKeyAndLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := testutil.Writer(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config", write("typo.yaml", "# a run\nsytem: structmem\n")},
			`typo.yaml:2: unknown key "sytem" (did you mean "system"?)`},
		{[]string{"run", "--config", write("far.yaml", "k: 3\nfrobnicate: 1\n")},
			`far.yaml:2: unknown key "frobnicate"; known keys: system, options, k, dataset`},
		{[]string{"run", "--config", write("k.yaml", "k: three\n")},
			`k.yaml:1: k: "three" is not a whole number`},
		{[]string{"run", "--config", write("judges.yaml", "judges: f1\n")},
			`judges.yaml:1: judges: "f1" is not a list`},
		{[]string{"sweep", "--config", write("sweep.yaml", "dataset: sample\n---\nname: s\ngird:\n  k: [1, 2]\n")},
			`sweep.yaml:4: unknown key "gird" (did you mean "grid"?)`},
		{[]string{"sweep", "--config", write("sweep1.yaml", "dataset: sample\nturn_stpe: 1m\n---\nname: s\n")},
			`sweep1.yaml:2: unknown key "turn_stpe" (did you mean "turn_step"?)`},
		{[]string{"prereg", "lock", write("plan.yaml", "title: t\njugde: lexical\n"), "--run", dir},
			`plan.yaml:2: unknown key "jugde" (did you mean "judge"?)`},
	} {
		out, code := membench(t, nil, c.args...)
		line := strings.TrimSpace(out)
		if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("membench %s: exit %d\n%s\nwant exit 2, one line containing %s", strings.Join(c.args, " "), code, out, c.want)
		}
		if goTypeName.MatchString(line) {
			t.Errorf("membench %s names a Go type: %s", strings.Join(c.args, " "), line)
		}
	}
}

// A judge spec's mistake is reported under the flag the user gave
// (--judge-spec; --audit-model for audits), with the nearest judge.
func TestFrictionsJudgeSpecErrorNamesItsFlag(t *testing.T) {
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

// --concurrency 0 would start no worker; every command that takes the
// flag refuses it in one line naming the flag and its range.
func TestFrictionsConcurrencyZeroRefused(t *testing.T) {
	t.Parallel()
	var names []string
	var argv [][]string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("concurrency") != nil {
			name := strings.TrimPrefix(c.CommandPath(), "membench ")
			args := append(strings.Fields(name), "--concurrency", "0")
			if c.Flags().Lookup("results") != nil {
				// Should the value be taken, nothing is written here.
				args = append(args, "--results", t.TempDir())
			}
			names, argv = append(names, name), append(argv, args)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot(nil))
	for _, want := range []string{"run", "sweep", "judge", "audit judge"} {
		if !slices.Contains(names, want) {
			t.Fatalf("the walk found --concurrency on %q, not on %s", names, want)
		}
	}
	for _, args := range argv {
		out, code := membench(t, nil, args...)
		line := strings.TrimSpace(out)
		if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, `"--concurrency"`) || !strings.Contains(line, "from 1 to 10000") {
			t.Errorf("membench %s: exit %d\n%s\nwant exit 2, one line naming --concurrency and 1 to 10000", strings.Join(args, " "), code, out)
		}
	}
	t.Logf("checked --concurrency 0 on: %s", strings.Join(names, ", "))
}

// datasets add locomo-plus installs the published locomo_plus.json, and
// a run of --dataset locomo-plus then needs no --data. A file that is not
// the published one is refused (the synthetic half is in
// datasets/locomoplus: TestAddedCopyIsTheDefault).
func TestFrictionsDatasetsAddLoCoMoPlus(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"MEMBENCH_HOME=" + home}
	other := filepath.Join(t.TempDir(), "locomo_plus.json")
	os.WriteFile(other, []byte(`[{"relation_type": "goal", "cue_dialogue": "A: hi", "trigger_query": "B: yo", "time_gap": "one week later"}]`), 0o644)
	out, code := membench(t, env, "datasets", "add", "locomo-plus", other)
	if line := strings.TrimSpace(out); code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "different version") {
		t.Errorf("a file that is not the published one: exit %d\n%s", code, out)
	}
	real := testutil.Shared(t, "datasets", "locomo-plus", "locomo_plus.json")
	out, code = membench(t, env, "datasets", "add", "locomo-plus", real)
	if code != 0 || !strings.Contains(out, "locomo-plus: ok  "+filepath.Join(home, "datasets", "locomo_plus.json")) {
		t.Fatalf("datasets add locomo-plus %s: exit %d\n%s", real, code, out)
	}
	if out, code := membench(t, env, "datasets", "verify", "locomo-plus"); code != 0 || !strings.Contains(out, "locomo-plus: ok") {
		t.Errorf("datasets verify locomo-plus: exit %d\n%s", code, out)
	}
	results := t.TempDir()
	out, code = membench(t, env, "run", "--quiet", "--dataset", "locomo-plus", "--limit", "2", "--results", results)
	if code != 2 || !strings.Contains(out, "membench datasets add locomo FILE") {
		t.Errorf("locomo-plus without LoCoMo installed: exit %d\n%s", code, out)
	}
	locomo := testutil.Shared(t, "datasets", "locomo10.json")
	if out, code := membench(t, env, "datasets", "add", "locomo", locomo); code != 0 {
		t.Fatalf("datasets add locomo: exit %d\n%s", code, out)
	}
	out, code = membench(t, env, "run", "--quiet", "--dataset", "locomo-plus", "--limit", "2", "--results", results, "--json")
	if code != 0 || !strings.Contains(out, `"dataset": "locomo-plus"`) {
		t.Fatalf("run --dataset locomo-plus with no --data: exit %d\n%s", code, clip(out))
	}
}
