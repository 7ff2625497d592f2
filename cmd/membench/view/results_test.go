package view_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/membench/membench/datasets/all"

	"github.com/chromedp/chromedp"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/peers"
	"github.com/membench/membench/cmd/membench/report"
	"github.com/membench/membench/cmd/membench/view"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/internal/testutil/browsertest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// fiftyRuns fills results with about fifty runs as a results folder of
// some weeks holds them: offline runs of the sample (systems, k) and of
// the LongMemEval test file, runs standing for LoCoMo, LoCoMo-Plus and
// LongMemEval-S judged by a model (LoCoMo under two answer keys), and
// Zep's published results imported when the shared files are here.
func fiftyRuns(t *testing.T, results, repo, shared string) {
	t.Helper()
	home, cache := t.TempDir(), t.TempDir()
	offline := func(c membench.Config) {
		c.ResultsDir, c.CacheDir, c.Quiet, c.Concurrency = results, cache, true, 2
		c.Host = membench.Host{Home: home, Embedder: "hashed"}
		if _, err := harness.Run(context.Background(), c, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30} {
		offline(membench.Config{System: "turns-cosine", K: k})
	}
	for _, sys := range []string{"fullcontext", "abstain", "turns-rerank", "turns-llm"} {
		offline(membench.Config{System: sys})
	}
	offline(membench.Config{System: "fullcontext", Judges: []string{"f1", "bleu1"}})
	offline(membench.Config{System: "turns-cosine", K: 5, Judges: []string{"f1", "bleu1"}})
	lme := filepath.Join(repo, "datasets", "testdata", "longmemeval_mini.json")
	for _, k := range []int{1, 2, 3, 5, 10, 20} {
		offline(membench.Config{System: "turns-cosine", K: k, Dataset: "longmemeval", Data: lme})
	}
	for _, sys := range []string{"fullcontext", "abstain"} {
		offline(membench.Config{System: sys, Dataset: "longmemeval", Data: lme})
	}

	// Model-judged runs of the real datasets, as their record files hold them.
	judged := func(dir, dataset, sha string, n int, key, system string, k int, group func(i int) (cat int, typ string, abs bool)) {
		gpt := membench.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
		r := runlogtest.New(system, k, "llm")
		m := &r.Manifest
		m.Dataset, m.DatasetSHA256, m.DatasetSource, m.QuestionSetSHA256 = dataset, sha, dataset+".json", sha+"-all"
		m.Embedder, m.Models = "openai:text-embedding-3-small", map[string]membench.ModelID{"answer": gpt, "judge": gpt}
		m.JudgeSpecs = []membench.JudgeInfo{{Name: "llm", Kind: "llm", Class: membench.JudgeVerdict, Model: &gpt}}
		m.Started, m.Finished = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
		if key != "" {
			m.AnswerKey = &runlog.AnswerKeyInfo{Key: key}
		}
		for i := 0; i < n; i++ {
			cat, typ, abs := group(i)
			id := fmt.Sprintf("%s-q%d", dataset, i)
			ok := (i*7+k*3+len(system))%10 < 6
			r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, ConversationID: fmt.Sprintf("c%d", i%10), Category: cat, Type: typ, Abstention: abs})
			score := 0.0
			if ok {
				score = 1
			}
			r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: ok, Score: score})
		}
		m.Questions = n
		r.Write(t, filepath.Join(results, dir))
	}
	locomo := func(i int) (int, string, bool) { return i%5 + 1, "", false }
	for _, k := range []int{1, 2, 3, 5, 10, 20, 40, 60} {
		judged(fmt.Sprintf("locomo-turns-cosine-k%d", k), "locomo", "79fa87e90f04aaaa", 400, "", "turns-cosine", k, locomo)
	}
	judged("locomo-fullcontext", "locomo", "79fa87e90f04aaaa", 400, "", "fullcontext", 0, locomo)
	judged("locomo-structmem", "locomo", "79fa87e90f04aaaa", 400, "", "structmem", 0, locomo)
	for _, k := range []int{5, 10} {
		judged(fmt.Sprintf("locomo-audited-turns-cosine-k%d", k), "locomo", "79fa87e90f04aaaa", 400, "audited", "turns-cosine", k, locomo)
	}
	plus := func(i int) (int, string, bool) { return 0, []string{"causal", "state", "goal", "value"}[i%4], false }
	for _, sys := range []string{"turns-cosine", "fullcontext", "structmem"} {
		judged("locomo-plus-"+sys, "locomo-plus", "ed484a6b5d2fbbbb", 200, "", sys, 10, plus)
	}
	for _, k := range []int{5, 20} {
		judged(fmt.Sprintf("locomo-plus-turns-cosine-k%d", k), "locomo-plus", "ed484a6b5d2fbbbb", 200, "", "turns-cosine", k, plus)
	}
	lmeS := func(i int) (int, string, bool) {
		types := []string{"single-session-user", "single-session-assistant", "single-session-preference", "multi-session", "temporal-reasoning", "knowledge-update"}
		return 0, types[i%6], i%10 == 9
	}
	for _, k := range []int{5, 10, 20} {
		judged(fmt.Sprintf("longmemeval-s-turns-cosine-k%d", k), "longmemeval", "d2a7b1c05e11cccc", 500, "", "turns-cosine", k, lmeS)
	}
	judged("longmemeval-s-fullcontext", "longmemeval", "d2a7b1c05e11cccc", 500, "", "fullcontext", 0, lmeS)

	data, peersDir := filepath.Join(shared, "datasets", "locomo10.json"), filepath.Join(shared, "peers")
	if _, err := os.Stat(filepath.Join(peersDir, "zep")); err != nil {
		t.Logf("no peer import: %v", err)
		return
	}
	if _, err := os.Stat(data); err != nil {
		t.Logf("no peer import: %v", err)
		return
	}
	if out, err := testutil.Execute(peers.NewCmd(), "import", peersDir, "--only", "zep", "--only", "memobase-v0.0.37", "--out", filepath.Join(results, "peers"), "--data", data); err != nil {
		t.Fatalf("peers import: %v\n%s", err, out)
	}
}

// On a results folder of about fifty runs of several datasets:
// `membench view` with no --run serves at once (a connection made right
// after the address is printed is answered) and the landing page shows
// one table per group of comparable runs, the first ending above the fold
// of a 1400×900 window with no horizontal scrollbar; `membench report`
// with no --run prints one table per group under a heading with its run
// count. The time to the first byte and to the landing data is logged,
// not held to a bound.
func TestViewAndReportOfAResultsFolder(t *testing.T) {
	repo := testutil.RepoRoot(t)
	shared, _ := testutil.SharedPath()
	shots := browsertest.ScreenshotDir(t, os.Getenv("MEMBENCH_SCREENSHOTS"))
	t.Chdir(t.TempDir())
	t0 := time.Now()
	fiftyRuns(t, "results", repo, shared)
	dirs, err := runlog.FindRuns([]string{"results"})
	if err != nil {
		t.Fatal(err)
	}
	var loaded []*runlog.Run
	for _, d := range dirs {
		r, err := analysis.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		loaded = append(loaded, r)
	}
	groups := analysis.GroupRuns(loaded)
	t.Logf("%d runs in %d groups made in %.1f s", len(dirs), len(groups), time.Since(t0).Seconds())
	if len(dirs) < 45 || len(groups) < 6 {
		t.Fatalf("%d runs in %d groups: the folder should hold about fifty runs of several groups", len(dirs), len(groups))
	}

	// report: one Table 2 per group, under a heading with its run count.
	out, err := testutil.Execute(report.NewCmd())
	if err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	headings := regexp.MustCompile(`(?m)^== (.*): (\d+) runs? ==$`).FindAllStringSubmatch(out, -1)
	if len(headings) != len(groups) || strings.Count(out, "Table 2 shape") != len(groups) {
		t.Fatalf("report printed %d headings and %d tables for %d groups:\n%s", len(headings), strings.Count(out, "Table 2 shape"), len(groups), out)
	}
	for i, g := range groups {
		if headings[i][1] != g.Name || headings[i][2] != fmt.Sprint(len(g.Runs)) {
			t.Errorf("report heading %d: %q, want %q with %d runs", i, headings[i][0], g.Name, len(g.Runs))
		}
	}

	// view: the address is printed once the server answers.
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cmd := view.NewCmd()
	cmd.SetOut(pw)
	cmd.SetErr(pw)
	cmd.SetArgs(nil)
	done := make(chan error, 1)
	start := time.Now()
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
	url := ""
	for url == "" {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("no address printed: %v", err)
		}
		url = regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line)
	}
	printed := time.Since(start)
	read := make(chan time.Duration, 1)
	go func() {
		for {
			line, err := rd.ReadString('\n')
			if strings.Contains(line, "are read") {
				read <- time.Since(start)
			}
			if err != nil {
				return
			}
		}
	}()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("a connection right after the address line: %v", err)
	}
	first := time.Since(start)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(page, []byte("<html")) {
		t.Fatalf("GET / right after the address: %d, %d bytes", resp.StatusCode, len(page))
	}
	loading := !bytes.Contains(page, []byte(`"runs":[`))
	resp, err = http.Get(url + "head.json")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	landing := time.Since(start)
	t.Logf("view of %d runs: address printed after %d ms, first byte of / after %d ms (the page while the runs are read: %v), landing data after %d ms, every run read after %d ms",
		len(dirs), printed.Milliseconds(), first.Milliseconds(), loading, landing.Milliseconds(), (<-read).Milliseconds())

	exe := browsertest.Chromium(t)
	bctx, bcancel := browsertest.Start(t, exe, 1400, 900)
	defer bcancel()
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1400, 900)); err != nil {
		t.Fatal(err)
	}
	wait, wcancel := context.WithTimeout(bctx, 60*time.Second)
	defer wcancel()
	if err := chromedp.Do(wait, chromedp.Navigate(url+"#/"), chromedp.WaitVisible(chromedp.CSS("table.headline")), chromedp.WaitReady(chromedp.CSS("body[data-ready]"))); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(wait, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(shots, "view-results.png")
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("landing page at 1400×900: %s, %d bytes, %d×%d pixels", file, len(shot), cfg.Width, cfg.Height)
	type fold struct {
		Bottom, Inner, ScrollWidth, InnerWidth float64
		Heads                                  []string
		First                                  string
	}
	f, err := chromedp.Run(wait, chromedp.Evaluate[fold](`({
		Bottom: document.querySelector("table.headline").getBoundingClientRect().bottom,
		Inner: window.innerHeight,
		ScrollWidth: document.documentElement.scrollWidth,
		InnerWidth: window.innerWidth,
		Heads: [...document.querySelectorAll("section.group h2")].map(h => h.textContent),
		First: document.querySelector("section.group h2").getBoundingClientRect().top < window.innerHeight ? document.querySelector("section.group h2").textContent : "",
	})`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first group's headline ends at %.0f px of %.0f; page %.0f px wide in a %.0f px window", f.Bottom, f.Inner, f.ScrollWidth, f.InnerWidth)
	if f.Inner != 900 || f.Bottom > f.Inner || f.First == "" {
		t.Errorf("the first group's headline (%q) ends at %.0f px, below the fold of %.0f px", f.First, f.Bottom, f.Inner)
	}
	if f.ScrollWidth > f.InnerWidth {
		t.Errorf("the landing page is %.0f px wide in a %.0f px window: a horizontal scrollbar", f.ScrollWidth, f.InnerWidth)
	}
	if len(f.Heads) != len(groups) {
		t.Fatalf("%d group sections, want %d: %q", len(f.Heads), len(groups), f.Heads)
	}
	for i, g := range groups {
		if want := g.Name + " — " + g.Size(); f.Heads[i] != want {
			t.Errorf("group %d headed %q, want %q", i, f.Heads[i], want)
		}
	}
}
