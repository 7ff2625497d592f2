package view_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/membench/membench/view"
)

// TestBrowserTiming measures how fast the question browser is on real
// runs: MEMBENCH_VIEW_RUNS="DIR1 DIR2" (e.g. full LoCoMo with three judges).
// It is a measurement, not a gate: it logs the figures and fails only when
// the page does not work.
func TestBrowserTiming(t *testing.T) {
	runs := strings.Fields(os.Getenv("MEMBENCH_VIEW_RUNS"))
	if len(runs) == 0 {
		t.Skip("set MEMBENCH_VIEW_RUNS to run directories to time the view on them")
	}
	exe := chromium(t)
	start := time.Now()
	b, err := view.Build(runs, view.Options{Home: os.Getenv("MEMBENCH_HOME")})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := view.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	raw, gz := enc.Sizes()
	t.Logf("index: %d questions in %d runs, %.1f MB JSON, %.1f MB gzipped, built (transcripts indexed, not read) in %.2f s", len(b.Runs[0].Qs), len(b.Runs), float64(raw)/1e6, float64(gz)/1e6, time.Since(start).Seconds())
	// The server reads a conversation's transcripts when a page asks.
	url := serveEncoded(t, enc)
	t1 := time.Now()
	resp, err := http.Get(url + "tx/0/0.json")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t.Logf("server: first conversation's transcripts read and sent in %.2f s (%.1f MB)", time.Since(t1).Seconds(), float64(n)/1e6)
	t1 = time.Now()
	export := filepath.Join(t.TempDir(), "view.html")
	f, _ := os.Create(export)
	if err := enc.Export(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(export)
	t.Logf("exported file: %.2f MB, written in %.2f s", float64(st.Size())/1e6, time.Since(t1).Seconds())

	ctx, cancel := browser(t, exe)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	// The landing page is drawn from the plain data in the page, before
	// the packed index is read.
	for _, target := range []struct{ name, url string }{{"server", url + "#/"}, {"export", "file://" + export + "#/"}} {
		do(t, ctx, chromedp.Navigate(target.url), chromedp.WaitReady(chromedp.CSS("body[data-ready]")))
		marks := get(t, ctx, chromedp.Evaluate[[]string](`(() => { const n = performance.getEntriesByType("navigation")[0];
			return [document.body.dataset.firstMs, document.body.dataset.readyMs, String(Math.round(n.responseStart)), String(Math.round(n.responseEnd))] })()`))
		t.Logf("%s: landing page drawn %s ms after navigation, packed index read at %s ms (page bytes arrived from %s to %s ms)", target.name, marks[0], marks[1], marks[2], marks[3])
	}
	for _, target := range []struct{ name, url string }{{"server", url + "#/q/0"}, {"export", "file://" + export + "#/q/0"}} {
		t0 := time.Now()
		do(t, ctx, chromedp.Navigate(target.url), chromedp.WaitVisible(chromedp.CSS("#qtable tr.qrow")))
		marks := get(t, ctx, chromedp.Evaluate[[]string](`[document.body.dataset.loadedMs, document.body.dataset.readyMs]`))
		t.Logf("%s: index loaded and parsed %s ms, question browser drawn %s ms after navigation by the page's clock; %.0f ms until the test saw it", target.name, marks[0], marks[1], float64(time.Since(t0).Milliseconds()))
		// Each control's work, timed inside the page (synchronous re-render).
		for _, js := range []struct{ what, expr string }{
			{"filter category", `(() => { const t = performance.now(); const s = document.getElementById("f-group"); s.value = s.options[2].value; s.dispatchEvent(new Event("change")); return performance.now() - t })()`},
			{"filter judge disagreement", `(() => { const t = performance.now(); const c = document.getElementById("f-dis"); c.checked = true; c.dispatchEvent(new Event("change")); return performance.now() - t })()`},
			{"clear filters", `(() => { const t = performance.now(); const c = document.getElementById("f-dis"); c.checked = false; c.dispatchEvent(new Event("change")); const s = document.getElementById("f-group"); s.value = ""; s.dispatchEvent(new Event("change")); return performance.now() - t })()`},
			{"sort by context tokens", `(() => { const t = performance.now(); const s = document.getElementById("f-sort"); s.value = "tokens-desc"; s.dispatchEvent(new Event("change")); return performance.now() - t })()`},
			{"text search", `(() => { const t = performance.now(); history.replaceState(null, "", "#/q/0?text=when"); window.dispatchEvent(new HashChangeEvent("hashchange")); return performance.now() - t })()`},
		} {
			ms := get(t, ctx, chromedp.Evaluate[float64](js.expr))
			t.Logf("%s: %s %.1f ms", target.name, js.what, ms)
		}
		// A question page waits for its conversation's transcripts (the
		// first one of a conversation loads them); the promise resolves
		// when the page is drawn.
		open := `new Promise(done => { const t = performance.now(); const id = document.querySelector("#qtable tr.qrow").dataset.qid;
			history.replaceState(null, "", "#/question/0/" + encodeURIComponent(id)); window.dispatchEvent(new HashChangeEvent("hashchange"));
			const poll = () => document.querySelector("#conversation") ? done(performance.now() - t) : setTimeout(poll, 2); poll() })`
		back := `(() => { history.replaceState(null, "", "#/q/0?sort=tokens-asc"); window.dispatchEvent(new HashChangeEvent("hashchange")); return 0 })()`
		t.Logf("%s: open a question page, its conversation's transcripts not yet loaded: %.1f ms", target.name, get(t, ctx, chromedp.Evaluate[float64](open, chromedp.EvalAwaitPromise)))
		get(t, ctx, chromedp.Evaluate[float64](back))
		t.Logf("%s: open another question page: %.1f ms", target.name, get(t, ctx, chromedp.Evaluate[float64](open, chromedp.EvalAwaitPromise)))
		n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#conversation .turn").length`))
		if n == 0 {
			t.Fatalf("%s: the question page shows no conversation", target.name)
		}
	}
}
