package flat

import (
	"testing"

	"github.com/membench/membench/llm"
)

// flat decodes two model answers: extracted facts (strings or objects
// naming their turn) and update decisions (ids as strings, numbers or
// {"id": ...}). Seeds are the answers its tests script.
func FuzzFlatReplies(f *testing.F) {
	for _, s := range []string{
		`{"facts":["Melanie paints sunsets"]}`,
		`{"facts":[{"text":"Caroline went to a support group","speaker":"Caroline","turn":"D1:3"},{"fact":"alt key"}]}`,
		`{"decisions":[{"fact":0,"event":"UPDATE","id":0,"text":"Melanie lives in Denver"}]}`,
		`{"decisions":[{"fact":"0","event":"delete","id":"0"}]}`,
		`{"decisions":[{"fact":{"id":{"id":3}},"event":"NONE","id":null}]}`,
		"```json\n{\"facts\": []}\n```", "not json", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var ex extractReply
		if llm.DecodeJSON(raw, &ex) == nil {
			for _, x := range ex.Facts {
				_ = x.Text
			}
		}
		var up updateReply
		_ = llm.DecodeJSON(raw, &up)
		var fs FlexString
		_ = fs.UnmarshalJSON([]byte(raw))
	})
}
