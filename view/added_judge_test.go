package view_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/rejudge"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/view"
)

// A judge added to a finished run (membench judge) and a human grade
// (membench grade) land in the run's transcripts, and view shows the added
// model judge's request and raw reply on the question page.
func TestViewShowsJudgesAddedLater(t *testing.T) {
	results := t.TempDir()
	dir := sampleRun(t, results, "turns-cosine")
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: fmt.Sprintf(`{"reason": "added-judge reason %d", "label": "CORRECT"}`, n)}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test-view")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	if _, _, err := rejudge.Run(context.Background(), dir, []string{"gpt=openai:gpt-4o-mini"}, rejudge.Options{Home: t.TempDir(), NoCache: true, Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := rejudge.Human([]string{dir}, strings.NewReader("w\nq\n"), &strings.Builder{}, rejudge.HumanOptions{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	b, err := view.Build([]string{dir}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.LoadTranscripts(); err != nil {
		t.Fatal(err)
	}
	var qid, raw string
	humans := 0
	for _, q := range b.Runs[0].Qs {
		calls := map[string]runlog.JudgeCall{}
		for _, j := range q.Tx.Judges {
			calls[j.Judge] = j
		}
		g, ok := calls["gpt"]
		if !ok || len(g.Messages) == 0 || !strings.Contains(g.Raw, "added-judge reason") || q.Tx.Context == "" && q.Tok > 0 {
			t.Fatalf("%s: transcript judges %+v", q.ID, q.Tx.Judges)
		}
		if q.V["gpt"].Raw != "" {
			t.Errorf("%s: the raw reply is sent twice (verdict and transcript)", q.ID)
		}
		if h, ok := calls["human"]; ok {
			humans++
			if h.Correct || h.Reason != "human grade" || q.V["human"].C != h.Correct {
				t.Errorf("%s: human grade in the transcript %+v, verdict %+v", q.ID, h, q.V["human"])
			}
		}
		if qid == "" {
			qid, raw = q.ID, g.Raw
		}
	}
	if humans != 1 {
		t.Errorf("%d transcripts carry the one human grade", humans)
	}

	exe := chromium(t)
	url := serve(t, dir)
	ctx, cancel := browser(t, exe)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"#/question/0/"+qid)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#verdicts tr.verdict[data-judge="gpt"]`)))
	row := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('#verdicts tr.verdict[data-judge="gpt"]').textContent`))
	if !strings.Contains(row, raw) || !strings.Contains(row, "user") {
		t.Fatalf("the added judge's row %q lacks its request or raw reply %q", row, raw)
	}
}
