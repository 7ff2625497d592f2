package runlog

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Kept returns what was written since Keep, in order, with the file's size
// at Keep; and refuses (ok false) whenever the file may hold anything else.
func TestKeptIsWhatTheFileHolds(t *testing.T) {
	open := func(t *testing.T, pre string) (*Appender, string) {
		path := filepath.Join(t.TempDir(), "costs.jsonl")
		if err := os.WriteFile(path, []byte(pre), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := OpenAppender(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		if err := a.Keep(); err != nil {
			t.Fatal(err)
		}
		return a, path
	}
	recs := []CostRecord{{ConversationID: "a", Part: "build"}, {ConversationID: "b", QuestionID: "q1", Part: "answer"}}

	a, path := open(t, `{"conversation_id":"old"}`+"\n")
	if got, base, ok := KeptAs[CostRecord](a); !ok || got != nil || base != 26 {
		t.Fatalf("nothing written: %v %d %v, want nil 26 true", got, base, ok)
	}
	for _, r := range recs {
		if err := a.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	got, base, ok := KeptAs[CostRecord](a)
	if !ok || base != 26 || !reflect.DeepEqual(got, recs) {
		t.Fatalf("Kept = %+v %d %v, want %+v 26 true", got, base, ok, recs)
	}
	read, err := ReadJSONL[CostRecord](path)
	if err != nil || !reflect.DeepEqual(read[1:], recs) {
		t.Fatalf("the file holds %+v (%v), want the old line and %+v", read, err, recs)
	}
	if _, _, ok := KeptAs[Judgment](a); ok {
		t.Fatal("KeptAs of another type accepted")
	}

	t.Run("written by someone else", func(t *testing.T) {
		a, path := open(t, "")
		a.Write(recs[0])
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"conversation_id":"x"}` + "\n")
		f.Close()
		if _, _, ok := a.Kept(); ok {
			t.Fatal("Kept accepted a file another writer appended to")
		}
	})
	t.Run("raw lines", func(t *testing.T) {
		a, _ := open(t, "")
		a.Write(recs[0])
		a.WriteRaw([]byte(`{"conversation_id":"x"}` + "\n"))
		if _, _, ok := a.Kept(); ok {
			t.Fatal("Kept accepted lines written by WriteRaw")
		}
	})
	t.Run("over the bound", func(t *testing.T) {
		defer func(m int64) { keepMax = m }(keepMax)
		keepMax = 100
		a, path := open(t, "")
		for range 5 {
			a.Write(recs[1])
		}
		if _, _, ok := a.Kept(); ok {
			t.Fatal("Kept held more than keepMax bytes of records")
		}
		if read, _ := ReadJSONL[CostRecord](path); len(read) != 5 {
			t.Fatalf("the file holds %d records, want 5", len(read))
		}
	})
	t.Run("a judgment its reader refuses", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "judgments.jsonl")
		a, err := OpenAppender(path)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		a.Keep()
		a.Write(Judgment{QuestionID: "q", Judge: "llm", Score: 2})
		if _, _, ok := KeptAs[Judgment](a); ok {
			t.Fatal("KeptAs accepted a judgment whose Check fails")
		}
	})
}
