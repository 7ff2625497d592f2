package view_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/view"
)

// kRuns makes four offline turns-cosine runs that differ only in k.
func kRuns(t *testing.T) []string {
	t.Helper()
	results := t.TempDir()
	var dirs []string
	for _, k := range []int{1, 2, 3, 5} {
		cfg := membench.Config{System: "turns-cosine", K: k, ResultsDir: results, CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, harnesstest.Dir(t, cfg))
	}
	return dirs
}

// clipped lists the page's elements whose content is wider than their box
// (a cut label) and SVG texts that run past their drawing.
const clipped = `(() => {
  const out = [];
  for (const e of document.querySelectorAll("header *, #app *")) {
    if (e.tagName === "PRE" || e instanceof SVGElement) continue;
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) out.push(e.tagName + "." + e.className + " " + e.scrollWidth + ">" + e.clientWidth + ": " + e.textContent.slice(0, 80));
  }
  for (const tx of document.querySelectorAll("svg text")) {
    const svg = tx.ownerSVGElement, b = tx.getBBox();
    if (b.x < 0 || b.x + b.width > svg.width.baseVal.value + 0.5) out.push("svg text: " + tx.textContent);
  }
  return out;
})()`

// The landing page answers first: at 1400×900 the headline table (each
// run's score overall and per category with its interval, dollars and
// tokens) ends above the fold, the manifest comes after it, four runs
// that differ only in k are labelled by k, and no label is cut off, even
// a long one.
func TestBrowserLandingPage(t *testing.T) {
	exe := chromium(t)
	dirs := kRuns(t)
	b, err := view.Build(dirs, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, r := range b.Runs {
		want := fmt.Sprintf("turns-cosine k=%d", []int{1, 2, 3, 5}[i])
		if r.Label != want || seen[r.Label] {
			t.Fatalf("run %d labelled %q, want %q (labels must tell the runs apart)", i, r.Label, want)
		}
		seen[r.Label] = true
		if r.Head == nil || r.Head.Overall == nil || r.Head.Total == "" || r.Head.Offline != view.OfflineMark {
			t.Fatalf("run %d headline %+v", i, r.Head)
		}
	}
	enc, err := view.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	url := serveEncoded(t, enc)

	ctx, cancel := browser(t, exe)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Navigate(url+"#/"), chromedp.WaitVisible(chromedp.CSS("table.headline")), chromedp.WaitReady(chromedp.CSS("body[data-ready]")))
	shot := filepath.Join(screenshotDir(t), "view-landing.png")
	if err := os.WriteFile(shot, get(t, ctx, chromedp.CaptureScreenshot()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("landing page at 1400×900: %s", shot)
	bottom := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("table.headline").getBoundingClientRect().bottom`))
	inner := get(t, ctx, chromedp.Evaluate[float64](`window.innerHeight`))
	manifest := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector(".run table.facts").getBoundingClientRect().top`))
	t.Logf("headline table bottom at %.0f px of a %.0f px viewport; first manifest at %.0f px", bottom, inner, manifest)
	if inner != 900 || bottom > 900 {
		t.Fatalf("the headline table ends at %.0f px, below the fold of a %.0f px viewport", bottom, inner)
	}
	if manifest < bottom {
		t.Fatalf("a manifest (top %.0f px) comes before the headline's end (%.0f px)", manifest, bottom)
	}
	// One row per run: its label, overall, dollars and tokens.
	rows := get(t, ctx, chromedp.Evaluate[[][]string](`[...document.querySelectorAll("table.headline tbody tr[data-run]")].map(tr => { const c = [...tr.children].map(td => td.textContent); return [c[0], ...["overall", "dollars", "tokens"].map(k => tr.querySelector("td[data-col=" + k + "]").textContent)]; })`))
	if len(rows) != 4 {
		t.Fatalf("headline rows %q, want 4 runs", rows)
	}
	for i, r := range b.Runs {
		row := rows[i]
		if !strings.Contains(row[0], r.Label) || !strings.Contains(row[0], "offline heuristics") {
			t.Fatalf("row %d labelled %q, want its label %q and the offline mark", i, row[0], r.Label)
		}
		o := r.Head.Overall
		var v, lo, hi float64
		var n int
		if _, err := fmt.Sscanf(row[1], "%f [%f–%f] n=%d", &v, &lo, &hi, &n); err != nil || n != o.N || math.Abs(v-o.V) > 0.051 || math.Abs(lo-o.Lo) > 0.051 || math.Abs(hi-o.Hi) > 0.051 {
			t.Fatalf("run %d overall %q (%v), want %.2f [%.2f–%.2f] n=%d", i, row[1], err, o.V, o.Lo, o.Hi, o.N)
		}
		if row[2] != r.Head.Total || !strings.Contains(row[3], " / ") {
			t.Fatalf("run %d cost cells %q / %q, want %q", i, row[2], row[3], r.Head.Total)
		}
	}
	if bad := get(t, ctx, chromedp.Evaluate[[]string](clipped)); len(bad) > 0 {
		t.Fatalf("cut-off labels on the landing page:\n%s", strings.Join(bad, "\n"))
	}
	do(t, ctx, chromedp.Navigate(url+"#/costs"), chromedp.WaitVisible(chromedp.CSS("#cost-charts")))
	if bad := get(t, ctx, chromedp.Evaluate[[]string](clipped)); len(bad) > 0 {
		t.Fatalf("cut-off labels on the costs page:\n%s", strings.Join(bad, "\n"))
	}

	// A label far longer than any run's, on a narrower window: it wraps.
	b.Runs[0].Label = strings.Repeat("turns-cosine answer=openai:gpt-4o-mini-2024-07-18 ", 5)
	enc, err = view.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	long := serveEncoded(t, enc)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(900, 700)); err != nil {
		t.Fatal(err)
	}
	for _, route := range []string{"#/", "#/costs", "#/ab/0/1"} {
		do(t, ctx, chromedp.Navigate(long+route), chromedp.WaitReady(chromedp.CSS("body[data-ready]")))
		if bad := get(t, ctx, chromedp.Evaluate[[]string](clipped)); len(bad) > 0 {
			t.Fatalf("%s with a long label at 900 px: cut off:\n%s", route, strings.Join(bad, "\n"))
		}
	}
	// The pair picker shortens the long label and keeps it whole for hover.
	picker := get(t, ctx, chromedp.Evaluate[[]string](`(() => { const s = document.querySelector("#ab-pair"); const o = s.options[s.selectedIndex]; return [s.title, o.textContent, String(s.getBoundingClientRect().right)]; })()`))
	if !strings.Contains(picker[0], b.Runs[0].Label) || len(picker[1]) >= len(picker[0]) || !strings.HasSuffix(picker[1], "…") {
		t.Fatalf("the A/B pair picker: title %q, text %q; want the whole label as title and a shortened text", picker[0], picker[1])
	}
	if right, _ := strconv.ParseFloat(picker[2], 64); right > 900 {
		t.Fatalf("the A/B pair picker ends at %.0f px, past a 900 px viewport", right)
	}
}

// An exported file draws its first screen from the plain data in the page
// as it is read: no "Loading" text ever shows, and the headline is there
// when the document has been parsed, before the packed data is unpacked.
func TestBrowserExportFirstScreen(t *testing.T) {
	exe := chromium(t)
	results := t.TempDir()
	a := sampleRun(t, results, "turns-cosine")
	bdir := sampleRun(t, results, "fullcontext")
	bun, err := view.Build([]string{a, bdir}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := view.Encode(bun)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ab.html")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Export(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	html, _ := os.ReadFile(file)
	if regexp.MustCompile(`(?i)loading`).Match(regexp.MustCompile(`<script[\s\S]*?</script>`).ReplaceAll(html, nil)) {
		t.Fatal("the exported page's markup says Loading")
	}

	ctx, cancel := browser(t, exe)
	defer cancel()
	// Before the page's own scripts: watch #app for any "Loading" text and
	// note whether the headline exists when parsing ends.
	watch := `window.__loading = [];
new MutationObserver(() => {
  const app = document.getElementById("app");
  if (app && /loading/i.test(app.textContent)) window.__loading.push(app.textContent.slice(0, 80));
}).observe(document, {subtree: true, childList: true, characterData: true});
document.addEventListener("DOMContentLoaded", () => {
  window.__atParsed = !!document.querySelector("table.headline tbody tr");
  window.__packedReady = document.body.hasAttribute("data-ready");
});`
	if err := chromedp.Do(ctx, chromedp.Action[chromedp.Void](func(c context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(c, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch})
		return chromedp.Void{}, err
	})); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("body[data-ready]")))
	atParsed := get(t, ctx, chromedp.Evaluate[bool](`window.__atParsed === true`))
	packed := get(t, ctx, chromedp.Evaluate[bool](`window.__packedReady === true`))
	loading := get(t, ctx, chromedp.Evaluate[[]string](`window.__loading`))
	first := get(t, ctx, chromedp.Evaluate[string](`document.body.getAttribute("data-first")`))
	ready := get(t, ctx, chromedp.Evaluate[string](`document.body.getAttribute("data-ready-ms")`))
	t.Logf("export %.1f kB: headline drawn while parsing (%v), packed data ready at %s ms", float64(len(html))/1e3, atParsed, ready)
	if len(loading) > 0 || !atParsed || packed || first != "head" {
		t.Fatalf("first screen: Loading texts %q, headline at parse end %v, packed data already read %v, drawn from %q", loading, atParsed, packed, first)
	}
	// The pages that need the packed data work once it is read.
	do(t, ctx, chromedp.Navigate("file://"+file+"#/ab/0/1"), chromedp.WaitVisible(chromedp.CSS("#ab-cells")))
}
