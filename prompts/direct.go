package prompts

import (
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// A direct plan renders the common shape of a prompt template without
// text/template's interpreter: text, {{.Field}} of a string field,
// {{join .Field "sep"}} of a []string field, and {{if .Field}} … {{else}} …
// {{end}} on a bool or string field, with the data a struct (or a pointer
// to one). The answer and judge prompts are this shape and are rendered
// twice per question, where text/template's reflective calls (join above
// all) showed in a run's profile. Anything else — another node, a map, a
// field of another type, a missing field — renders through text/template,
// which also produces every error, so the output is text/template's either
// way (TestDirectEqualsTextTemplate).
type direct []step

type stepKind uint8

const (
	stepText stepKind = iota
	stepField
	stepJoin
	stepIf
)

type step struct {
	kind        stepKind
	text        string // stepText: the text; stepJoin: the separator
	field       string // the field read
	then, other direct // stepIf
}

var (
	stringType  = reflect.TypeFor[string]()
	stringsType = reflect.TypeFor[[]string]()
	boolType    = reflect.TypeFor[bool]()
)

// planOf returns t's direct plan, or nil when t has any node outside the
// shape above.
func planOf(t *template.Template) direct {
	if t == nil || t.Tree == nil || t.Root == nil {
		return nil
	}
	p, ok := planList(t.Root)
	if !ok {
		return nil
	}
	if p == nil {
		p = direct{} // an empty template renders nothing, directly
	}
	return p
}

func planList(l *parse.ListNode) (direct, bool) {
	if l == nil {
		return nil, true
	}
	var out direct
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			out = append(out, step{kind: stepText, text: string(n.Text)})
		case *parse.ActionNode:
			args, ok := command(n.Pipe)
			if !ok {
				return nil, false
			}
			switch {
			case len(args) == 1:
				f, ok := fieldName(args[0])
				if !ok {
					return nil, false
				}
				out = append(out, step{kind: stepField, field: f})
			case len(args) == 3:
				// join is strings.Join: compile's FuncMap, which a template
				// file cannot change.
				id, ok := args[0].(*parse.IdentifierNode)
				if !ok || id.Ident != "join" {
					return nil, false
				}
				f, ok := fieldName(args[1])
				sep, isStr := args[2].(*parse.StringNode)
				if !ok || !isStr {
					return nil, false
				}
				out = append(out, step{kind: stepJoin, field: f, text: sep.Text})
			default:
				return nil, false
			}
		case *parse.IfNode:
			args, ok := command(n.Pipe)
			if !ok || len(args) != 1 {
				return nil, false
			}
			f, ok := fieldName(args[0])
			if !ok {
				return nil, false
			}
			then, ok1 := planList(n.List)
			els, ok2 := planList(n.ElseList)
			if !ok1 || !ok2 {
				return nil, false
			}
			out = append(out, step{kind: stepIf, field: f, then: then, other: els})
		default:
			return nil, false
		}
	}
	return out, true
}

// command returns the arguments of a pipeline that is one command with no
// variables.
func command(p *parse.PipeNode) ([]parse.Node, bool) {
	if p == nil || len(p.Decl) != 0 || p.IsAssign || len(p.Cmds) != 1 {
		return nil, false
	}
	return p.Cmds[0].Args, true
}

func fieldName(n parse.Node) (string, bool) {
	f, ok := n.(*parse.FieldNode)
	if !ok || len(f.Ident) != 1 {
		return "", false
	}
	return f.Ident[0], true
}

// render writes the plan for data; ok is false when data is not a shape
// the plan reads (the caller then uses text/template).
func (d direct) render(data any) (string, bool) {
	v := reflect.ValueOf(data)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return "", false
	}
	// Sized first, so the prompt is built in one allocation.
	n := 0
	if !d.walk(v, func(s string) { n += len(s) }) {
		return "", false
	}
	var b strings.Builder
	b.Grow(n)
	d.walk(v, func(s string) { b.WriteString(s) })
	return b.String(), true
}

// walk emits the plan's output for v piece by piece.
func (d direct) walk(v reflect.Value, emit func(string)) bool {
	for _, s := range d {
		switch s.kind {
		case stepText:
			emit(s.text)
		case stepField:
			f, ok := field(v, s.field, stringType)
			if !ok {
				return false
			}
			emit(f.String())
		case stepJoin:
			f, ok := field(v, s.field, stringsType)
			if !ok {
				return false
			}
			for i, x := range f.Interface().([]string) {
				if i > 0 {
					emit(s.text)
				}
				emit(x)
			}
		case stepIf:
			var truth bool
			if f, ok := field(v, s.field, boolType); ok {
				truth = f.Bool()
			} else if f, ok := field(v, s.field, stringType); ok {
				truth = f.Len() > 0
			} else {
				return false
			}
			branch := s.other
			if truth {
				branch = s.then
			}
			if !branch.walk(v, emit) {
				return false
			}
		}
	}
	return true
}

// field is v's exported field called name when its type is exactly want
// (a named type may print differently, e.g. through a String method).
func field(v reflect.Value, name string, want reflect.Type) (reflect.Value, bool) {
	sf, ok := v.Type().FieldByName(name)
	if !ok || !sf.IsExported() || sf.Type != want {
		return reflect.Value{}, false
	}
	f, err := v.FieldByIndexErr(sf.Index)
	if err != nil { // through a nil embedded pointer
		return reflect.Value{}, false
	}
	return f, true
}
