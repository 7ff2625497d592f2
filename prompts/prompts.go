// Package prompts is the program's one prompt renderer. Templates are our
// own texts, embedded from templates/*.tmpl; a run can swap any of them for
// a file (for parity with a reference prompt) by carrying a Set that holds
// the file's Template, and every template's sha256 goes into the run
// manifest.
//
// A template file holds the system message, a line "---user---", then the
// user message; both are Go text/template bodies. A judge prompt may begin
// with a line "---labels: CORRECT PARTIAL WRONG---" naming the verdicts it
// offers (Template.Labels); the judge decides what the names mean.
//
// A file may instead be a paper's prompt exactly as its code holds it
// (a Python str.format or Jinja string saved byte for byte), so that its
// sha256 is the one a paper config pins: see foreign.go.
//
// There is no process-wide override: the embedded templates are parsed once
// and never change, and a file's template is a value owned by whoever loaded
// it, so two runs in one process (a sweep, parallel tests) cannot see each
// other's prompts.
package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/clip"
)

//go:embed templates/*.tmpl
var embedded embed.FS

const separator = "---user---"

// labelsPrefix starts a template's optional first line, the verdict labels
// it offers: "---labels: CORRECT PARTIAL WRONG---".
const labelsPrefix = "---labels:"

// Template is one compiled prompt. It is immutable and safe for concurrent
// use.
type Template struct {
	name         string
	system, user *template.Template
	hash         string
	source       string   // "embedded:NAME" or the file's path
	labels       []string // from a "---labels: ...---" first line; nil without one
	foreign      *foreign // a paper's own prompt text (foreign.go); nil for membench's format
}

// parsedEmbedded holds every embedded template, parsed on first use and
// read-only afterwards.
var parsedEmbedded = sync.OnceValue(func() map[string]*Template {
	out := map[string]*Template{}
	ents, _ := embedded.ReadDir("templates")
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".tmpl")
		raw, err := embedded.ReadFile("templates/" + e.Name())
		if err != nil {
			panic(err) // the binary's own files
		}
		t, err := compile(name, raw, "embedded:"+name)
		if err != nil {
			panic(err) // caught by TestEveryEmbeddedTemplateRenders
		}
		out[name] = t
	}
	return out
})

// Embedded returns the built-in template called name.
func Embedded(name string) (*Template, error) {
	if t := parsedEmbedded()[name]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("prompt %q: no such template (known: %s)", name, strings.Join(Names(), ", "))
}

// FromFile reads and compiles the template file at path under name (e.g.
// --answer-prompt). The error names the template and the file.
func FromFile(name, path string) (*Template, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prompt file for %s: %w", name, err)
	}
	return compile(name, raw, path)
}

// Name is the template's name ("answer", "judge@strict", ...).
func (t *Template) Name() string { return t.name }

// Labels are the verdict labels the template declares on its first line
// ("---labels: CORRECT PARTIAL WRONG---"), upper-case, in the order
// written; nil when it declares none. The judge checks them against its
// closed set.
func (t *Template) Labels() []string { return t.labels }

// Hash is the sha256 of the template's source text.
func (t *Template) Hash() string { return t.hash }

// FromFile reports whether the template was read from a file.
func (t *Template) FromFile() bool { return !strings.HasPrefix(t.source, "embedded:") }

// Format is how the template's text is read: FormatGo (membench's own),
// or FormatPython or FormatJinja for a paper's prompt kept as its code
// holds it (foreign.go).
func (t *Template) Format() string {
	if t.foreign != nil {
		return t.foreign.format
	}
	return FormatGo
}

// Source is "embedded:NAME" or the file's path.
func (t *Template) Source() string { return t.source }

// ManifestHash is the hash as the manifest records it: with the file's path
// in parentheses when the template came from a file.
func (t *Template) ManifestHash() string {
	if t.FromFile() {
		return t.hash + " (" + t.source + ")"
	}
	return t.hash
}

// Set is the templates of one run: the embedded ones, some of them replaced
// by files. The zero Set is the embedded templates alone. A Set is a value:
// With returns a new one and never changes the receiver.
type Set struct {
	files map[string]*Template // name -> template read from a file
}

// With returns a copy of s in which t replaces (or adds) the template of
// its name.
func (s Set) With(t *Template) Set {
	files := maps.Clone(s.files)
	if files == nil {
		files = map[string]*Template{}
	}
	files[t.name] = t
	return Set{files: files}
}

// Template returns the set's template called name.
func (s Set) Template(name string) (*Template, error) {
	if t := s.files[name]; t != nil {
		return t, nil
	}
	return Embedded(name)
}

// Hashes maps every embedded template and every file in the set to its
// ManifestHash, for the manifest.
func (s Set) Hashes() map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]*Template{parsedEmbedded(), s.files} {
		for n, t := range m {
			out[n] = t.ManifestHash()
		}
	}
	return out
}

func compile(name string, raw []byte, source string) (*Template, error) {
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:])
	if !strings.HasPrefix(source, "embedded:") {
		f, ok, err := parseForeign(name, source, string(raw))
		if err != nil {
			return nil, err
		}
		if ok {
			return &Template{name: name, hash: hash, source: source, foreign: f}, nil
		}
	}
	labels, body, err := splitLabels(string(raw))
	if err != nil {
		return nil, fmt.Errorf("prompt %s (%s): %w", name, source, err)
	}
	sys, user, found := strings.Cut(body, separator)
	if !found {
		// A file without the separator is all user message.
		sys, user = "", body
	}
	funcs := template.FuncMap{"join": strings.Join}
	st, err := template.New(name + ".system").Funcs(funcs).Option("missingkey=error").Parse(strings.TrimSpace(sys))
	if err != nil {
		return nil, fmt.Errorf("prompt %s (%s): system part: %w", name, source, err)
	}
	ut, err := template.New(name + ".user").Funcs(funcs).Option("missingkey=error").Parse(strings.TrimSpace(user))
	if err != nil {
		return nil, fmt.Errorf("prompt %s (%s): user part: %w", name, source, err)
	}
	return &Template{name: name, system: st, user: ut, hash: hash, source: source, labels: labels}, nil
}

// splitLabels takes the optional labels line off the top of a template
// (blank lines may precede it) and returns its words and the rest. A
// labels line anywhere else would reach the model as text, so it is
// refused.
func splitLabels(raw string) (labels []string, body string, err error) {
	body = raw
	rest := strings.TrimLeft(strings.TrimPrefix(raw, "\ufeff"), " \t\r\n")
	if strings.HasPrefix(rest, labelsPrefix) {
		line, after, _ := strings.Cut(rest, "\n")
		inner, ok := strings.CutSuffix(strings.TrimSpace(line), "---")
		if !ok {
			return nil, "", fmt.Errorf("line %q: end the labels line with ---, as in ---labels: CORRECT PARTIAL WRONG---", clip.To(line, 60))
		}
		for _, w := range strings.FieldsFunc(strings.TrimPrefix(inner, labelsPrefix), func(r rune) bool { return r == ' ' || r == ',' || r == '/' || r == '\t' }) {
			if strings.ContainsFunc(w, func(r rune) bool { return (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') }) {
				return nil, "", fmt.Errorf("labels line: %q is not a label word; write ---labels: CORRECT PARTIAL WRONG---", clip.To(w, 60))
			}
			labels = append(labels, strings.ToUpper(w))
		}
		if len(labels) == 0 {
			return nil, "", fmt.Errorf("the labels line names no label; write ---labels: CORRECT PARTIAL WRONG--- or drop the line")
		}
		body = after
	}
	for i, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), labelsPrefix) {
			// Line numbers count from the start of the file.
			n := i + 1 + strings.Count(raw[:len(raw)-len(body)], "\n")
			return nil, "", fmt.Errorf("line %d: the labels line must be the template's first line; move it to the top", n)
		}
	}
	return labels, body, nil
}

// Render fills the template with data and returns chat messages.
func (t *Template) Render(data any) ([]membench.Message, error) {
	if t.foreign != nil {
		return t.foreign.render(t, data)
	}
	sys, err := t.execute(t.system, data)
	if err != nil {
		return nil, err
	}
	user, err := t.execute(t.user, data)
	if err != nil {
		return nil, err
	}
	var msgs []membench.Message
	if s := strings.TrimSpace(sys); s != "" {
		msgs = append(msgs, membench.Message{Role: "system", Content: s})
	}
	msgs = append(msgs, membench.Message{Role: "user", Content: strings.TrimSpace(user)})
	return msgs, nil
}

// execute renders one part.
func (t *Template) execute(tt *template.Template, data any) (string, error) {
	var b bytes.Buffer
	if err := tt.Execute(&b, data); err != nil {
		return "", fmt.Errorf("prompt %s (%s): %w", t.name, t.source, err)
	}
	return b.String(), nil
}

// Render fills the embedded template called name with data and returns
// chat messages. Systems use it for their own prompts, which no flag
// replaces.
func Render(name string, data any) ([]membench.Message, error) {
	t, err := Embedded(name)
	if err != nil {
		return nil, err
	}
	return t.Render(data)
}

// Hash returns the sha256 of the embedded template called name.
func Hash(name string) (string, error) {
	t, err := Embedded(name)
	if err != nil {
		return "", err
	}
	return t.hash, nil
}

// Names lists the embedded templates.
func Names() []string { return slices.Sorted(maps.Keys(parsedEmbedded())) }

// FileSHA256 is a file's sha256 in hex, as pins record it: the paper
// prompt files a config pins, and the files a locked plan pins beside them.
func FileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}
