package redact

import "testing"

// The full cases run through llm.RedactText (llm/redact_test.go and
// FuzzRedactURL); these pin the leaf's own behaviour.
func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"backend=openai,base-url=http://u:pw@h/v1": "backend=openai,base-url=http://[redacted]@h/v1",
		"https://h/v1?api-key=k&x=1":               "https://h/v1?api-key=[redacted]&x=1",
		"offline":                                  "offline",
		"no url, user:pw@host":                     "no url, user:pw@host",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}
