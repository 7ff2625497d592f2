package view

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/membench/membench"
	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/testutil/browsertest"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
	_ "github.com/membench/membench/systems/all"
)

// A served view answers while its runs are read: the page (a loading
// state saying how many runs are read), the progress, and the landing
// data once every run is read, which the page then draws; a run that
// cannot be read is the landing data's error and Err's.
func TestLiveServesWhileTheRunsAreRead(t *testing.T) {
	exe := browsertest.Chromium(t)
	results := t.TempDir()
	var dirs []string
	for _, k := range []int{2, 4} {
		cfg := membench.Config{System: "turns-cosine", K: k, ResultsDir: results, CacheDir: t.TempDir(), Quiet: true,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
			t.Fatal(err)
		}
		r, err := plan.Resolve(cfg, plan.Env{})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, r.Dir)
	}
	// Each run read waits for the test's word, and the questions wait
	// until the page has drawn the landing data: were they packed first,
	// the page would draw from them and never fetch the landing data.
	next, drawn := make(chan struct{}), make(chan struct{})
	l := Start(dirs, Options{progress: func() { <-next }, packing: func() { <-drawn }})
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	url := "http://" + ln.Addr().String() + "/"
	get := func(path string, wait time.Duration) (int, string, error) {
		c, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		req, _ := http.NewRequestWithContext(c, http.MethodGet, url+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	code, page, err := get("", 10*time.Second)
	if err != nil || code != 200 || !strings.Contains(page, `<script type="application/json" id="head"></script>`) {
		t.Fatalf("the page while no run is read: %d %v, %d bytes", code, err, len(page))
	}
	if _, _, err := get("head.json", 300*time.Millisecond); err == nil {
		t.Fatal("head.json answered before the runs were read")
	}
	var st struct{ Runs, Read int }
	if _, body, err := get("status.json", 10*time.Second); err != nil || json.Unmarshal([]byte(body), &st) != nil || st.Runs != 2 {
		t.Fatalf("status %q %v, want 2 runs", body, err)
	}

	bctx, bcancel := browsertest.Start(t, exe, 1400, 900)
	defer bcancel()
	if err := chromedp.Do(bctx, chromedp.Navigate(url+"#/")); err != nil {
		t.Fatal(err)
	}
	wait, wcancel := context.WithTimeout(bctx, 60*time.Second)
	defer wcancel()
	msg, err := chromedp.Run(wait, chromedp.Poll[string](`(() => { const e = document.getElementById("loading"); return e && /of 2 read/.test(e.textContent) ? e.textContent : null })()`))
	if err != nil {
		t.Fatalf("the page says nothing of the runs being read: %v", err)
	}
	close(next)
	if err := chromedp.Do(wait, chromedp.WaitVisible(chromedp.CSS("table.headline")), chromedp.WaitReady(chromedp.CSS("body[data-first]"))); err != nil {
		t.Fatal(err)
	}
	close(drawn)
	if err := chromedp.Do(wait, chromedp.WaitReady(chromedp.CSS("body[data-ready]"))); err != nil {
		t.Fatal(err)
	}
	first, err := chromedp.Run(wait, chromedp.Evaluate[string](`document.body.dataset.first + " " + document.querySelectorAll("table.headline tr[data-run]").length`))
	if err != nil || first != "fetched 2" {
		t.Fatalf("after %q: the landing page drawn from %q, want the fetched landing data with 2 runs (%v)", msg, first, err)
	}
	<-l.Done()
	if code, page, err := get("", 10*time.Second); err != nil || code != 200 || !strings.Contains(page, `"runs":[`) {
		t.Fatalf("the page once the runs are read: %d %v, want the landing data in it", code, err)
	}

	// A run that cannot be read: the landing data says why, and so does Err.
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.CopyFS(bad, os.DirFS(dirs[0])); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(bad, runlog.AnswersFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"question_id\": 5, garbage\n")
	f.Close()
	lb := Start([]string{bad}, Options{})
	h := lb.Handler()
	<-lb.Done()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/head.json", nil))
	if lb.Err() == nil || rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "answers.jsonl line") {
		t.Fatalf("a broken run: Err %v, head.json %d %q", lb.Err(), rec.Code, rec.Body.String())
	}
}
