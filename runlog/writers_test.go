package runlog

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/testutil"
)

// Tests and benchmarks of the run writers (transcripts, appenders).

// hashText is a sha256 as the records carry them (llm.HashText).
func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// benchTranscript is a transcript shaped like a turns-cosine one on LoCoMo:
// ten real turns (or, without the file, ten made-up ones of that length),
// their rendered context, an answer prompt and an llm-judge call.
func benchTranscript(b *testing.B) Transcript {
	var texts []string
	if path, ok := testutil.SharedPath("datasets", "locomo10.json"); ok {
		d, err := locomo.Load(path, datasets.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range d.Conversations[0].AllTurns()[40:50] {
			texts = append(texts, t.Text)
		}
	} else {
		for i := range 10 {
			texts = append(texts, strings.Repeat(fmt.Sprintf("word%d and some talk about day %d, ", i*7, i), 4))
		}
	}
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var items []membench.Item
	var lines []string
	for i, s := range texts {
		id := fmt.Sprintf("D1:%d", i+1)
		items = append(items, membench.Item{ID: id, Kind: "turn", Text: s, Time: at, Speaker: "Caroline", Sources: []string{id}, Score: 0.5})
		lines = append(lines, "[2023-05-08 13:56] Caroline: "+s)
	}
	ctx := strings.Join(lines, "\n")
	return Transcript{
		QuestionID: "conv-26:q17", ConversationID: "conv-26", System: "turns-cosine",
		Items: items, Context: ctx, ContextTokens: 400, RetrieveSeconds: 0.001,
		Answer: Call{Messages: []membench.Message{{Role: "system", Content: "You answer questions about a conversation from memories."},
			{Role: "user", Content: "Memories:\n" + ctx + "\n\nQuestion: When did Caroline go to the support group?\nAnswer:"}},
			Raw: "7 May 2023", Usage: membench.Usage{InputTokens: 450, OutputTokens: 5}, Seconds: 0.25},
		Judges: []JudgeCall{{Judge: "llm", Correct: true, Score: 1, Call: Call{Messages: []membench.Message{{Role: "user",
			Content: "Question: When did Caroline go to the support group?\nGold: 7 May 2023\nPrediction: 7 May 2023\nReply in JSON."}},
			Raw: `{"correct": true}`, Usage: membench.Usage{InputTokens: 80, OutputTokens: 5}, Seconds: 0.25}}},
	}
}

// BenchmarkTranscriptWrite is the per-question cost of appending a
// transcript (JSON, one gzip member, one write).
func BenchmarkTranscriptWrite(b *testing.B) {
	tr := benchTranscript(b)
	w, err := OpenTranscripts(filepath.Join(b.TempDir(), TranscriptsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		if err := w.Write(tr); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time, not wall: on a shared machine the wall time moves with the
	// neighbours' load.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A written member inflates to exactly json.Marshal's bytes and a newline
// (what the writer wrote before it encoded into the compressor), for many
// transcripts written at once through the shared writers.
func TestTranscriptMemberIsMarshalOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), TranscriptsFile)
	w, err := OpenTranscripts(path)
	if err != nil {
		t.Fatal(err)
	}
	trs := make([]Transcript, 40)
	for i := range trs {
		trs[i] = Transcript{QuestionID: fmt.Sprint("q", i), Context: strings.Repeat(fmt.Sprint("<ctx> & ", i), 10*i+1),
			Answer: Call{Messages: []membench.Message{{Role: "user", Content: "Memories:\n" + strings.Repeat(fmt.Sprint("<ctx> & ", i), 10*i+1) + "\nQ?"}}, Raw: "é\u2028"}}
	}
	var wg sync.WaitGroup
	for i := range trs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Write(trs[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	w.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // members concatenate
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(all), "\n")
	if len(lines) != len(trs)+1 || lines[len(trs)] != "" {
		t.Fatalf("%d lines (want %d, each ending in a newline)", len(lines)-1, len(trs))
	}
	got := map[string]bool{}
	for _, l := range lines[:len(trs)] {
		got[l] = true
	}
	for _, tr := range trs {
		b, _ := json.Marshal(tr.compact())
		if !got[string(b)] {
			t.Fatalf("%s: no member holds json.Marshal's bytes %q", tr.QuestionID, b)
		}
	}
}

// Appender lines are json.Marshal's bytes and a newline, as they were when
// the Appender marshalled and flushed a bufio.Writer.
func TestAppenderLinesAreMarshalOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), AnswersFile)
	a, err := OpenAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := []any{
		AnswerRecord{QuestionID: "q1", Question: "<b>&é\u2028?", Prediction: "7 May 2023", Usage: membench.Usage{InputTokens: 3}},
		Judgment{QuestionID: "q1", Judge: "llm", Correct: true, Score: 1, Reason: "\"quoted\"\n"},
		map[string]any{"x": []int{1, 2}, "y": nil},
	}
	var want []byte
	for _, r := range recs {
		if err := a.Write(r); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		want = append(append(want, b...), '\n')
	}
	if err := a.WriteRaw([]byte("{\"raw\":1}\n")); err != nil {
		t.Fatal(err)
	}
	want = append(want, "{\"raw\":1}\n"...)
	a.Close()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("file holds\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkAppenderWrite is the per-record cost of appending a retrieval
// line shaped like a turns-cosine one on LoCoMo (JSON and one write).
func BenchmarkAppenderWrite(b *testing.B) {
	tr := benchTranscript(b)
	var refs []membench.ItemRef
	for _, it := range tr.Items {
		refs = append(refs, membench.ItemRef{ID: it.ID, Kind: it.Kind, Sources: it.Sources, Score: it.Score})
	}
	rec := RetrievalRecord{QuestionID: tr.QuestionID, ConversationID: tr.ConversationID, System: tr.System, K: 10, Tokens: 400,
		Items: refs, Evidence: []string{"D1:3"}, EvidenceHit: 1, ContextSHA256: hashText(tr.Context), Seconds: 0.0012}
	a, err := OpenAppender(filepath.Join(b.TempDir(), RetrievalsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		if err := a.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
