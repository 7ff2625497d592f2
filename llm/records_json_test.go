package llm

import (
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

// The replies tape's vectors: MarshalJSON's base64 for lengths around the
// 12-float chunks.
func TestVectorJSONIsMarshal(t *testing.T) {
	for n := range 40 {
		v := make(Vector, n)
		for i := range v {
			v[i] = float32(i)*0.37 - 3
		}
		jsonenctest.Check(t, TapeEntry{Key: "k", Vector: v})
	}
}
