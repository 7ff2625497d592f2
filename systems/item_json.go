package systems

import "github.com/membench/membench/internal/jsonenc"

// AppendJSON appends it as json.Marshal writes it (transcripts hold every
// retrieved item); ok is false for a score that is not finite or a time
// outside RFC 3339. TestItemJSONCoversEveryField holds it to json.Marshal.
func (it Item) AppendJSON(b []byte) ([]byte, bool) {
	if !jsonenc.Finite(it.Score) {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = jsonenc.String(b, it.ID)
	if it.Kind != "" {
		b = append(b, `,"kind":`...)
		b = jsonenc.String(b, it.Kind)
	}
	b = append(b, `,"text":`...)
	b = jsonenc.String(b, it.Text)
	b = append(b, `,"time":`...) // omitempty never omits a struct
	var ok bool
	if b, ok = jsonenc.Time(b, it.Time); !ok {
		return b, false
	}
	if it.Speaker != "" {
		b = append(b, `,"speaker":`...)
		b = jsonenc.String(b, it.Speaker)
	}
	if len(it.Sources) > 0 {
		b = append(b, `,"sources":`...)
		b = jsonenc.Strings(b, it.Sources)
	}
	b = append(b, `,"score":`...)
	b = jsonenc.Float(b, it.Score, 64)
	return append(b, '}'), true
}
