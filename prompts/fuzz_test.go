package prompts

import (
	"strings"
	"testing"
)

// The prompt-file splitter and compiler, seeded with every embedded
// template: any file either compiles (and then renders without panicking)
// or is refused with an error naming it.
func FuzzPromptFile(f *testing.F) {
	ents, err := embedded.ReadDir("templates")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		raw, err := embedded.ReadFile("templates/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte("system text\n" + separator + "\nuser {{.Question}}"))
	f.Add([]byte(separator))
	f.Add([]byte(labelsPrefix + " CORRECT PARTIAL WRONG---\nsys\n" + separator + "\nuser"))
	f.Add([]byte("\n" + labelsPrefix + " a,b---"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tp, err := compile("fuzz", raw, "fuzz.tmpl")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.tmpl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Declared labels are words of ASCII letters, upper-cased.
		for _, l := range tp.Labels() {
			if l == "" || strings.Trim(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
				t.Fatalf("label %q from %q", l, raw)
			}
		}
		data := map[string]any{"Question": "q", "Gold": "g", "Prediction": "p", "Context": "c", "Items": []string{"a", "b"}}
		if msgs, err := tp.Render(data); err == nil && len(msgs) == 0 {
			t.Fatal("a compiled template rendered no messages")
		}
	})
}
