package view_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/harness"
	_ "github.com/membench/membench/internal/answer"
	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/internal/cli/view"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/all"
)

func TestViewListsExportsAndRefusesBadRuns(t *testing.T) {
	results := t.TempDir()
	out, err := testutil.Execute(view.NewCmd(), "--results", results)
	if err != nil || !strings.Contains(out, "no runs under") {
		t.Fatalf("empty results: %q %v", out, err)
	}
	cfg := runlog.Config{System: "turns-cosine", ResultsDir: results, CacheDir: t.TempDir(), Quiet: true,
		Host: runlog.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnessDir(t, cfg)
	out, err = testutil.Execute(view.NewCmd(), "--results", results)
	if err != nil || !strings.Contains(out, filepath.Base(dir)) || !strings.Contains(out, "turns-cosine") || !strings.Contains(out, "finished") {
		t.Fatalf("listing: %q %v", out, err)
	}
	file := filepath.Join(t.TempDir(), "sub", "v.html")
	out, err = testutil.Execute(view.NewCmd(), "--run", dir, "--export", file)
	if err != nil || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("export: %q %v", out, err)
	}
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `id="bundle"`) {
		t.Fatalf("exported file: %d bytes, %v", len(b), err)
	}
	_, err = testutil.Execute(view.NewCmd(), "--run", filepath.Join(results, "nope"))
	if err == nil || clierr.Code(err) != 2 || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing run: %v (code %d), want exit 2 naming it", err, clierr.Code(err))
	}
}

// harnessDir is the run directory harness.Run makes of cfg (the id comes
// from the resolved config: embedder chosen, k in one place, data hash).
func harnessDir(t testing.TB, cfg runlog.Config) string {
	t.Helper()
	r, err := harness.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r.Dir()
}
