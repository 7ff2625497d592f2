package judgecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/bundle"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/rejudge"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// fakeJudge answers like a model: verdicts that depend on the request, so
// a reply served for the wrong request would show as a different verdict.
func fakeJudge(_ int, r llmtest.ChatRequest) llmtest.Reply {
	h := fnv.New32a()
	h.Write([]byte(r.Model + "\x00" + r.LastUser()))
	x := h.Sum32()
	low := strings.ToLower(r.Messages[0].Content + r.LastUser())
	if strings.Contains(low, "judge") || strings.Contains(low, "gold") {
		label := "CORRECT"
		if x%3 == 0 {
			label = "WRONG"
		}
		return llmtest.Reply{Text: fmt.Sprintf(`{"reason": "r%d", "label": %q}`, x%97, label)}
	}
	return llmtest.Reply{Text: fmt.Sprintf("answer %d", x%50)}
}

type judgeResult struct {
	Judges []rejudge.JudgeCount
	Replay *replayInfo
}

func judgeJSON(t *testing.T, o *Options) (judgeResult, error) {
	t.Helper()
	var out bytes.Buffer
	o.JSON, o.Out = true, &out
	o.Rejudge.Concurrency = 2
	err := Run(context.Background(), o)
	var res judgeResult
	if err == nil {
		if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
			t.Fatalf("json: %v\n%s", jerr, out.String())
		}
	}
	return res, err
}

func verdicts(t *testing.T, dir, name string) map[string]runlog.Judgment {
	t.Helper()
	js, err := runlogtest.Judgments(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]runlog.Judgment{}
	for _, j := range js {
		if j.Judge == name {
			out[j.QuestionID] = j
		}
	}
	return out
}

// A reader adds judges to a published run from its bundle: the bundle's
// replies serve what the run asked already (no server, no key), a call it
// lacks is an error naming judge, question and key, and --replay-fallback
// sends only those calls to a backend and counts them.
func TestJudgeReplayFromBundle(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(fakeJudge))
	t.Setenv("OPENAI_API_KEY", "sk-test-judge-replay")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	root := t.TempDir()
	cfg := membench.Config{System: "turns-cosine", Dataset: "sample", Limit: 5, Model: "openai:gpt-4o-mini",
		Judges: []string{"llm", "f1"}, Concurrency: 2,
		ResultsDir: filepath.Join(root, "results"), CacheDir: filepath.Join(root, "cache"), Quiet: true,
		Host: membench.Host{Home: root, Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	orig := harnesstest.Dir(t, cfg)
	bundleFile := filepath.Join(root, "run.tar.gz")
	if _, err := bundle.Write(orig, bundleFile, bundle.Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}

	// The reader's side: no server, no key, an empty cache.
	srv.Close()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	reader := t.TempDir()
	pub := filepath.Join(reader, "published")
	ro := rejudge.Options{Home: reader, CacheDir: filepath.Join(reader, "cache")}

	// Re-judging with the run's own judge model under another name asks
	// exactly the recorded requests: every verdict equals the original.
	res, err := judgeJSON(t, &Options{Run: pub, Replay: bundleFile, Judges: []string{"again=openai:gpt-4o-mini"}, Rejudge: ro})
	if err != nil {
		t.Fatal(err)
	}
	want := verdicts(t, orig, "llm")
	got := verdicts(t, pub, "again")
	if len(want) != 5 || len(got) != len(want) {
		t.Fatalf("%d replayed verdicts for %d recorded", len(got), len(want))
	}
	for id, w := range want {
		g := got[id]
		if g.Correct != w.Correct || g.Score != w.Score || g.Reason != w.Reason || g.Raw != w.Raw {
			t.Errorf("%s: replayed verdict %+v, recorded %+v", id, g, w)
		}
	}
	if res.Replay == nil || res.Replay.Fresh != 0 || res.Replay.Served != int64(len(want)) {
		t.Errorf("replay counts %+v, want %d served and 0 fresh", res.Replay, len(want))
	}
	// The new judge's request and raw reply are in the transcripts, next
	// to the recorded judges.
	txs, err := runlogtest.Transcripts(pub)
	if err != nil {
		t.Fatal(err)
	}
	if len(txs) != len(want) {
		t.Fatalf("%d transcripts, want %d", len(txs), len(want))
	}
	for _, tx := range txs {
		calls := map[string]runlog.JudgeCall{}
		for _, j := range tx.Judges {
			calls[j.Judge] = j
		}
		a, l := calls["again"], calls["llm"]
		if tx.Context == "" || len(a.Messages) == 0 || a.Raw == "" || a.Raw != l.Raw || a.Correct != l.Correct {
			t.Errorf("%s: transcript judges %+v", tx.QuestionID, tx.Judges)
		}
	}

	// A judge on another model asks what the bundle never recorded.
	_, err = judgeJSON(t, &Options{Run: pub, Replay: bundleFile, Judges: []string{"big=openai:gpt-4o"}, Rejudge: ro})
	var miss *llm.MissingError
	if !errors.As(err, &miss) || clierr.Code(err) != 2 {
		t.Fatalf("want a missing-reply error (exit 2), got %v", err)
	}
	for _, part := range []string{"judge big", "question ", "request key " + miss.Key, "--replay-fallback"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("the error does not name %q: %v", part, err)
		}
	}
	if strings.Count(err.Error(), "judge big") != 1 || strings.Count(err.Error(), "question ") != 1 {
		t.Errorf("the error names the judge or the question twice: %v", err)
	}
	if n := len(verdicts(t, pub, "big")); n != 0 {
		t.Errorf("%d verdicts written by a failed judge", n)
	}

	// With --replay-fallback the new judge's calls, and only those, go to
	// a backend.
	srv2 := llmtest.New(t, llmtest.WithChat(fakeJudge))
	t.Setenv("OPENAI_API_KEY", "sk-test-reader")
	t.Setenv("OPENAI_BASE_URL", srv2.URL)
	res, err = judgeJSON(t, &Options{Run: pub, Replay: bundleFile, ReplayFallback: true, Judges: []string{"again2=openai:gpt-4o-mini", "big=openai:gpt-4o"}, Rejudge: ro})
	if err != nil {
		t.Fatal(err)
	}
	if res.Replay.Fresh != int64(len(want)) || res.Replay.Served != int64(len(want)) {
		t.Errorf("replay counts %+v, want %d fresh (big) and %d served (again2)", res.Replay, len(want), len(want))
	}
	if n := srv2.Count("/v1/chat/completions"); n != len(want) {
		t.Errorf("the backend got %d calls, want %d (the new judge's only)", n, len(want))
	}
	if n := len(verdicts(t, pub, "big")); n != len(want) {
		t.Errorf("%d verdicts of the new judge, want %d", n, len(want))
	}

	// The new judge's replies were recorded: the run bundles again and the
	// next reader replays all its judges with no backend at all.
	srv2.Close()
	bundle2 := filepath.Join(reader, "run2.tar.gz")
	if _, err := bundle.Write(pub, bundle2, bundle.Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	pub2 := filepath.Join(t.TempDir(), "again")
	res, err = judgeJSON(t, &Options{Run: pub2, Replay: bundle2, Judges: []string{"big2=openai:gpt-4o"}, Rejudge: ro})
	if err != nil {
		t.Fatal(err)
	}
	if res.Replay.Fresh != 0 {
		t.Errorf("%d fresh calls replaying a bundle that holds them", res.Replay.Fresh)
	}
	b1, b2 := verdicts(t, pub, "big"), verdicts(t, pub2, "big2")
	for id, v := range b1 {
		if b2[id].Raw != v.Raw {
			t.Errorf("%s: re-bundled reply %q, first %q", id, b2[id].Raw, v.Raw)
		}
	}

	// The command line: --replay and --replay-fallback reach the run, and
	// the table output counts served and new calls.
	pub3 := filepath.Join(t.TempDir(), "cli")
	out, err := testutil.Execute(NewCmd(), "--run", pub3, "--replay", bundle2, "--judge-spec", "big3=openai:gpt-4o", "--cache-dir", filepath.Join(reader, "cache"))
	if err != nil || !strings.Contains(out, "unpacked run ") || !strings.Contains(out, fmt.Sprintf("replay: %d judge calls served from %s; 0 were not in the bundle", len(want), bundle2)) {
		t.Fatalf("membench judge --replay: %v\n%s", err, out)
	}
	if _, err := testutil.Execute(NewCmd(), "--run", pub3, "--replay-fallback", "--judge-spec", "f1"); clierr.Code(err) != 2 || !strings.Contains(err.Error(), "--replay-fallback goes with --replay") {
		t.Errorf("--replay-fallback alone: %v", err)
	}

	// A bundle of another run is refused for an existing run directory,
	// and --replay-fallback needs --replay.
	other := t.TempDir()
	if err := runlog.WriteJSON(filepath.Join(other, runlog.ManifestFile), runlog.Manifest{RunID: "someone-else"}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*Options{
		{Run: other, Replay: bundleFile, Judges: []string{"f1"}, Rejudge: ro},
		{Run: pub, ReplayFallback: true, Judges: []string{"f1"}, Rejudge: ro},
		{Run: pub, Replay: filepath.Join(reader, "missing.tar.gz"), Judges: []string{"f1"}, Rejudge: ro},
	} {
		if _, err := judgeJSON(t, o); clierr.Code(err) != 2 {
			t.Errorf("%+v: err %v, want exit 2", o, err)
		}
	}
}
