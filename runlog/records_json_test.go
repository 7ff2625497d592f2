package runlog

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/membench/membench/internal/jsonenc"
	"github.com/membench/membench/internal/jsonenc/jsonenctest"
)

// Every hand-encoded record type writes json.Marshal's bytes with every
// field set, with none, and with each alone: a field added to one of
// these types without teaching its AppendJSON fails here.
func TestRecordsJSONCoverEveryField(t *testing.T) {
	t.Run("ItemRef", jsonenctest.EveryField[ItemRef])
	t.Run("RetrievalRecord", jsonenctest.EveryField[RetrievalRecord])
	t.Run("CostRecord", jsonenctest.EveryField[CostRecord])
	t.Run("AnswerRecord", jsonenctest.EveryField[AnswerRecord])
	t.Run("Judgment", jsonenctest.EveryField[Judgment])
	t.Run("Transcript", jsonenctest.EveryField[Transcript])
	t.Run("Call", jsonenctest.EveryField[Call])
	t.Run("JudgeCall", jsonenctest.EveryField[JudgeCall])
	t.Run("TranscriptHead", jsonenctest.EveryField[TranscriptHead])
	t.Run("JudgeTime", jsonenctest.EveryField[JudgeTime])
}

// A record json.Marshal refuses (a NaN, a time outside RFC 3339) is
// refused with encoding/json's error, and nothing is written.
func TestAppenderRefusesWhatMarshalRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	a, err := OpenAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	nan := math.NaN()
	for _, r := range []any{
		Judgment{QuestionID: "q", Score: nan},
		CostRecord{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		CostRecord{Tallies: []Tally{{Seconds: math.Inf(1)}}},
		RetrievalRecord{Items: []ItemRef{{Score: nan}}},
		RetrievalRecord{Notes: map[string]any{"rho": nan}},
		Transcript{Items: []Item{{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		Transcript{Judges: []JudgeCall{{Call: Call{Seconds: nan}}}},
	} {
		_, want := json.Marshal(r)
		got := a.Write(r)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%T: Write error %v, json.Marshal's %v", r, got, want)
		}
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 0 {
		t.Fatalf("refused records left %d bytes (%v)", st.Size(), err)
	}
}

// BenchmarkRecordJSON is the encoding alone of each per-question record,
// shaped like a turns-cosine one on LoCoMo: hand (AppendJSON into a
// reused buffer) against marshal (json.Marshal, as before).
func BenchmarkRecordJSON(b *testing.B) {
	tr := benchTranscript(b)
	var refs []ItemRef
	for _, it := range tr.Items {
		refs = append(refs, ItemRef{ID: it.ID, Kind: it.Kind, Sources: it.Sources, Score: it.Score})
	}
	at := time.Date(2026, 11, 30, 23, 0, 0, 123456789, time.UTC)
	recs := []struct {
		name string
		v    jsonenc.Marshaler
	}{
		{"retrieval", RetrievalRecord{QuestionID: tr.QuestionID, ConversationID: tr.ConversationID, System: tr.System, K: 10, Tokens: 400,
			Items: refs, Evidence: []string{"D1:3"}, EvidenceHit: 1, ContextSHA256: hashText(tr.Context), Seconds: 0.0012}},
		{"answer", AnswerRecord{QuestionID: tr.QuestionID, ConversationID: tr.ConversationID, System: tr.System, Category: 2, Question: "When did Caroline go to the support group?",
			Gold: "7 May 2023", Prediction: "7 May 2023", ContextTokens: 400, Usage: Usage{InputTokens: 450, OutputTokens: 5},
			ContextSHA256: hashText("a"), PromptSHA256: hashText("b"), TargetSHA256: hashText("c")}},
		{"judgment", Judgment{QuestionID: tr.QuestionID, System: tr.System, Judge: "llm", Correct: true, Score: 1, Raw: `{"correct": true}`}},
		{"cost", CostRecord{ConversationID: tr.ConversationID, System: tr.System, At: at, QuestionID: tr.QuestionID, Part: "answer",
			Tallies: []Tally{{Role: "answer", Stage: StageAnswer, Label: "answer", Calls: 1, InputTokens: 450, OutputTokens: 5, Seconds: 0.251}}}},
		{"transcript", tr.compact()},
	}
	for _, r := range recs {
		b.Run(r.name+"/hand", func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				buf, _ = r.v.AppendJSON(buf[:0])
			}
		})
		b.Run(r.name+"/marshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(r.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
