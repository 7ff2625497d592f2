package runlog

import (
	"bufio"
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

	"github.com/membench/membench/datasets"
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
		d, err := datasets.LoadLoCoMo(path, datasets.LoadOptions{})
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
	var items []Item
	var lines []string
	for i, s := range texts {
		id := fmt.Sprintf("D1:%d", i+1)
		items = append(items, Item{ID: id, Kind: "turn", Text: s, Time: at, Speaker: "Caroline", Sources: []string{id}, Score: 0.5})
		lines = append(lines, "[2023-05-08 13:56] Caroline: "+s)
	}
	ctx := strings.Join(lines, "\n")
	return Transcript{
		QuestionID: "conv-26:q17", ConversationID: "conv-26", System: "turns-cosine",
		Items: items, Context: ctx, ContextTokens: 400, RetrieveSeconds: 0.001,
		Answer: Call{Messages: []Message{{Role: "system", Content: "You answer questions about a conversation from memories."},
			{Role: "user", Content: "Memories:\n" + ctx + "\n\nQuestion: When did Caroline go to the support group?\nAnswer:"}},
			Raw: "7 May 2023", Usage: Usage{InputTokens: 450, OutputTokens: 5}, Seconds: 0.25},
		Judges: []JudgeCall{{Judge: "llm", Correct: true, Score: 1, Call: Call{Messages: []Message{{Role: "user",
			Content: "Question: When did Caroline go to the support group?\nGold: 7 May 2023\nPrediction: 7 May 2023\nReply in JSON."}},
			Raw: `{"correct": true}`, Usage: Usage{InputTokens: 80, OutputTokens: 5}, Seconds: 0.25}}},
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
			Answer: Call{Messages: []Message{{Role: "user", Content: "Memories:\n" + strings.Repeat(fmt.Sprint("<ctx> & ", i), 10*i+1) + "\nQ?"}}, Raw: "é\u2028"}}
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
		AnswerRecord{QuestionID: "q1", Question: "<b>&é\u2028?", Prediction: "7 May 2023", Usage: Usage{InputTokens: 3}},
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

// Every line the writers make is json.Marshal's bytes (and a newline) for
// records shaped like a real run's, built from every LoCoMo question and
// turn: real text (quotes, <>&, non-ASCII), times, floats of every
// magnitude and notes maps (the replies tape is llm's: TestTapeLinesEqualMarshal). The writers encode the
// per-question records by hand (records_json.go, internal/jsonenc); this
// is what holds them to encoding/json's bytes on real text.
func TestRecordLinesEqualMarshalOnLoCoMo(t *testing.T) {
	path, ok := testutil.SharedPath("datasets", "locomo10.json")
	if !ok {
		t.Skipf("LoCoMo not found at %s: this test needs the real file", path)
	}
	d, err := datasets.LoadLoCoMo(path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	floats := []float64{0, 1, -1, 0.1, 1.0 / 3, 2.5e-7, 1e-6, 123456789.125, 1e20, 1e21, 3.4e38, 5e-324, -0.000001234}
	var recs []any
	var trs []Transcript
	for ci, c := range d.Conversations {
		turns := c.AllTurns()
		for qi, q := range c.Questions {
			f := func(i int) float64 { return floats[(ci*31+qi*7+i)%len(floats)] }
			var items []Item
			var refs []ItemRef
			for i := range 10 {
				tn := turns[(qi*13+i*7)%len(turns)]
				it := Item{ID: tn.ID, Kind: "turn", Text: tn.Text, Time: tn.Time, Speaker: tn.Speaker, Sources: []string{tn.ID}, Score: f(i)}
				if i%4 == 3 {
					it.Time = time.Time{}
					it.Sources = nil
				}
				items = append(items, it)
				refs = append(refs, ItemRef{ID: it.ID, Kind: it.Kind, Sources: it.Sources, Score: it.Score})
			}
			notes := map[string]any{"rho": f(1), "fallback": qi%2 == 0, "picked": []any{"b", 2.5, nil}, "z": map[string]any{"y": "<&>", "a": f(2)}}
			if qi%3 == 0 {
				notes = nil
			}
			tally := []Tally{{Role: "answer", Stage: StageAnswer, Calls: 1, InputTokens: qi, OutputTokens: 3, Seconds: f(3)},
				{Role: "judge", Stage: StageJudge, Label: "llm", Calls: 1, CachedCalls: qi % 2, Seconds: f(4)}}
			at := time.Date(2026, 11, 30, 18, qi%60, ci, qi*1000+7, time.UTC)
			recs = append(recs,
				RetrievalRecord{QuestionID: q.ID, ConversationID: c.ID, System: "turns-cosine", K: 10, Tokens: 400 + qi, Items: refs, Candidates: refs[:qi%3],
					Evidence: q.Evidence, EvidenceHit: qi % 2, ContextSHA256: hashText(q.Text), Seconds: f(5), Notes: notes},
				AnswerRecord{QuestionID: q.ID, ConversationID: c.ID, System: "turns-cosine", Category: q.Category, Type: q.Type, Abstention: q.Abstains(),
					Question: q.Text, Gold: q.Gold, Prediction: turns[qi%len(turns)].Text, ContextTokens: 400, Usage: Usage{InputTokens: 450, OutputTokens: 5},
					Cached: qi%5 == 0, ContextSHA256: hashText(q.Gold), PromptSHA256: hashText(q.ID)},
				CostRecord{ConversationID: c.ID, System: "turns-cosine", QuestionID: q.ID, Part: "judge:llm", At: at, Tallies: tally},
				Judgment{QuestionID: q.ID, System: "turns-cosine", Judge: "llm", Correct: qi%2 == 0, Score: f(6), Reason: q.Gold, Raw: `{"correct": true, "reason": "` + q.Text + `"}` + strings.Repeat("\xff\xc3", qi%2)},
				CostRecord{ConversationID: c.ID, System: "turns-cosine", At: at.In(time.FixedZone("", -5*3600)), Tallies: tally[:qi%3], Attempt: q.ID, Partial: qi%2 == 1, Redone: qi%3 == 1},
				Judgment{QuestionID: q.ID, System: "turns-cosine", Judge: "llm", Raw: turns[(qi+1)%len(turns)].Text, Invalid: true},
			)
			ctx := ""
			for _, it := range items {
				ctx += "[" + it.Time.Format("2006-01-02 15:04") + "] " + it.Speaker + ": " + it.Text + "\n"
			}
			trs = append(trs, Transcript{QuestionID: q.ID, ConversationID: c.ID, System: "turns-cosine", Items: items, Candidates: items[:qi%4], Notes: notes,
				Context: ctx, ContextTokens: 400, RetrieveSeconds: f(9),
				Answer: Call{Messages: []Message{{Role: "system", Content: "Answer from memories."}, {Role: "user", Content: "Memories:\n" + ctx + "\nQuestion: " + q.Text}},
					Raw: turns[qi%len(turns)].Text, Usage: Usage{InputTokens: 450, OutputTokens: 5}, Seconds: f(10)},
				Judges: []JudgeCall{{Judge: "llm", Correct: true, Score: 1, Reason: q.Gold, Call: Call{Messages: []Message{{Role: "user", Content: q.Text}}, Raw: "{}", Seconds: f(11)}},
					{Judge: "f1", Score: f(12)}}})
			if qi%4 == 0 {
				trs = append(trs, JudgePart(q.ID, c.ID, "turns-cosine", JudgeCall{Judge: "lenient", Score: f(13), Reason: q.Text,
					Call: Call{Messages: []Message{{Role: "user", Content: q.Text + "\n" + q.Gold}}, Raw: turns[qi%len(turns)].Text, Cached: true, Seconds: f(14)}}))
			}
		}
		recs = append(recs, BuildRecord{ConversationID: c.ID, System: "turns-cosine", Turns: len(turns), Seconds: floats[ci%len(floats)], Started: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
			Stages: []Tally{{Role: "embedding", Stage: StageBuild, Label: "embedding", Calls: len(turns)}}})
	}
	dir := t.TempDir()
	a, err := OpenAppender(filepath.Join(dir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, r := range recs {
		if err := a.Write(r); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want = append(append(want, b...), '\n')
	}
	a.Close()
	got, err := os.ReadFile(filepath.Join(dir, "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte{'\n'}), bytes.Split(want, []byte{'\n'})
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("line %d differs from json.Marshal's:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%d lines, json.Marshal made %d", len(gl), len(wl))
	}
	// Transcripts: each member inflates to json.Marshal's line, and its
	// head is json.Marshal's too.
	w, err := OpenTranscripts(filepath.Join(dir, TranscriptsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trs {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, err := os.Open(filepath.Join(dir, TranscriptsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f) // members one by one (see gzip.Reader.Multistream)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	for i, tr := range trs {
		if i > 0 {
			if err := zr.Reset(br); err != nil {
				t.Fatal(err)
			}
			zr.Multistream(false)
		}
		line, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tr.compact())
		if !bytes.Equal(line, append(b, '\n')) {
			t.Fatalf("transcript %s: member holds\n %s\nwant json.Marshal's\n %s", tr.QuestionID, line, b)
		}
		h, _ := json.Marshal(tr.Head())
		if ex := zr.Header.Extra; len(ex) < 8 || !bytes.Equal(ex[8:], h) {
			t.Fatalf("transcript %s: head %q, want json.Marshal's %q", tr.QuestionID, ex, h)
		}
	}
	t.Logf("%d record lines and %d transcripts equal json.Marshal's bytes", len(recs), len(trs))
}

// BenchmarkAppenderWrite is the per-record cost of appending a retrieval
// line shaped like a turns-cosine one on LoCoMo (JSON and one write).
func BenchmarkAppenderWrite(b *testing.B) {
	tr := benchTranscript(b)
	var refs []ItemRef
	for _, it := range tr.Items {
		refs = append(refs, ItemRef{ID: it.ID, Kind: it.Kind, Sources: it.Sources, Score: it.Score})
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
