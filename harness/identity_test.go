package harness_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/embedder/uselite"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
)

func idOf(t *testing.T, cfg membench.Config) string {
	t.Helper()
	r, err := plan.Resolve(cfg, plan.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// No --embedder means use-lite when installed, else the hashed embedder;
// the config records which, so installing USE-lite after a run (the
// README's optional step) gives a new run id instead of a refused resume,
// and naming the embedder that was chosen gives the same id.
func TestEmbedderIsPartOfTheRunID(t *testing.T) {
	bare := harnesstest.Config(t, "turns-cosine")
	bare.Host = membench.Host{Home: t.TempDir()} // no model, no MEMBENCH_EMBEDDER
	sum, err := harness.Run(context.Background(), bare, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runlog.LoadManifest(filepath.Join(bare.ResultsDir, sum.RunID))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.Embedder != embedder.HashedName || m.Embedder != embedder.HashedName {
		t.Fatalf("manifest: config embedder %q, embedder %q; want %s in both", m.Config.Embedder, m.Embedder, embedder.HashedName)
	}
	for _, name := range []string{"hashed", embedder.HashedName} {
		c := bare
		c.Embedder = name
		if id := idOf(t, c); id != sum.RunID {
			t.Errorf("--embedder %s: run id %s, want %s (what the automatic choice made)", name, id, sum.RunID)
		}
	}
	c := bare
	c.Host.Embedder = "hashed" // MEMBENCH_EMBEDDER
	if id := idOf(t, c); id != sum.RunID {
		t.Errorf("MEMBENCH_EMBEDDER=hashed: run id %s, want %s", id, sum.RunID)
	}
	home := os.Getenv("MEMBENCH_HOME")
	if !uselite.Installed(embedder.DefaultModelDir(home)) {
		t.Skipf("USE-lite not installed in %s (bash scripts/setup-embeddings.sh); the rest needs it", embedder.DefaultModelDir(home))
	}
	installed := bare
	installed.Host = membench.Host{Home: home}
	sum2, err := harness.Run(context.Background(), installed, io.Discard)
	if err != nil {
		t.Fatalf("the same command after installing USE-lite: %v, want a new run", err)
	}
	if sum2.RunID == sum.RunID || sum2.Embedder != embedder.UseLite {
		t.Errorf("after installing USE-lite: run %s with %s; want a new run id with use-lite", sum2.RunID, sum2.Embedder)
	}
}

// An unknown embedder is refused naming where the name came from, never
// a variable the user did not set.
func TestEmbedderErrorsNameTheirSource(t *testing.T) {
	c := harnesstest.Config(t, "turns-cosine")
	c.Host.Embedder = ""
	c.Embedder = "bert"
	_, err := harness.Run(context.Background(), c, io.Discard)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "--embedder bert") || strings.Contains(err.Error(), embedder.EnvEmbedder) {
		t.Errorf("--embedder bert: %v", err)
	}
	c.Embedder, c.Host.Embedder = "", "bert"
	_, err = harness.Run(context.Background(), c, io.Discard)
	if !badinput.Is(err) || !strings.Contains(err.Error(), embedder.EnvEmbedder+"=bert") {
		t.Errorf("MEMBENCH_EMBEDDER=bert: %v", err)
	}
}

// --k and --opt k are one setting: one run id, a conflict is an error.
// Option values a system refuses are refused before any run folder exists.
func TestOptionsCheckedBeforeAnythingIsWritten(t *testing.T) {
	base := harnesstest.Config(t, "turns-cosine")
	withK := base
	withK.K = 3
	withOpt := base
	withOpt.Options = membench.Options{"k": "3"}
	if a, b := idOf(t, withK), idOf(t, withOpt); a != b {
		t.Errorf("--k 3 gives %s, --opt k=3 gives %s; want one run id", a, b)
	}
	both := withOpt
	both.K = 3
	if a, b := idOf(t, both), idOf(t, withK); a != b {
		t.Errorf("--k 3 --opt k=3 gives %s, want %s", a, b)
	}
	for name, c := range map[string]membench.Config{
		"--k 3 --opt k=5":      func() membench.Config { c := withK; c.Options = membench.Options{"k": "5"}; return c }(),
		"--opt k=abc":          func() membench.Config { c := base; c.Options = membench.Options{"k": "abc"}; return c }(),
		"--opt k=0":            func() membench.Config { c := base; c.Options = membench.Options{"k": "0"}; return c }(),
		"--opt order=sideways": func() membench.Config { c := base; c.Options = membench.Options{"order": "sideways"}; return c }(),
		"--opt n=abc (turns-rerank)": func() membench.Config {
			c := base
			c.System, c.Options = "turns-rerank", membench.Options{"n": "abc"}
			return c
		}(),
	} {
		c.ResultsDir = t.TempDir()
		_, err := harness.Run(context.Background(), c, io.Discard)
		if !badinput.Is(err) {
			t.Errorf("%s: err %v, want bad input", name, err)
		}
		if es, _ := os.ReadDir(c.ResultsDir); len(es) != 0 {
			t.Errorf("%s: a refused run left %d entries in --results", name, len(es))
		}
	}
	// The manifest records the k the run used, whichever way it was given.
	sum, err := harness.Run(context.Background(), withOpt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m, err := runlog.LoadManifest(filepath.Join(withOpt.ResultsDir, sum.RunID))
	if err != nil {
		t.Fatal(err)
	}
	if m.SystemOptions["k"] != "3" || m.Config.K != 3 {
		t.Errorf("manifest: options %v, config k %d; want k=3", m.SystemOptions, m.Config.K)
	}
}

// The run id hashes the data file's content, not the path as typed.
func TestDataPathSpellingsGiveOneRunID(t *testing.T) {
	rel := filepath.Join("..", "datasets", "sample", "sample.json")
	abs, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	c := harnesstest.Config(t, "turns-cosine")
	c.Dataset, c.Data = "locomo", rel
	d := c
	d.Data = abs
	if a, b := idOf(t, c), idOf(t, d); a != b {
		t.Errorf("--data %s gives %s, --data %s gives %s; want one run id", rel, a, abs, b)
	}
	// A copy of the file elsewhere is the same data.
	src, _ := os.ReadFile(rel)
	cp := filepath.Join(t.TempDir(), "copy.json")
	os.WriteFile(cp, src, 0o644)
	e := c
	e.Data = cp
	if a, b := idOf(t, c), idOf(t, e); a != b {
		t.Errorf("a copy gives %s, want %s", b, a)
	}
}
