package view_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/membench/membench/datasets/all"
	"github.com/membench/membench/runlog/runlogtest"

	"github.com/chromedp/chromedp"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil/browsertest"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/all"
	"github.com/membench/membench/view"
)

func chromium(t *testing.T) string { return browsertest.Chromium(t) }

// browser starts a headless chromium with a fresh profile.
func browser(t *testing.T, exe string) (context.Context, context.CancelFunc) {
	return browsertest.Start(t, exe, 1400, 1000)
}

// serve builds the view of dirs and serves it on a free loopback port.
func serve(t *testing.T, dirs ...string) string {
	t.Helper()
	b, err := view.Build(dirs, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := view.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return serveEncoded(t, enc)
}

func serveEncoded(t *testing.T, enc *view.Encoded) string {
	t.Helper()
	ln, err := view.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- enc.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String() + "/"
}

func sampleRun(t *testing.T, results, system string) string {
	t.Helper()
	cfg := membench.Config{System: system, ResultsDir: results, CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	return harnesstest.Dir(t, cfg)
}

func screenshotDir(t *testing.T) string {
	return browsertest.ScreenshotDir(t, os.Getenv("MEMBENCH_SCREENSHOTS"))
}

func TestBrowserQuestionPageAndAB(t *testing.T) {
	exe := chromium(t)
	results := t.TempDir()
	a := sampleRun(t, results, "turns-cosine")
	b := sampleRun(t, results, "fullcontext")
	url := serve(t, a, b)

	ra, err := analysis.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := runlogtest.Transcripts(a)
	if err != nil {
		t.Fatal(err)
	}
	// The question to open: the first temporal one (in id order) with evidence.
	const group = "temporal"
	var want []runlog.AnswerRecord
	for _, x := range ra.Answers {
		if x.Group == group {
			want = append(want, x)
		}
	}
	if len(want) == 0 {
		t.Fatal("the sample has no temporal question")
	}

	ctx, cancel := browser(t, exe)
	defer cancel()
	// The first action starts the browser, so it runs without a deadline;
	// every later one gets its own (see chromedp.Run).
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"#/")); err != nil {
		t.Fatal(err)
	}
	// The runs page: one card per run with its score table and chart; a
	// view of a single run has one.
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#run-1 table.scores")))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".run table.score-chart").length`)); n != 2 {
		t.Fatalf("%d score charts on the runs page, want 2", n)
	}
	do(t, ctx, chromedp.Navigate(serve(t, a)+"#/"), chromedp.WaitVisible(chromedp.CSS("#run-0 table.scores")))
	do(t, ctx, chromedp.Navigate(url+"#/q/0"))
	do(t, ctx,
		chromedp.WaitVisible(chromedp.CSS("#qtable")),
		chromedp.SetValue(chromedp.CSS("#f-group"), group),
		chromedp.Action[chromedp.Void](func(c context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Evaluate[bool](`document.getElementById("f-group").dispatchEvent(new Event("change"))`)(c, tg)
			return chromedp.Void{}, err
		}))
	if title := get(t, ctx, chromedp.TextContent(chromedp.CSS("#browse-title"))); !strings.Contains(title, "offline heuristics") {
		t.Fatalf("question browser of an offline run titled %q, want the offline mark", title)
	}
	count := get(t, ctx, chromedp.TextContent(chromedp.CSS("#count")))
	groups := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#qtable tr.qrow td:nth-child(2)")].map(td => td.textContent)`))
	firstID := get(t, ctx, chromedp.AttributeValue(chromedp.CSS("#qtable tr.qrow"), "data-qid")).Value
	if wantCount := fmt.Sprintf("%d of %d questions", len(want), len(ra.Answers)); count != wantCount {
		t.Fatalf("after filtering to %s: %q, want %q", group, count, wantCount)
	}
	for _, g := range groups {
		if g != group {
			t.Fatalf("filtered table shows a %q row", g)
		}
	}
	if len(groups) != len(want) {
		t.Fatalf("%d rows shown, want %d", len(groups), len(want))
	}

	var q runlog.AnswerRecord
	for _, x := range want {
		if x.QuestionID == firstID {
			q = x
		}
	}
	var tx runlog.Transcript
	for _, x := range txs {
		if x.QuestionID == firstID {
			tx = x
		}
	}
	var ret runlog.RetrievalRecord
	for _, x := range ra.Retrievals {
		if x.QuestionID == firstID {
			ret = x
		}
	}
	if q.QuestionID == "" || tx.QuestionID == "" || len(ret.Evidence) == 0 {
		t.Fatalf("first row %q: answer %v, transcript %v, evidence %v", firstID, q.QuestionID, tx.QuestionID, ret.Evidence)
	}

	do(t, ctx, chromedp.Click(chromedp.CSS(`#qtable tr.qrow a`)), chromedp.WaitVisible(chromedp.CSS("#context")))
	context := get(t, ctx, chromedp.TextContent(chromedp.CSS("#context")))
	answer := get(t, ctx, chromedp.TextContent(chromedp.CSS("#answer")))
	verdicts := get(t, ctx, chromedp.Evaluate[[][]string](`[...document.querySelectorAll("#verdicts tr.verdict")].map(tr => [...tr.children].slice(0, 4).map(td => td.textContent))`))
	evidence := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#conversation .turn.evidence")].map(d => d.dataset.turn)`))
	retrieved := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#conversation .turn.retrieved")].map(d => d.dataset.turn)`))
	shot := filepath.Join(screenshotDir(t), "view-question.png")
	if err := os.WriteFile(shot, get(t, ctx, chromedp.FullScreenshot(100)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("question page screenshot: %s", shot)
	if context != tx.Context || context == "" {
		t.Fatalf("context on the page:\n%s\nwant the transcript's:\n%s", context, tx.Context)
	}
	if answer != q.Prediction {
		t.Fatalf("answer %q, want %q", answer, q.Prediction)
	}
	js := map[string]runlog.Judgment{}
	for _, j := range ra.Judgments {
		if j.QuestionID == firstID {
			js[j.Judge] = j
		}
	}
	if len(verdicts) != len(ra.Manifest.Judges) || len(js) != len(verdicts) {
		t.Fatalf("verdict rows %v, judges %v", verdicts, ra.Manifest.Judges)
	}
	for _, v := range verdicts {
		j, ok := js[v[0]]
		wantV := "wrong"
		if j.Correct {
			wantV = "correct"
		}
		if !ok || v[1] != wantV || v[2] != strconv.FormatFloat(j.Score, 'f', 3, 64) || v[3] != j.Reason {
			t.Fatalf("verdict row %v, want judge %s %s %.3f %q", v, j.Judge, wantV, j.Score, j.Reason)
		}
	}
	if strings.Join(evidence, " ") != strings.Join(ret.Evidence, " ") {
		t.Fatalf("highlighted evidence %v, want %v", evidence, ret.Evidence)
	}
	srcs := map[string]bool{}
	for _, it := range tx.Items {
		for _, s := range it.Sources {
			srcs[s] = true
		}
	}
	if len(retrieved) != len(srcs) {
		t.Fatalf("%d turns marked retrieved, the context holds %d", len(retrieved), len(srcs))
	}

	// A/B: the four cells, n and p are what `membench compare --json`
	// prints for the same pair and judge.
	cmp := compareJSON(t, a, b, "lexical")
	cells := map[string]int{"both": cmp.Both, "a": cmp.OnlyA, "b": cmp.OnlyB, "neither": cmp.Neither}
	do(t, ctx, chromedp.Navigate(url+"#/ab/0/1?judge=lexical"), chromedp.WaitVisible(chromedp.CSS("#ab-cells")))
	shown := get(t, ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll("#ab-cells td[data-cell]")].map(td => [td.dataset.cell, td.textContent]))`))
	stats := get(t, ctx, chromedp.TextContent(chromedp.CSS("#ab-stats")))
	for _, c := range []string{"both", "a", "b", "neither"} {
		if shown[c] != strconv.Itoa(cells[c]) {
			t.Fatalf("A/B cell %s shows %q, want %d as compare --json (all cells %v)", c, shown[c], cells[c], cells)
		}
	}
	wantP := "p = " + strconv.FormatFloat(*cmp.PValue, 'f', 4, 64)
	if !strings.HasPrefix(stats, fmt.Sprintf("%d paired questions", cmp.N)) || !strings.Contains(stats, wantP) {
		t.Fatalf("A/B stats %q, want %d paired questions and %s as compare --json", stats, cmp.N, wantP)
	}
	notes := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".ab-note, #ab-verdict, #ab-command")].map(e => e.textContent).join("\n")`))
	if cmp.Excluded == 0 || !strings.Contains(notes, fmt.Sprintf("%d shared questions left out: group abstention", cmp.Excluded)) || !strings.Contains(notes, "offline heuristics") {
		t.Fatalf("A/B page notes %q: want the %d excluded questions named and the offline mark", notes, cmp.Excluded)
	}
	// Open the largest discordant cell, then one question side by side.
	cell := "a"
	if cells["b"] > cells["a"] {
		cell = "b"
	}
	if cells[cell] == 0 {
		cell = "both"
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`#ab-cells td[data-cell="`+cell+`"] a`)), chromedp.WaitVisible(chromedp.CSS("#ab-list")))
	rows := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#ab-list tr.abrow").length`))
	abShot := filepath.Join(screenshotDir(t), "view-ab.png")
	if err := os.WriteFile(abShot, get(t, ctx, chromedp.FullScreenshot(100)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("A/B screenshot: %s", abShot)
	if rows != cells[cell] {
		t.Fatalf("cell %s lists %d questions, want %d", cell, rows, cells[cell])
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`#ab-list tr.abrow a`)), chromedp.WaitVisible(chromedp.CSS("#side-b")))
	ctxA := get(t, ctx, chromedp.TextContent(chromedp.CSS("#side-a pre.context")))
	ctxB := get(t, ctx, chromedp.TextContent(chromedp.CSS("#side-b pre.context")))
	if ctxA == "" || ctxB == "" || ctxA == ctxB {
		t.Fatalf("side by side contexts: %d and %d characters, want two different contexts", len(ctxA), len(ctxB))
	}
}

// do runs browser actions with a deadline.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatal(err)
	}
}

// get runs one browser action with a deadline and returns its value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// compareJSON is what `membench compare --run a --run b --judge judge
// --json` computes: analysis.Pair and Compare with the command's defaults
// (McNemar at 0.05, abstention questions left out). The command's own
// output is held against the page in cmd/membench/view.
func compareJSON(t *testing.T, a, b, judge string) analysis.CompareResult {
	t.Helper()
	o := analysis.CompareOptions{A: a, B: b, JudgeA: judge, JudgeB: judge, Test: "mcnemar", Alpha: 0.05, Exclude: []string{analysis.Abstaining}}
	j, err := analysis.Pair(o)
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	r, err := analysis.Compare(j, o)
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	return r
}
