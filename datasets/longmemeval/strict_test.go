package longmemeval

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
)

func lmeWith(t *testing.T, old, new, tail string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "longmemeval_mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	if old != "" {
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("fixture has no %q", old)
		}
		data = bytes.Replace(data, []byte(old), []byte(new), 1)
	}
	p := filepath.Join(t.TempDir(), "longmemeval_s.json")
	if err := os.WriteFile(p, append(data, tail...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLongMemEvalStrictInput(t *testing.T) {
	cases := []struct{ name, old, new, tail, want string }{
		{"trailing text", "", "", "\n]]", "text after the closing ] of the item list"},
		{"trailing object", "", "", "\n{}", "text after the closing ]"},
		{"answer object", `"answer": "Tallinn"`, `"answer": {"obj": 1}`, "", `item q_pref_1, answer: want a string or a number, got an object`},
		{"role number", `"role": "user"`, `"role": 1`, "", `item q_pref_1, haystack_sessions[0][0].role: want a string, got 1`},
		{"has_answer string", `"has_answer": true`, `"has_answer": "yes"`, "", `haystack_sessions[1][0].has_answer: want true or false, got "yes"`},
		{"session ids number", `"noise_a1",`, `7,`, "", `item q_pref_1, haystack_session_ids[0]: want a string, got 7`},
		{"question_id number", `"question_id": "q_pref_1"`, `"question_id": 5`, "", `item 0, question_id: want a string, got 5`},
		{"non-UTF-8", `Tallinn`, "Tal\xc3linn", "", "not UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := lmeWith(t, c.old, c.new, c.tail)
			_, err := Load(p, datasets.LoadOptions{})
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, p) || strings.Contains(msg, "\n") || !datasets.IsInputError(err) {
				t.Fatalf("error %q (%T)\nwant one line starting with the path and containing %q", msg, err, c.want)
			}
		})
	}
	// Trailing whitespace is fine and still hashed.
	if _, err := Load(lmeWith(t, "", "", "\n\n  \n"), datasets.LoadOptions{}); err != nil {
		t.Errorf("trailing whitespace refused: %v", err)
	}
}
