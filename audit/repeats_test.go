package audit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm/llmtest"
)

// A judge with repeats=3 audited on a real HTTP server whose verdict
// follows the seed: each repeat is a judgment run of its own, and the
// rate is their mean.
func TestJudgedRepeats(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		// Repeat r accepts the answers numbered below r+1.
		rep := 0
		if r.Seed != nil {
			rep = *r.Seed
		}
		u := r.LastUser()
		at := strings.Index(u, "wrong answer ")
		if at < 0 {
			return llmtest.Reply{Text: "no answer in the prompt"}
		}
		var i int
		fmt.Sscanf(u[at+len("wrong answer "):], "%d", &i)
		if i < rep+1 {
			return llmtest.Reply{Text: "CORRECT"}
		}
		return llmtest.Reply{Text: "WRONG"}
	}))
	var lines []string
	for i := range 4 {
		lines = append(lines, fmt.Sprintf(`{"question_id": "q%d", "answer": "wrong answer %d", "question": "Q%d?", "gold": "g", "category": 4}`, i, i, i))
	}
	w, err := ParseWrong([]byte(strings.Join(lines, "\n")), "w.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	j, err := judge.Parse("name=rep,backend=openai,model=m,retries=-1,repeats=3,base-url="+srv.URL, judge.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	jr, err := Judged(context.Background(), w, j, 2)
	if err != nil {
		t.Fatal(err)
	}
	o := jr.Overall()
	if len(o.Runs) != 3 || srv.Count("/v1/chat/completions") != 12 {
		t.Fatalf("runs %+v, %d calls; want 3 runs of 4", o.Runs, srv.Count("/v1/chat/completions"))
	}
	for r, rc := range o.Runs {
		if rc.Judged != 4 || rc.Accepted != r+1 {
			t.Errorf("run %s: %d of %d accepted, want %d", rc.Run, rc.Accepted, rc.Judged, r+1)
		}
	}
	if want := (1.0 + 2 + 3) / 3 / 4; o.Rate != want {
		t.Errorf("rate %v, want %v (the mean of the runs)", o.Rate, want)
	}
}
