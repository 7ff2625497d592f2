package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// The one vocabulary every command shares: --run DIR wherever runs are
// read, --out wherever files are written, --json on stdout, --judge NAME
// defaulting to the run's primary judge, completion of flag values.

// workspace is a directory laid out as a user's checkout after a few runs:
// configs/ (a copy, so prereg lock writes there and not into the repo),
// testdata/ (the committed bundles), and results/A (turns-cosine), B
// (fullcontext) and S (structmem), all offline on the embedded sample.
func workspace(t *testing.T) string {
	t.Helper()
	return workspaceIn(t, t.TempDir())
}

func workspaceIn(t *testing.T, dir string) string {
	t.Helper()
	repo := testutil.RepoRoot(t)
	if out, err := exec.Command("cp", "-r", filepath.Join(repo, "configs"), filepath.Join(dir, "configs")).CombinedOutput(); err != nil {
		t.Fatalf("copy configs: %v %s", err, out)
	}
	if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	for id, system := range map[string]string{"A": "turns-cosine", "B": "fullcontext", "S": "structmem"} {
		if out, code := in(t, dir, "run", "--quiet", "--system", system, "--run-id", id); code != 0 {
			t.Fatalf("fixture run %s: exit %d\n%s", id, code, out)
		}
	}
	return dir
}

var shared struct {
	sync.Once
	dir string
	err string
}

// sharedWorkspace is one workspace for the tests below, which only add to
// it (a judge, a run C), so each need not make its own three runs.
func sharedWorkspace(t *testing.T) string {
	t.Helper()
	shared.Do(func() {
		dir, err := os.MkdirTemp(filepath.Dir(bin), "ws")
		if err != nil {
			shared.err = err.Error()
			return
		}
		shared.dir = workspaceIn(t, dir)
	})
	if shared.dir == "" {
		t.Fatalf("shared workspace: %s", shared.err)
	}
	return shared.dir
}

// in runs membench in dir with stdout and stderr together.
func in(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	stdout, stderr, code := split(t, dir, args...)
	return stdout + stderr, code
}

// split runs membench in dir and keeps stdout and stderr apart.
func split(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MEMBENCH_EMBEDDER=hashed", "MEMBENCH_HOME="+filepath.Join(dir, ".home"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := testutil.ExitCode(t, cmd)
	return out.String(), errb.String(), code
}

// Two runs made with no flags compare with no --judge: both sides use the
// primary judge (the first verdict judge, lexical offline).
func TestCompareTwoDefaultRunsNeedsNoJudge(t *testing.T) {
	t.Parallel()
	dir := sharedWorkspace(t)
	out, code := in(t, dir, "compare", "--run", "results/A", "--run", "results/B")
	if code != 0 || !strings.Contains(out, "results/A (judge lexical)") || !strings.Contains(out, "results/B (judge lexical)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	stdout, stderr, code := split(t, dir, "compare", "--run", "results/A", "--run", "results/B", "--json")
	var r struct {
		RunA   string `json:"run_a"`
		JudgeA string `json:"judge_a"`
		JudgeB string `json:"judge_b"`
		N      int    `json:"n"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || r.RunA != "results/A" || r.JudgeA != "lexical" || r.JudgeB != "lexical" || r.N == 0 {
		t.Fatalf("exit %d, json %+v\nstdout %s\nstderr %s", code, r, stdout, stderr)
	}
	// A judge named on the command line wins; a glob giving two runs works.
	stdout, _, code = split(t, dir, "compare", "--run", "results/[AB]", "--judge", "f1", "--json")
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || r.JudgeA != "f1" {
		t.Fatalf("glob + --judge f1: exit %d %+v\n%s", code, r, stdout)
	}
	// The judgments files are accepted as before.
	if out, code := in(t, dir, "compare", "--run", "results/A/judgments.jsonl", "--run", "results/B/judgments.jsonl"); code != 0 {
		t.Fatalf("judgments files: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"compare", "--run", "results/A"},
		{"compare", "--run", "results/A", "--run", "results/B", "--run", "results/S"},
	} {
		if out, code := in(t, dir, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", bad, code, out)
		}
	}
}

// Every command that prints a result prints JSON on stdout with --json,
// with numbers as numbers; notices stay on stderr.
func TestJSONOnStdout(t *testing.T) {
	t.Parallel()
	dir := sharedWorkspace(t)
	preds := filepath.Join(dir, "results", "A", "answers.jsonl")
	for _, args := range [][]string{
		{"run", "--quiet", "--system", "fullcontext", "--run-id", "B", "--json"},
		{"report", "--json"},
		{"report", "--run", "results/A", "--run", "results/B", "--judge", "f1", "--json"},
		{"systems", "--json"},
		{"datasets", "list", "--json"},
		{"compare", "--run", "results/A", "--run", "results/B", "--json"},
		{"agreement", "--run", "results/A", "--judge", "lexical", "--judge", "f1", "--json"},
		{"kstar", "--reference", "turns-cosine", "--reference-k", "10", "--candidate", "fullcontext", "--k", "1..3", "--json"},
		{"diagnose", "--run", "results/A", "--json"},
		{"audit", "extraction", "--run", "results/S", "--json"},
		{"audit", "links", "--run", "results/S", "--json"},
		{"sweep", "--config", "configs/sample_k_sweep.yaml", "--dry-run", "--json"},
		{"score", "--predictions", preds, "--out", filepath.Join(dir, "scored"), "--json"},
		{"merge", "--run", "results/A", "--out", filepath.Join(dir, "merged"), "--json"},
		{"version", "--json"},
		{"judge", "--run", "results/B", "--judge-spec", "em", "--json"},
		{"grade", "--run", "results/B", "--json"},
	} {
		stdout, stderr, code := split(t, dir, args...)
		if args[0] == "merge" {
			// A single run is no set of shards: refused, exit 2, nothing on stdout.
			if code != 2 || stdout != "" {
				t.Errorf("%v: exit %d stdout %q, want exit 2 and no stdout", args, code, stdout)
			}
			continue
		}
		var v any
		if code != 0 || json.Unmarshal([]byte(stdout), &v) != nil {
			t.Errorf("%v: exit %d; stdout is not one JSON document:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
	}
	// Numbers are numbers: report's overall score and k.
	stdout, _, _ := split(t, dir, "report", "--run", "results/A", "--json")
	var rep struct {
		Judge string `json:"judge"`
		Runs  []struct {
			K       *int `json:"k"`
			Overall struct {
				Score *float64 `json:"score"`
				N     int      `json:"n"`
			} `json:"overall"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Judge != "lexical" || len(rep.Runs) != 1 || rep.Runs[0].K == nil || *rep.Runs[0].K != 10 || rep.Runs[0].Overall.Score == nil || rep.Runs[0].Overall.N == 0 {
		t.Errorf("report --json: %v %+v\n%s", err, rep, stdout)
	}
}

// Completion offers values for --system, --dataset, --judge (names of the
// given runs' judges), --judge-spec, --config and --run, via cobra's
// __complete (what the shell scripts of `membench completion` call).
func TestCompletionOfValues(t *testing.T) {
	t.Parallel()
	dir := sharedWorkspace(t)
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"run", "--system", ""}, []string{"turns-cosine", "fullcontext", "structmem"}, nil},
		{[]string{"run", "--system", "turns-r"}, []string{"turns-rerank"}, []string{"fullcontext"}},
		{[]string{"run", "--dataset", ""}, []string{"sample", "locomo", "longmemeval"}, nil},
		{[]string{"score", "--dataset", "lo"}, []string{"locomo"}, []string{"sample"}},
		{[]string{"run", "--judge-spec", ""}, []string{"lexical", "f1", "bleu1", "em", "llm"}, nil},
		{[]string{"run", "--config", ""}, []string{"configs/table2.yaml", "configs/sample_k_sweep.yaml"}, nil},
		{[]string{"sweep", "--config", "configs/sample"}, []string{"configs/sample_k_sweep.yaml"}, []string{"configs/table2.yaml"}},
		{[]string{"report", "--run", ""}, []string{"results/A", "results/B", "results/S"}, nil},
		{[]string{"compare", "--run", "results/A", "--run", "results/"}, []string{"results/B"}, nil},
		{[]string{"compare", "--run", "results/A", "--judge", ""}, []string{"lexical", "f1", "bleu1"}, []string{"llm"}},
		{[]string{"datasets", "fetch", ""}, []string{"locomo", "longmemeval-s"}, nil},
		{[]string{"kstar", "--reference", "turns-"}, []string{"turns-cosine"}, nil},
	} {
		out, code := in(t, dir, append([]string{"__complete"}, c.args...)...)
		if code != 0 {
			t.Errorf("__complete %v: exit %d\n%s", c.args, code, out)
			continue
		}
		got := map[string]bool{}
		for _, line := range strings.Split(out, "\n") {
			if line == "" || strings.HasPrefix(line, ":") || strings.HasPrefix(line, "Completion ended") {
				continue
			}
			got[strings.SplitN(line, "\t", 2)[0]] = true
		}
		for _, w := range c.want {
			if !got[w] {
				t.Errorf("__complete %v: %q not offered\n%s", c.args, w, out)
			}
		}
		for _, n := range c.not {
			if got[n] {
				t.Errorf("__complete %v: %q offered, should not be\n%s", c.args, n, out)
			}
		}
	}
}
