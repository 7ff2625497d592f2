// Package yamlfile decodes the YAML files users write (run configs, sweep
// files, preregistered plans) so that a mistake is reported by file, line
// and key, in the file's own words: an unknown key gets the nearest known
// one, a value of the wrong kind says what the key takes. yaml.v3's own
// messages name Go types ("field sytem not found in type membench.Config"),
// which mean nothing to the person who wrote the file.
package yamlfile

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/internal/suggest"
)

// Documents parses b into its YAML documents, in order; a file that
// holds only comments or nothing gives none. A syntax error names the
// file and line.
func Documents(name string, b []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, syntaxError(name, err)
		}
		docs = append(docs, &n)
	}
}

// yaml.v3 writes a syntax error as "yaml: line N: what".
var syntaxLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func syntaxError(name string, err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if m := syntaxLine.FindStringSubmatch(msg); m != nil {
		return badinput.Errorf("%s:%s: %s; fix the YAML at that line", name, m[1], m[2])
	}
	return badinput.Errorf("%s: %s; fix the YAML", name, strings.TrimPrefix(msg, "yaml: "))
}

// Decode fills v (a pointer) from doc after checking every key and value
// against v's type: a key v has no field for, or a value its field cannot
// hold, is a bad-input error "NAME:LINE: ..." naming the key. Keys are
// the fields' yaml tags.
func Decode(name string, doc *yaml.Node, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("yamlfile.Decode: v must be a non-nil pointer")
	}
	n := doc
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	if err := check(name, n, rv.Type().Elem(), ""); err != nil {
		return err
	}
	if err := n.Decode(v); err != nil {
		// check accepts only what decodes; should the two ever disagree,
		// still say it in one line.
		return badinput.Errorf("%s: %s", name, strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: ")), " "))
	}
	return nil
}

var (
	unmarshaler     = reflect.TypeFor[yaml.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	durationType    = reflect.TypeFor[time.Duration]()
)

// check walks n as the value of key (a dotted path; "" at the top) of
// type t.
func check(name string, n *yaml.Node, t reflect.Type, key string) error {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Tag == "!!null" {
		return nil // an empty value leaves the field at its zero value
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bad := func(line int, format string, a ...any) error {
		where := ""
		if key != "" {
			where = key + ": "
		}
		return badinput.Errorf("%s:%d: %s"+format, append([]any{name, line, where}, a...)...)
	}
	// A type that reads itself decides alone; its message is its own.
	if reflect.PointerTo(t).Implements(unmarshaler) || (reflect.PointerTo(t).Implements(textUnmarshaler) && t.Kind() == reflect.Struct) {
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			return bad(n.Line, "%s", strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: ")), " "))
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		var fields map[string]reflect.Type // nil for a map: any key
		keys := ""
		if t.Kind() == reflect.Struct {
			fields = map[string]reflect.Type{}
			for _, f := range fieldsOf(t) {
				fields[f.key] = f.typ
			}
			keys = " (keys: " + strings.Join(keysOf(t), ", ") + ")"
		}
		if n.Kind != yaml.MappingNode {
			return bad(n.Line, "%s is not a mapping; write key: value lines%s", shown(n), keys)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" { // <<: *defaults
				if err := check(name, val, t, key); err != nil {
					return err
				}
				continue
			}
			ft, ok := fields[k.Value]
			if fields == nil {
				ft, ok = t.Elem(), true
			}
			if !ok {
				known := keysOf(t)
				if hint := suggest.Hint(k.Value, known); hint != "" {
					return bad(k.Line, "unknown key %q%s", k.Value, hint)
				}
				return bad(k.Line, "unknown key %q; known keys: %s", k.Value, strings.Join(known, ", "))
			}
			if err := check(name, val, ft, join(key, k.Value)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return bad(n.Line, "%s is not a list; write [a, b] or one '- item' line each", shown(n))
		}
		for i, item := range n.Content {
			if err := check(name, item, t.Elem(), fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Interface:
		return nil // takes anything
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		if wholeNumber.MatchString(n.Value) && t != durationType && t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr {
			return bad(n.Line, "%s is out of range; give %s", shown(n), kindOf(t))
		}
		return bad(n.Line, "%s is not %s", shown(n), kindOf(t))
	}
	return nil
}

var wholeNumber = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// shown is a value as the file wrote it, or what kind of value it is.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", clip.To(n.Value, 40))
}

// kindOf says what a scalar of type t is written as.
func kindOf(t reflect.Type) string {
	if t == durationType {
		return "a duration such as 30s or 1m"
	}
	switch t.Kind() {
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value of this key"
}

type field struct {
	key string
	typ reflect.Type
}

// fieldsOf lists the keys of struct t in field order, each with its
// field's type; ",inline" structs lend their keys.
func fieldsOf(t reflect.Type) []field {
	var out []field
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, fieldsOf(ft)...)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, field{name, f.Type})
	}
	return out
}

// keysOf lists struct t's keys in field order.
func keysOf(t reflect.Type) []string {
	var out []string
	for _, f := range fieldsOf(t) {
		out = append(out, f.key)
	}
	return out
}

// ZeroAt is the line of a top-level `key: 0` in doc, 0 when there is none:
// decoded into a struct, a 0 cannot be told from a key left out.
func ZeroAt(doc *yaml.Node, key string) int {
	if len(doc.Content) == 0 {
		return 0
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		var n int
		if k, v := m.Content[i], m.Content[i+1]; k.Value == key && v.Decode(&n) == nil && n == 0 {
			return v.Line
		}
	}
	return 0
}
