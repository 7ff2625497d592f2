package harness_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets/synth"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
)

// synthLoCoMo writes a synthetic LoCoMo-shaped file (20 questions per
// conversation) for plumbing tests.
func synthLoCoMo(t testing.TB, questions int) string {
	t.Helper()
	shape, ok := synth.Lookup("locomo")
	if !ok {
		t.Fatal("no locomo synth shape")
	}
	path := filepath.Join(t.TempDir(), "locomo-synth.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := synth.Write(f, shape, questions, 1); err != nil {
		t.Fatal(err)
	}
	return path
}

// --concurrency N is one budget: with three conversations open, the server
// sees exactly N requests at once (the old nested groups let N per
// conversation through, 3N here), and the run still reaches N.
func TestConcurrencyIsOneBudgetAcrossConversations(t *testing.T) {
	const n = 6
	srv := llmtest.New(t, llmtest.WithLatency(30*time.Millisecond), llmtest.WithChat(harnesstest.Replies), llmtest.WithoutBodies())
	t.Setenv("OPENAI_API_KEY", "")
	cfg := membench.Config{
		System: "turns-cosine", Dataset: "locomo", Data: synthLoCoMo(t, 60),
		Model: "backend=openai,model=m,base-url=" + srv.URL, Embedder: "hashed", Judges: []string{"llm", "f1"},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), NoCache: true, Quiet: true, Concurrency: n,
	}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Questions != 60 {
		t.Fatalf("%d questions answered, want 60", sum.Questions)
	}
	if got := srv.Count("/v1/chat/completions"); got != 120 {
		t.Fatalf("%d chat requests, want one answer and one judge call per question (120)", got)
	}
	if p := srv.Peak(); p != n {
		t.Fatalf("server saw up to %d requests at once over 3 conversations; want exactly --concurrency %d", p, n)
	}
}
