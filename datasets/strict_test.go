package datasets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// locomoWith is the embedded sample with one edit applied, written to a
// file, so every case starts from a real, loadable LoCoMo file.
func locomoWith(t *testing.T, old, new string) string {
	t.Helper()
	data := SampleJSON()
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
	if _, err := LoadLoCoMo(locomoWith(t, "", ""), LoadOptions{}); err != nil {
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
			_, err := LoadLoCoMo(p, LoadOptions{})
			if err == nil {
				t.Fatalf("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, p) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q\nwant one line starting with the path and containing %q", msg, c.want)
			}
			if !IsInputError(err) {
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
	_, err := LoadLoCoMo(p, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "text after the closing ]") || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("trailing text: %v", err)
	}
	if want := "line " + strconv.Itoa(lines+2); !strings.Contains(err.Error(), want) {
		t.Errorf("trailing text: %v, want %s", err, want)
	}
	// Trailing spaces and newlines are fine.
	os.WriteFile(p, append(data, []byte("\n \n\t")...), 0o644)
	if _, err := LoadLoCoMo(p, LoadOptions{}); err != nil {
		t.Errorf("trailing whitespace refused: %v", err)
	}
}

func lmeWith(t *testing.T, old, new, tail string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "longmemeval_mini.json"))
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
			_, err := LoadLongMemEval(p, LoadOptions{})
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, p) || strings.Contains(msg, "\n") || !IsInputError(err) {
				t.Fatalf("error %q (%T)\nwant one line starting with the path and containing %q", msg, err, c.want)
			}
		})
	}
	// Trailing whitespace is fine and still hashed.
	if _, err := LoadLongMemEval(lmeWith(t, "", "", "\n\n  \n"), LoadOptions{}); err != nil {
		t.Errorf("trailing whitespace refused: %v", err)
	}
}

func TestUTF8ReaderLineAndSplitRunes(t *testing.T) {
	// A valid multi-byte rune split across reads passes; a bad byte is
	// reported on its line.
	good := strings.Repeat("é", 5000) + "\n"
	if _, err := readAllSmall(newUTF8Reader(strings.NewReader(good), "f")); err != nil {
		t.Fatalf("valid UTF-8 refused: %v", err)
	}
	_, err := readAllSmall(newUTF8Reader(strings.NewReader("a\nb\n\xe2\x82"), "f"))
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "f line 3") {
		t.Fatalf("truncated rune at EOF: %v", err)
	}
}

// readAllSmall reads in 7-byte pieces so runes straddle reads.
func readAllSmall(r interface{ Read([]byte) (int, error) }) ([]byte, error) {
	var out []byte
	buf := make([]byte, 7)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return out, err
		}
	}
}
