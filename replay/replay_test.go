package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/bundle"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/replay"
	"github.com/membench/membench/runlog"

	_ "github.com/membench/membench/answer"
	_ "github.com/membench/membench/systems/all"
)

func recordRun(t *testing.T, srvURL string) (membench.Config, *runlog.Summary) {
	return recordRunWith(t, srvURL, "openai:text-embedding-3-small")
}

// recordRunWith records with the embedder spelled as embedderSpec.
func recordRunWith(t *testing.T, srvURL, embedderSpec string) (membench.Config, *runlog.Summary) {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "sk-test-replay-never-logged")
	t.Setenv("OPENAI_BASE_URL", srvURL)
	cfg := membench.Config{
		System: "turns-rerank", Model: "openai:gpt-4o-mini", Embedder: embedderSpec,
		Judges: []string{"llm", "f1"}, Limit: 6,
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
	}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, sum
}

// Both spellings of a paid embedder record its vectors: openai:MODEL and
// the key=value form.
func TestBundleReplaysWithoutServerOrKey(t *testing.T) {
	for _, emb := range []string{"openai:text-embedding-3-small", "backend=openai,model=text-embedding-3-small"} {
		t.Run(emb, func(t *testing.T) { bundleReplays(t, emb) })
	}
}

func bundleReplays(t *testing.T, embedderSpec string) {
	srv := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(harnesstest.Replies))
	cfg, orig := recordRunWith(t, srv.URL, embedderSpec)
	dir := harnesstest.Dir(t, cfg)
	bundleFile := filepath.Join(t.TempDir(), "run.tar.gz")
	b, err := bundle.Write(dir, bundleFile, bundle.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Replies) == 0 {
		t.Fatal("the bundle holds no replies")
	}
	raw, _ := os.ReadFile(bundleFile)
	if strings.Contains(string(raw), "sk-test-replay-never-logged") {
		t.Fatal("the API key is in the bundle")
	}

	// No server, no key, an empty cache.
	srv.Close()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	opened, err := bundle.Open(bundleFile)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := replay.Run(context.Background(), opened, replay.Options{ResultsDir: out, CacheDir: t.TempDir(), Concurrency: 2, Quiet: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replay == nil || rep.Replay.Replies != len(b.Replies) {
		t.Errorf("the replayed summary does not say it was replayed: %+v", rep.Replay)
	}
	if !reflect.DeepEqual(rep.Groups, orig.Groups) || !reflect.DeepEqual(rep.Overall, orig.Overall) || rep.Questions != orig.Questions {
		t.Fatalf("replayed summary differs:\n got %+v %+v\nwant %+v %+v", rep.Groups, rep.Overall, orig.Groups, orig.Overall)
	}
	for _, f := range []string{runlog.AnswersFile, runlog.JudgmentsFile} {
		a := recordLines(t, filepath.Join(dir, f))
		r := recordLines(t, filepath.Join(out, filepath.Base(harnesstest.Dir(t, cfg)), f))
		if !reflect.DeepEqual(a, r) {
			t.Errorf("%s: replay differs from the recorded run (%d vs %d lines)\n%s\n%s", f, len(r), len(a), a[0], r[0])
		}
	}
}

func TestReplayNamesACallTheBundleLacks(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(harnesstest.Replies))
	cfg, _ := recordRun(t, srv.URL)
	b, err := bundle.Write(harnesstest.Dir(t, cfg), filepath.Join(t.TempDir(), "b.tar.gz"), bundle.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	// Drop one answer reply: its question must fail, naming what is missing.
	var kept []llm.TapeEntry
	dropped := false
	for _, e := range b.Replies {
		if !dropped && e.Kind == "chat" && !strings.Contains(e.Text, "label") {
			dropped = true
			continue
		}
		kept = append(kept, e)
	}
	b.Replies = kept
	srv.Close()
	_, err = replay.Run(context.Background(), b, replay.Options{ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 1}, io.Discard)
	var miss *llm.MissingError
	if !errors.As(err, &miss) || !strings.Contains(err.Error(), "question ") || !strings.Contains(err.Error(), "request key") || !strings.Contains(err.Error(), "answer") {
		t.Fatalf("want a missing-reply error naming the question, role and key; got %v", err)
	}
}

func recordLines(t *testing.T, path string) []string {
	t.Helper()
	recs, err := runlog.ReadJSONL[map[string]any](path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		delete(r, "seconds")
		b, _ := json.Marshal(r)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// The committed bundle (testdata/bundles) is a small real-model-shaped run
// on the embedded sample recorded against the fake server. Regenerate it
// with: MEMBENCH_WRITE_BUNDLE=1 go test ./replay -run TestWriteCIBundle
const ciBundle = "../testdata/bundles/sample-turns-rerank.tar.gz"

func TestWriteCIBundle(t *testing.T) {
	if os.Getenv("MEMBENCH_WRITE_BUNDLE") == "" {
		t.Skip("set MEMBENCH_WRITE_BUNDLE=1 to re-record testdata/bundles")
	}
	srv := llmtest.New(t, llmtest.WithEmbedDim(64), llmtest.WithChat(harnesstest.Replies))
	t.Setenv("OPENAI_API_KEY", "sk-test-replay-never-logged")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := membench.Config{
		System: "turns-rerank", Model: "openai:gpt-4o-mini", Embedder: "openai:text-embedding-3-small",
		Judges: []string{"llm", "f1"}, RunID: "sample-turns-rerank-recorded",
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
	}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(ciBundle), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := bundle.Write(harnesstest.Dir(t, cfg), ciBundle, bundle.Options{Version: "recorded-by-test"}); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := os.WriteFile(strings.TrimSuffix(ciBundle, ".tar.gz")+".summary.json", append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCommittedBundleReplays(t *testing.T) {
	b, err := bundle.Open(ciBundle)
	if err != nil {
		t.Fatal(err)
	}
	var want runlog.Summary
	raw, err := os.ReadFile(strings.TrimSuffix(ciBundle, ".tar.gz") + ".summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	// The recorded summary predates the groups' abstains flag: the
	// replay must mark LoCoMo's adversarial group, and only it.
	for i := range want.Groups {
		want.Groups[i].Abstains = want.Groups[i].Name == "adversarial"
	}
	t.Setenv("OPENAI_API_KEY", "")
	got, err := replay.Run(context.Background(), b, replay.Options{ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Groups, want.Groups) || !reflect.DeepEqual(got.Overall, want.Overall) || got.Questions != want.Questions || got.EvidenceRecall != want.EvidenceRecall {
		t.Fatalf("replay of the committed bundle differs from its recorded summary:\n got %+v %+v q=%d er=%v\nwant %+v %+v q=%d er=%v", got.Overall, got.Groups, got.Questions, got.EvidenceRecall, want.Overall, want.Groups, want.Questions, want.EvidenceRecall)
	}
}

// A replay writes the dollars that pricing its own records gives, with
// its --prices file, also when --replay-fallback has it rewrite the
// summary after the run.
func TestReplayPricesItsRecords(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(harnesstest.Replies))
	cfg, _ := recordRun(t, srv.URL)
	bundleFile := filepath.Join(t.TempDir(), "run.tar.gz")
	if _, err := bundle.Write(harnesstest.Dir(t, cfg), bundleFile, bundle.Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	pricesFile := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(pricesFile, []byte("models:\n  gpt-4o-mini: {input: 50, output: 50}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fallback := range []bool{false, true} {
		b, err := bundle.Open(bundleFile)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if _, err := replay.Run(context.Background(), b, replay.Options{ResultsDir: out, CacheDir: t.TempDir(), Concurrency: 2, Quiet: true,
			Fallback: fallback, BaseURL: srv.URL, PricesFile: pricesFile}, io.Discard); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(out, filepath.Base(harnesstest.Dir(t, cfg)))
		table, err := prices.Load(pricesFile)
		if err != nil {
			t.Fatal(err)
		}
		want, err := prices.Dollars(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		var s runlog.Summary
		testutil.ReadJSON(t, filepath.Join(dir, runlog.SummaryJSON), &s)
		if s.Dollars == nil || !reflect.DeepEqual(*s.Dollars, *want) || want.Total.USD == nil || *want.Total.USD == 0 {
			t.Errorf("replay (fallback %v): summary.json dollars %+v,\nwant its records priced: %+v", fallback, s.Dollars, want)
		}
	}
}
