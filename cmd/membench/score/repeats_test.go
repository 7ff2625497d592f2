package score

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/scoring"
	"github.com/membench/membench/summary"
)

// A judge spec with repeats=3, against a real HTTP server whose verdict
// depends on the request's seed: every answer gets three verdicts, each
// repeat its own request (three calls per answer even with the cache on,
// none when scored again from that cache), and the summary gives the
// mean over repeats with their spread and the majority vote, each as the
// server's rule gives them.
func TestScoreRepeatsJudgesEachAnswerThreeTimes(t *testing.T) {
	const n, reps = 6, 3
	// Repeat r accepts answer i when i < 2+r.
	accepts := func(i, r int) bool { return i < 2+r }
	answerRe := regexp.MustCompile(`answer number (\d+)`)
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		m := answerRe.FindStringSubmatch(r.LastUser())
		if m == nil {
			return llmtest.Reply{Text: "no answer in the prompt"}
		}
		i, _ := strconv.Atoi(m[1])
		rep := 0
		if r.Seed != nil {
			rep = *r.Seed
		}
		if accepts(i, rep) {
			return llmtest.Reply{Text: `{"label": "CORRECT", "reason": "matches"}`}
		}
		return llmtest.Reply{Text: `{"label": "WRONG", "reason": "does not match"}`}
	}))
	dir := t.TempDir()
	preds := filepath.Join(dir, "mine.jsonl")
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf(`{"question_id": "sample-1:%d", "prediction": "answer number %d"}`, i, i))
	}
	if err := os.WriteFile(preds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "name=rep,backend=openai,model=m,retries=-1,repeats=3,base-url=" + srv.URL
	score := func(out string) string {
		var buf bytes.Buffer
		o := &Options{Score: scoring.Config{Config: membench.Config{Dataset: "sample", Judges: []string{spec}, CacheDir: filepath.Join(dir, "cache"), Host: membench.Host{Home: dir}}, Predictions: preds, Out: out}, Out: &buf}
		if err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	out := filepath.Join(dir, "out")
	printed := score(out)
	if got := srv.Count("/v1/chat/completions"); got != n*reps {
		t.Fatalf("server saw %d judge calls, want %d (one per answer and repeat)", got, n*reps)
	}
	js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(out, runlog.JudgmentsFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, j := range js {
		i, _ := strconv.Atoi(strings.TrimPrefix(j.QuestionID, "sample-1:"))
		if j.Correct != accepts(i, j.Repeat) {
			t.Errorf("%s repeat %d: correct %v, the server said %v", j.QuestionID, j.Repeat, j.Correct, accepts(i, j.Repeat))
		}
		seen[fmt.Sprint(j.QuestionID, "/", j.Repeat)] = true
	}
	if len(js) != n*reps || len(seen) != n*reps {
		t.Fatalf("%d judgment lines, %d distinct (question, repeat); want %d", len(js), len(seen), n*reps)
	}
	// Expected figures from the rule.
	var per []float64
	maj := 0
	for r := range reps {
		c := 0
		for i := range n {
			if accepts(i, r) {
				c++
			}
		}
		per = append(per, 100*float64(c)/n)
	}
	for i := range n {
		c := 0
		for r := range reps {
			if accepts(i, r) {
				c++
			}
		}
		if 2*c > reps {
			maj++
		}
	}
	mean := (per[0] + per[1] + per[2]) / 3
	sd := 0.0
	for _, p := range per {
		sd += (p - mean) * (p - mean)
	}
	sd = math.Sqrt(sd / 3)
	sum, err := summary.Compute(out)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := sum.Overall.Repeats["rep"]
	if !ok {
		t.Fatalf("summary has no repeat figures: %+v", sum.Overall)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if st.Repeats != reps || len(st.Scores) != reps || !near(st.Mean, mean) || !near(st.SD, sd) || !near(st.Min, per[0]) || !near(st.Max, per[2]) || !near(st.Majority, 100*float64(maj)/n) {
		t.Errorf("repeat figures %+v; want per-repeat %v, mean %v, sd %v, majority %v", st, per, mean, sd, 100*float64(maj)/n)
	}
	if st.SD == 0 {
		t.Error("no spread between repeats the server made differ")
	}
	if !near(sum.Overall.Scores["rep"], mean) {
		t.Errorf("overall column %v, want the mean over repeats %v", sum.Overall.Scores["rep"], mean)
	}
	if !strings.Contains(printed, "judged each answer 3 times") || !strings.Contains(printed, "majority vote") {
		t.Errorf("printed summary lacks the repeat note:\n%s", printed)
	}
	m, err := runlog.LoadManifest(out)
	if err != nil || len(m.JudgeSpecs) != 1 || m.JudgeSpecs[0].Repeats != reps {
		t.Errorf("manifest judge specs %+v (%v), want repeats %d recorded", m.JudgeSpecs, err, reps)
	}
	// Scored again from the same cache: every repeat's reply is there.
	score(filepath.Join(dir, "again"))
	if got := srv.Count("/v1/chat/completions"); got != n*reps {
		t.Errorf("scoring again made %d new calls; each repeat's cache entry should serve it", got-n*reps)
	}
	t.Logf("per-repeat %v, mean %.2f, sd %.2f, majority %.2f", st.Scores, st.Mean, st.SD, st.Majority)
}
