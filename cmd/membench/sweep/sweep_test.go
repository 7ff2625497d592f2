package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/sweep"
	_ "github.com/membench/membench/systems/all"
)

func TestSweepWithOptions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	spec := "dataset: sample\nlimit: 2\nembedder: hashed\njudges: [f1]\nquiet: true\nconcurrency: 1\n---\nname: tiny\nsystems: [turns-cosine]\ngrid:\n  k: [1, 2]\nplot: none\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := &Options{ConfigFile: file, OutDir: filepath.Join(dir, "out"), Config: membench.Config{CacheDir: filepath.Join(dir, "cache")},
		Changed: func(flag string) bool { return flag == "cache-dir" },
		DryRun:  true, Host: membench.Host{Home: dir}, Out: &out}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "sweep tiny: 2 points (dry run)") || !strings.Contains(s, "output: "+o.OutDir) {
		t.Errorf("dry run output:\n%s", s)
	}
	out.Reset()
	o.DryRun = false
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "outputs: "+filepath.Join(o.OutDir, sweep.JSONFile)) {
		t.Errorf("output:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(o.OutDir, sweep.CSVFile)); err != nil {
		t.Error(err)
	}
	if err := Run(context.Background(), &Options{Out: &out}); clierr.Code(err) != 2 {
		t.Errorf("no --config: err %v, want exit 2", err)
	}
}

// A point the run would refuse (here: a data file that does not exist) is
// bad input already in the dry run, which resolves each point's run id.
func TestDryRunResolvesRunIDs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.yaml")
	spec := "dataset: locomo\ndata: " + filepath.Join(dir, "missing.json") + "\n---\nsystems: [turns-cosine]\ngrid:\n  k: [1]\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Run(context.Background(), &Options{ConfigFile: file, OutDir: filepath.Join(dir, "out"), DryRun: true, Host: membench.Host{Home: dir}, Out: &out})
	if clierr.Code(err) != 2 || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("dry run with a missing data file: %v (exit %d), want exit 2 naming the file", err, clierr.Code(err))
	}
}

// --decide-model reaches every point's run (S4 of the seed study needs a
// decision model other than the listwise reranker's): the manifest
// records it; a bad spec is bad input.
func TestSweepDecideModel(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	spec := "dataset: sample\nlimit: 2\nembedder: hashed\njudges: [f1]\nquiet: true\nconcurrency: 1\n---\nname: tiny\nsystems: [turns-rerank]\ngrid:\n  k: [1]\nplot: none\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := &Options{ConfigFile: file, OutDir: filepath.Join(dir, "out"), DecideModel: "name=mydecider,backend=offline", Host: membench.Host{Home: dir}, Out: &out, Err: &out}
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	dirs, err := runlog.DirsUnder(filepath.Join(o.OutDir, "runs"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("runs %v %v", dirs, err)
	}
	m, err := runlog.LoadManifest(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.DecideModel != o.DecideModel {
		t.Errorf("decide model %q, want %q", m.Config.DecideModel, o.DecideModel)
	}
	o.DecideModel = "backend=nope"
	if err := Run(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("bad --decide-model: %v, want exit 2", err)
	}
}

// --estimate prints a row per point with its dollars, and the sweep's
// total; the points' figures differ as their k does, and nothing is run.
func TestSweepEstimate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "k.yaml")
	spec := "dataset: sample\nlimit: 4\nembedder: hashed\n---\nsystems: [turns-cosine]\ngrid:\n  k: [1, 20]\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := &Options{ConfigFile: file, OutDir: filepath.Join(dir, "out"), Config: membench.Config{CacheDir: filepath.Join(dir, "cache")}, Model: "gpt-4o-mini", Estimate: true, Host: membench.Host{Home: dir}, Out: &out, Err: &out}
	t.Setenv("OPENAI_API_KEY", "")
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`│ \d+ +│ turns-cosine k=(\d+) +│ \d+ +│ (\d+) +│ \d+ +│ answer \$[0-9.]+, judge \$[0-9.]+.*│ \$([0-9.]+) +│`).FindAllStringSubmatch(out.String(), -1)
	if len(rows) != 2 || !strings.Contains(out.String(), "total: $") {
		t.Fatalf("want two point rows and a total:\n%s", out.String())
	}
	in1, _ := strconv.Atoi(rows[0][2])
	in20, _ := strconv.Atoi(rows[1][2])
	if in20 <= in1 {
		t.Errorf("k=20 estimated %d input tokens, k=1 %d: the context size is not rendered", in20, in1)
	}
	if _, err := os.Stat(o.OutDir); !os.IsNotExist(err) {
		t.Errorf("--estimate wrote %s", o.OutDir)
	}
}
