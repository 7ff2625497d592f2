package view_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/study/view"
	"github.com/membench/membench/summary"
)

// The view's build time is the summary's (summary.md and report show the
// same figure), in its manifest facts and on the costs page.
func TestBrowserBuildTimeAndModelCalls(t *testing.T) {
	exe := chromium(t)
	dir := sampleRun(t, t.TempDir(), "structmem")
	s, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := summary.BuildTime(s)
	if md, err := os.ReadFile(filepath.Join(dir, runlog.SummaryMD)); err != nil || !strings.Contains(string(md), "output tokens, "+want) {
		t.Fatalf("summary.md lacks the build time %q: %v\n%s", want, err, md)
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
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#headline")), chromedp.WaitReady(chromedp.CSS("body[data-ready]")))
	shown := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("table.facts tr")].map(tr => tr.textContent).filter(s => s.startsWith("build time")).join("|")`))
	if shown != "build time"+want {
		t.Errorf("manifest facts show %q, want build time %q", shown, want)
	}
	do(t, ctx, chromedp.Navigate(url+"#/costs"), chromedp.WaitVisible(chromedp.CSS("#cost-charts")))
	if got := get(t, ctx, chromedp.Evaluate[string](`document.querySelector(".build-time") ? document.querySelector(".build-time").textContent : ""`)); got != "build time: "+want {
		t.Errorf("costs page: %q, want %q", got, "build time: "+want)
	}
}
