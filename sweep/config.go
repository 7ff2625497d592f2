// Package sweep runs a grid of harness runs (systems × k × system options)
// from one YAML file and tabulates their headline numbers.
//
// A sweep file holds up to two YAML documents. The first is a plain
// membench.Config, so `membench run --config FILE` still runs it (the run
// command reads only the first document). The optional second document is
// the Spec: which systems and which grid to expand around that base.
package sweep

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/membench/membench"

	"gopkg.in/yaml.v3"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/yamlfile"
	"github.com/membench/membench/systems"
)

// Spec is the second document of a sweep file.
type Spec struct {
	Name    string   `yaml:"name"`    // used for the default output dir and titles
	Systems []string `yaml:"systems"` // empty = the base config's system
	Grid    Grid     `yaml:"grid"`    // axes, expanded as a cartesian product
	// Plot is what to draw: k, seeds, build-tokens, none; empty = guessed
	// from the grid (k → k, opt.seeds → seeds, no grid and several
	// systems → build-tokens, else none).
	Plot  string `yaml:"plot"`
	Judge string `yaml:"judge"` // judge plotted; empty = llm, else the first
	// SystemOptions are options for one system only, on top of the base
	// config's (e.g. flat's mode=combined, which structmem does not take).
	SystemOptions map[string]membench.Options `yaml:"system_options"`
}

// Axis is one grid dimension: a key and its values, in file order.
type Axis struct {
	Key    string
	Values []string
}

// Grid is the ordered list of axes. Keys: "k" (the retrieval budget),
// "limit", or "opt.NAME" (a system option).
type Grid []Axis

// UnmarshalYAML keeps the file's key order, which sets the table's column
// and row order.
func (g *Grid) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: grid must be a mapping like {k: [1, 3, 5]}", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, n.Content[i+1]
		var vals []string
		switch val.Kind {
		case yaml.SequenceNode:
			if err := val.Decode(&vals); err != nil {
				return fmt.Errorf("line %d: grid.%s: %v (want a list of values)", val.Line, key, err)
			}
		case yaml.ScalarNode:
			vals = []string{val.Value}
		default:
			return fmt.Errorf("line %d: grid.%s: want a list of values", val.Line, key)
		}
		if len(vals) == 0 {
			return fmt.Errorf("line %d: grid.%s has no values", val.Line, key)
		}
		*g = append(*g, Axis{Key: key, Values: vals})
	}
	return nil
}

// File is a parsed sweep file.
type File struct {
	Path string
	Base membench.Config
	Spec Spec
}

// Load reads a sweep file (one or two YAML documents) with unknown keys
// rejected, so a typo never silently drops an axis.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return Parse(path, b)
}

// Parse is Load on bytes; path is only used in messages.
func Parse(path string, b []byte) (*File, error) {
	f := &File{Path: path}
	docs, err := yamlfile.Documents(path, b)
	switch {
	case err != nil:
		return nil, err
	case len(docs) == 0:
		return nil, badinput.Errorf("%s is empty; see configs/ for examples", path)
	case len(docs) > 2:
		return nil, badinput.Errorf("%s:%d: a third YAML document; a sweep file is the run config, then optionally the sweep spec", path, docs[2].Line)
	}
	if err := yamlfile.Decode(path, docs[0], &f.Base); err != nil {
		return nil, fmt.Errorf("%w, in the first document (the run config); see configs/ and docs/sweeps.md", err)
	}
	if line := yamlfile.ZeroAt(docs[0], "concurrency"); line > 0 {
		return nil, membench.ZeroConcurrency(path, line)
	}
	if len(docs) == 2 {
		if err := yamlfile.Decode(path, docs[1], &f.Spec); err != nil {
			return nil, fmt.Errorf("%w, in the second document (the sweep spec); see docs/sweeps.md", err)
		}
	}
	if !slices.Contains([]string{"", "k", "seeds", "build-tokens", "none"}, f.Spec.Plot) {
		return nil, fmt.Errorf("%s: plot: %q; want k, seeds, build-tokens or none", path, f.Spec.Plot)
	}
	return f, nil
}

// Point is one run of the sweep.
type Point struct {
	Label  string          `json:"label"`
	System string          `json:"system"`
	Params Params          `json:"params"` // grid key -> value
	Config membench.Config `json:"-"`
}

// Params are a point's grid values as the file gives them. In JSON a value
// that is a number is written as one ({"k": 1}, not {"k": "1"}), so
// readers of sweep.json need no conversion; other values stay strings.
type Params map[string]string

// MarshalJSON writes numbers as JSON numbers (encoding/json sorts the keys).
func (p Params) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(p))
	for k, v := range p {
		m[k] = v
		if isJSONNumber(v) {
			m[k] = json.RawMessage(v)
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads numbers and strings back into the file's text.
func (p *Params) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = Params{}
	for k, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			s = string(v) // a number, kept as written
		}
		(*p)[k] = s
	}
	return nil
}

// isJSONNumber says v is a number exactly as JSON writes one ("1", "0.5",
// "-2", "1e3"; not "007", "+1" or "1."), so the file's text survives.
func isJSONNumber(v string) bool {
	if v == "" || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return false
	}
	var f float64
	return json.Unmarshal([]byte(v), &f) == nil
}

// Expand lists the sweep's points: systems outermost, then the axes in
// file order. Every point is validated (system known, options accepted,
// numbers parse) before any run starts.
func (f *File) Expand() ([]Point, error) {
	syss := f.Spec.Systems
	if len(syss) == 0 {
		syss = []string{cmp.Or(f.Base.System, "turns-cosine")}
	}
	seen := map[string]bool{}
	for _, a := range f.Spec.Grid {
		if seen[a.Key] {
			return nil, fmt.Errorf("%s: grid key %q given twice", f.Path, a.Key)
		}
		seen[a.Key] = true
		if a.Key != "k" && a.Key != "limit" && !strings.HasPrefix(a.Key, "opt.") {
			return nil, fmt.Errorf("%s: grid key %q: use k, limit or opt.NAME (a system option, e.g. opt.seeds)", f.Path, a.Key)
		}
	}
	for name := range f.Spec.SystemOptions {
		if !slices.Contains(syss, name) {
			return nil, fmt.Errorf("%s: system_options.%s: not a system of this sweep (%s)", f.Path, name, strings.Join(syss, ", "))
		}
	}
	var out []Point
	for _, sys := range syss {
		spec, err := systems.Lookup(sys)
		if err != nil {
			return nil, fmt.Errorf("%s: systems: %v", f.Path, err)
		}
		combos := [][]string{nil}
		for _, a := range f.Spec.Grid {
			var next [][]string
			for _, c := range combos {
				for _, v := range a.Values {
					next = append(next, append(append([]string(nil), c...), v))
				}
			}
			combos = next
		}
		for _, c := range combos {
			p, err := f.point(sys, c)
			if err != nil {
				return nil, err
			}
			if err := p.Config.Options.Check(sys, spec.Defaults); err != nil {
				return nil, fmt.Errorf("%s: point %s: %v", f.Path, p.Label, err)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *File) point(sys string, vals []string) (Point, error) {
	cfg := f.Base
	cfg.System = sys
	cfg.Options = membench.Options{}
	maps.Copy(cfg.Options, f.Base.Options)
	maps.Copy(cfg.Options, f.Spec.SystemOptions[sys])
	p := Point{System: sys, Params: Params{}}
	label := []string{sys}
	for i, a := range f.Spec.Grid {
		v := vals[i]
		p.Params[a.Key] = v
		switch {
		case a.Key == "k" || a.Key == "limit":
			var n int
			if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != v {
				return p, fmt.Errorf("%s: grid.%s value %q: want a whole number >= 0", f.Path, a.Key, v)
			}
			if a.Key == "k" {
				cfg.K = n
			} else {
				cfg.Limit = n
			}
		default:
			cfg.Options[strings.TrimPrefix(a.Key, "opt.")] = v
		}
		label = append(label, strings.TrimPrefix(a.Key, "opt.")+"="+v)
	}
	if len(cfg.Options) == 0 {
		cfg.Options = nil // keep the config hash equal to a plain run's
	}
	p.Label = strings.Join(label, " ")
	p.Config = cfg
	return p, nil
}

// Keys are the grid keys in order.
func (f *File) Keys() []string {
	out := make([]string, len(f.Spec.Grid))
	for i, a := range f.Spec.Grid {
		out[i] = a.Key
	}
	return out
}

// PlotKind resolves Spec.Plot.
func (f *File) PlotKind() string {
	if f.Spec.Plot != "" {
		return f.Spec.Plot
	}
	keys := f.Keys() // at most one key decides
	switch {
	case len(keys) == 1 && keys[0] == "k":
		return "k"
	case len(keys) == 1 && keys[0] == "opt.seeds":
		return "seeds"
	case len(keys) == 0 && len(f.Spec.Systems) > 1:
		return "build-tokens"
	}
	return "none"
}
