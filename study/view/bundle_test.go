package view_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
	"github.com/membench/membench/study/view"
)

func TestBundleMatchesTheRuns(t *testing.T) {
	results := t.TempDir()
	a := sampleRun(t, results, "turns-cosine")
	b := sampleRun(t, results, "fullcontext")
	bun, err := view.Build([]string{a, b}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(bun.Runs) != 2 || len(bun.Convs) != 1 {
		t.Fatalf("%d runs, %d conversations", len(bun.Runs), len(bun.Convs))
	}
	for i, dir := range []string{a, b} {
		r, err := runlog.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		rv := bun.Runs[i]
		if len(rv.Qs) != len(r.Answers) {
			t.Fatalf("run %d: %d questions, %d answers", i, len(rv.Qs), len(r.Answers))
		}
		// The score table agrees with the run's own summary, and each
		// verdict judge's interval is Wilson's.
		sum := r.Summary
		rows := map[string]view.Row{}
		for _, row := range rv.Table {
			rows[row.Name] = row
		}
		for _, g := range append(sum.Groups, sum.Overall) {
			row, ok := rows[g.Name]
			if !ok || row.N != g.N {
				t.Fatalf("group %s: view row %+v, summary n=%d", g.Name, row, g.N)
			}
			for j, v := range g.Scores {
				c := row.Cells[j]
				if math.Abs(c.V-v) > 1e-9 {
					t.Fatalf("group %s judge %s: view %.4f, summary %.4f", g.Name, j, c.V, v)
				}
				if !r.Manifest.IsMetric(j) {
					lo, hi, _ := stats.Wilson(int(math.Round(v*float64(c.N)/100)), c.N, 0.95)
					if math.Abs(c.Lo-100*lo) > 1e-9 || math.Abs(c.Hi-100*hi) > 1e-9 {
						t.Fatalf("group %s judge %s: interval [%f, %f], Wilson [%f, %f]", g.Name, j, c.Lo, c.Hi, 100*lo, 100*hi)
					}
				}
			}
		}
		for _, q := range rv.Qs {
			if q.Tx == nil || q.Tx.Context == "" && q.Tok > 0 {
				t.Fatalf("run %d question %s has no transcript", i, q.ID)
			}
		}
	}
	// Every pair's p-value is the exact McNemar test on its discordant cells.
	if len(bun.Pairs) != 3 {
		t.Fatalf("%d pairs, want one per shared judge (3)", len(bun.Pairs))
	}
	for _, p := range bun.Pairs {
		want, _ := stats.McNemarExact(len(p.Cells["a"]), len(p.Cells["b"]))
		n := len(p.Cells["both"]) + len(p.Cells["a"]) + len(p.Cells["b"]) + len(p.Cells["neither"])
		if p.P != want || n != p.N || n != len(bun.Runs[0].Qs) {
			t.Fatalf("pair %s: p %v (want %v), n %d/%d", p.Judge, p.P, want, n, p.N)
		}
	}

	enc, err := view.Encode(bun)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(bun)

	// The exported file carries the same bundle, gzipped, in URL-safe base64.
	var html bytes.Buffer
	if err := enc.Export(&html); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<script type="application/octet-stream" id="bundle">([A-Za-z0-9_-]+)</script>`).FindSubmatch(html.Bytes())
	if m == nil {
		t.Fatal("export has no bundle")
	}
	gz, err := base64.RawURLEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if got := gunzip(t, gz); !bytes.Equal(got, want) {
		t.Fatal("exported bundle differs from the built one")
	}
	if strings.Contains(html.String(), `src="http`) || strings.Contains(html.String(), `href="http`) {
		t.Fatal("the export loads something from the network")
	}

	// The server sends the same bundle, gzipped on request and plain otherwise.
	srv := serveEncoded(t, enc)
	for _, gzipOK := range []bool{true, false} {
		req, _ := http.NewRequest("GET", srv+"data.json", nil)
		if gzipOK {
			req.Header.Set("Accept-Encoding", "gzip")
		} else {
			req.Header.Set("Accept-Encoding", "identity")
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if gzipOK {
			body = gunzip(t, body)
		}
		if !bytes.Equal(body, want) {
			t.Fatalf("data.json (gzip %v) differs from the bundle", gzipOK)
		}
	}
	res, err := http.Get(srv)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Contains(page, []byte(`id="app"`)) || bytes.Contains(page, []byte(`id="bundle"`)) {
		t.Fatalf("index page: %d, %d bytes", res.StatusCode, len(page))
	}
	if res, _ := http.Get(srv + "nope"); res.StatusCode != 404 {
		t.Fatalf("unknown path: %d", res.StatusCode)
	}
}

// A run made without transcripts still shows, and says what is missing.
func TestRunWithoutTranscripts(t *testing.T) {
	a := sampleRun(t, t.TempDir(), "turns-cosine")
	if err := os.Remove(filepath.Join(a, runlog.TranscriptsFile)); err != nil {
		t.Fatal(err)
	}
	bun, err := view.Build([]string{a}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv := bun.Runs[0]
	found := false
	for _, n := range rv.Notes {
		found = found || strings.Contains(n, "no transcripts")
	}
	if !found || rv.Qs[0].Tx != nil || len(rv.Qs[0].V) != 3 {
		t.Fatalf("notes %v, first question %+v", rv.Notes, rv.Qs[0])
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
