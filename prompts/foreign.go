package prompts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench"
)

// A prompt file may also be a prompt exactly as a paper's code holds it,
// saved byte for byte (so its sha256 is the one a paper config pins): the
// text of a Python string that the code fills with str.format
// ("{question}", "{{" for a brace) or with a Jinja template
// ("{{question}}"). Such a file names no Go template field, so nothing it
// holds reads as one; the names it uses must be fields membench knows for
// the prompt (ForeignFields), and the data the prompt is rendered with
// supplies them (FieldSource). It is sent as the papers' code sends it:
// an answer prompt as one system message, a judge prompt as one user
// message.

// Foreign formats.
const (
	// FormatGo is membench's own: a Go text/template, "---user---" between
	// the system and the user part.
	FormatGo = "go"
	// FormatPython is a Python str.format string: {name}, {{ and }}.
	FormatPython = "python-format"
	// FormatJinja is a Jinja template using only {{ name }}.
	FormatJinja = "jinja"
)

// FieldSource is data that fills a foreign prompt's fields by their
// names in the paper's code (answer.Input, judge.LLMJudgeInput).
type FieldSource interface {
	PromptField(name string) (string, bool)
}

// ForeignFields are the field names a foreign prompt may use, by the kind
// of prompt: the names the papers' code fills.
var ForeignFields = map[string][]string{
	"answer": {"question", "memories", "session_summaries",
		"speaker_1_name", "speaker_1_user_id", "speaker_1_memories",
		"speaker_2_name", "speaker_2_user_id", "speaker_2_memories"},
	"judge": {"question", "gold_answer", "generated_answer"},
}

// foreignRoles is the message role each kind of foreign prompt is sent
// as, the one the papers' code gives it.
var foreignRoles = map[string]string{"answer": "system", "judge": "user"}

// kindOf is the kind of a template name: "answer", or "judge" for any
// judge template ("judge@lenient", "judge_lenient").
func kindOf(name string) string {
	if strings.HasPrefix(name, "judge") {
		return "judge"
	}
	return name
}

// segment is literal text, or a field when field is set.
type segment struct {
	text, field string
}

// foreign is a parsed foreign prompt.
type foreign struct {
	format   string
	role     string
	segments []segment
}

// goAction reports whether raw holds a Go template action: a field
// ({{.Question}}), a trim marker ({{- ...}}) or a keyword. Such a file is
// membench's own format.
func goAction(raw string) bool {
	for i := 0; ; {
		j := strings.Index(raw[i:], "{{")
		if j < 0 {
			return false
		}
		rest := strings.TrimLeft(raw[i+j+2:], " \t")
		if strings.HasPrefix(rest, ".") || strings.HasPrefix(raw[i+j:], "{{-") || strings.HasPrefix(rest, "/*") {
			return true
		}
		if slices.ContainsFunc([]string{"if ", "range ", "with ", "end", "else", "template ", "define ", "block ", "join ", "$"}, func(kw string) bool { return strings.HasPrefix(rest, kw) }) {
			return true
		}
		i += j + 2
	}
}

// isIdent reports whether s is a Python identifier in ASCII.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// parseForeign reads raw as a foreign prompt for the template called
// name. ok is false when raw is membench's own format (a Go action, or
// no placeholder at all); an error is a foreign file that cannot be
// filled (a field membench does not know, a lone brace).
func parseForeign(name, source, raw string) (f *foreign, ok bool, err error) {
	if goAction(raw) {
		return nil, false, nil
	}
	kind := kindOf(name)
	known := ForeignFields[kind]
	if known == nil {
		return nil, false, nil
	}
	jinja := jinjaSegments(raw)
	switch {
	case slices.ContainsFunc(jinja, func(s segment) bool { return slices.Contains(known, s.field) }):
		// {{ name }} with name a field of known: the sign of a Jinja prompt.
		f = &foreign{format: FormatJinja, role: foreignRoles[kind], segments: jinja}
	case hasPythonField(raw, known):
		segs, perr := pythonSegments(raw)
		if perr != nil {
			return nil, true, fmt.Errorf("prompt %s (%s): read as a Python str.format string (it uses {name} fields): %w", name, source, perr)
		}
		f = &foreign{format: FormatPython, role: foreignRoles[kind], segments: segs}
	default:
		return nil, false, nil
	}
	for _, s := range f.segments {
		if s.field != "" && !slices.Contains(known, s.field) {
			return nil, true, fmt.Errorf("prompt %s (%s): field %q is not one membench fills for a%s %s prompt (it fills %s); give the paper's prompt text unchanged, or write a membench template (docs/prompts.md)",
				name, source, s.field, article(kind), kind, strings.Join(slices.Sorted(slices.Values(known)), ", "))
		}
	}
	return f, true, nil
}

func article(kind string) string {
	if strings.HasPrefix(kind, "a") {
		return "n"
	}
	return ""
}

// jinjaSegments splits raw at {{ name }} placeholders.
func jinjaSegments(raw string) (segs []segment) {
	var lit strings.Builder
	for i := 0; i < len(raw); {
		if strings.HasPrefix(raw[i:], "{{") {
			if end := strings.Index(raw[i+2:], "}}"); end >= 0 {
				if id := strings.TrimSpace(raw[i+2 : i+2+end]); isIdent(id) {
					segs = append(flush(segs, &lit), segment{field: id})
					i += 2 + end + 2
					continue
				}
			}
		}
		lit.WriteByte(raw[i])
		i++
	}
	return flush(segs, &lit)
}

// flush appends the literal text in lit, if any, as a segment and empties lit.
func flush(segs []segment, lit *strings.Builder) []segment {
	if lit.Len() > 0 {
		segs = append(segs, segment{text: lit.String()})
		lit.Reset()
	}
	return segs
}

// hasPythonField reports whether raw holds {name}, outside doubled
// braces, with name a field of known: the sign of a str.format prompt.
func hasPythonField(raw string, known []string) bool {
	for i := 0; i < len(raw); i++ {
		switch {
		case strings.HasPrefix(raw[i:], "{{"), strings.HasPrefix(raw[i:], "}}"):
			i++
		case raw[i] == '{':
			if end := strings.IndexByte(raw[i:], '}'); end > 0 && slices.Contains(known, raw[i+1:i+end]) {
				return true
			}
		}
	}
	return false
}

// pythonSegments splits raw as str.format does: {name} is a field, {{ and
// }} are braces, any other brace is an error (Python refuses it too).
func pythonSegments(raw string) ([]segment, error) {
	var segs []segment
	var lit strings.Builder
	line := 1
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '\n':
			line++
			lit.WriteByte(c)
		case strings.HasPrefix(raw[i:], "{{"), strings.HasPrefix(raw[i:], "}}"):
			lit.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(raw[i:], '}')
			if end < 0 || !isIdent(raw[i+1:i+end]) {
				return nil, fmt.Errorf("line %d: a lone { (str.format reads {name} as a field and {{ as a brace)", line)
			}
			segs = append(flush(segs, &lit), segment{field: raw[i+1 : i+end]})
			i += end
		case c == '}':
			return nil, fmt.Errorf("line %d: a lone } (str.format reads }} as a brace)", line)
		default:
			lit.WriteByte(c)
		}
	}
	return flush(segs, &lit), nil
}

// render fills the prompt from data and returns it as one message of the
// prompt's role, trimmed as membench's own prompts are.
func (f *foreign) render(t *Template, data any) ([]membench.Message, error) {
	src, ok := data.(FieldSource)
	if !ok {
		return nil, fmt.Errorf("prompt %s (%s): a %s prompt fills its fields from the data it is given, and %T gives none", t.name, t.source, f.format, data)
	}
	var b strings.Builder
	for _, s := range f.segments {
		if s.field == "" {
			b.WriteString(s.text)
			continue
		}
		v, ok := src.PromptField(s.field)
		if !ok {
			return nil, fmt.Errorf("prompt %s (%s): field %q has no value here", t.name, t.source, s.field)
		}
		b.WriteString(v)
	}
	return []membench.Message{{Role: f.role, Content: strings.TrimSpace(b.String())}}, nil
}
