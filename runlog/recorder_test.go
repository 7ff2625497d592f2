package runlog

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
)

// The recorder commits each piece of work after the cost line it rests
// on, and never a result whose cost line could not be written: a kill or
// a failed write between the two leaves the cost counted as redone work,
// never a result without its cost.
func TestRecorderCommitsCostsBeforeResults(t *testing.T) {
	dir := t.TempDir()
	rec, err := OpenRecorder(dir, "turns-cosine")
	if err != nil {
		t.Fatal(err)
	}
	calls := []membench.Tally{{Role: "answer", Stage: membench.StageAnswer, Calls: 1, InputTokens: 40, Seconds: 0.5}}
	build := []membench.Tally{{Role: "build", Stage: membench.StageBuild, Calls: 3, InputTokens: 300, Seconds: 1}}
	if err := rec.Build([]byte(`{"conversation_id":"c1","entry":"x"}`+"\n"), build, "att1", BuildRecord{ConversationID: "c1", System: "turns-cosine", Calls: 3}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Retrieval(RetrievalRecord{QuestionID: "q1", ConversationID: "c1", System: "turns-cosine"}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Answer(calls, AnswerRecord{QuestionID: "q1", ConversationID: "c1", System: "turns-cosine", Group: "all"}); err != nil {
		t.Fatal(err)
	}
	// An offline metric makes no calls: no cost line.
	if err := rec.Judgment("c1", nil, Judgment{QuestionID: "q1", System: "turns-cosine", Judge: "f1", Score: 0.5}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Judgment("c1", calls, Judgment{QuestionID: "q1", System: "turns-cosine", Judge: "llm", Score: 1, Correct: true}); err != nil {
		t.Fatal(err)
	}
	// A cost line that cannot be written (seconds not a number) keeps its
	// answer out of the file too.
	bad := []membench.Tally{{Role: "answer", Stage: membench.StageAnswer, Calls: 1, Seconds: math.NaN()}}
	if err := rec.Answer(bad, AnswerRecord{QuestionID: "q2", ConversationID: "c1", System: "turns-cosine", Group: "all"}); err == nil {
		t.Fatal("an answer whose cost line failed was committed")
	}
	if err := rec.Failure(Failure{QuestionID: "q2", ConversationID: "c1", System: "turns-cosine", Stage: "answer", Reason: "no reply"}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	costs, err := ReadJSONL[CostRecord](filepath.Join(dir, CostsFile))
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, c := range costs {
		parts = append(parts, c.Part)
		if c.System != "turns-cosine" || c.ConversationID != "c1" || c.At.IsZero() {
			t.Errorf("cost line %+v: want the system, conversation and time filled", c)
		}
	}
	if got := strings.Join(parts, ","); got != "build,answer,judge:llm" {
		t.Errorf("cost lines for %s, want build,answer,judge:llm", got)
	}
	if costs[0].Attempt != "att1" {
		t.Errorf("build cost line attempt %q, want att1", costs[0].Attempt)
	}
	answers, _ := ReadJSONL[AnswerRecord](filepath.Join(dir, AnswersFile))
	if len(answers) != 1 || answers[0].QuestionID != "q1" {
		t.Errorf("answers %+v, want q1 alone", answers)
	}
	js, _ := ReadJSONL[Judgment](filepath.Join(dir, JudgmentsFile))
	fails, _ := ReadJSONL[Failure](filepath.Join(dir, FailuresFile))
	builds, _ := ReadJSONL[BuildRecord](filepath.Join(dir, BuildFile))
	if len(js) != 2 || len(fails) != 1 || len(builds) != 1 {
		t.Errorf("%d judgments, %d failures, %d builds; want 2, 1, 1", len(js), len(fails), len(builds))
	}
	if b, err := os.ReadFile(filepath.Join(dir, MemoryFile)); err != nil || !strings.Contains(string(b), `"entry":"x"`) {
		t.Errorf("memory dump %q (%v)", b, err)
	}
	// No transcripts unless started.
	if _, err := os.Stat(filepath.Join(dir, TranscriptsFile)); !os.IsNotExist(err) {
		t.Errorf("transcripts written without StartTranscripts: %v", err)
	}
}
