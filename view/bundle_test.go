package view_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/stats"
	"github.com/membench/membench/view"
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
	// Build only indexes the transcripts; the export of a bundle that was
	// never loaded reads each conversation's at their offsets.
	for _, r := range bun.Runs {
		for _, q := range r.Qs {
			if q.Tx != nil {
				t.Fatal("Build read the transcripts; it should only index them")
			}
		}
	}
	lazy, err := view.Encode(bun)
	if err != nil {
		t.Fatal(err)
	}
	var lazyHTML bytes.Buffer
	if err := lazy.Export(&lazyHTML); err != nil {
		t.Fatal(err)
	}
	if err := bun.LoadTranscripts(); err != nil {
		t.Fatal(err)
	}
	for i, dir := range []string{a, b} {
		r, err := analysis.Load(dir)
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
				if r.Manifest.JudgeSet().IsMetric(j) && c.N > 1 && c.V > 0 && c.V < 100 && (!(c.Hi > c.Lo) || !strings.HasPrefix(c.CI, "Wilson over questions")) {
					// One conversation: a cluster bootstrap has nothing to
					// resample (zero width); Wilson over questions has width.
					t.Fatalf("group %s metric %s on one conversation: [%f, %f] by %q, want a Wilson interval with width", g.Name, j, c.Lo, c.Hi, c.CI)
				}
				if !r.Manifest.JudgeSet().IsMetric(j) {
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
	// Every pair's p-value is the exact McNemar test on its discordant
	// cells, over the questions compare pairs: abstention ones left out.
	if len(bun.Pairs) != 3 {
		t.Fatalf("%d pairs, want one per shared judge (3)", len(bun.Pairs))
	}
	abstain := 0
	for _, q := range bun.Runs[0].Qs {
		if q.Abs {
			abstain++
		}
	}
	if abstain == 0 {
		t.Fatal("the sample has no abstention question: the exclusion is not tested")
	}
	for _, p := range bun.Pairs {
		want, _ := stats.McNemarExact(len(p.Cells["a"]), len(p.Cells["b"]))
		n := len(p.Cells["both"]) + len(p.Cells["a"]) + len(p.Cells["b"]) + len(p.Cells["neither"])
		if p.P != want || n != p.N || n != len(bun.Runs[0].Qs)-abstain || p.Result == nil || p.Result.Excluded != abstain {
			t.Fatalf("pair %s: p %v (want %v), n %d/%d, %d questions of which %d abstention, result %+v", p.Judge, p.P, want, n, p.N, len(bun.Runs[0].Qs), abstain, p.Result)
		}
	}

	enc, err := view.Encode(bun)
	if err != nil {
		t.Fatal(err)
	}

	// The exported file carries the index (the bundle without transcripts)
	// and one chunk of transcripts per run and conversation, gzipped, in
	// URL-safe base64; put together they are the bundle.
	var html bytes.Buffer
	if err := enc.Export(&html); err != nil {
		t.Fatal(err)
	}
	blobs := map[string][]byte{}
	for _, m := range regexp.MustCompile(`<script type="application/octet-stream" id="([a-z0-9-]+)">([A-Za-z0-9_-]+)</script>`).FindAllSubmatch(html.Bytes(), -1) {
		gz, err := base64.RawURLEncoding.DecodeString(string(m[2]))
		if err != nil {
			t.Fatal(err)
		}
		blobs[string(m[1])] = gunzip(t, gz)
	}
	var idx view.Bundle
	if err := json.Unmarshal(blobs["bundle"], &idx); err != nil {
		t.Fatalf("export index: %v", err)
	}
	for i, r := range idx.Runs {
		var txs [][]*runlog.Transcript
		for k := range r.Chunks {
			var part struct {
				Ctx   []string
				Items [][]membench.Item
				Tx    []struct {
					*runlog.Transcript
					C, I int
				}
			}
			if err := json.Unmarshal(blobs[fmt.Sprintf("tx-%d-%d", i, k)], &part); err != nil {
				t.Fatalf("chunk %d-%d: %v", i, k, err)
			}
			if i == 1 && (len(part.Ctx) != 1 || len(part.Items) != 1) {
				t.Fatalf("fullcontext: %d contexts and %d item lists stored, want the one they share", len(part.Ctx), len(part.Items))
			}
			var list []*runlog.Transcript
			for _, x := range part.Tx {
				x.Context, x.Items = part.Ctx[x.C], part.Items[x.I]
				list = append(list, x.Transcript)
			}
			txs = append(txs, list)
		}
		for n, q := range r.Qs {
			if q.Tx != nil {
				t.Fatal("the index carries transcripts")
			}
			q.Tx, txs[q.Chunk] = txs[q.Chunk][0], txs[q.Chunk][1:]
			if q.Tx.QuestionID != q.ID {
				t.Fatalf("chunk order: transcript %s for question %s", q.Tx.QuestionID, q.ID)
			}
			bun.Runs[i].Qs[n].Tx.Notes, q.Tx.Notes = nil, nil // JSON numbers in notes come back as float64
		}
	}
	// The chunks read lazily equal those packed from loaded transcripts.
	chunkRe := regexp.MustCompile(`<script type="application/octet-stream" id="(tx-[0-9-]+)">([A-Za-z0-9_-]+)</script>`)
	lazyChunks := chunkRe.FindAllStringSubmatch(lazyHTML.String(), -1)
	loadedChunks := chunkRe.FindAllStringSubmatch(html.String(), -1)
	if len(lazyChunks) == 0 || !reflect.DeepEqual(lazyChunks, loadedChunks) {
		t.Fatalf("%d chunks read lazily differ from the %d packed from loaded transcripts", len(lazyChunks), len(loadedChunks))
	}
	got, _ := json.Marshal(idx)
	want, _ := json.Marshal(bun)
	if !bytes.Equal(got, want) {
		t.Fatal("exported index and chunks do not make the built bundle")
	}
	if strings.Contains(html.String(), `src="http`) || strings.Contains(html.String(), `href="http`) {
		t.Fatal("the export loads something from the network")
	}

	// The server sends the same index and chunks, gzipped on request and
	// plain otherwise.
	srv := serveEncoded(t, enc)
	for _, path := range []string{"data.json", "tx/1/0.json"} {
		for _, gzipOK := range []bool{true, false} {
			req, _ := http.NewRequest("GET", srv+path, nil)
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
			blob := map[string]string{"data.json": "bundle", "tx/1/0.json": "tx-1-0"}[path]
			if !bytes.Equal(body, blobs[blob]) {
				t.Fatalf("%s (gzip %v) differs from the export's %s", path, gzipOK, blob)
			}
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
	for _, bad := range []string{"nope", "tx/9/0.json", "tx/0/99.json", "tx/x/0.json"} {
		if res, _ := http.Get(srv + bad); res.StatusCode != 404 {
			t.Fatalf("%s: %d, want 404", bad, res.StatusCode)
		}
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
