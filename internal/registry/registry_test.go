package registry

import (
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
)

func TestLookup(t *testing.T) {
	r := New[int]("system")
	r.Register("turns-cosine", []string{"cosine"}, 1)
	r.Register("flat", nil, 2)
	for _, c := range []struct {
		name string
		want int
		err  string // "" = found
	}{
		{"flat", 2, ""},
		{"turns-cosine", 1, ""},
		{"cosine", 1, ""}, // an alias finds its name's value
		{"falt", 0, `unknown system "falt" (did you mean "flat"?); known: flat, turns-cosine`},
		{"zzzzzzzz", 0, `unknown system "zzzzzzzz"; known: flat, turns-cosine`},
	} {
		got, err := r.Lookup(c.name)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Lookup(%q) = %d, %v; want %d", c.name, got, err, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err || !badinput.Is(err)):
			t.Errorf("Lookup(%q) error = %v; want the bad-input error %s", c.name, err, c.err)
		}
	}
	if got := strings.Join(r.Names(), ","); got != "flat,turns-cosine" {
		t.Errorf("Names() = %s; want the names without aliases, sorted", got)
	}
	if got := r.Values(); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Errorf("Values() = %v; want [2 1], in the order of Names", got)
	}
}

func TestRegisterRefusesTakenNames(t *testing.T) {
	for _, c := range []struct {
		name    string
		aliases []string
	}{{"flat", nil}, {"new", []string{"cosine"}}, {"cosine", nil}, {"", nil}, {"new", []string{""}}} {
		r := New[int]("system")
		r.Register("flat", []string{"cosine"}, 1)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %q) after flat/cosine did not panic", c.name, c.aliases)
				}
			}()
			r.Register(c.name, c.aliases, 2)
		}()
	}
}
