package prompts

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// fields is a FieldSource for the tests.
type fields map[string]string

func (f fields) PromptField(name string) (string, bool) { v, ok := f[name]; return v, ok }

// TestPaperFormatsRender: a prompt saved as a paper's code holds it (a
// str.format string, a Jinja string) is filled by field name and sent
// as the code sends it; its hash is the file's bytes.
func TestPaperFormatsRender(t *testing.T) {
	data := fields{"question": "Where?", "gold_answer": "Paris", "generated_answer": "in Paris",
		"speaker_1_name": "Ann", "speaker_1_memories": "m1", "speaker_2_name": "Bob", "speaker_2_memories": "m2", "session_summaries": "s"}
	cases := []struct {
		name, body, format, role, want string
	}{
		{"judge@x", "\nGrade {question} against {gold_answer}: {generated_answer}. Reply {{\"label\": ...}}\n", FormatPython, "user",
			`Grade Where? against Paris: in Paris. Reply {"label": ...}`},
		{"answer", "\n    For {{speaker_1_user_id}} and {{ speaker_2_memories }}:\n    {{question}}\n    ", FormatJinja, "system",
			"For Ann and m2:\n    Where?"},
		{"answer", "{speaker_1_name}: {speaker_1_memories}\n{speaker_2_name}: {speaker_2_memories}\n{session_summaries}\nQ: {question}\n", FormatPython, "system",
			"Ann: m1\nBob: m2\ns\nQ: Where?"},
	}
	data["speaker_1_user_id"] = "Ann"
	for _, c := range cases {
		p := writeFile(t, c.body)
		tm, err := FromFile(c.name, p)
		if err != nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		if tm.Format() != c.format {
			t.Errorf("%q: format %s, want %s", c.body, tm.Format(), c.format)
		}
		msgs, err := tm.Render(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 1 || msgs[0].Role != c.role || msgs[0].Content != c.want {
			t.Errorf("%q rendered %+v, want one %s message %q", c.body, msgs, c.role, c.want)
		}
		if tm.Hash() != sha(c.body) {
			t.Errorf("hash %s is not the file's sha256", tm.Hash())
		}
	}
}

// TestPaperFormatRefusals: a field membench does not fill, or a brace
// str.format would refuse, is refused when the file is read, naming it.
func TestPaperFormatRefusals(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"judge@x", "{question} {rubric}", `field "rubric"`},
		{"answer", "{question} and {gold_answer}", `field "gold_answer"`},
		{"judge@x", "{question}\nthen { alone", "line 2: a lone {"},
		{"judge@x", "{question} }", "a lone }"},
		{"answer", "{{question}} {{ tone }}", `field "tone"`},
	} {
		_, err := FromFile(c.name, writeFile(t, c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want one naming %s", c.body, err, c.want)
		}
	}
}

// TestOwnFormatStaysOwn: membench templates, with JSON braces or no
// field at all, are read as Go templates as before.
func TestOwnFormatStaysOwn(t *testing.T) {
	for _, body := range []string{
		"Reply {\"label\": \"CORRECT\"}\n---user---\n{{.Question}}",
		"Reply with {\"label\": \"CORRECT\"} only",
		"plain text, {question} as words but {{.Gold}} a field",
	} {
		tm, err := FromFile("judge@x", writeFile(t, body))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if tm.Format() != FormatGo {
			t.Errorf("%q read as %s, want membench's own format", body, tm.Format())
		}
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
