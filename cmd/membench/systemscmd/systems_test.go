package systemscmd

import (
	"context"
	"strings"
	"testing"

	"github.com/membench/membench/systems"
	_ "github.com/membench/membench/systems/all"
)

func TestSystemsWithOptions(t *testing.T) {
	var out strings.Builder
	if err := Run(context.Background(), &Options{Out: &out}); err != nil {
		t.Fatal(err)
	}
	names := systems.Names()
	if len(names) < 5 {
		t.Fatalf("only %d systems registered", len(names))
	}
	for _, n := range names {
		if !strings.Contains(out.String(), "\n"+n+"\n") && !strings.HasPrefix(out.String(), n+"\n") {
			t.Errorf("%s not listed:\n%s", n, out.String())
		}
	}
	spec, _ := systems.Lookup("turns-cosine")
	if !strings.Contains(out.String(), spec.Description) || !strings.Contains(out.String(), "  options: ") {
		t.Errorf("descriptions or options missing:\n%s", out.String())
	}
}
