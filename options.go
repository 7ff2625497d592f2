package membench

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/redact"
)

// Options are a system's string-keyed settings, from YAML or --opt k=v.
// Typed getters validate and name the option in their errors.
type Options map[string]string

// Merge returns defaults overlaid by o.
func (o Options) Merge(defaults Options) Options {
	out := Options{}
	maps.Copy(out, defaults)
	maps.Copy(out, o)
	return out
}

// Check rejects keys that are not in defaults, naming all of them (sorted,
// so the message is the same on every run) and the known ones.
func (o Options) Check(system string, defaults Options) error {
	var unknown []string
	for k := range o {
		if _, ok := defaults[k]; !ok {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	known := slices.Sorted(maps.Keys(defaults))
	what := "option"
	if len(unknown) > 1 {
		what = "options"
	}
	return badinput.Errorf("system %s has no %s %s (known: %s)", system, what, strings.Join(unknown, ", "), strings.Join(known, ", "))
}

// Int reads an integer option.
func (o Options) Int(key string, def int) (int, error) {
	return parsed(o, key, def, strconv.Atoi, "an integer")
}

// Float reads a float option.
func (o Options) Float(key string, def float64) (float64, error) {
	return parsed(o, key, def, func(v string) (float64, error) { return strconv.ParseFloat(v, 64) }, "a number")
}

// Bool reads a boolean option.
func (o Options) Bool(key string, def bool) (bool, error) {
	return parsed(o, key, def, strconv.ParseBool, "true or false")
}

// parsed reads option key with parse (def when unset or empty); a value
// parse refuses is an input error saying what is wanted.
func parsed[T any](o Options, key string, def T, parse func(string) (T, error), want string) (T, error) {
	v, ok := o[key]
	if !ok || v == "" {
		return def, nil
	}
	x, err := parse(v)
	if err != nil {
		var zero T
		return zero, badinput.Errorf("option %s=%q: want %s", key, v, want)
	}
	return x, nil
}

// String reads a string option, checking it against allowed values if given.
func (o Options) String(key, def string, allowed ...string) (string, error) {
	v, ok := o[key]
	if !ok || v == "" {
		v = def
	}
	if len(allowed) == 0 || slices.Contains(allowed, v) {
		return v, nil
	}
	return "", badinput.Errorf("option %s=%q: want one of %s", key, v, strings.Join(allowed, ", "))
}

// MarshalJSON writes the options with URL credentials redacted: options are
// written to manifests and hashed into run ids, and a memory service's
// password must reach neither (it cannot change the outputs).
func (o Options) MarshalJSON() ([]byte, error) {
	m := make(map[string]string, len(o))
	for k, v := range o {
		m[k] = redact.Text(v)
	}
	return json.Marshal(m)
}
