package systems

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
)

func TestMerge(t *testing.T) {
	defaults := membench.Options{"k": "20", "mode": "fast"}
	o := membench.Options{"k": "5", "extra": "x"}
	got := o.Merge(defaults)
	want := membench.Options{"k": "5", "mode": "fast", "extra": "x"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Merge = %v, want %v", got, want)
	}
	got["mode"] = "slow"
	if defaults["mode"] != "fast" || o["mode"] != "" {
		t.Fatal("Merge result aliases its inputs")
	}
	if got := membench.Options(nil).Merge(defaults); !reflect.DeepEqual(got, defaults) {
		t.Fatalf("nil.Merge = %v", got)
	}
}

func TestCheckNamesUnknownAndKnown(t *testing.T) {
	defaults := membench.Options{"k": "20", "mode": "fast", "alpha": "0.5"}
	if err := (membench.Options{"k": "3"}).Check("flat", defaults); err != nil {
		t.Fatalf("known key rejected: %v", err)
	}
	err := membench.Options{"kk": "3"}.Check("flat", defaults)
	if err == nil {
		t.Fatal("unknown key accepted")
	}
	for _, want := range []string{"flat", `"kk"`, "known: alpha, k, mode"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// With several unknown keys the message must not depend on map order.
	bad := membench.Options{"zeta": "1", "beta": "2", "k": "1", "gamma": "3"}
	first := bad.Check("flat", defaults).Error()
	for i := 0; i < 50; i++ {
		if msg := bad.Check("flat", defaults).Error(); msg != first {
			t.Fatalf("Check message varies between calls:\n%s\n%s", first, msg)
		}
	}
	for _, k := range []string{"beta", "gamma", "zeta"} {
		if !strings.Contains(first, k) {
			t.Errorf("error %q does not name unknown key %s", first, k)
		}
	}
}

func TestTypedGetters(t *testing.T) {
	o := membench.Options{"k": "12", "alpha": "0.25", "on": "true", "mode": "slow", "empty": "", "bad": "twelve"}
	if n, err := o.Int("k", 5); n != 12 || err != nil {
		t.Errorf("Int(k) = %d, %v", n, err)
	}
	if n, err := o.Int("missing", 5); n != 5 || err != nil {
		t.Errorf("Int default = %d, %v", n, err)
	}
	if n, err := o.Int("empty", 7); n != 7 || err != nil {
		t.Errorf("Int empty = %d, %v", n, err)
	}
	if f, err := o.Float("alpha", 1); f != 0.25 || err != nil {
		t.Errorf("Float = %v, %v", f, err)
	}
	if f, err := o.Float("missing", 1.5); f != 1.5 || err != nil {
		t.Errorf("Float default = %v, %v", f, err)
	}
	if b, err := o.Bool("on", false); !b || err != nil {
		t.Errorf("Bool = %v, %v", b, err)
	}
	if b, err := o.Bool("missing", true); !b || err != nil {
		t.Errorf("Bool default = %v, %v", b, err)
	}
	if s, err := o.String("mode", "fast", "fast", "slow"); s != "slow" || err != nil {
		t.Errorf("String = %q, %v", s, err)
	}
	if s, err := o.String("missing", "fast", "fast", "slow"); s != "fast" || err != nil {
		t.Errorf("String default = %q, %v", s, err)
	}
	if s, err := o.String("bad", "x"); s != "twelve" || err != nil {
		t.Errorf("String free = %q, %v", s, err)
	}

	errs := map[string]error{}
	_, errs["int"] = o.Int("bad", 0)
	_, errs["float"] = o.Float("bad", 0)
	_, errs["bool"] = o.Bool("bad", false)
	_, errs["string"] = o.String("bad", "fast", "fast", "slow")
	hints := map[string]string{"int": "integer", "float": "number", "bool": "true or false", "string": "fast, slow"}
	for kind, err := range errs {
		if err == nil {
			t.Errorf("%s getter accepted %q", kind, o["bad"])
			continue
		}
		for _, want := range []string{"bad", `"twelve"`, hints[kind]} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s error %q lacks %q", kind, err, want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	o, err := Parse([]string{"k=20", " mode = slow ", "expr=a=b", "empty=", "k=25"})
	if err != nil {
		t.Fatal(err)
	}
	want := membench.Options{"k": "25", "mode": "slow", "expr": "a=b", "empty": ""}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("Parse = %v, want %v", o, want)
	}
	if o, err := Parse(nil); err != nil || len(o) != 0 {
		t.Fatalf("Parse(nil) = %v, %v", o, err)
	}
	for _, bad := range []string{"k", "=5", " =5", ""} {
		_, err := Parse([]string{"a=1", bad})
		if err == nil {
			t.Errorf("Parse accepted %q", bad)
			continue
		}
		if !strings.Contains(err.Error(), "--opt") || !strings.Contains(err.Error(), "key=value") || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("Parse(%q) error %q does not name the flag, the value and the fix", bad, err)
		}
	}
}

func TestOptionsJSONRedactsURLCredentials(t *testing.T) {
	o := membench.Options{"url": "https://alice:s3cret@mem.example.com:8443/v1", "cmd": "python3 m.py --db postgres://u:pw@db/x", "k": "10"}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, bad := range []string{"alice", "s3cret", "u:pw"} {
		if strings.Contains(s, bad) {
			t.Errorf("%s leaks %q", s, bad)
		}
	}
	for _, want := range []string{`"https://[redacted]@mem.example.com:8443/v1"`, `postgres://[redacted]@db/x`, `"k":"10"`} {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %s", s, want)
		}
	}
	if o["url"] != "https://alice:s3cret@mem.example.com:8443/v1" {
		t.Error("the options themselves must keep the credentials (the adapter uses them)")
	}
}

func TestOptionErrorsAreBadInput(t *testing.T) {
	if _, err := Parse([]string{"k"}); !badinput.Is(err) {
		t.Errorf("Parse(k): %v, want a bad-input error", err)
	}
	if _, err := Lookup("no-such-system"); !badinput.Is(err) {
		t.Errorf("Lookup: %v, want a bad-input error", err)
	}
}

func TestReaderKeepsTheFirstError(t *testing.T) {
	r := Read(membench.Options{"a": "x", "b": "0", "c": "maybe"})
	r.Int("a", 1)
	r.Min("b", 5, 1)
	r.Bool("c", false)
	if r.Err == nil || r.Err.Error() != `option a="x": want an integer` {
		t.Fatalf("err = %v, want the first read's error", r.Err)
	}
	r = Read(membench.Options{"b": "0", "s": "z"})
	if n := r.Min("b", 5, 1); n != 0 {
		t.Errorf("Min = %d, want the given 0", n)
	}
	r.String("s", "x", "x", "y")
	if r.Err == nil || r.Err.Error() != "option b=0: want an integer of at least 1" {
		t.Fatalf("err = %v, want the range check's error", r.Err)
	}
	r = Read(membench.Options{"k": "4"})
	if r.Float("f", 0.5) != 0.5 || r.String("s", "x", "x", "y") != "x" || !r.Bool("b", true) || r.Min("k", 1, 1) != 4 || r.Err != nil {
		t.Fatalf("defaults or values wrong, err %v", r.Err)
	}
}

func TestBudgetKOr(t *testing.T) {
	if k := (Budget{}).KOr(7); k != 7 {
		t.Errorf("unset K: %d, want the default 7", k)
	}
	if k := (Budget{K: 3}).KOr(7); k != 3 {
		t.Errorf("K=3: %d, want 3", k)
	}
}
