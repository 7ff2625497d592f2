package runlog

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/llm"
)

func TestTranscriptsAppendTornTailAndResume(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TranscriptsFile)
	w, err := OpenTranscripts(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			tr := Transcript{QuestionID: "q" + string(rune('a'+i)), Context: strings.Repeat("ctx ", 100),
				Answer: Call{Messages: []llm.Message{{Role: "user", Content: "hi"}}, Raw: "answer"}}
			if err := w.Write(tr); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	w.Close()
	// Any gzip reader reads the concatenated members as one stream.
	f, _ := os.Open(path)
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(all), "\n"); n != 20 {
		t.Fatalf("gzip stream has %d lines, want 20", n)
	}
	st, _ := os.Stat(path)
	full := st.Size()

	// Tear the last member in half: readers skip it, the writer cuts it.
	w, _ = OpenTranscripts(path)
	w.Write(Transcript{QuestionID: "torn", Context: strings.Repeat("x y ", 500)})
	w.Close()
	st, _ = os.Stat(path)
	if err := os.Truncate(path, full+(st.Size()-full)/2); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTranscripts(dir)
	if err != nil || len(got) != 20 {
		t.Fatalf("read with torn tail: %d records, %v", len(got), err)
	}
	w, err = OpenTranscripts(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() != full {
		t.Fatalf("torn member not cut: size %d, want %d", st.Size(), full)
	}
	// A re-answered question: the last record wins.
	w.Write(Transcript{QuestionID: "qa", Answer: Call{Raw: "second"}})
	w.Close()
	got, err = ReadTranscripts(dir)
	if err != nil || len(got) != 20 {
		t.Fatalf("after resume: %d records, %v", len(got), err)
	}
	for _, tr := range got {
		if tr.QuestionID == "qa" && tr.Answer.Raw != "second" {
			t.Fatalf("qa kept %q, want the last record", tr.Answer.Raw)
		}
	}

	// Damage in the middle is an error naming the file, not a silent cut.
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0xff
	b[len(b)/2+1] ^= 0xff
	os.WriteFile(path, b, 0o644)
	if _, err := ReadTranscripts(dir); err == nil || !strings.Contains(err.Error(), TranscriptsFile) {
		t.Fatalf("damaged member: err %v, want one naming the file", err)
	}
}

func TestTranscriptsMissingFileIsEmpty(t *testing.T) {
	got, err := ReadTranscripts(t.TempDir())
	if err != nil || len(got) != 0 {
		t.Fatalf("%v %v", got, err)
	}
}

// Judges added to a finished run append judge-only records; readers merge
// them into the question's transcript, a later call of one judge winning.
func TestTranscriptsMergeJudgesAddedLater(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenTranscripts(filepath.Join(dir, TranscriptsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []Transcript{
		{QuestionID: "q1", Context: "ctx1", Answer: Call{Raw: "a1"}, Judges: []JudgeCall{{Judge: "f1", Score: 0.5}}},
		{QuestionID: "q2", Context: "ctx2", Answer: Call{Raw: "a2"}, Judges: []JudgeCall{{Judge: "f1", Score: 1}}},
		JudgePart("q1", "c", "s", JudgeCall{Judge: "gpt", Correct: false, Call: Call{Raw: "first", Messages: []llm.Message{{Role: "user", Content: "judge q1"}}}}),
		JudgePart("q1", "c", "s", JudgeCall{Judge: "gpt", Correct: true, Call: Call{Raw: "second"}}),
		JudgePart("q1", "c", "s", JudgeCall{Judge: "human", Correct: true, Reason: "human grade"}),
		JudgePart("q3", "c", "s", JudgeCall{Judge: "gpt", Call: Call{Raw: "orphan"}}),
	} {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	txs, err := ReadTranscripts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(txs) != 3 {
		t.Fatalf("%d transcripts, want 3", len(txs))
	}
	q1 := txs[0]
	if q1.QuestionID != "q1" || q1.Context != "ctx1" || q1.Answer.Raw != "a1" || q1.Part != "" || len(q1.Judges) != 3 {
		t.Fatalf("q1 merged to %+v", q1)
	}
	if j := q1.Judges[1]; j.Judge != "gpt" || j.Raw != "second" || !j.Correct || q1.Judges[0].Judge != "f1" || q1.Judges[2].Judge != "human" {
		t.Errorf("q1 judges %+v", q1.Judges)
	}
	if len(txs[1].Judges) != 1 {
		t.Errorf("q2 judges %+v: another question's judge parts leaked in", txs[1].Judges)
	}
	if q3 := txs[2]; q3.Part != PartJudges || len(q3.Judges) != 1 || q3.Judges[0].Raw != "orphan" {
		t.Errorf("q3 (judge part only) read as %+v", q3)
	}
}
