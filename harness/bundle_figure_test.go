package harness_test

import (
	"context"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/bundle"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/stamp"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// TestBundleFigureFullLoCoMo records full LoCoMo with turns-rerank (30
// candidates a question, relevance decided from first-token logprobs) and
// three judges (llm, f1, bleu1) against the fake OpenAI-compatible server,
// with a 1536-dimension paid embedder as text-embedding-3-small has (dense
// vectors: the fake's default bag-of-words vectors are mostly zeros and
// would compress far better than real embeddings do), and bundles it: the size scripts/bundle-figure.sh reports (docs/bundles.md). It is a
// measurement, not a gate: MEMBENCH_BUNDLE_FIGURE=DIR runs it and leaves
// the bundle in DIR, for timing `membench run --replay` on it
// (scripts/bundle-figure.sh does both).
func TestBundleFigureFullLoCoMo(t *testing.T) {
	out := os.Getenv("MEMBENCH_BUNDLE_FIGURE")
	if out == "" {
		t.Skip("set MEMBENCH_BUNDLE_FIGURE=DIR to record full LoCoMo against the fake server and bundle it into DIR")
	}
	data := testutil.Shared(t, "datasets", "locomo10.json")
	srv := llmtest.New(t, llmtest.WithChat(harnesstest.Replies), llmtest.WithEmbed(denseVectors(1536)))
	t.Setenv("OPENAI_API_KEY", "sk-test-bundle-figure")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := membench.Config{
		System: "turns-rerank", Dataset: "locomo", Data: data,
		Model: "openai:gpt-4o-mini", Embedder: "openai:text-embedding-3-small",
		Judges: []string{"llm", "f1", "bleu1"}, RunID: "locomo-turns-rerank-fake-server",
		ResultsDir: filepath.Join(out, "results"), CacheDir: t.TempDir(), Quiet: true, Concurrency: 4,
	}
	if dir := harnesstest.Dir(t, cfg); runlog.IsRunDir(dir) {
		t.Fatalf("%s already holds the run; remove %s first", dir, out)
	}
	start := time.Now()
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	recorded := time.Since(start)
	dir := harnesstest.Dir(t, cfg)
	bundleFile := filepath.Join(out, "locomo-turns-rerank.tar.gz")
	b, err := bundle.Write(dir, bundleFile, bundle.Options{Version: stamp.Version()})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(bundleFile)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range b.Replies {
		kinds[e.Kind]++
	}
	t.Logf("recorded %d questions in %.0f s (%d calls to the fake server: %d chat, %d embedding requests)", sum.Questions, recorded.Seconds(),
		srv.Count("/v1/chat/completions")+srv.Count("/v1/embeddings"), srv.Count("/v1/chat/completions"), srv.Count("/v1/embeddings"))
	t.Logf("replies recorded: %d (%d decide, %d chat, %d embed)", len(b.Replies), kinds["decide"], kinds["chat"], kinds["embed"])
	for _, name := range []string{runlog.RepliesFile, runlog.TranscriptsFile, runlog.RetrievalsFile, runlog.AnswersFile, runlog.JudgmentsFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Logf("  %s: %.1f MB in the run directory", name, float64(fi.Size())/1e6)
		}
	}
	t.Logf("bundle %s: %.1f MB", bundleFile, float64(st.Size())/1e6)
	if sum.Questions != 1986 {
		t.Errorf("%d questions, want full LoCoMo's 1986", sum.Questions)
	}
}

// denseVectors gives each text the fake's bag-of-words vector plus dense
// noise seeded by the text: similar texts stay close, and every component
// carries a full-entropy float32 as a real embedding's does.
func denseVectors(dim int) llmtest.EmbedHandler {
	return func(_ int, req llmtest.EmbedRequest) ([][]float32, int) {
		out := make([][]float32, len(req.Input))
		for i, text := range req.Input {
			v := llmtest.Vector(text, dim)
			h := fnv.New64a()
			h.Write([]byte(text))
			rng := rand.New(rand.NewPCG(h.Sum64(), 1))
			var n float64
			for k := range v {
				v[k] += float32(0.05 * rng.NormFloat64())
				n += float64(v[k]) * float64(v[k])
			}
			for k := range v {
				v[k] = float32(float64(v[k]) / math.Sqrt(n))
			}
			out[i] = v
		}
		return out, 0
	}
}
