package harness_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

const proseReply = "Sure! Caroline went to a support group and Melanie painted a sunrise."

// A server that ignores JSON mode: every structmem extraction fails, the
// run stops with a BuildFailedError quoting the reply, the summary says
// DEGRADED; once the server speaks JSON the rerun rebuilds (the failed
// replies were never cached) and finishes normally.
func TestJSONIgnoringServerFailsTheBuild(t *testing.T) {
	var fixed atomic.Bool
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		if !fixed.Load() {
			return llmtest.Reply{Text: proseReply}
		}
		if strings.Contains(r.LastUser(), "Write the synthesis links.") {
			return llmtest.Reply{Text: `{"links": []}`}
		}
		return llmtest.Reply{Text: `{"entries": []}`}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := runlog.Config{System: "structmem", BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
		Host: runlog.Host{Home: t.TempDir(), Embedder: "hashed"}}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	var bf *harness.BuildFailedError
	if !errors.As(err, &bf) {
		t.Fatalf("want a BuildFailedError, got %v", err)
	}
	if bf.Failed == 0 || bf.Failed != bf.Requests || bf.FirstRaw != proseReply {
		t.Fatalf("failure %+v", bf)
	}
	msg := err.Error()
	for _, want := range []string{"build failed", "of", "structmem build requests", proseReply, "--max-build-failures"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if sum == nil || !sum.Degraded || sum.BuildFailed != bf.Failed || sum.Questions != 0 {
		t.Fatalf("summary %+v: want degraded, no question answered", sum)
	}
	var tbl strings.Builder
	summary.Print(&tbl, sum)
	if !strings.Contains(tbl.String(), "DEGRADED") {
		t.Fatalf("summary.md must mark the run:\n%s", tbl.String())
	}

	fixed.Store(true)
	before := srv.Count("/v1/chat/completions")
	sum, err = harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Count("/v1/chat/completions") == before {
		t.Fatal("the rerun was served the failed replies from the cache")
	}
	if sum.Degraded || sum.BuildFailed != 0 || sum.Questions == 0 {
		t.Fatalf("after the fix: %+v", sum)
	}
}

// --max-build-failures 1 never stops; the failures are still reported.
func TestBuildFailureLimitOfOneNeverStops(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: proseReply}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := runlog.Config{System: "structmem", BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2, MaxBuildFailures: 1,
		Host: runlog.Host{Home: t.TempDir(), Embedder: "hashed"}}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatalf("limit 1 must not stop the run: %v", err)
	}
	if sum.Degraded || sum.BuildFailed == 0 || sum.BuildFailed != sum.BuildRequests {
		t.Fatalf("summary %+v", sum)
	}
}

// flat and graph count their failed requests the same way.
func TestJSONIgnoringServerFailsFlatAndGraph(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Text: proseReply} }))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	for _, system := range []string{"flat", "graph"} {
		cfg := runlog.Config{System: system, BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"}, Limit: 3,
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
			Host: runlog.Host{Home: t.TempDir(), Embedder: "hashed"}}
		_, err := harness.Run(context.Background(), cfg, io.Discard)
		var bf *harness.BuildFailedError
		if !errors.As(err, &bf) || bf.Failed == 0 || bf.Failed != bf.Requests || bf.FirstRaw != proseReply {
			t.Errorf("%s: %v (%+v)", system, err, bf)
		}
	}
}
