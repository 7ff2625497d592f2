package llm

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"slices"

	"github.com/membench/membench/internal/jsonenc"
)

// Hand-written JSON for the replies tape (json.Marshal's bytes; see
// internal/jsonenc); the types it shares with the run's records (Usage)
// are written by runlog. The EveryField tests in records_json_test.go fail
// when a field is added without being taught here.

// AppendJSON appends e as json.Marshal writes it (a replies-tape line);
// ok is false for a probability that is not finite.
func (e TapeEntry) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"key":`...)
	b = jsonenc.String(b, e.Key)
	b = append(b, `,"kind":`...)
	b = jsonenc.String(b, e.Kind)
	b = append(b, `,"model":`...)
	b = jsonenc.String(b, e.Model)
	if e.Text != "" {
		b = append(b, `,"text":`...)
		b = jsonenc.String(b, e.Text)
	}
	if len(e.Probs) > 0 {
		keys := make([]string, 0, len(e.Probs))
		for k, p := range e.Probs {
			if !jsonenc.Finite(p) {
				return b, false
			}
			keys = append(keys, k)
		}
		slices.Sort(keys) // Marshal writes a map's keys in order
		b = append(b, `,"probs":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.String(b, k)
			b = append(b, ':')
			b = jsonenc.Float(b, e.Probs[k], 64)
		}
		b = append(b, '}')
	}
	if len(e.Vector) > 0 {
		b = append(b, `,"vector":`...)
		b = e.Vector.appendJSON(b)
	}
	b = append(b, `,"usage":`...)
	b, _ = e.Usage.AppendJSON(b)
	return append(b, '}'), true
}

// appendJSON appends what MarshalJSON writes: the little-endian bytes in
// standard base64, quoted, encoded 12 floats (48 bytes, a multiple of 3)
// at a time so no chunk but the last is padded.
func (v Vector) appendJSON(b []byte) []byte {
	b = append(b, '"')
	var tmp [48]byte
	for len(v) > 0 {
		n := min(len(v), 12)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint32(tmp[4*i:], math.Float32bits(x))
		}
		b = base64.StdEncoding.AppendEncode(b, tmp[:4*n])
		v = v[n:]
	}
	return append(b, '"')
}

var _ jsonenc.Marshaler = TapeEntry{}
