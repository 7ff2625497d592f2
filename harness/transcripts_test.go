package harness_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// Every answered question has a transcript holding what the answer model
// read (the context whose hash answers.jsonl logs), its raw reply, and each
// judge's verdict, with the request for model judges.
func TestTranscriptsHoldWhatTheModelsRead(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-rerank")
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		t.Fatal(err)
	}
	trs, err := runlogtest.Transcripts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != len(answers) || len(trs) == 0 {
		t.Fatalf("%d transcripts for %d answers", len(trs), len(answers))
	}
	by := map[string]runlog.Transcript{}
	for _, tr := range trs {
		by[tr.QuestionID] = tr
	}
	cands := 0
	for _, a := range answers {
		tr, ok := by[a.QuestionID]
		if !ok {
			t.Fatalf("no transcript for %s", a.QuestionID)
		}
		if llm.HashText(tr.Context) != a.ContextSHA256 {
			t.Fatalf("%s: transcript context is not the context the answer logged", a.QuestionID)
		}
		// The stored request holds the context once; restored, it is the
		// request whose hash answers.jsonl logged.
		msgs := tr.AnswerMessages()
		if strings.TrimSpace(tr.Answer.Raw) != a.Prediction || len(msgs) == 0 || llm.HashMessages(msgs) != a.PromptSHA256 {
			t.Fatalf("%s: answer call %+v does not match the answer record", a.QuestionID, tr.Answer)
		}
		if tr.Context != "" && (!strings.Contains(msgs[len(msgs)-1].Content, tr.Context) || strings.Contains(tr.Answer.Messages[len(msgs)-1].Content, tr.Context)) {
			t.Fatalf("%s: the context is not stored once in the answer request", a.QuestionID)
		}
		for _, it := range tr.Items {
			if it.Text == "" || len(it.Sources) == 0 {
				t.Fatalf("%s: item without text or sources: %+v", a.QuestionID, it)
			}
		}
		cands += len(tr.Candidates)
		if len(tr.Judges) != len(plan.DefaultJudges("offline")) {
			t.Fatalf("%s: %d judges in the transcript", a.QuestionID, len(tr.Judges))
		}
		for _, j := range tr.Judges {
			model := j.Judge == "llm"
			if model != (len(j.Messages) > 0) || model != (j.Raw != "") {
				t.Fatalf("%s: judge %s: request/reply %v/%q", a.QuestionID, j.Judge, j.Messages != nil, j.Raw)
			}
		}
	}
	if cands == 0 {
		t.Fatal("turns-rerank logged no candidates in its transcripts")
	}
}

func TestNoTranscripts(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	cfg.NoTranscripts = true
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(harnesstest.Dir(t, cfg), runlog.TranscriptsFile)); !os.IsNotExist(err) {
		t.Fatalf("transcripts written with NoTranscripts: %v", err)
	}
}
