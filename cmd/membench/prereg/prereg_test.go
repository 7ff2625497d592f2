package prereg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/cmd/membench/clierr"
)

func TestTestRefusesChangedPlanWithExit2(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "p.yaml")
	src := "judge: llm\nsystems: {a: A, b: B}\nhypotheses:\n  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}\n"
	os.WriteFile(plan, []byte(src), 0o644)
	run := func(args ...string) (string, error) {
		c := NewCmd()
		var out bytes.Buffer
		c.SetOut(&out)
		c.SetErr(&out)
		c.SetArgs(args)
		err := c.Execute()
		return out.String(), err
	}
	if out, err := run("lock", plan, "--run", dir); err != nil || !strings.Contains(out, "locked") {
		t.Fatalf("lock: %v %s", err, out)
	}
	os.WriteFile(plan, []byte(src+"planned_n: 10\n"), 0o644)
	_, err := run("test", plan, "--run", dir)
	if clierr.Code(err) != 2 || !strings.Contains(err.Error(), "changed since it was locked") {
		t.Fatalf("changed plan: exit %d, %v", clierr.Code(err), err)
	}
}
