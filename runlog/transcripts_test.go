package runlog

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench"
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
				Answer: Call{Messages: []membench.Message{{Role: "user", Content: "hi"}}, Raw: "answer"}}
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
	got, err := readTranscripts(dir)
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
	got, err = readTranscripts(dir)
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
	if _, err := readTranscripts(dir); err == nil || !strings.Contains(err.Error(), TranscriptsFile) {
		t.Fatalf("damaged member: err %v, want one naming the file", err)
	}
}

func TestTranscriptsMissingFileIsEmpty(t *testing.T) {
	got, err := readTranscripts(t.TempDir())
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
		JudgePart("q1", "c", "s", JudgeCall{Judge: "gpt", Correct: false, Call: Call{Raw: "first", Messages: []membench.Message{{Role: "user", Content: "judge q1"}}}}),
		JudgePart("q1", "c", "s", JudgeCall{Judge: "gpt", Correct: true, Call: Call{Raw: "second"}}),
		JudgePart("q1", "c", "s", JudgeCall{Judge: "human", Correct: true, Reason: "human grade"}),
		JudgePart("q3", "c", "s", JudgeCall{Judge: "gpt", Call: Call{Raw: "orphan"}}),
	} {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	txs, err := readTranscripts(dir)
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

// The index of a transcripts file comes from its gzip headers, agrees with
// inflating the file (old files without heads are inflated), and reading
// a few questions at their offsets gives what reading the whole file gives.
func TestTranscriptIndexAndReadAt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TranscriptsFile)
	w, err := OpenTranscripts(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Transcript
	for i := 0; i < 30; i++ {
		tr := Transcript{QuestionID: fmt.Sprintf("q%02d", i%25), Context: strings.Repeat(fmt.Sprintf("turn %d ", i), 50*i), RetrieveSeconds: float64(i),
			Answer: Call{Raw: fmt.Sprint("answer ", i), Seconds: 0.5}, Judges: []JudgeCall{{Judge: "f1", Score: 0.1 * float64(i%10), Call: Call{Seconds: 0.01}}}}
		if i >= 25 {
			tr = JudgePart(tr.QuestionID, "c", "s", JudgeCall{Judge: "gpt", Correct: true, Call: Call{Raw: fmt.Sprint("verdict ", i), Seconds: 1.5}})
		}
		recs = append(recs, tr)
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	heads, err := IndexTranscripts(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	var end int64
	for i, h := range heads {
		if h.Offset != end || h.QuestionID != recs[i].QuestionID || h.Part != recs[i].Part || h.Retrieve != recs[i].RetrieveSeconds || len(h.Judges) != 1 {
			t.Fatalf("head %d: %+v for record %s", i, h, recs[i].QuestionID)
		}
		end += h.Length
	}
	if len(heads) != 30 || end != st.Size() {
		t.Fatalf("%d heads ending at byte %d of %d", len(heads), end, st.Size())
	}
	// Inflating the file (as for a file written before heads) gives the
	// same index.
	scanned, err := scanHeads(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(scanned, heads) {
		t.Fatalf("scanned index differs:\n%+v\n%+v", scanned[0], heads[0])
	}
	// A few questions read at their offsets equal the whole file's.
	all, err := readTranscripts(dir)
	if err != nil {
		t.Fatal(err)
	}
	var some []TranscriptHead
	for _, h := range heads {
		if h.QuestionID == "q01" || h.QuestionID == "q07" || h.QuestionID == "q20" {
			some = append(some, h)
		}
	}
	got, err := ReadTranscriptsAt(dir, some)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !reflect.DeepEqual(got[0], all[1]) || !reflect.DeepEqual(got[1], all[7]) || !reflect.DeepEqual(got[2], all[20]) {
		t.Fatalf("read at offsets: %+v", got)
	}
	if len(got[0].Judges) != 2 || got[0].Judges[1].Raw != "verdict 26" {
		t.Fatalf("q01's added judge not merged: %+v", got[0].Judges)
	}
	// A torn last member is left out of the index.
	if err := os.Truncate(path, st.Size()-5); err != nil {
		t.Fatal(err)
	}
	if heads, err = IndexTranscripts(dir); err != nil || len(heads) != 29 {
		t.Fatalf("torn file: %d heads, %v", len(heads), err)
	}
}

// A file written before heads existed (plain gzip members) is indexed by
// inflating it.
func TestTranscriptIndexWithoutHeads(t *testing.T) {
	dir := t.TempDir()
	var file bytes.Buffer
	var ends []int64
	for i := 0; i < 3; i++ {
		zw := gzip.NewWriter(&file)
		fmt.Fprintf(zw, `{"question_id":"q%d","context":"c","retrieve_seconds":%d,"answer":{"raw":"a","seconds":0.5}}`+"\n", i, i)
		zw.Close()
		ends = append(ends, int64(file.Len()))
	}
	if err := os.WriteFile(filepath.Join(dir, TranscriptsFile), file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	heads, err := IndexTranscripts(dir)
	if err != nil || len(heads) != 3 {
		t.Fatalf("%d heads, %v", len(heads), err)
	}
	for i, h := range heads {
		if h.QuestionID != fmt.Sprintf("q%d", i) || h.Offset+h.Length != ends[i] || h.Retrieve != float64(i) || h.Answer != 0.5 {
			t.Errorf("head %d: %+v", i, h)
		}
	}
	got, err := ReadTranscriptsAt(dir, heads[1:2])
	if err != nil || len(got) != 1 || got[0].QuestionID != "q1" {
		t.Fatalf("read at offset: %+v %v", got, err)
	}
}

// Members below and above storedMax (stored and deflated) read back
// whole, by heads and by inflating the file with compress/gzip.
func TestTranscriptsSmallAndLargeMembers(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenTranscripts(filepath.Join(dir, TranscriptsFile))
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("she went to the support group on 7 May 2023 and painted a sunrise with Melanie after the race")
	var want []Transcript
	for i, n := range []int{0, 30, 900, storedMax / 8, storedMax/5 - 40, storedMax / 5, storedMax - 400, storedMax, 60000, 400000} {
		var ctx strings.Builder
		for j := 0; ctx.Len() < n; j++ {
			ctx.WriteString(words[(j*7+i)%len(words)])
			ctx.WriteByte(' ')
		}
		tr := Transcript{QuestionID: fmt.Sprintf("q%d", i), Context: ctx.String(),
			Answer: Call{Messages: []membench.Message{{Role: "user", Content: "Memories:\n" + ctx.String() + "\nQuestion?"}}, Raw: "answer"}}
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
		want = append(want, tr)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	heads, err := IndexTranscripts(dir)
	if err != nil || len(heads) != len(want) {
		t.Fatalf("IndexTranscripts: %d heads, %v; want %d", len(heads), err, len(want))
	}
	got, err := ReadTranscriptsAt(dir, heads)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].QuestionID != want[i].QuestionID || got[i].Context != want[i].Context ||
			!reflect.DeepEqual(got[i].AnswerMessages(), want[i].Answer.Messages) {
			t.Fatalf("transcript %s (%d bytes of context) did not read back whole", want[i].QuestionID, len(want[i].Context))
		}
	}
	f, err := os.Open(filepath.Join(dir, TranscriptsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	if err != nil || bytes.Count(all, []byte("\n")) != len(want) {
		t.Fatalf("compress/gzip read %d lines (%v), want %d", bytes.Count(all, []byte("\n")), err, len(want))
	}
	// Up to storedMax a member holds its line verbatim (stored, which
	// saves the harness the deflate); above it the member is deflated.
	file, err := os.ReadFile(filepath.Join(dir, TranscriptsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(all, []byte("\n"))
	// Two members lie within 1 KB of the limit, one on each side (the
	// limit is on the JSON line, not the context).
	var under, over bool
	for _, l := range lines {
		under = under || (len(l) <= storedMax && len(l) > storedMax-1024)
		over = over || (len(l) > storedMax && len(l) <= storedMax+1024)
	}
	if !under || !over {
		t.Fatalf("no member within 1 KB of storedMax on each side (under %v, over %v)", under, over)
	}
	for i, h := range heads {
		member, line := file[h.Offset:h.Offset+h.Length], lines[i]
		stored := bytes.Contains(member, line)
		if want := len(line) <= storedMax; stored != want {
			t.Errorf("member %s (%d bytes of JSON): stored %v, want %v", h.QuestionID, len(line), stored, want)
		}
		if len(line) > storedMax && len(member) >= len(line)/2 {
			t.Errorf("member %s: %d bytes for %d of JSON, not deflated", h.QuestionID, len(member), len(line))
		}
	}
}

// readTranscripts reads every transcript of dir as the viewer reads a few
// (runlogtest.Transcripts, which this package's tests cannot import).
func readTranscripts(dir string) ([]Transcript, error) {
	heads, err := IndexTranscripts(dir)
	if err != nil || len(heads) == 0 {
		return nil, err
	}
	return ReadTranscriptsAt(dir, heads)
}
