// Package prompts is the program's one prompt renderer. Templates are our
// own texts, embedded from templates/*.tmpl; any of them can be swapped for
// a file (for parity with a reference prompt) with Override, and every
// template's sha256 goes into the run manifest.
//
// A template file holds the system message, a line "---user---", then the
// user message; both are Go text/template bodies.
package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/membench/membench/llm"
)

//go:embed templates/*.tmpl
var embedded embed.FS

const separator = "---user---"

var (
	mu        sync.RWMutex
	overrides = map[string]string{} // name -> file path
	parsed    = map[string]*tmpl{}
)

type tmpl struct {
	system, user *template.Template
	hash         string
	source       string
}

// Override makes name render from the file at path (e.g. --judge-prompt).
// A file that cannot be read or parsed changes nothing.
func Override(name, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("prompt file for %s: %w", name, err)
	}
	t, err := compile(name, raw, path)
	if err != nil {
		return err
	}
	mu.Lock()
	overrides[name] = path
	parsed[name] = t
	mu.Unlock()
	return nil
}

// ClearOverride makes name render from its embedded template again, so one
// process can run several configurations (a sweep) without one's prompt
// file leaking into the next.
func ClearOverride(name string) {
	mu.Lock()
	if _, ok := overrides[name]; ok {
		delete(overrides, name)
		delete(parsed, name)
	}
	mu.Unlock()
}

func load(name string) (*tmpl, error) {
	mu.RLock()
	t, ok := parsed[name]
	path, over := overrides[name]
	mu.RUnlock()
	if ok {
		return t, nil
	}
	var raw []byte
	var err error
	source := "embedded:" + name
	if over {
		raw, err = os.ReadFile(path)
		source = path
	} else {
		raw, err = embedded.ReadFile("templates/" + name + ".tmpl")
	}
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w (known: %s)", name, err, strings.Join(Names(), ", "))
	}
	t, err = compile(name, raw, source)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	// Keep it only if no Override happened meanwhile.
	if cur, ok := overrides[name]; ok == over && cur == path {
		parsed[name] = t
	}
	mu.Unlock()
	return t, nil
}

func compile(name string, raw []byte, source string) (*tmpl, error) {
	sys, user, found := strings.Cut(string(raw), separator)
	if !found {
		// A file without the separator is all user message.
		sys, user = "", string(raw)
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
	sum := sha256.Sum256(raw)
	return &tmpl{system: st, user: ut, hash: hex.EncodeToString(sum[:]), source: source}, nil
}

// Render fills the named template with data and returns chat messages.
func Render(name string, data any) ([]llm.Message, error) {
	t, err := load(name)
	if err != nil {
		return nil, err
	}
	var sb, ub bytes.Buffer
	if err := t.system.Execute(&sb, data); err != nil {
		return nil, fmt.Errorf("prompt %s (%s): %w", name, t.source, err)
	}
	if err := t.user.Execute(&ub, data); err != nil {
		return nil, fmt.Errorf("prompt %s (%s): %w", name, t.source, err)
	}
	var msgs []llm.Message
	if s := strings.TrimSpace(sb.String()); s != "" {
		msgs = append(msgs, llm.Message{Role: "system", Content: s})
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: strings.TrimSpace(ub.String())})
	return msgs, nil
}

// MustRender is Render for templates known to be valid (embedded ones with
// fixed data shapes); it panics on error.
func MustRender(name string, data any) []llm.Message {
	m, err := Render(name, data)
	if err != nil {
		panic(err)
	}
	return m
}

// Hash returns the sha256 of the template's source text.
func Hash(name string) (string, error) {
	t, err := load(name)
	if err != nil {
		return "", err
	}
	return t.hash, nil
}

// Hashes returns name -> sha256 (and source when overridden) for every
// embedded or overridden template, for the manifest.
func Hashes() map[string]string {
	out := map[string]string{}
	for _, n := range Names() {
		t, err := load(n)
		if err != nil {
			continue
		}
		v := t.hash
		if !strings.HasPrefix(t.source, "embedded:") {
			v += " (" + t.source + ")"
		}
		out[n] = v
	}
	return out
}

// Names lists the embedded templates plus overridden ones.
func Names() []string {
	set := map[string]bool{}
	ents, _ := embedded.ReadDir("templates")
	for _, e := range ents {
		set[strings.TrimSuffix(e.Name(), ".tmpl")] = true
	}
	mu.RLock()
	for k := range overrides {
		set[k] = true
	}
	mu.RUnlock()
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
