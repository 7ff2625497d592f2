package prompts

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"text/template/parse"

	"github.com/membench/membench"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.tmpl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sampleData derives, from a template's own parse tree, a map holding every
// field it reads: scalars as their name, ranges as one-element lists of such
// maps, arguments of join as two names. full=false gives empty values, to
// take the else branches.
func sampleData(root *parse.ListNode, full bool) map[string]any {
	m := map[string]any{}
	fillList(root, m, m, full)
	return m
}

func fillList(l *parse.ListNode, dot, root map[string]any, full bool) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.ActionNode:
			fillPipe(n.Pipe, dot, root, full)
		case *parse.IfNode:
			fillPipe(n.Pipe, dot, root, full)
			fillList(n.List, dot, root, full)
			fillList(n.ElseList, dot, root, full)
		case *parse.RangeNode:
			child := map[string]any{}
			fillList(n.List, child, root, full)
			fillList(n.ElseList, dot, root, full)
			if f := firstField(n.Pipe); f != "" {
				if full {
					dot[f] = []any{child}
				} else {
					dot[f] = []any{}
				}
			}
		case *parse.WithNode:
			fillPipe(n.Pipe, dot, root, full)
			fillList(n.List, map[string]any{}, root, full)
			fillList(n.ElseList, dot, root, full)
		}
	}
}

func firstField(p *parse.PipeNode) string {
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			if f, ok := a.(*parse.FieldNode); ok {
				return f.Ident[0]
			}
		}
	}
	return ""
}

func fillPipe(p *parse.PipeNode, dot, root map[string]any, full bool) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		isJoin := len(c.Args) > 0 && c.Args[0].String() == "join"
		for _, a := range c.Args {
			var key string
			target := dot
			switch a := a.(type) {
			case *parse.FieldNode:
				key = a.Ident[0]
			case *parse.VariableNode:
				if a.Ident[0] == "$" && len(a.Ident) > 1 {
					key, target = a.Ident[1], root
				}
			}
			if key == "" {
				continue
			}
			if _, seen := target[key]; seen {
				continue
			}
			switch {
			case isJoin && full:
				target[key] = []string{"Ann", "Bob"}
			case isJoin:
				target[key] = []string{}
			case full:
				target[key] = "v_" + key
			default:
				target[key] = ""
			}
		}
	}
}

func TestEveryEmbeddedTemplateRenders(t *testing.T) {
	ents, err := embedded.ReadDir("templates")
	if err != nil || len(ents) == 0 {
		t.Fatalf("no embedded templates: %v", err)
	}
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".tmpl")
		t.Run(name, func(t *testing.T) {
			tp, err := Embedded(name)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			raw, _ := embedded.ReadFile("templates/" + e.Name())
			hasSys := strings.Contains(string(raw), separator)
			for _, full := range []bool{true, false} {
				data := sampleData(tp.system.Tree.Root, full)
				for k, v := range sampleData(tp.user.Tree.Root, full) {
					if _, ok := data[k]; !ok {
						data[k] = v
					}
				}
				msgs, err := Render(name, data)
				if err != nil {
					t.Fatalf("render (full=%v) with %v: %v", full, data, err)
				}
				last := msgs[len(msgs)-1]
				if last.Role != "user" || strings.TrimSpace(last.Content) == "" {
					t.Fatalf("last message = %+v, want non-empty user", last)
				}
				if hasSys && (len(msgs) != 2 || msgs[0].Role != "system" || msgs[0].Content == "") {
					t.Fatalf("template has %s but messages are %+v", separator, msgs)
				}
				if strings.Contains(last.Content, separator) || (hasSys && strings.Contains(msgs[0].Content, separator)) {
					t.Fatalf("separator leaked into output")
				}
				if full {
					// Every top-level scalar the user part prints unconditionally must show up.
					for _, n := range tp.user.Tree.Root.Nodes {
						if a, ok := n.(*parse.ActionNode); ok {
							if f := firstField(a.Pipe); f != "" {
								if s, ok := data[f].(string); ok && !strings.Contains(last.Content, s) {
									t.Errorf("user message lacks %s=%q", f, s)
								}
							}
						}
					}
				}
			}
			// With no data at all, any field reference is a missing key that
			// must be reported with the template's name.
			if len(sampleData(tp.user.Tree.Root, true))+len(sampleData(tp.system.Tree.Root, true)) > 0 {
				_, err := Render(name, map[string]any{})
				if err == nil || !strings.Contains(err.Error(), name) {
					t.Fatalf("empty data: err = %v, want a missing-key error naming %s", err, name)
				}
			}
			h, err := Hash(name)
			sum := sha256.Sum256(raw)
			if err != nil || h != hex.EncodeToString(sum[:]) {
				t.Fatalf("Hash = %q, %v; want sha256 of the file", h, err)
			}
		})
	}
}

func TestSystemUserSplit(t *testing.T) {
	p := writeFile(t, "You are {{.Who}}.\n---user---\nAsk: {{.Q}}\n")
	tp, err := FromFile("ztest_split", p)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := tp.Render(map[string]string{"Who": "a judge", "Q": "why?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[0].Content != "You are a judge." ||
		msgs[1].Role != "user" || msgs[1].Content != "Ask: why?" {
		t.Fatalf("messages = %+v", msgs)
	}
}

func TestNoSeparatorIsAllUser(t *testing.T) {
	p := writeFile(t, "Just {{.X}}, no system part.\n")
	tp, err := FromFile("ztest_nosep", p)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := tp.Render(map[string]string{"X": "this"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != "user" || msgs[0].Content != "Just this, no system part." {
		t.Fatalf("messages = %+v", msgs)
	}
}

func TestSetReplacesOnlyItsOwnTemplate(t *testing.T) {
	const name = "answer"
	data := map[string]any{"Context": "ctx", "Question": "q?", "Speakers": []string{"A", "B"}}
	var base Set
	before, err := base.Render(name, data)
	if err != nil {
		t.Fatal(err)
	}
	h0, _ := Hash(name)
	if strings.Contains(base.Hashes()[name], "(") {
		t.Fatalf("embedded template marked as from a file: %q", base.Hashes()[name])
	}

	body := "Custom system.\n---user---\nQ={{.Question}} C={{.Context}}"
	p := writeFile(t, body)
	tp, err := FromFile(name, p)
	if err != nil {
		t.Fatal(err)
	}
	custom := base.With(tp)
	after, err := custom.Render(name, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 2 || after[0].Content != "Custom system." || after[1].Content != "Q=q? C=ctx" {
		t.Fatalf("file output = %+v", after)
	}
	if after[1].Content == before[len(before)-1].Content {
		t.Fatal("the file did not change the output")
	}
	sum := sha256.Sum256([]byte(body))
	if tp.Hash() == h0 || tp.Hash() != hex.EncodeToString(sum[:]) {
		t.Fatalf("file hash = %s (embedded %s), want sha256 of the file", tp.Hash(), h0)
	}
	if got := custom.Hashes()[name]; got != tp.Hash()+" ("+p+")" {
		t.Fatalf("Hashes()[%s] = %q, want hash and source path", name, got)
	}
	// The set it was derived from, and the package's embedded view, are
	// untouched: no other run can see this file.
	if got := base.Hashes()[name]; got != h0 {
		t.Fatalf("base set changed: %q, want %s", got, h0)
	}
	if again, _ := Render(name, data); again[len(again)-1].Content != before[len(before)-1].Content {
		t.Fatal("the package-level Render sees a set's file")
	}
	if h, _ := Hash(name); h != h0 {
		t.Fatalf("Hash(%s) = %s after loading a file, want %s", name, h, h0)
	}
}

func TestBadFileNamesTemplateAndFile(t *testing.T) {
	const name = "answer"
	if _, err := FromFile(name, filepath.Join(t.TempDir(), "missing.tmpl")); err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("missing file: err = %v, want one naming %s", err, name)
	}
	bad := writeFile(t, "sys\n---user---\n{{.Question")
	_, err := FromFile(name, bad)
	if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("bad template: err = %v, want one naming %s and the file", err, name)
	}
}

// Two sets with different files render concurrently, each its own.
func TestConcurrentSets(t *testing.T) {
	data := map[string]any{"Question": "q"}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		tp, err := FromFile("answer", writeFile(t, "set {{.Question}} "+string(rune('A'+i))))
		if err != nil {
			t.Fatal(err)
		}
		set, want := Set{}.With(tp), "set q "+string(rune('A'+i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				msgs, err := set.Render("answer", data)
				if err != nil || msgs[0].Content != want {
					t.Errorf("got %v, %v; want %q", msgs, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestMissingKeyNamesTemplate(t *testing.T) {
	_, err := Render("answer", map[string]any{"Context": "c", "Speakers": []string{"A"}})
	if err == nil || !strings.Contains(err.Error(), "answer") || !strings.Contains(err.Error(), "Question") {
		t.Fatalf("err = %v, want it to name template answer and key Question", err)
	}
	type partial struct{ Context string }
	if _, err := Render("answer", partial{"c"}); err == nil || !strings.Contains(err.Error(), "answer") {
		t.Fatalf("struct without fields: err = %v", err)
	}
}

func TestUnknownTemplateListsKnown(t *testing.T) {
	_, err := Render("no_such_prompt", nil)
	if err == nil {
		t.Fatal("unknown template rendered")
	}
	for _, want := range []string{"no_such_prompt", "known:", "answer", "judge"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := Hash("no_such_prompt"); err == nil {
		t.Error("Hash of unknown template succeeded")
	}
	if _, ok := Hashes()["no_such_prompt"]; ok {
		t.Error("Hashes lists an unknown template")
	}
}

func TestConcurrentRender(t *testing.T) {
	data := map[string]any{"Gold": "g", "Prediction": "p", "Question": "q", "Abstention": false}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if _, err := Render("judge", data); err != nil {
					t.Error(err)
					return
				}
				_ = Hashes()
			}
		}()
	}
	wg.Wait()
}

// A labels first line is taken off the template, read as upper-case words,
// and kept in the hash; without one a template declares no labels; a bad
// or misplaced labels line is refused with the file and the fix.
func TestLabelsLine(t *testing.T) {
	for _, c := range []struct {
		body string
		want string // labels joined by " ", or "error: <part of the message>"
	}{
		{"---labels: CORRECT PARTIAL WRONG---\nsys\n---user---\nQ {{.Question}}", "CORRECT PARTIAL WRONG"},
		{"\ufeff\n\n  ---labels: correct, partial, wrong ---  \r\nQ {{.Question}}", "CORRECT PARTIAL WRONG"},
		{"---labels: CORRECT/WRONG---\nQ {{.Question}}", "CORRECT WRONG"},
		{"sys\n---user---\nQ {{.Question}}", ""},
		{"---labels: CORRECT PARTIAL WRONG\nQ {{.Question}}", "error: end the labels line with ---"},
		{"---labels: ---\nQ {{.Question}}", "error: names no label"},
		{"---labels: CORRECT HALF-RIGHT---\nQ", "error: \"HALF-RIGHT\" is not a label word"},
		{"sys\n---user---\n---labels: CORRECT PARTIAL WRONG---\nQ", "error: line 3: the labels line must be the template's first line"},
		{"---labels: CORRECT WRONG---\nsys\n---labels: PARTIAL---\nQ", "error: line 3: the labels line must be the template's first line"},
	} {
		p := writeFile(t, c.body)
		tp, err := FromFile("judge@x", p)
		if want, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
				t.Errorf("%q: err = %v, want one naming %s and saying %q", c.body, err, p, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.body, err)
			continue
		}
		if got := strings.Join(tp.Labels(), " "); got != c.want {
			t.Errorf("%q: labels %q, want %q", c.body, got, c.want)
		}
		msgs, err := tp.Render(map[string]string{"Question": "q?"})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if strings.Contains(m.Content, "labels") {
				t.Errorf("%q: the labels line reached the %s message: %q", c.body, m.Role, m.Content)
			}
		}
		sum := sha256.Sum256([]byte(c.body))
		if tp.Hash() != hex.EncodeToString(sum[:]) {
			t.Errorf("%q: the hash must cover the labels line too", c.body)
		}
	}
	// The embedded cognitive judge offers PARTIAL; the strict one declares nothing.
	cog, err := Embedded("judge_cognitive")
	if err != nil || strings.Join(cog.Labels(), " ") != "CORRECT PARTIAL WRONG" {
		t.Fatalf("judge_cognitive labels %v, %v", cog.Labels(), err)
	}
	if j, _ := Embedded("judge"); j.Labels() != nil {
		t.Errorf("judge.tmpl declares %v", j.Labels())
	}
}

// Render fills the set's template called name with data.
func (s Set) Render(name string, data any) ([]membench.Message, error) {
	t, err := s.Template(name)
	if err != nil {
		return nil, err
	}
	return t.Render(data)
}

// Hashes returns name -> sha256 for every embedded template.
func Hashes() map[string]string { return Set{}.Hashes() }
