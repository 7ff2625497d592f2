package view_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
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

// offlineRun makes one small offline run and returns its directory.
func offlineRun(t *testing.T) string {
	t.Helper()
	cfg := runlog.Config{System: "turns-cosine", ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true,
		Host: runlog.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	return harnessDir(t, cfg)
}

// The server answers requests addressed to its own loopback names and
// refuses any other Host (a rebound domain) with 403, over real HTTP.
func TestViewServerAnswersOnlyItsOwnName(t *testing.T) {
	dir := offlineRun(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cmd := view.NewCmd()
	cmd.SetOut(pw)
	cmd.SetErr(pw)
	cmd.SetArgs([]string{"--run", dir})
	done := make(chan error, 1)
	go func() {
		done <- cmd.ExecuteContext(ctx)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no address printed: %q %v (%v)", line, err, <-done)
	}
	go io.Copy(io.Discard, pr)
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("view ended with %v", err)
		}
	}()
	u := regexp.MustCompile(`http://127\.0\.0\.1:(\d+)/`).FindStringSubmatch(line)
	if u == nil {
		t.Fatalf("no URL in %q", line)
	}
	get := func(host string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, u[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	port := u[1]
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port} {
		if code, body := get(host); code != http.StatusOK || !strings.Contains(body, "<html") {
			t.Errorf("Host %s: %d; want the page", host, code)
		}
	}
	for _, host := range []string{"attacker.example:" + port, "attacker.example", "127.0.0.1", "localhost:1", "127.0.0.1.attacker.example:" + port} {
		code, body := get(host)
		if code != http.StatusForbidden || !strings.Contains(body, u[0]) {
			t.Errorf("Host %s: %d %q; want 403 naming %s", host, code, body, u[0])
		}
	}
}

// --out may not point into a run folder: the run's files stay as they
// were, and the error (exit 2) names the flag and where to write instead.
func TestViewOutRefusesARunsOwnFiles(t *testing.T) {
	dir := offlineRun(t)
	manifest := filepath.Join(dir, runlog.ManifestFile)
	before, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{manifest, filepath.Join(dir, "view.html")} {
		_, err := testutil.Execute(view.NewCmd(), "--run", dir, "--out", out)
		if err == nil || clierr.Code(err) != 2 || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "write it outside") {
			t.Errorf("--out %s: %v (code %d); want exit 2 naming --out and the fix", out, err, clierr.Code(err))
		}
	}
	if after, _ := os.ReadFile(manifest); string(after) != string(before) {
		t.Fatal("the run's manifest changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "view.html")); err == nil {
		t.Error("a file was written inside the run folder")
	}
	beside := dir + "-view.html"
	if out, err := testutil.Execute(view.NewCmd(), "--run", dir, "--out", beside); err != nil || !strings.Contains(out, "wrote "+beside) {
		t.Errorf("--out beside the run: %q %v", out, err)
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
