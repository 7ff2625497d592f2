package locomo

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
)

// locomoWith is the embedded sample with one edit applied, written to a
// file, so every case starts from a real, loadable LoCoMo file.
func locomoWith(t *testing.T, old, new string) string {
	t.Helper()
	data := sampleJSON(t)
	if old != "" {
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("sample has no %q", old)
		}
		data = bytes.Replace(data, []byte(old), []byte(new), 1)
	}
	p := filepath.Join(t.TempDir(), "locomo10.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoCoMoStrictInput(t *testing.T) {
	// The edits below rely on these spellings in the sample.
	if _, err := Load(locomoWith(t, "", ""), datasets.LoadOptions{}); err != nil {
		t.Fatalf("unedited sample: %v", err)
	}
	cases := []struct{ name, old, new, want string }{
		{"trailing text", "", "", "line "},
		{"category string", `"category": 4`, `"category": "x"`, `: sample sample-1, qa[0].category: want a number, got "x"`},
		{"category fraction", `"category": 4`, `"category": 4.5`, `qa[0].category: want a whole number, got 4.5`},
		{"answer object", `"answer": "Biscuit"`, `"answer": {"obj": 1}`, `qa[0].answer: want a string or a number, got an object`},
		{"answer list", `"answer": "Biscuit"`, `"answer": ["Biscuit"]`, `qa[0].answer: want a string or a number, got a list`},
		{"answer bool", `"answer": "Biscuit"`, `"answer": true`, `qa[0].answer: want a string or a number, got true`},
		{"question number", `"question": "`, `"question": 7, "x": "`, `qa[0].question: want a string, got 7`},
		{"session key as written", `"session_1": [`, `"session_01": 5, "zz": [`, `conversation.session_01: want a list, got 5`},
		{"two keys one session", `"session_1": [`, `"session_01": [], "session_1": [`, `conversation.session_01 and conversation.session_1 are both session 1`},
		{"repeated dia_id", `"dia_id": "D1:2"`, `"dia_id": "D1:1"`, `conversation.session_1[1].dia_id: "D1:1" is also conversation.session_1[0]`},
		{"turn text number", `"text": "`, `"text": 12, "y": "`, `conversation.session_1[0].text: want a string, got 12`},
		{"speaker object", `"speaker_a": "`, `"speaker_a": {}, "s": "`, `conversation.speaker_a: want a string, got an object`},
		{"evidence not list", `"evidence": [`, `"evidence": "D1:1", "e": [`, `qa[0].evidence: want a list of strings, got "D1:1"`},
		{"non-UTF-8", `"Biscuit"`, "\"Bis\xffcuit\"", `not UTF-8`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := locomoWith(t, c.old, c.new)
			if c.name == "trailing text" {
				f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString("\n\n]garbage\n")
				f.Close()
			}
			_, err := Load(p, datasets.LoadOptions{})
			if err == nil {
				t.Fatalf("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, p) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q\nwant one line starting with the path and containing %q", msg, c.want)
			}
			if !datasets.IsInputError(err) {
				t.Fatalf("not an InputError: %T", err)
			}
			for _, goName := range []string{"locomoQA", "locomoTurn", "locomoSample", "Go struct", "of type"} {
				if strings.Contains(msg, goName) {
					t.Errorf("message names Go types: %q", msg)
				}
			}
		})
	}
}

func TestLoCoMoTrailingAndUTF8Lines(t *testing.T) {
	p := locomoWith(t, "", "")
	data, _ := os.ReadFile(p)
	lines := bytes.Count(data, []byte("\n"))
	os.WriteFile(p, append(data, []byte("\n{\"more\": 1}")...), 0o644)
	_, err := Load(p, datasets.LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "text after the closing ]") || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("trailing text: %v", err)
	}
	if want := "line " + strconv.Itoa(lines+2); !strings.Contains(err.Error(), want) {
		t.Errorf("trailing text: %v, want %s", err, want)
	}
	// Trailing spaces and newlines are fine.
	os.WriteFile(p, append(data, []byte("\n \n\t")...), 0o644)
	if _, err := Load(p, datasets.LoadOptions{}); err != nil {
		t.Errorf("trailing whitespace refused: %v", err)
	}
}
