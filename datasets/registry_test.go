package datasets_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	_ "github.com/membench/membench/datasets/longmemeval"
	_ "github.com/membench/membench/datasets/sample"
)

func TestBuiltinsRegistered(t *testing.T) {
	// Other tests of this package register more; the built-ins are always there.
	for _, n := range []string{"locomo", "longmemeval", "sample"} {
		if !slices.Contains(datasets.Names(), n) || !slices.IsSorted(datasets.Names()) {
			t.Fatalf("Names() = %v", datasets.Names())
		}
	}
	loco, _ := datasets.Lookup("locomo")
	var names []string
	for c := locomo.CatMultiHop; c <= locomo.CatAdversarial; c++ {
		g, ok := loco.Group(locomo.CategoryName(c))
		if !ok || g.Abstains != (c == locomo.CatAdversarial) {
			t.Errorf("locomo category %d: group %+v %v", c, g, ok)
		}
		names = append(names, g.Name)
	}
	for i, g := range loco.Groups {
		if g.Name != names[i] {
			t.Errorf("locomo groups out of category order: %v", loco.Groups)
		}
	}
	lme, _ := datasets.Lookup("longmemeval")
	if g, ok := lme.Group("abstention"); !ok || !g.Abstains || lme.DefaultFile != "longmemeval-s" {
		t.Errorf("longmemeval spec: %+v", lme)
	}
	if s, _ := datasets.Lookup("sample"); !s.Embedded || len(s.Fetch) != 0 {
		t.Errorf("sample spec: %+v", s)
	}
	// Every fetch entry came from a registration and names its dataset.
	var fetch []string
	for _, e := range datasets.Registry {
		if _, err := datasets.Lookup(e.Loader); err != nil {
			t.Errorf("entry %s names unregistered loader %q", e.Name, e.Loader)
		}
		if !e.Key {
			fetch = append(fetch, e.Name)
		}
	}
	if len(fetch) < 4 || !slices.Equal(fetch[:4], []string{"locomo", "longmemeval-s", "longmemeval-oracle", "longmemeval-m"}) {
		t.Errorf("fetch registry = %v", fetch)
	}
}

// A dataset registered outside the built-ins loads through Load: the
// default file from its fetch entry, abstention from its groups.
func TestRegisterAndLoad(t *testing.T) {
	registerOnce("regtest", datasets.Spec{
		Name: "regtest", DefaultFile: "regtest-file",
		Fetch:  []datasets.Entry{{Name: "regtest-file", File: "regtest.json", URL: "https://example.invalid/regtest.json"}},
		Groups: []datasets.GroupSpec{{Name: "plain"}, {Name: "decline", Abstains: true}},
		Load: func(path string, _ datasets.LoadOptions) (*datasets.Dataset, error) {
			regtestPath = path
			return &datasets.Dataset{Name: "regtest", Conversations: []*datasets.Conversation{{ID: "c", Questions: []*datasets.Question{
				{ID: "c:0", Group: "plain"}, {ID: "c:1", Group: "decline"}, {ID: "c:2", Group: "unlisted"},
			}}}}, nil
		},
	})
	if e, ok := datasets.File("regtest-file"); !ok || e.Loader != "regtest" {
		t.Fatalf("fetch entry: %+v %v", e, ok)
	}
	home := t.TempDir()
	if _, err := datasets.Load("regtest", "", datasets.LoadOptions{Home: home}); err == nil || !strings.Contains(err.Error(), "membench datasets fetch regtest-file") {
		t.Fatalf("missing default file: %v", err)
	}
	want := filepath.Join(home, "datasets", "regtest.json")
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load("regtest", "", datasets.LoadOptions{Home: home})
	if err != nil || regtestPath != want {
		t.Fatalf("load: %v, path %q", err, regtestPath)
	}
	qs := ds.Questions()
	if qs[0].Abstains() || !qs[1].Abstains() || qs[2].Abstains() || len(ds.Groups) != 2 || ds.Groups[1].Name != "decline" {
		t.Errorf("marked questions %+v %+v %+v, groups %v", qs[0], qs[1], qs[2], ds.Groups)
	}
	if !slices.Contains(datasets.Names(), "regtest") {
		t.Errorf("Names() = %v", datasets.Names())
	}
	// A loader that leaves a question without a group is caught at once.
	registerOnce("regtest-nogroup", datasets.Spec{Groups: []datasets.GroupSpec{{Name: "all"}},
		Load: func(string, datasets.LoadOptions) (*datasets.Dataset, error) {
			return &datasets.Dataset{Conversations: []*datasets.Conversation{{ID: "c", Questions: []*datasets.Question{{ID: "c:0"}}}}}, nil
		}})
	if _, err := datasets.Load("regtest-nogroup", "x.json", datasets.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "c:0 no group") {
		t.Errorf("question without a group: %v", err)
	}
}

func TestRegisterRefusesMalformedSpecs(t *testing.T) {
	load := func(string, datasets.LoadOptions) (*datasets.Dataset, error) { return &datasets.Dataset{}, nil }
	one := []datasets.GroupSpec{{Name: "all"}}
	for name, s := range map[string]datasets.Spec{
		"taken":          {Name: "locomo", Load: load, Groups: one},
		"no load":        {Name: "x1", Groups: one},
		"no groups":      {Name: "x2", Load: load},
		"repeated group": {Name: "x3", Load: load, Groups: []datasets.GroupSpec{{Name: "a"}, {Name: "a"}}},
		"default absent": {Name: "x4", Load: load, Groups: one, DefaultFile: "x4-file"},
		"entry taken":    {Name: "x5", Load: load, Groups: one, Fetch: []datasets.Entry{{Name: "longmemeval-s", File: "f.json"}}},
		"foreign loader": {Name: "x6", Load: load, Groups: one, Fetch: []datasets.Entry{{Name: "x6-f", File: "f.json", Loader: "locomo"}}},
		"second default": {Name: "x7", Load: load, Groups: one, Default: true},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			datasets.Register(s)
		}()
	}
	for _, n := range []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7"} {
		if _, err := datasets.Lookup(n); err == nil {
			t.Errorf("%s registered after a refusal", n)
		}
	}
}

// A dataset with no default file asks for --data; an embedded one refuses it.
func TestLoadNeedsFileOrRefusesOne(t *testing.T) {
	registerOnce("regtest-nofile", datasets.Spec{Name: "regtest-nofile", Groups: []datasets.GroupSpec{{Name: "all"}},
		Load: func(string, datasets.LoadOptions) (*datasets.Dataset, error) { return &datasets.Dataset{}, nil }})
	if _, err := datasets.Load("regtest-nofile", "", datasets.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "--data FILE") {
		t.Errorf("no file: %v", err)
	}
	if _, err := datasets.Load("sample", "x.json", datasets.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "takes no file") {
		t.Errorf("embedded with a file: %v", err)
	}
}

// regtestPath is the path regtest's loader was last given.
var regtestPath string

// registerOnce registers s unless a previous run of the test (-count) did.
func registerOnce(name string, s datasets.Spec) {
	if _, err := datasets.Lookup(name); err != nil {
		s.Name = name
		datasets.Register(s)
	}
}

// Answer keys are the dataset's to declare: LoCoMo takes them, a dataset
// that does not say so (or no dataset) does not.
func TestAnswerKeysComeFromTheSpec(t *testing.T) {
	for name, want := range map[string]bool{"locomo": true, "sample": false, "longmemeval": false, "nope": false} {
		if got := datasets.HasAnswerKeys(name); got != want {
			t.Errorf("HasAnswerKeys(%s) = %v, want %v", name, got, want)
		}
	}
	if got := datasets.KeyedNames(); got != "locomo" {
		t.Errorf("KeyedNames() = %q, want locomo", got)
	}
}

// The default dataset and the "published" key come from the specs: the
// sample is the default, and only a dataset taking keys has a published one.
func TestDefaultAndKeyIDComeFromTheSpecs(t *testing.T) {
	if got := datasets.Default(); got != "sample" {
		t.Errorf("Default() = %q, want sample", got)
	}
	for _, c := range []struct{ dataset, applied, want string }{
		{"locomo", "", "published"},
		{"locomo", "audited sha256:cc", "audited sha256:cc"},
		{"sample", "", ""},
		{"longmemeval", "", ""},
		{"nope", "", ""},
	} {
		if got := datasets.KeyID(c.dataset, c.applied); got != c.want {
			t.Errorf("KeyID(%q, %q) = %q, want %q", c.dataset, c.applied, got, c.want)
		}
	}
}
