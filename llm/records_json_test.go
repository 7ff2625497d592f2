package llm

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/internal/jsonenc/jsonenctest"
	"github.com/membench/membench/runlog"
)

// A field added to a hand-encoded llm type without teaching its
// AppendJSON fails here.
func TestLLMRecordsJSONCoverEveryField(t *testing.T) {
	t.Run("Usage", jsonenctest.EveryField[Usage])
	t.Run("Message", jsonenctest.EveryField[Message])
	t.Run("Tally", jsonenctest.EveryField[Tally])
	t.Run("TapeEntry", jsonenctest.EveryField[TapeEntry])
}

// The replies tape's vectors are json.Marshal's base64 of their
// little-endian bytes (what tapes written before the hand encoder hold),
// for lengths around the 12-float chunks, and read back whole.
func TestVectorJSONIsMarshal(t *testing.T) {
	for n := range 40 {
		v := make(Vector, n)
		raw := make([]byte, 4*n)
		for i := range v {
			v[i] = float32(i)*0.37 - 3
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v[i]))
		}
		want, _ := json.Marshal(raw)
		got, err := json.Marshal(v)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%d floats: %s (%v), want %s", n, got, err, want)
		}
		var back Vector
		if err := json.Unmarshal(got, &back); err != nil || len(back) != n || (n > 0 && back[n-1] != v[n-1]) {
			t.Fatalf("%d floats did not read back: %v (%v)", n, back, err)
		}
		jsonenctest.Check(t, TapeEntry{Key: "k", Vector: v})
	}
}

// Tape lines are written by the run log's Appender: a reply json.Marshal
// refuses is refused with its error, and the rest are its bytes, for
// chat, decide and embed entries.
func TestTapeLinesEqualMarshal(t *testing.T) {
	path := filepath.Join(t.TempDir(), runlog.RepliesFile)
	a, err := runlog.OpenAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := TapeEntry{Probs: map[string]float64{"yes": math.NaN()}}
	_, want := json.Marshal(bad)
	if got := a.Write(bad); want == nil || got == nil || got.Error() != want.Error() {
		t.Errorf("NaN probability: Write error %v, json.Marshal's %v", got, want)
	}
	var lines []byte
	for i, e := range []TapeEntry{
		{Key: HashText("q1"), Kind: "chat", Model: "m", Text: "7 May 2023 <&> \u2028é", Usage: Usage{InputTokens: 3}},
		{Key: HashText("q2"), Kind: "decide", Model: "m", Probs: map[string]float64{"yes": 1.0 / 3, "no": 2.0 / 3, "Maybe": 0}},
		{Key: HashText("q3"), Kind: "embed", Model: "e", Vector: Vector{0.25, -0.5, 1e-30, 0}, Usage: Usage{InputTokens: 9, CachedInputTokens: 2}},
	} {
		if err := a.Write(e); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		b, _ := json.Marshal(e)
		lines = append(append(lines, b...), '\n')
	}
	a.Close()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(lines) {
		t.Fatalf("tape holds\n%s\nwant json.Marshal's\n%s", got, lines)
	}
}
