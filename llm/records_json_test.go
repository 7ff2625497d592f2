package llm

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/membench/membench/internal/jsonenc/jsonenctest"
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
