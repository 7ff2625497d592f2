package prices

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/membench/membench/internal/badinput"
)

// A prices file (YAML, or JSON, which YAML reads too) changes or adds
// model prices, in US dollars per million tokens:
//
//	as_of: 2025-06-01          # optional: the date the prices were read
//	models:
//	  gpt-4o-mini: {input: 0.15, cached_input: 0.075, output: 0.60}
//	  my-vllm-model: {input: 0, output: 0}
//
// input and output are required; cached_input defaults to input (no
// discount assumed).

// Load reads a prices file and lays it over the default table.
func Load(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, badinput.Errorf("--prices %s: %v; give a readable YAML or JSON prices file", path, err)
	}
	t, err := Parse(path, b)
	if err != nil {
		return nil, err
	}
	return Default().Overlay(t), nil
}

// Parse reads a prices file's contents; name is what errors call it.
// Every error is bad input naming the line.
func Parse(name string, b []byte) (*Table, error) {
	bad := func(line int, format string, a ...any) error {
		return badinput.Errorf("%s:%d: "+format, append([]any{name, line}, a...)...)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, bad(1, "the file is empty; write a models: map of input, cached_input and output prices per million tokens")
		}
		return nil, badinput.Errorf("%s: %v; fix the YAML or JSON at that line", name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, bad(extra.Line, "a second document; a prices file holds one")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, bad(root.Line, "the file is not a mapping; write as_of: and models: at the top level")
	}
	t := &Table{Source: name, Models: map[string]Price{}}
	var models *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "as_of":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return nil, bad(v.Line, "as_of is not a date; write e.g. as_of: 2025-06-01")
			}
			t.AsOf = v.Value
		case "models":
			models = v
		default:
			return nil, bad(k.Line, "unknown key %q; a prices file has as_of and models", k.Value)
		}
	}
	if models == nil {
		return nil, bad(root.Line, "no models: map; list each model's input, cached_input and output prices per million tokens")
	}
	if models.Kind != yaml.MappingNode {
		return nil, bad(models.Line, "models is not a map of model name to prices")
	}
	for i := 0; i+1 < len(models.Content); i += 2 {
		k, v := models.Content[i], models.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return nil, bad(k.Line, "a model name must be a non-empty string")
		}
		if _, dup := t.Models[k.Value]; dup {
			return nil, bad(k.Line, "model %q is listed twice; keep one", k.Value)
		}
		p, err := parsePrice(k.Value, v, bad)
		if err != nil {
			return nil, err
		}
		t.Models[k.Value] = p
	}
	if len(t.Models) == 0 {
		return nil, bad(models.Line, "models is empty; list at least one model")
	}
	return t, nil
}

func parsePrice(model string, v *yaml.Node, bad func(int, string, ...any) error) (Price, error) {
	if v.Kind != yaml.MappingNode {
		return Price{}, bad(v.Line, "model %q: give a map with input, cached_input and output (dollars per million tokens)", model)
	}
	var p Price
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, n := v.Content[i], v.Content[i+1]
		var dst *float64
		switch k.Value {
		case "input":
			dst = &p.Input
		case "cached_input":
			dst = &p.CachedInput
		case "output":
			dst = &p.Output
		default:
			return Price{}, bad(k.Line, "model %q: unknown key %q; use input, cached_input and output", model, k.Value)
		}
		if seen[k.Value] {
			return Price{}, bad(k.Line, "model %q: %s given twice", model, k.Value)
		}
		seen[k.Value] = true
		f, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return Price{}, bad(n.Line, "model %q: %s %q is not a price; write dollars per million tokens as a number ≥ 0 (e.g. 0.15)", model, k.Value, n.Value)
		}
		*dst = f
	}
	for _, need := range []string{"input", "output"} {
		if !seen[need] {
			return Price{}, bad(v.Line, "model %q: no %s price; give it (0 for a free model)", model, need)
		}
	}
	if !seen["cached_input"] {
		p.CachedInput = p.Input
	}
	return p, nil
}
