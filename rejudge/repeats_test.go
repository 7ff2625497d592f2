package rejudge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// membench judge with repeats=2 on a real HTTP server: each answer gets
// two verdicts, each repeat its own call and its own cost line, and a
// second pass asks nothing.
func TestRejudgeRepeats(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		if r.Seed == nil {
			return llmtest.Reply{Text: "CORRECT"}
		}
		return llmtest.Reply{Text: "WRONG"}
	}))
	root := t.TempDir()
	dir := sampleRun(t, root, "turns-cosine")
	answers, _ := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	spec := "name=rep,backend=openai,model=m,retries=-1,repeats=2,base-url=" + srv.URL
	o := Options{CacheDir: filepath.Join(root, "cache"), Concurrency: 2, Home: root}
	counts, sum, err := Run(context.Background(), dir, []string{spec}, o)
	if err != nil {
		t.Fatal(err)
	}
	n := len(answers)
	if counts[0].Added != n || srv.Count("/v1/chat/completions") != 2*n {
		t.Fatalf("added %d, %d calls; want %d answers judged with %d calls", counts[0].Added, srv.Count("/v1/chat/completions"), n, 2*n)
	}
	raw, _ := runlog.ReadJSONL[runlog.Judgment](filepath.Join(dir, runlog.JudgmentsFile))
	per := map[int]int{}
	for _, j := range raw {
		if j.Judge == "rep" {
			per[j.Repeat]++
			if j.Correct != (j.Repeat == 0) {
				t.Errorf("%s repeat %d: correct %v", j.QuestionID, j.Repeat, j.Correct)
			}
		}
	}
	if per[0] != n || per[1] != n {
		t.Errorf("verdicts by repeat %v, want %d each", per, n)
	}
	costs, _ := runlog.ReadJSONL[runlog.CostRecord](filepath.Join(dir, runlog.CostsFile))
	parts := map[string]int{}
	for _, c := range costs {
		for _, tl := range c.Tallies {
			parts[c.Part] += tl.Calls
		}
	}
	if parts["judge:rep"] != n || parts["judge:rep#1"] != n {
		t.Errorf("judge calls by cost part %v, want %d under judge:rep and judge:rep#1", parts, n)
	}
	if st := sum.Overall.Repeats["rep"]; st.Repeats != 2 || st.Max != 100 || st.Min != 0 || st.Majority != 0 {
		t.Errorf("repeat figures %+v: want one repeat at 100, one at 0, no majority (a tie is not correct)", st)
	}
	if c := sum.Stages["judge"]; c.Calls != 2*n {
		t.Errorf("judge stage %d calls, want %d", c.Calls, 2*n)
	}
	counts, _, err = Run(context.Background(), dir, []string{spec}, o)
	if err != nil || counts[0].Skipped != n || srv.Count("/v1/chat/completions") != 2*n {
		t.Errorf("second pass: %+v %v, %d calls", counts, err, srv.Count("/v1/chat/completions"))
	}
}
