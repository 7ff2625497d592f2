package adapter

import (
	"strings"
	"testing"
)

func TestParseRetrieveNamesTheField(t *testing.T) {
	for body, want := range map[string]string{
		`[]`:                                   "response is not a JSON object",
		`{}`:                                   "response field items: missing",
		`{"items": {}}`:                        "response field items: want an array",
		`{"items": [3]}`:                       "response field items[0]: want an object",
		`{"items": [{"text": "a"}]}`:           "response field items[0].id: missing",
		`{"items": [{"id": "", "text": "a"}]}`: "response field items[0].id: empty",
		`{"items": [{"id": "a"}]}`:             "response field items[0].text: missing",
		`{"items": [{"id": "a", "text": "b", "speaker": 7}]}`:                                   "response field items[0].speaker: want a string",
		`{"items": [{"id": "a", "text": "b", "score": "high"}]}`:                                "response field items[0].score: want a number",
		`{"items": [{"id": "a", "text": "b", "sources": [1]}]}`:                                 "response field items[0].sources: want an array of turn ids",
		`{"items": [], "context": 5}`:                                                           "response field context: want a string or null",
		`{"items": [], "usage": {"calls": -1}}`:                                                 "response field usage.calls: want a non-negative integer",
		`{"items": [], "usage": {"input_tokens": 1.5}}`:                                         "response field usage.input_tokens: want a non-negative integer",
		`{"items": [{"id": "a", "text": "b"}, {"id": "c", "text": "d", "time": "2023-05-08"}]}`: "response field items[1].time: \"2023-05-08\" is not an RFC 3339 time",
	} {
		_, err := ParseRetrieve([]byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
	r, err := ParseRetrieve([]byte(`{"items": [{"id": "m1", "text": "t", "time": null, "speaker": null, "sources": ["D1:3"], "score": 0.82}], "context": null}`))
	if err != nil || len(r.Items) != 1 || r.Items[0].Sources[0] != "D1:3" || r.Items[0].Score != 0.82 || r.Context != nil || !r.Items[0].Time.IsZero() {
		t.Fatalf("valid response: %+v, %v", r, err)
	}
}

func TestParseMemories(t *testing.T) {
	for body, want := range map[string]int{``: -1, `{}`: -1, `{"memories": null}`: -1, `{"memories": 0}`: 0, `{"usage": {"calls": 1}, "memories": 42}`: 42} {
		n, err := ParseMemories([]byte(body))
		if err != nil || (want < 0) != (n == nil) || (n != nil && *n != want) {
			t.Errorf("%q: %v, %v; want %d", body, n, err, want)
		}
	}
	for _, body := range []string{`{"memories": -1}`, `{"memories": 1.5}`, `{"memories": "many"}`} {
		if _, err := ParseMemories([]byte(body)); err == nil || !strings.Contains(err.Error(), "memories") || !strings.Contains(err.Error(), "non-negative integer") {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// Whatever the body, ParseMemories returns a count ≥ 0, nothing, or an
// error; never a panic.
func FuzzParseMemories(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"memories": 3}`, `{"memories": -2}`, `{"memories": 1e99}`, `[1]`, `{"memories": {"n": 1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := ParseMemories(body)
		if err == nil && n != nil && *n < 0 {
			t.Fatalf("%q: negative count %d", body, *n)
		}
	})
}

func TestParseIngestUsage(t *testing.T) {
	for body, want := range map[string]int{``: -1, `{}`: -1, `{"usage": null}`: -1, `{"usage": {"calls": 2, "input_tokens": 900, "output_tokens": 120}}`: 2} {
		u, err := ParseIngest([]byte(body))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if (want < 0) != (u == nil) || (u != nil && (u.Calls != 2 || u.InputTokens != 900 || u.OutputTokens != 120)) {
			t.Errorf("%q: usage %+v", body, u)
		}
	}
	if _, err := ParseIngest([]byte(`{"usage": "lots"}`)); err == nil || !strings.Contains(err.Error(), "response field usage: want an object") {
		t.Errorf("usage string: %v", err)
	}
}
