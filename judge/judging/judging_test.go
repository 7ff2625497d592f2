package judging

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// Verdicts of a model judge on the cognitive prompt, from a real HTTP
// server, through the judging loop into judgments.jsonl and back: CORRECT,
// PARTIAL and WRONG are logged as 1, 0.5 and 0 (a PARTIAL not correct),
// pass the reader's checks, and average to 50.
func TestCognitiveVerdictsLogged(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		u := r.LastUser()
		switch {
		case !strings.Contains(u, "Cue dialogue") || !strings.Contains(u, "Ann: I quit sugar after the diagnosis."):
			return llmtest.Reply{Text: "no cue shown"}
		case strings.Contains(u, "reply one"):
			return llmtest.Reply{Text: `{"label": "CORRECT", "reason": "links the cake to the diagnosis"}`}
		case strings.Contains(u, "reply two"):
			return llmtest.Reply{Text: `{"label": "partially correct", "reason": "sugar, but no link"}`}
		}
		return llmtest.Reply{Text: "WRONG: a generic reply."}
	}))
	b := &Builder{NoCache: true, CacheDir: t.TempDir()}
	judges, err := b.Judges([]string{"name=cog,backend=openai,model=m,retries=-1,base-url=" + srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	conv := &datasets.Conversation{ID: "p", Sessions: []*datasets.Session{{ID: "cue", Turns: []*datasets.Turn{{ID: "C:1", Speaker: "Ann", Text: "I quit sugar after the diagnosis."}}}}}
	q := &datasets.Question{ID: "p:0", ConversationID: "p", Text: "Ann: I turned down the birthday cake today.", Evidence: []string{"C:1"}}
	var recs []any
	for _, pred := range []string{"reply one", "reply two", "reply three"} {
		s := judge.NewSample(conv, q, pred)
		s.Prompt = "cognitive"
		err := Sample(context.Background(), judges, s, "sys", nil, func(j runlog.Judgment) error {
			j.QuestionID += "/" + pred // one line per reply
			recs = append(recs, j)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), runlog.JudgmentsFile)
	if err := runlog.WriteJSONLines(path, recs); err != nil {
		t.Fatal(err)
	}
	valid, invalid, err := runlogtest.Verdicts(path)
	if err != nil || len(valid) != 3 || len(invalid) != 0 {
		t.Fatalf("read back %d valid, %d invalid, %v", len(valid), len(invalid), err)
	}
	sum := 0.0
	for i, j := range valid {
		want := []float64{1, 0.5, 0}[i]
		if j.Score != want || j.Correct != (want == 1) {
			t.Errorf("%s: correct %v score %v, want score %v", j.QuestionID, j.Correct, j.Score, want)
		}
		sum += j.Score
	}
	if mean := 100 * sum / 3; mean != 50 {
		t.Errorf("mean %v, want 50", mean)
	}
	t.Logf("logged scores %v %v %v, mean %.2f", valid[0].Score, valid[1].Score, valid[2].Score, 100*sum/3)
}
