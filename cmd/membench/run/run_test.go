package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/all"
)

func options(t *testing.T, out *bytes.Buffer) *Options {
	dir := t.TempDir()
	return &Options{
		Config: membench.Config{System: "turns-cosine", Dataset: "sample", Limit: 2, Judges: []string{"f1"},
			ResultsDir: filepath.Join(dir, "results"), CacheDir: filepath.Join(dir, "cache"), Concurrency: 1},
		Quiet: true,
		Host:  membench.Host{Home: dir, Embedder: "hashed"},
		Out:   out,
	}
}

func manifestOf(t *testing.T, out string) runlog.Manifest {
	t.Helper()
	m := regexp.MustCompile(`artifacts: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no artifacts line in:\n%s", out)
	}
	man, err := runlog.LoadManifest(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return man
}

func TestRunWithOptions(t *testing.T) {
	var out bytes.Buffer
	o := options(t, &out)
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	man := manifestOf(t, out.String())
	if man.Config.System != "turns-cosine" || man.Config.Limit != 2 || man.Config.Embedder != "tfidf-hash-512" {
		t.Errorf("manifest config %+v", man.Config)
	}
	if !strings.Contains(out.String(), "f1") {
		t.Errorf("summary lacks the f1 judge:\n%s", out.String())
	}
}

// With a config file, flag values apply only where Changed says the user
// set them.
func TestRunConfigFileAndChangedFlags(t *testing.T) {
	var out bytes.Buffer
	o := options(t, &out)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	yaml := "system: turns-cosine\ndataset: sample\nlimit: 1\nk: 2\njudges: [f1]\nresults_dir: " + o.Config.ResultsDir + "\ncache_dir: " + o.Config.CacheDir + "\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	o.ConfigFile = cfg
	o.Config.K = 3
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if man := manifestOf(t, out.String()); man.Config.K != 2 || man.Config.Limit != 1 {
		t.Errorf("unset flags overrode the file: k=%d limit=%d, want 2 and 1", man.Config.K, man.Config.Limit)
	}
	out.Reset()
	o.Changed = func(flag string) bool { return flag == "k" }
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if man := manifestOf(t, out.String()); man.Config.K != 3 || man.Config.Limit != 1 {
		t.Errorf("--k did not override the file: k=%d limit=%d, want 3 and 1", man.Config.K, man.Config.Limit)
	}
	o.Opts = []string{"k"}
	if err := Run(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("--opt k: err %v, want exit 2", err)
	}
}

// A structmem run whose extraction replies are all empty lists builds an
// empty memory: exit 1 naming the count, no results table on stdout, only
// where the partial artifacts are.
func TestRunEmptyMemoryExitsOneWithoutTable(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Text: `[]`} }))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	var out, errOut bytes.Buffer
	o := options(t, &out)
	o.Err = &errOut
	o.Config.System = "structmem"
	o.LLM, o.Model, o.BaseURL = "openai", "gpt-4o-mini", srv.URL
	err := Run(context.Background(), o)
	if err == nil || clierr.Code(err) != 1 || !strings.Contains(err.Error(), "0 memory entries") {
		t.Fatalf("err %v (code %d), want exit 1 naming 0 memory entries", err, clierr.Code(err))
	}
	if strings.Contains(out.String(), "overall") || strings.Contains(out.String(), "artifacts:") {
		t.Errorf("a results table was printed:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "partial artifacts") {
		t.Errorf("stderr %q does not say where the partial artifacts are", errOut.String())
	}
}

// StructMem's utterance clock is part of the resolved options the
// manifest records, beside the --turn-step it ignores.
func TestManifestRecordsStructMemClock(t *testing.T) {
	var out bytes.Buffer
	o := options(t, &out)
	o.Config.System = "structmem"
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	man := manifestOf(t, out.String())
	if man.SystemOptions["clock"] != "session+1s*position" || man.SystemOptions["anchor"] != "utterance" || man.TurnStep == "" {
		t.Errorf("manifest options %v, turn step %q", man.SystemOptions, man.TurnStep)
	}
}
