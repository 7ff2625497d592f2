package view_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
	"github.com/membench/membench/view"
)

// The view's build time is the summary's (summary.md and report show the
// same figure), in its manifest facts and on the costs page; its "model
// calls" count model requests, and the texts sent to the embedder are a
// figure of their own.
func TestBrowserBuildTimeAndModelCalls(t *testing.T) {
	exe := chromium(t)
	dir := sampleRun(t, t.TempDir(), "structmem") // model calls and embeddings both
	s, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := summary.BuildTime(s)
	if md, err := os.ReadFile(filepath.Join(dir, runlog.SummaryMD)); err != nil || !strings.Contains(string(md), "output tokens, "+want) {
		t.Fatalf("summary.md lacks the build time %q: %v\n%s", want, err, md)
	}
	calls, texts := 0, 0
	for k, c := range s.Stages {
		if strings.HasSuffix(k, runlog.EmbeddedTexts) {
			texts += c.Calls
		} else {
			calls += c.Calls
		}
	}
	if texts == 0 || calls == 0 {
		t.Fatalf("the structmem run made %d model calls and embedded %d texts; the test needs both", calls, texts)
	}
	b, err := view.Build([]string{dir}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv := b.Runs[0]
	fact := ""
	for _, f := range rv.Facts {
		if f[0] == "build time" {
			fact = f[1]
		}
	}
	if fact != want || rv.BuildTime != want {
		t.Errorf("view build time: fact %q, costs %q; want the summary's %q", fact, rv.BuildTime, want)
	}
	if rv.Head.Calls != calls || rv.Head.Embedded != texts {
		t.Errorf("headline: %d model calls, %d texts embedded; want %d and %d", rv.Head.Calls, rv.Head.Embedded, calls, texts)
	}
	enc, err := view.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	url := serveEncoded(t, enc)
	ctx, cancel := browser(t, exe)
	defer cancel()
	// The first action starts the browser, so it runs without a deadline.
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"#/")); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("table.headline")), chromedp.WaitReady(chromedp.CSS("body[data-ready]")))
	// The run's row of its group's table: its calls, and the texts it
	// embedded on a line of their own.
	rows := get(t, ctx, chromedp.Evaluate[map[string]string](`(() => {
  const c = document.querySelector("table.headline tbody tr[data-run] td[data-col=calls]"), e = c.querySelector("[data-col=embedded]");
  return {"model calls": c.querySelector(".calls").textContent, "texts embedded": e ? e.textContent.replace(" texts embedded", "") : ""};
})()`))
	digits := func(s string) string { return strings.ReplaceAll(s, ",", "") }
	if digits(rows["model calls"]) != fmt.Sprint(calls) || digits(rows["texts embedded"]) != fmt.Sprint(texts) {
		t.Errorf("landing page: model calls %q, texts embedded %q; want %d and %d", rows["model calls"], rows["texts embedded"], calls, texts)
	}
	shown := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("table.facts tr")].map(tr => tr.textContent).filter(s => s.startsWith("build time")).join("|")`))
	if shown != "build time"+want {
		t.Errorf("manifest facts show %q, want build time %q", shown, want)
	}
	do(t, ctx, chromedp.Navigate(url+"#/costs"), chromedp.WaitVisible(chromedp.CSS("#cost-charts")))
	if got := get(t, ctx, chromedp.Evaluate[string](`document.querySelector(".build-time") ? document.querySelector(".build-time").textContent : ""`)); got != "build time: "+want {
		t.Errorf("costs page: %q, want %q", got, "build time: "+want)
	}
}
