package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/summary"
)

const proseReply = "Sure! Caroline went to a support group and Melanie painted a sunrise."

var (
	promptUtterance = regexp.MustCompile(`(?m)^\[([A-Z0-9]+:[0-9]+) \| `)
	promptEvent     = regexp.MustCompile(`(?m)^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]`)
)

// citingReply answers a StructMem prompt the way a working model does:
// an extraction with one entry per utterance it lists, a consolidation
// with a narrative citing the first event.
func citingReply(user string) string {
	if ev := promptEvent.FindStringSubmatch(user); ev != nil && strings.Contains(user, "narrative") {
		b, _ := json.Marshal(map[string]any{"narrative": "They talked on [" + ev[1] + "].", "times": []string{ev[1]}})
		return string(b)
	}
	var es []map[string]string
	for _, m := range promptUtterance.FindAllStringSubmatch(user, -1) {
		es = append(es, map[string]string{"utterance": m[1], "text": "something said in " + m[1]})
	}
	b, _ := json.Marshal(map[string]any{"entries": es})
	return string(b)
}

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
		return llmtest.Reply{Text: citingReply(r.LastUser())}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := membench.Config{System: "structmem", BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
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
	cfg := membench.Config{System: "structmem", BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2, MaxBuildFailures: 1,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
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
		cfg := membench.Config{System: system, BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"}, Limit: 3,
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		_, err := harness.Run(context.Background(), cfg, io.Discard)
		var bf *harness.BuildFailedError
		if !errors.As(err, &bf) || bf.Failed == 0 || bf.Failed != bf.Requests || bf.FirstRaw != proseReply {
			t.Errorf("%s: %v (%+v)", system, err, bf)
		}
	}
}

// A server answering every request with an empty list: StructMem parses
// each reply (nothing to repair) and builds a memory of 0 entries. The run
// stops with exit-1 error naming the count, writes no answers, and the
// summary says DEGRADED with the conversation and the reason; exempt
// systems (no built memory) run normally against the same server.
func TestEmptyRepliesDegradeTheRun(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Text: `[]`} }))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	for _, system := range []string{"structmem", "structmem-flat", "structmem-no-cross-event"} {
		cfg := membench.Config{System: system, BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"},
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		sum, err := harness.Run(context.Background(), cfg, io.Discard)
		var em *harness.EmptyMemoryError
		if !errors.As(err, &em) {
			t.Fatalf("%s: want an EmptyMemoryError, got %v", system, err)
		}
		if badinput.Is(err) {
			t.Errorf("%s: a degraded build is reported as bad input (exit 2), want a failed run (exit 1)", system)
		}
		for _, want := range []string{"build degraded", system, "0 memory entries", "extraction replies empty"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: message %q lacks %q", system, err, want)
			}
		}
		if sum == nil || !sum.Degraded || len(sum.EmptyMemory) != 1 || sum.Questions != 0 || sum.BuildFailed != 0 {
			t.Fatalf("%s: summary %+v: want degraded by an empty memory, no question answered", system, sum)
		}
		var tbl strings.Builder
		summary.Print(&tbl, sum)
		if !strings.Contains(tbl.String(), "DEGRADED: empty memory, conversation ") || strings.Contains(tbl.String(), "memory-build requests failed") {
			t.Errorf("%s: summary:\n%s", system, tbl.String())
		}
	}
	// Per-message extractors: every reply an empty fact list.
	noFacts := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Text: `{"facts": []}`} }))
	t.Setenv("OPENAI_BASE_URL", noFacts.URL)
	for _, system := range []string{"flat", "extract-rerank"} {
		cfg := membench.Config{System: system, BuildModel: "openai:gpt-4o-mini", Judges: []string{"f1"}, Limit: 2,
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		sum, err := harness.Run(context.Background(), cfg, io.Discard)
		var em *harness.EmptyMemoryError
		if !errors.As(err, &em) || !strings.Contains(err.Error(), "0 memory entries") || sum == nil || !sum.Degraded {
			t.Errorf("%s: %v, summary %+v", system, err, sum)
		}
	}
	// The same server, systems without a built memory: no degradation.
	cfg := membench.Config{System: "fullcontext", Model: "openai:gpt-4o-mini", Judges: []string{"f1"}, Limit: 2,
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil || sum.Degraded || sum.Questions != 2 {
		t.Fatalf("fullcontext: %v, %+v", err, sum)
	}
}

// A run that stops on a conversation's build (an empty memory, or too
// many failed build requests) does not count that conversation as built:
// the progress's last line says 0 of 1, and "stopped".
func TestStoppedBuildIsNotCountedBuilt(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	for _, c := range []struct{ name, reply string }{
		{"empty memory", `[]`},
		{"failed requests", proseReply},
	} {
		srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Text: c.reply} }))
		cfg := membench.Config{System: "structmem", BuildModel: "backend=openai,model=gpt-4o-mini,base-url=" + srv.URL, Judges: []string{"f1"}, Limit: 2,
			ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Concurrency: 2,
			Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
		var log strings.Builder
		if _, err := harness.Run(context.Background(), cfg, &log); err == nil {
			t.Fatalf("%s: the run did not stop", c.name)
		}
		last := regexp.MustCompile(`(?m)^progress: (done|stopped) .*$`).FindString(log.String())
		if !strings.Contains(last, "progress: stopped · 0/2 questions, 0/1 conversations built") {
			t.Errorf("%s: last progress line %q, want 0 of 1 conversations built\n%s", c.name, last, log.String())
		}
	}
}
