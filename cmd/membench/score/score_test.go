package score

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/scoring"
)

func TestScoreWithOptions(t *testing.T) {
	dir := t.TempDir()
	preds := filepath.Join(dir, "mine.jsonl")
	if err := os.WriteFile(preds, []byte(`{"question_id": "sample-1:0", "prediction": "x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := &Options{
		Score: scoring.Config{Config: membench.Config{Dataset: "sample", Judges: []string{"f1"}, Host: membench.Host{Home: dir}}, Predictions: preds, Out: filepath.Join(dir, "out")},
		Out:   &out,
	}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"have no prediction", "wrote " + o.Score.Out} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(o.Score.Out, runlog.JudgmentsFile)); err != nil {
		t.Error(err)
	}
	o.Score.Out = ""
	if err := Run(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("no --out: err %v, want exit 2", err)
	}
	o.Score.Out, o.LLM = filepath.Join(dir, "out2"), "nope"
	if err := Run(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("--llm nope: err %v, want exit 2", err)
	}
}
