package harness_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// A run with a repeats=2 judge on a real HTTP server: two verdicts per
// question, one cost line per repeat, the summary's spread; running the
// same command again asks the judge nothing (each repeat is done).
func TestRunJudgeRepeats(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		if r.Seed != nil && *r.Seed == 1 {
			return llmtest.Reply{Text: "WRONG"}
		}
		return llmtest.Reply{Text: "CORRECT"}
	}))
	root := t.TempDir()
	cfg := membench.Config{System: "turns-cosine", ResultsDir: filepath.Join(root, "runs"), CacheDir: filepath.Join(root, "cache"), Quiet: true,
		Judges: []string{"lexical", "name=rep,backend=openai,model=m,retries=-1,repeats=2,base-url=" + srv.URL},
		Host:   membench.Host{Embedder: "hashed", Home: root}}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	answers, _ := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	n := len(answers)
	if calls := srv.Count("/v1/chat/completions"); calls != 2*n {
		t.Fatalf("%d judge calls for %d questions, want two each", calls, n)
	}
	raw, _ := runlog.ReadJSONL[runlog.Judgment](filepath.Join(dir, runlog.JudgmentsFile))
	per := map[int]int{}
	for _, j := range raw {
		if j.Judge == "rep" {
			per[j.Repeat]++
		}
	}
	if per[0] != n || per[1] != n {
		t.Errorf("verdicts by repeat %v, want %d each", per, n)
	}
	st, ok := sum.Overall.Repeats["rep"]
	if !ok || st.Repeats != 2 || st.Max != 100 || st.Min != 0 || sum.Overall.Scores["rep"] != 50 {
		t.Errorf("repeat figures %+v (%v), overall %v; want repeats at 100 and 0, mean 50", st, ok, sum.Overall.Scores["rep"])
	}
	if c := sum.Stages["judge"]; c.Calls != 2*n {
		t.Errorf("judge stage %d calls, want %d (one cost line per repeat)", c.Calls, 2*n)
	}
	// Each repeat's call is in the transcript under its index: repeat 1
	// (seed 1) is the WRONG one.
	ts, err := runlogtest.Transcripts(dir)
	if err != nil || len(ts) != n {
		t.Fatalf("%d transcripts (%v), want %d", len(ts), err, n)
	}
	for _, tr := range ts {
		got := map[int]bool{}
		for _, c := range tr.Judges {
			if c.Judge == "rep" {
				got[c.Repeat] = c.Correct
			}
		}
		if len(got) != 2 || !got[0] || got[1] {
			t.Fatalf("question %s: rep's transcript calls by repeat %v, want repeat 0 correct and repeat 1 wrong", tr.QuestionID, got)
		}
	}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if calls := srv.Count("/v1/chat/completions"); calls != 2*n {
		t.Errorf("running again made %d judge calls; every repeat was done", calls-2*n)
	}
}
