package yamlfile

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/internal/badinput"
)

type inner struct {
	Reference string            `yaml:"reference"`
	Options   map[string]string `yaml:"options"`
}

type shared struct {
	Seed int `yaml:"seed"`
}

type config struct {
	System   string        `yaml:"system"`
	K        int           `yaml:"k"`
	Small    uint8         `yaml:"small"`
	Share    float64       `yaml:"share"`
	Quiet    bool          `yaml:"quiet"`
	TurnStep time.Duration `yaml:"turn_step"`
	Judges   []string      `yaml:"judges"`
	Plan     *inner        `yaml:"plan"`
	Hidden   string        `yaml:"-"`
	Shared   shared        `yaml:",inline"`
}

// goType matches what yaml.v3 would have said: a Go type or a Go path.
var goType = regexp.MustCompile(`\b(int|uint8|float64|bool|string|time\.Duration|map\[|yamlfile\.|config|inner)\b|in type|unmarshal`)

func decode(t *testing.T, src string) (config, error) {
	t.Helper()
	var c config
	docs, err := Documents("c.yaml", []byte(src))
	if err != nil {
		return c, err
	}
	if len(docs) == 0 {
		return c, nil
	}
	return c, Decode("c.yaml", docs[0], &c)
}

func TestDecodeNamesFileLineAndKey(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"k: 3\nsytem: structmem\n", `c.yaml:2: unknown key "sytem" (did you mean "system"?)`},
		{"frobnicate: 1\n", `c.yaml:1: unknown key "frobnicate"; known keys: system, k, small, share, quiet, turn_step, judges, plan, seed`},
		{"hidden: x\n", `c.yaml:1: unknown key "hidden"`},
		{"plan:\n  reference: a\n  refrence: b\n", `c.yaml:3: plan: unknown key "refrence" (did you mean "reference"?)`},
		{"k: three\n", `c.yaml:1: k: "three" is not a whole number`},
		{"k: 99999999999999999999\n", `c.yaml:1: k: "99999999999999999999" is out of range; give a whole number`},
		{"small: -1\n", `c.yaml:1: small: "-1" is out of range; give a whole number, 0 or more`},
		{"share: lots\n", `c.yaml:1: share: "lots" is not a number`},
		{"quiet: maybe\n", `c.yaml:1: quiet: "maybe" is not true or false`},
		{"turn_step: soon\n", `c.yaml:1: turn_step: "soon" is not a duration such as 30s or 1m`},
		{"judges: f1\n", `c.yaml:1: judges: "f1" is not a list`},
		{"judges: [f1, [a]]\n", `c.yaml:1: judges[1]: a list is not text`},
		{"plan:\n  options:\n    seeds: [1, 2]\n", `c.yaml:3: plan.options.seeds: a list is not text`},
		{"plan: 3\n", `c.yaml:1: plan: "3" is not a mapping`},
		{"system\n", `c.yaml:1: "system" is not a mapping`},
		{"system: a\n  k: 3\n", `c.yaml:2: mapping values are not allowed in this context; fix the YAML at that line`},
		{"<<: {k: 2, sytem: b}\n", `c.yaml:1: unknown key "sytem" (did you mean "system"?)`},
	} {
		_, err := decode(t, c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !badinput.Is(err) {
			t.Errorf("%q: %v; want bad input starting %s", c.src, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") || goType.MatchString(err.Error()) {
			t.Errorf("%q: %q is more than one line or names a Go type", c.src, err)
		}
	}
}

func TestDecodeFillsTheValue(t *testing.T) {
	c, err := decode(t, "plan: &p {reference: r}\n<<: {k: 4}\n")
	if err != nil || c.K != 4 || c.Plan.Reference != "r" {
		t.Fatalf("merge key: %+v, %v", c, err)
	}
	c, err = decode(t, "# only a comment\n")
	if err != nil || c.System != "" {
		t.Fatalf("comment-only file: %+v, %v", c, err)
	}
	c, err = decode(t, "system: flat\nk: 5\nseed: 3\nturn_step: 1m\njudges: [f1, em]\nquiet: true\nplan:\n  reference: r\n  options: {n: '30'}\nsmall:\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.System != "flat" || c.K != 5 || c.Shared.Seed != 3 || c.TurnStep != time.Minute || len(c.Judges) != 2 || !c.Quiet ||
		c.Plan == nil || c.Plan.Reference != "r" || c.Plan.Options["n"] != "30" {
		t.Fatalf("decoded %+v", c)
	}
}

func TestDocumentsSplitsTheStream(t *testing.T) {
	docs, err := Documents("s.yaml", []byte("system: a\n---\nname: b\n"))
	if err != nil || len(docs) != 2 {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
	var first config
	if err := Decode("s.yaml", docs[0], &first); err != nil || first.System != "a" {
		t.Fatalf("%+v %v", first, err)
	}
	var second struct {
		Name string `yaml:"name"`
	}
	if err := Decode("s.yaml", docs[1], &second); err != nil || second.Name != "b" {
		t.Fatalf("%+v %v", second, err)
	}
	if err := Decode("s.yaml", docs[1], &first); err == nil || !strings.HasPrefix(err.Error(), `s.yaml:3: unknown key "name"`) {
		t.Fatalf("the second document's line: %v", err)
	}
}
