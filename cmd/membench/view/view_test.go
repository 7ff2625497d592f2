package view_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/compare"
	"github.com/membench/membench/cmd/membench/view"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/all"
	webview "github.com/membench/membench/view"
)

func TestViewOpensResultsExportsAndRefusesBadRuns(t *testing.T) {
	// With no --run: the runs under ./results, or a line saying there are none.
	t.Chdir(t.TempDir())
	out, err := testutil.Execute(view.NewCmd())
	if err != nil || !strings.Contains(out, "no runs under results (it does not exist here)") {
		t.Fatalf("no ./results: %q %v", out, err)
	}
	if err := os.Mkdir("results", 0o755); err != nil {
		t.Fatal(err)
	}
	out, err = testutil.Execute(view.NewCmd())
	if err != nil || !strings.Contains(out, "no runs under results;") {
		t.Fatalf("empty ./results: %q %v", out, err)
	}
	cfg := membench.Config{System: "turns-cosine", ResultsDir: "results", CacheDir: t.TempDir(), Quiet: true,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	url, head := startView(t)
	if !strings.Contains(head, "opening the 1 run(s) under results") || !strings.Contains(head, filepath.Base(dir)) {
		t.Fatalf("view with no --run printed %q", head)
	}
	// The runs are read behind the server: the landing data comes when
	// they are.
	resp, err := http.Get(url + "head.json")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `"id":"`+filepath.Base(dir)+`"`) {
		t.Fatalf("the served view does not carry the run under ./results (%d bytes)", len(page))
	}

	file := filepath.Join(t.TempDir(), "sub", "v.html")
	out, err = testutil.Execute(view.NewCmd(), "--run", dir, "--out", file)
	if err != nil || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("export: %q %v", out, err)
	}
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `id="bundle"`) {
		t.Fatalf("exported file: %d bytes, %v", len(b), err)
	}
	_, err = testutil.Execute(view.NewCmd(), "--run", filepath.Join("results", "nope"))
	if err == nil || clierr.Code(err) != 2 || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing run: %v (code %d), want exit 2 naming it", err, clierr.Code(err))
	}
}

// startView runs `membench view ARGS` until the test ends and returns its
// URL and what it printed up to it.
func startView(t *testing.T, args ...string) (url, printed string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cmd := view.NewCmd()
	cmd.SetOut(pw)
	cmd.SetErr(pw)
	cmd.SetArgs(args)
	done := make(chan error, 1)
	go func() {
		done <- cmd.ExecuteContext(ctx)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("view ended with %v", err)
		}
	})
	rd := bufio.NewReader(pr)
	for {
		line, err := rd.ReadString('\n')
		printed += line
		if err != nil {
			t.Fatalf("no address printed: %q %v", printed, err)
		}
		if u := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line); u != "" {
			go io.Copy(io.Discard, rd)
			return u, printed
		}
	}
}

// offlineRun makes one small offline run and returns its directory.
func offlineRun(t *testing.T) string {
	t.Helper()
	cfg := membench.Config{System: "turns-cosine", ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	return harnesstest.Dir(t, cfg)
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

// The view's A/B figures are compare's: on two offline LoCoMo conv-26
// runs, every pair in an exported view (each judge both runs have) has
// the n, cells, p-value, kappa, exclusions and judge that
// `membench compare --json` prints for it, and the default judge is the
// one compare picks with no --judge.
func TestViewABEqualsCompare(t *testing.T) {
	data := testutil.Shared(t, "datasets", "locomo10.json")
	results := t.TempDir()
	var dirs []string
	for _, sys := range []string{"turns-cosine", "fullcontext"} {
		cfg := membench.Config{System: sys, Dataset: "locomo", Data: data, Conversations: []string{"conv-26"}, ResultsDir: results,
			CacheDir: t.TempDir(), Quiet: true, Concurrency: 2, Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, harnesstest.Dir(t, cfg))
	}
	file := filepath.Join(t.TempDir(), "ab.html")
	if out, err := testutil.Execute(view.NewCmd(), "--run", dirs[0], "--run", dirs[1], "--out", file); err != nil {
		t.Fatalf("view --out: %v\n%s", err, out)
	}
	head := exportedHead(t, file)
	if len(head.Pairs) == 0 {
		t.Fatal("no A/B pairs in the view")
	}
	compareJSON := func(judge string) analysis.CompareResult {
		args := []string{"--run", dirs[0], "--run", dirs[1], "--json"}
		if judge != "" {
			args = append(args, "--judge", judge)
		}
		out, err := testutil.Execute(compare.NewCmd(), args...)
		if err != nil {
			t.Fatalf("compare %v: %v\n%s", args, err, out)
		}
		var r analysis.CompareResult
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	def := compareJSON("")
	defaults := 0
	for _, p := range head.Pairs {
		if p.Result == nil {
			t.Fatalf("pair under %s has no result: %s", p.Judge, p.Error)
		}
		want := compareJSON(p.Judge)
		if p.Default {
			defaults++
			if def.JudgeA != p.Judge {
				t.Fatalf("the view's default judge is %s, compare's %s", p.Judge, def.JudgeA)
			}
		}
		got := *p.Result
		t.Logf("judge %s: view n=%d p=%v excluded=%d; compare n=%d p=%v excluded=%d", p.Judge, got.N, *got.PValue, got.Excluded, want.N, *want.PValue, want.Excluded)
		// The runs are named by the paths each was given; the figures must agree.
		got.RunA, got.RunB, want.RunA, want.RunB = "", "", "", ""
		got.Verdict, want.Verdict, got.Offline, want.Offline = "", "", "", ""
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("judge %s: the view's A/B\n%+v\ncompare --json\n%+v", p.Judge, got, want)
		}
		if want.Excluded == 0 || p.N != want.N {
			t.Fatalf("judge %s: %d excluded (want LoCoMo's adversarial questions left out), n %d vs %d", p.Judge, want.Excluded, p.N, want.N)
		}
	}
	if defaults != 1 {
		t.Fatalf("%d pairs marked as compare's default judge, want 1", defaults)
	}
}

// The landing page's dollars are the run's bill as report --table dollars
// makes it (prices.ForRun with the default table, or --prices laid over
// it), here for a run against a fake OpenAI-compatible server.
func TestViewDollarsAreTheReportsBill(t *testing.T) {
	srv := llmtest.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test-view-dollars")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := membench.Config{System: "fullcontext", Limit: 3, Model: "openai:gpt-4o-mini", Judges: []string{"lexical"}, ResultsDir: t.TempDir(),
		CacheDir: t.TempDir(), Quiet: true, Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	priceFile := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(priceFile, []byte("as_of: 2030-01-02\nmodels:\n  gpt-4o-mini: {input: 1000, cached_input: 100, output: 2000}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pf := range []string{"", priceFile} {
		table := prices.Default()
		args := []string{"--run", dir, "--out", filepath.Join(t.TempDir(), "v.html")}
		if pf != "" {
			var err error
			if table, err = prices.Load(pf); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--prices", pf)
		}
		want, err := prices.ForRun(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := testutil.Execute(view.NewCmd(), args...); err != nil {
			t.Fatal(err)
		}
		head := exportedHead(t, args[3])
		h := head.Runs[0].Head
		t.Logf("prices %q: view total %s, report's bill %s", pf, h.Total, want.Total)
		if h.Total != want.Total.String() || !strings.HasPrefix(h.Total, "$") || h.Total == "$0 (offline)" || h.Offline != "" || h.AsOf != table.AsOf {
			t.Fatalf("prices %q: the view's total %q (as of %s, offline %q), the bill's %q (as of %s)", pf, h.Total, h.AsOf, h.Offline, want.Total, table.AsOf)
		}
	}
}

// exportedHead reads the landing page's data from an exported file.
func exportedHead(t *testing.T, file string) webview.Bundle {
	t.Helper()
	html, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<script type="application/json" id="head">([^<]*)</script>`).FindSubmatch(html)
	if m == nil {
		t.Fatalf("%s has no head data", file)
	}
	var head webview.Bundle
	if err := json.Unmarshal(m[1], &head); err != nil {
		t.Fatal(err)
	}
	return head
}

// Runs compare refuses are not paired silently: the A/B data names the
// differences compare would refuse for and the reason there is no test.
func TestViewABOfUnlikeRunsSaysWhy(t *testing.T) {
	data := testutil.Shared(t, "datasets", "locomo10.json")
	results := t.TempDir()
	var dirs []string
	for _, c := range []membench.Config{{System: "turns-cosine"}, {System: "turns-cosine", Dataset: "locomo", Data: data, Conversations: []string{"conv-26"}}} {
		c.ResultsDir, c.CacheDir, c.Quiet = results, t.TempDir(), true
		c.Host = membench.Host{Home: t.TempDir(), Embedder: "hashed"}
		if _, err := harness.Run(context.Background(), c, io.Discard); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, harnesstest.Dir(t, c))
	}
	file := filepath.Join(t.TempDir(), "ab.html")
	if out, err := testutil.Execute(view.NewCmd(), "--run", dirs[0], "--run", dirs[1], "--out", file); err != nil {
		t.Fatalf("view --out: %v\n%s", err, out)
	}
	head := exportedHead(t, file)
	if len(head.Pairs) == 0 {
		t.Fatal("no A/B pairs")
	}
	_, cerr := testutil.Execute(compare.NewCmd(), "--run", dirs[0], "--run", dirs[1], "--json")
	for _, p := range head.Pairs {
		if p.Result != nil || !strings.Contains(p.Error, "share no question ids") || len(p.Mixed) == 0 || !strings.Contains(strings.Join(p.Mixed, " "), "dataset") {
			t.Fatalf("judge %s: result %v, error %q, differences %q; want no test, the reason and the dataset difference", p.Judge, p.Result, p.Error, p.Mixed)
		}
	}
	if cerr == nil || clierr.Code(cerr) != 2 {
		t.Fatalf("compare on the same pair: %v, want a refusal (exit 2)", cerr)
	}
}
