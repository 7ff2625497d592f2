package harness_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog/runlogtest"
	_ "github.com/membench/membench/systems/all"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
)

// An interrupted write leaves a last line without its newline. The resumed
// run must not glue its first new line onto it, or the file stays corrupt
// (and every later run and summary fails on it).
func TestResumeAfterTornLastLineKeepsFilesReadable(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	for _, f := range []string{runlog.AnswersFile, runlog.JudgmentsFile} {
		lines := readLines(t, filepath.Join(dir, f))
		keep := strings.Join(lines[:len(lines)-4], "\n") + "\n" + lines[len(lines)-4][:20] // torn
		if err := os.WriteFile(filepath.Join(dir, f), []byte(keep), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := len(readLines(t, filepath.Join(dir, runlog.AnswersFile))) + 3 // torn line counted by readLines
	for i := 0; i < 2; i++ {
		if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
			t.Fatalf("rerun %d after a torn line: %v", i+1, err)
		}
	}
	ans, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(ans) != want {
		t.Fatalf("answers after resume = %d, want %d", len(ans), want)
	}
	for _, f := range []string{runlog.AnswersFile, runlog.JudgmentsFile} {
		for i, l := range readLines(t, filepath.Join(dir, f)) {
			if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") || strings.Count(l, `"question_id"`) != 1 {
				t.Fatalf("%s line %d is not one record: %.120s", f, i+1, l)
			}
		}
	}
}

// The run id hashes the data file's content, so an edited file starts a
// new run; under a fixed --run-id, resuming after the content changed
// would mix two datasets in one run and is refused.
func TestResumeRefusesChangedDataOrPromptFile(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "datasets", "sample", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	data := filepath.Join(tmp, "conv.json")
	os.WriteFile(data, src, 0o644)
	cfg := harnesstest.Config(t, "turns-cosine")
	cfg.Dataset, cfg.Data = "locomo", data
	first, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(data, []byte(strings.Replace(string(src), "Biscuit", "Pancake", 1)), 0o644)
	edited, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil || edited.RunID == first.RunID {
		t.Fatalf("an edited data file: run %v (err %v), want a new run beside %s", edited, err, first.RunID)
	}
	cfg.RunID = first.RunID
	_, err = harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--data") || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("resume on an edited dataset file: want a refusal naming --data, got %v", err)
	}
	os.WriteFile(data, src, 0o644)
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatalf("restored file must resume: %v", err)
	}
}

func TestResumeRefusesChangedJudgePromptFile(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "prompts", "templates", "judge.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "judge.tmpl")
	os.WriteFile(file, src, 0o644)
	cfg := harnesstest.Config(t, "turns-cosine")
	cfg.JudgePrompt = file
	// A model judge reads the prompt file; here one on the offline backend,
	// named for what it is.
	cfg.Judges = []string{"heuristic=offline", "f1"}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, append(src, []byte("{{/* edited */}}")...), 0o644)
	_, err = harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "prompt") || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("resume after the judge prompt file changed: want a refusal, got %v", err)
	}
}

// The embedder is part of the run id; a run resumed under its id (here:
// a manifest edited as if another embedder had been used) must not change
// it mid-run.
func TestResumeRefusesAnotherEmbedder(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(harnesstest.Dir(t, cfg), runlog.ManifestFile)
	b, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["embedder"] = "use-lite" // as if the first attempt had the model installed
	b, _ = json.Marshal(m)
	os.WriteFile(path, b, 0o644)
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--embedder") {
		t.Fatalf("resume with another embedder: want a refusal naming --embedder, got %v", err)
	}
}

// A run started by an older membench whose system defaults differed (the
// config hash leaves defaults out) must not be finished with the new ones.
func TestResumeRefusesChangedSystemDefaults(t *testing.T) {
	cfg := harnesstest.Config(t, "structmem")
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(harnesstest.Dir(t, cfg), runlog.ManifestFile)
	b, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	opts := m["system_options"].(map[string]any)
	if opts["anchor"] != "utterance" {
		t.Fatalf("structmem's default anchor is %v, want utterance", opts["anchor"])
	}
	opts["anchor"] = "session" // the default of membench before the utterance clock
	b, _ = json.Marshal(m)
	os.WriteFile(path, b, 0o644)
	_, err := harness.Run(context.Background(), cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `anchor="session"`) {
		t.Fatalf("resume under changed defaults: want a refusal naming anchor, got %v", err)
	}
}

func TestRerunResumesWithoutRedoingWork(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	first, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	// Simulate an interruption: drop the last three answers and one judgment line.
	ans := readLines(t, filepath.Join(dir, runlog.AnswersFile))
	writeLines(t, filepath.Join(dir, runlog.AnswersFile), ans[:len(ans)-3])
	js := readLines(t, filepath.Join(dir, runlog.JudgmentsFile))
	writeLines(t, filepath.Join(dir, runlog.JudgmentsFile), js[:len(js)-1])

	second, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(readLines(t, filepath.Join(dir, runlog.AnswersFile))); got != len(ans) {
		t.Fatalf("after resume answers = %d, want %d (only the 3 missing re-answered)", got, len(ans))
	}
	if first.Overall.Scores["f1"] != second.Overall.Scores["f1"] {
		t.Fatalf("deterministic offline run changed on resume: %v vs %v", first.Overall.Scores, second.Overall.Scores)
	}
	// A third run has nothing to do and writes no new answers.
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := len(readLines(t, filepath.Join(dir, runlog.AnswersFile))); got != len(ans) {
		t.Fatalf("idle rerun appended answers: %d", got)
	}
	judged, _ := runlogtest.Judgments(dir)
	seen := map[string]bool{}
	for _, j := range judged {
		seen[j.QuestionID+"|"+j.Judge] = true
	}
	if len(seen) != len(ans)*len(plan.DefaultJudges("offline")) {
		t.Fatalf("distinct judgments %d, want %d", len(seen), len(ans)*len(plan.DefaultJudges("offline")))
	}
}
