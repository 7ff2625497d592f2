package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// goTypeName matches what yaml.v3 says of a Go type ("in type
// membench.Config", "into int", "!!str").
var goTypeName = regexp.MustCompile(`in type|into |!!|\b[a-z]+\.[A-Z]\w+\b|unmarshal`)

// A typo in a YAML file names the file, the line and the key, suggests
// the key meant and names no Go type; exit 2, one line.
func TestYAMLTypoNamesKeyAndLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := testutil.Writer(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config", write("typo.yaml", "# a run\nsytem: structmem\n")},
			`typo.yaml:2: unknown key "sytem" (did you mean "system"?)`},
		{[]string{"run", "--config", write("far.yaml", "k: 3\nfrobnicate: 1\n")},
			`far.yaml:2: unknown key "frobnicate"; known keys: system, options, k, dataset`},
		{[]string{"run", "--config", write("k.yaml", "k: three\n")},
			`k.yaml:1: k: "three" is not a whole number`},
		{[]string{"run", "--config", write("judges.yaml", "judges: f1\n")},
			`judges.yaml:1: judges: "f1" is not a list`},
		{[]string{"sweep", "--config", write("sweep.yaml", "dataset: sample\n---\nname: s\ngird:\n  k: [1, 2]\n")},
			`sweep.yaml:4: unknown key "gird" (did you mean "grid"?)`},
		{[]string{"sweep", "--config", write("sweep1.yaml", "dataset: sample\nturn_stpe: 1m\n---\nname: s\n")},
			`sweep1.yaml:2: unknown key "turn_stpe" (did you mean "turn_step"?)`},
		{[]string{"prereg", "lock", write("plan.yaml", "title: t\njugde: lexical\n"), "--run", dir},
			`plan.yaml:2: unknown key "jugde" (did you mean "judge"?)`},
	} {
		out, code := membench(t, nil, c.args...)
		line := strings.TrimSpace(out)
		if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("membench %s: exit %d\n%s\nwant exit 2, one line containing %s", strings.Join(c.args, " "), code, out, c.want)
		}
		if goTypeName.MatchString(line) {
			t.Errorf("membench %s names a Go type: %s", strings.Join(c.args, " "), line)
		}
	}
}
