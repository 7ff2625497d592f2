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
