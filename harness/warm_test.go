package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// TestWarmRerunEqualsCold: the faster paths of a cached rerun (the LoCoMo
// fast decoder, records read once and with the newer JSON decoder, a lazy
// replies file) change no output. A run against an OpenAI-compatible server
// is made cold, again under a new run id (every reply from the LLM cache:
// no request reaches the server), and again in its own folder (nothing left
// to do). Answers, judgments and the summary agree; the rerun of the
// finished folder appends nothing and rewrites the same summary. Uses two
// real LoCoMo conversations when the file is present, else the sample.
func TestWarmRerunEqualsCold(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(harnesstest.Replies))
	t.Setenv("OPENAI_API_KEY", "sk-test")
	cfg := membench.Config{
		System: "turns-cosine", Model: "backend=openai,model=m,base-url=" + srv.URL, Embedder: "hashed",
		Judges: []string{"llm", "f1"}, ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 4,
	}
	if data, ok := testutil.SharedPath("datasets", "locomo10.json"); ok {
		cfg.Dataset, cfg.Data, cfg.Conversations = "locomo", data, []string{"conv-26", "conv-30"}
	} else {
		t.Logf("LoCoMo not found at %s: the embedded sample stands in", data)
	}
	run := func(id string) (*runlog.Summary, string) {
		t.Helper()
		c := cfg
		c.RunID = id
		sum, err := harness.Run(context.Background(), c, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		return sum, harnesstest.Dir(t, c)
	}
	cold, coldDir := run("cold")
	sent := srv.Count("/v1/chat/completions")
	// An answer and a judgment each (two questions alike share a reply).
	if sent < cold.Questions || sent > 2*cold.Questions {
		t.Fatalf("cold run sent %d chat requests for %d questions", sent, cold.Questions)
	}
	warm, warmDir := run("warm")
	if n := srv.Count("/v1/chat/completions") - sent; n != 0 {
		t.Fatalf("the warm run sent %d requests; want every reply from the cache", n)
	}
	for stage, c := range warm.Stages {
		if stage != "answer" && stage != "judge" {
			continue // the hashed embedder is computed, not cached
		}
		if c.CachedCalls != c.Calls || c.Calls == 0 {
			t.Errorf("warm stage %s: %d of %d calls cached", stage, c.CachedCalls, c.Calls)
		}
	}
	if !reflect.DeepEqual(cold.Groups, warm.Groups) || !reflect.DeepEqual(cold.Overall, warm.Overall) ||
		cold.ContextTokens != warm.ContextTokens || cold.EvidenceRecall != warm.EvidenceRecall || cold.Questions != warm.Questions {
		t.Fatalf("warm summary differs from cold:\n%+v\n%+v", warm, cold)
	}
	for stage, c := range cold.Stages {
		w := warm.Stages[stage]
		if c.Calls != w.Calls || c.InputTokens != w.InputTokens || c.OutputTokens != w.OutputTokens {
			t.Errorf("stage %s: cold %+v, warm %+v", stage, c, w)
		}
	}
	sameAnswers(t, coldDir, warmDir)
	sameJudgments(t, coldDir, warmDir)

	// The finished folder again: nothing is appended, the summary is the same.
	before := snapshot(t, coldDir)
	again, _ := run("cold")
	if !reflect.DeepEqual(again, cold) {
		t.Fatalf("rerun of the finished run summarised differently:\n%+v\n%+v", again, cold)
	}
	after := snapshot(t, coldDir)
	for name, b := range before {
		if filepath.Ext(name) == ".jsonl" && !bytes.Equal(b, after[name]) {
			t.Errorf("%s changed on a rerun with nothing to do", name)
		}
	}
	if !bytes.Equal(before[runlog.SummaryJSON], after[runlog.SummaryJSON]) {
		t.Errorf("summary.json rewritten differently:\n%s\n%s", before[runlog.SummaryJSON], after[runlog.SummaryJSON])
	}
	if srv.Count("/v1/chat/completions") != sent {
		t.Fatal("the rerun with nothing to do sent requests")
	}

	// runlog reads records with go-json-experiment's v1 package: every
	// line of every artifact decodes to what encoding/json makes of it.
	for _, dir := range []string{coldDir, warmDir} {
		sameDecode[runlog.AnswerRecord](t, filepath.Join(dir, runlog.AnswersFile))
		sameDecode[runlog.Judgment](t, filepath.Join(dir, runlog.JudgmentsFile))
		sameDecode[runlog.RetrievalRecord](t, filepath.Join(dir, runlog.RetrievalsFile))
		sameDecode[runlog.BuildRecord](t, filepath.Join(dir, runlog.BuildFile))
		sameDecode[runlog.CostRecord](t, filepath.Join(dir, runlog.CostsFile))
		sameDecode[llm.TapeEntry](t, filepath.Join(dir, runlog.RepliesFile))
	}
}

// sameAnswers compares what was answered, leaving out whether the reply
// came from the cache.
func sameAnswers(t *testing.T, a, b string) {
	t.Helper()
	key := func(dir string) map[string]runlog.AnswerRecord {
		recs, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]runlog.AnswerRecord{}
		for _, r := range recs {
			r.Cached = false
			out[r.QuestionID] = r
		}
		return out
	}
	if x, y := key(a), key(b); !reflect.DeepEqual(x, y) || len(x) == 0 {
		t.Fatalf("answers differ between %s and %s (%d and %d)", a, b, len(x), len(y))
	}
}

func sameJudgments(t *testing.T, a, b string) {
	t.Helper()
	key := func(dir string) map[string]runlog.Judgment {
		js, err := runlogtest.Judgments(filepath.Join(dir, runlog.JudgmentsFile))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]runlog.Judgment{}
		for _, j := range js {
			out[j.Key()] = j
		}
		return out
	}
	if x, y := key(a), key(b); !reflect.DeepEqual(x, y) || len(x) == 0 {
		t.Fatalf("judgments differ between %s and %s", a, b)
	}
}

func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			out[e.Name()] = b
		}
	}
	return out
}

// sameDecode checks runlog.ReadJSONL against encoding/json line by line.
func sameDecode[T any](t *testing.T, path string) {
	t.Helper()
	got, err := runlog.ReadJSONL[T](path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []T
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want = append(want, v)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: ReadJSONL gave %d records unlike encoding/json's %d", path, len(got), len(want))
	}
}
