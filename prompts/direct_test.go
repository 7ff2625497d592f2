package prompts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/membench/membench/llm"
)

// viaTextTemplate is Render without direct plans.
func viaTextTemplate(t *Template, data any) ([]llm.Message, error) {
	noPlans := *t
	noPlans.sysPlan, noPlans.userPlan = nil, nil
	return noPlans.Render(data)
}

// planFields lists the fields a plan reads and the Go type each needs:
// string for printed fields, []string for join, bool or string for if.
func planFields(d direct, out map[string]string) {
	for _, s := range d {
		switch s.kind {
		case stepField:
			out[s.field] = "string"
		case stepJoin:
			out[s.field] = "[]string"
		case stepIf:
			if out[s.field] == "" {
				out[s.field] = "if"
			}
			planFields(s.then, out)
			planFields(s.other, out)
		}
	}
}

var pieces = []string{"", "a", "Ann", " ", "\n", "  \t", "<b>", "&amp;", "\"q\"", "{{.X}}", "é", "日本", "\x00", "\xff", "\u2028", "Not mentioned", "2 May 2023"}

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.IntN(5); n > 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// structFor builds a struct type with the plan's fields (an if-field as
// bool when ifBool, else as string) and fills a value of it at random.
func structFor(rng *rand.Rand, fields map[string]string, ifBool bool) any {
	var sf []reflect.StructField
	for name, kind := range fields {
		var typ reflect.Type
		switch {
		case kind == "[]string":
			typ = stringsType
		case kind == "if" && ifBool:
			typ = boolType
		default:
			typ = stringType
		}
		sf = append(sf, reflect.StructField{Name: name, Type: typ})
	}
	v := reflect.New(reflect.StructOf(sf)).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Type() {
		case stringsType:
			if n := rng.IntN(4); n > 0 || rng.IntN(2) == 0 {
				ss := make([]string, n)
				for j := range ss {
					ss[j] = randomText(rng)
				}
				f.Set(reflect.ValueOf(ss))
			}
		case boolType:
			f.SetBool(rng.IntN(2) == 0)
		default:
			f.SetString(randomText(rng))
		}
	}
	return v.Interface()
}

// Every embedded template with a direct plan renders what text/template
// renders, for random values of every field it reads, as a struct and as a
// pointer to one; the answer and judge prompts, rendered for every
// question, must have plans.
func TestDirectEqualsTextTemplate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	planned := map[string]bool{}
	for name, tp := range parsedEmbedded() {
		if tp.sysPlan == nil || tp.userPlan == nil {
			continue
		}
		planned[name] = true
		fields := map[string]string{}
		planFields(tp.sysPlan, fields)
		planFields(tp.userPlan, fields)
		for i := 0; i < 300; i++ {
			data := structFor(rng, fields, i%2 == 0)
			if i%3 == 0 {
				p := reflect.New(reflect.TypeOf(data))
				p.Elem().Set(reflect.ValueOf(data))
				data = p.Interface()
			}
			if _, ok := tp.userPlan.render(data); !ok {
				t.Fatalf("%s: the plan refused %#v", name, data)
			}
			got, err1 := tp.Render(data)
			want, err2 := viaTextTemplate(tp, data)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s with %#v:\ndirect        %q (%v)\ntext/template %q (%v)", name, data, got, err1, want, err2)
			}
		}
	}
	for _, name := range []string{"answer", "judge", "judge_lenient", "judge_cognitive"} {
		if !planned[name] {
			t.Errorf("%s has no direct plan: it would render through text/template on every question", name)
		}
	}
}

type named string

func (n named) String() string { return "named:" + string(n) }

// Data the plans do not read falls back to text/template: output and errors
// are its own.
func TestDirectFallsBack(t *testing.T) {
	tp, err := compile("t", []byte("sys {{.A}}\n"+separator+"\n{{if .B}}yes {{join .C \", \"}}{{else}}no{{end}} {{.A}}"), "t.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if tp.sysPlan == nil || tp.userPlan == nil {
		t.Fatal("no direct plan for a template of the direct shape")
	}
	type ok struct {
		A string
		B bool
		C []string
	}
	type namedA struct {
		A named
		B bool
		C []string
	}
	type intB struct {
		A string
		B int
		C []string
	}
	type missing struct{ A string }
	type unexported struct {
		A string
		b bool //lint:ignore U1000 the point: a field the template cannot read
		C []string
	}
	cases := []any{
		ok{A: "x", B: true, C: []string{"p", "q"}},
		&ok{A: "x"},
		(*ok)(nil),
		map[string]any{"A": "x", "B": true, "C": []string{"p"}},
		namedA{A: "x", B: true},
		intB{A: "x", B: 2, C: []string{"p"}},
		missing{A: "x"},
		unexported{A: "x", C: []string{"p"}},
		nil,
		"a string",
	}
	for _, data := range cases {
		got, err1 := tp.Render(data)
		want, err2 := viaTextTemplate(tp, data)
		if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(got, want) {
			t.Errorf("%#v:\ndirect        %q (%v)\ntext/template %q (%v)", data, got, err1, want, err2)
		}
	}
	if _, ok := tp.userPlan.render(namedA{A: "x"}); ok {
		t.Error("a named string type (String method) was rendered directly")
	}
	for _, src := range []string{"{{range .A}}x{{end}}", "{{.A.B}}", "{{.A | printf \"%s\"}}", "{{$x := .A}}{{$x}}", "{{with .A}}{{.}}{{end}}", "{{printf \"%s\" .A}}", "{{.}}"} {
		tp, err := compile("t", []byte(src), "t.tmpl")
		if err != nil {
			t.Fatal(err)
		}
		if tp.userPlan != nil {
			t.Errorf("%s: got a direct plan, want text/template", src)
		}
	}
}

func BenchmarkRenderAnswer(b *testing.B) {
	tp, err := Embedded("answer")
	if err != nil {
		b.Fatal(err)
	}
	type input struct {
		Question, AskedAt string
		Speakers          []string
		Context           string
	}
	var ctx bytes.Buffer
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&ctx, "[7 May 2023, 14:%02d] Caroline: I went to the LGBTQ support group yesterday and it was so powerful.\n", i)
	}
	in := input{Question: "When did Caroline go to the support group?", Speakers: []string{"Caroline", "Melanie"}, Context: ctx.String()}
	for _, mode := range []string{"direct", "text-template"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				var err error
				if mode == "direct" {
					_, err = tp.Render(in)
				} else {
					_, err = viaTextTemplate(tp, in)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
