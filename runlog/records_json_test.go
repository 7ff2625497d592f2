package runlog

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/membench/membench/internal/jsonenc/jsonenctest"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
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
		CostRecord{Tallies: []llm.Tally{{Seconds: math.Inf(1)}}},
		RetrievalRecord{Items: []ItemRef{{Score: nan}}},
		RetrievalRecord{Notes: map[string]any{"rho": nan}},
		Transcript{Items: []systems.Item{{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		Transcript{Judges: []JudgeCall{{Call: Call{Seconds: nan}}}},
		llm.TapeEntry{Probs: map[string]float64{"yes": nan}},
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
