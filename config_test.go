package membench_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
)

func baseConfig() membench.Config {
	return membench.Config{
		System:  "turns-cosine",
		Options: membench.Options{"k": "10", "mode": "a"},
		K:       10,
		Dataset: "locomo",
		Model:   "offline",
		Judges:  []string{"llm", "f1"},
	}.WithDefaults()
}

// nonZero returns a value of type typ that differs from its zero value.
func nonZero(t *testing.T, typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.String:
		v.SetString("changed")
	case reflect.Int, reflect.Int64:
		v.SetInt(7) // also covers time.Duration
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(0.25)
	case reflect.Slice:
		v = reflect.MakeSlice(typ, 1, 1)
		v.Index(0).Set(nonZero(t, typ.Elem()))
	case reflect.Map:
		v = reflect.MakeMap(typ)
		v.SetMapIndex(reflect.ValueOf("changed").Convert(typ.Key()), nonZero(t, typ.Elem()))
	case reflect.Pointer:
		v = reflect.New(typ.Elem()) // a non-nil pointer (e.g. a replay tape)
	case reflect.Struct:
		for i := 0; i < typ.NumField(); i++ {
			v.Field(i).Set(nonZero(t, typ.Field(i).Type))
		}
	default:
		t.Fatalf("test does not know how to change a %s field", typ)
	}
	return v
}

// Every field tagged json:"-" must leave the hash and run id alone; every
// other field must change them, so no output-relevant setting is forgotten.
func TestHashCoversExactlyOutputFields(t *testing.T) {
	base := baseConfig()
	h0, id0 := base.Hash(), base.ID()
	typ := reflect.TypeOf(base)
	ignored := 0
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		c := base
		rv := reflect.ValueOf(&c).Elem().Field(i)
		nv := nonZero(t, f.Type)
		if reflect.DeepEqual(rv.Interface(), nv.Interface()) {
			t.Fatalf("field %s already holds the test value", f.Name)
		}
		rv.Set(nv)
		if f.Tag.Get("json") == "-" {
			ignored++
			if c.Hash() != h0 {
				t.Errorf("changing %s (json:\"-\") changed the hash", f.Name)
			}
			if f.Name != "RunID" && c.ID() != id0 {
				t.Errorf("changing %s changed the run id %s -> %s", f.Name, id0, c.ID())
			}
		} else if c.Hash() == h0 || c.ID() == id0 {
			t.Errorf("changing %s left hash/run id unchanged", f.Name)
		}
	}
	if ignored == 0 {
		t.Fatal(`no json:"-" fields found`)
	}
}

func TestHashNamedCases(t *testing.T) {
	base := baseConfig()
	c := base
	c.Concurrency, c.ResultsDir, c.CacheDir, c.NoCache, c.Quiet = 16, "/elsewhere", "/tmp/c", true, true
	if c.ID() != base.ID() || c.Hash() != base.Hash() {
		t.Fatal("Concurrency/ResultsDir/CacheDir/NoCache/Quiet changed the run id")
	}
	if c.Dir() == base.Dir() || c.Dir() != filepath.Join("/elsewhere", base.ID()) {
		t.Fatalf("Dir = %s, want the run id under ResultsDir", c.Dir())
	}
	k := base
	k.K = 11
	if k.ID() == base.ID() {
		t.Fatal("changing K kept the run id")
	}
	step := base
	step.TurnStep = time.Minute
	if step.ID() == base.ID() {
		t.Fatal("changing TurnStep kept the run id")
	}
	opt := base
	opt.Options = membench.Options{"k": "10", "mode": "b"}
	if opt.ID() == base.ID() {
		t.Fatal("changing an option value kept the run id")
	}
	// Map insertion order must not matter.
	same := base
	same.Options = membench.Options{}
	same.Options["mode"] = "a"
	same.Options["k"] = "10"
	if same.Hash() != base.Hash() {
		t.Fatal("hash depends on option map order")
	}
}

func TestIDShape(t *testing.T) {
	c := baseConfig()
	id := c.ID()
	if want := "locomo-turns-cosine-" + c.Hash()[:10]; id != want {
		t.Fatalf("ID = %s, want %s", id, want)
	}
	if len(c.Hash()) != 64 || strings.Trim(c.Hash(), "0123456789abcdef") != "" {
		t.Fatalf("Hash = %q, want 64 hex digits", c.Hash())
	}
	c.RunID = "my-run"
	if c.ID() != "my-run" || c.Dir() != filepath.Join(c.ResultsDir, "my-run") {
		t.Fatalf("given RunID not used: %s %s", c.ID(), c.Dir())
	}
	// Defaults that only touch json:"-" fields keep the id.
	d := membench.Config{System: "x", Dataset: "sample", Model: "offline", TurnStep: 30 * time.Second, Judges: []string{"lexical", "f1", "bleu1"}}
	if d.ID() != d.WithDefaults().ID() {
		t.Fatal("WithDefaults changed the id of an already complete config")
	}
}
