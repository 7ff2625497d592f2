package llm

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"slices"

	"github.com/membench/membench/internal/jsonenc"
)

// Hand-written JSON for the llm types inside the records a run writes per
// question (json.Marshal's bytes; see internal/jsonenc). The
// EveryField tests in records_json_test.go fail when a field is added
// without being taught here.

// AppendJSON appends u as json.Marshal writes it.
func (u Usage) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"input_tokens":`...)
	b = jsonenc.Int(b, int64(u.InputTokens))
	b = append(b, `,"output_tokens":`...)
	b = jsonenc.Int(b, int64(u.OutputTokens))
	if u.CachedInputTokens != 0 {
		b = append(b, `,"cached_input_tokens":`...)
		b = jsonenc.Int(b, int64(u.CachedInputTokens))
	}
	return append(b, '}'), true
}

// AppendJSON appends m as json.Marshal writes it.
func (m Message) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"role":`...)
	b = jsonenc.String(b, m.Role)
	b = append(b, `,"content":`...)
	b = jsonenc.String(b, m.Content)
	return append(b, '}'), true
}

// AppendJSON appends t as json.Marshal writes it; ok is false for seconds
// that are not finite.
func (t Tally) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(t.Seconds) {
		return b, false
	}
	b = append(b, `{"role":`...)
	b = jsonenc.String(b, t.Role)
	b = append(b, `,"stage":`...)
	b = jsonenc.String(b, string(t.Stage))
	if t.Label != "" {
		b = append(b, `,"label":`...)
		b = jsonenc.String(b, t.Label)
	}
	if t.Model != "" {
		b = append(b, `,"model":`...)
		b = jsonenc.String(b, t.Model)
	}
	b = append(b, `,"calls":`...)
	b = jsonenc.Int(b, int64(t.Calls))
	b = append(b, `,"cached_calls":`...)
	b = jsonenc.Int(b, int64(t.CachedCalls))
	b = append(b, `,"input_tokens":`...)
	b = jsonenc.Int(b, int64(t.InputTokens))
	b = append(b, `,"output_tokens":`...)
	b = jsonenc.Int(b, int64(t.OutputTokens))
	if t.CachedInputTokens != 0 {
		b = append(b, `,"cached_input_tokens":`...)
		b = jsonenc.Int(b, int64(t.CachedInputTokens))
	}
	b = append(b, `,"seconds":`...)
	b = jsonenc.Float(b, t.Seconds, 64)
	return append(b, '}'), true
}

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
