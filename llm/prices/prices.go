// Package prices turns metered model usage into dollars: a table of
// per-model prices (input, provider-cached input and output, per million
// tokens), a dated default for common models, a file format to override
// or add to it, and the bill of a run by stage.
package prices

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/membench/membench"
)

// Price is what a model costs in US dollars per million tokens.
type Price struct {
	Input float64 `json:"input" yaml:"input"`
	// CachedInput is the rate of input tokens the provider served from its
	// prompt cache (membench.Usage.CachedInputTokens).
	CachedInput float64 `json:"cached_input" yaml:"cached_input"`
	Output      float64 `json:"output" yaml:"output"`
}

// Table holds prices by model name (the name the backend is asked for,
// e.g. "gpt-4o-mini"), for models on the openai backend.
type Table struct {
	AsOf   string           // the date the prices were read, e.g. "2025-06-01"
	Source string           // "default", or the file that changed the default
	Models map[string]Price // by model name
}

// DefaultAsOf is the date of the default table's prices.
const DefaultAsOf = "2025-06-01"

// Default is OpenAI's list prices (standard tier) as of DefaultAsOf. Dated
// snapshots are listed only where they cost what their alias does.
func Default() *Table {
	m := map[string]Price{
		"gpt-4o-mini":             {Input: 0.15, CachedInput: 0.075, Output: 0.60},
		"gpt-4o-mini-2024-07-18":  {Input: 0.15, CachedInput: 0.075, Output: 0.60},
		"gpt-4o":                  {Input: 2.50, CachedInput: 1.25, Output: 10.00},
		"gpt-4o-2024-08-06":       {Input: 2.50, CachedInput: 1.25, Output: 10.00},
		"gpt-4o-2024-11-20":       {Input: 2.50, CachedInput: 1.25, Output: 10.00},
		"gpt-4.1":                 {Input: 2.00, CachedInput: 0.50, Output: 8.00},
		"gpt-4.1-2025-04-14":      {Input: 2.00, CachedInput: 0.50, Output: 8.00},
		"gpt-4.1-mini":            {Input: 0.40, CachedInput: 0.10, Output: 1.60},
		"gpt-4.1-mini-2025-04-14": {Input: 0.40, CachedInput: 0.10, Output: 1.60},
		"gpt-4.1-nano":            {Input: 0.10, CachedInput: 0.025, Output: 0.40},
		"gpt-4.1-nano-2025-04-14": {Input: 0.10, CachedInput: 0.025, Output: 0.40},
		// Embeddings bill input only and have no cached rate.
		"text-embedding-3-small": {Input: 0.02, CachedInput: 0.02},
		"text-embedding-3-large": {Input: 0.13, CachedInput: 0.13},
	}
	return &Table{AsOf: DefaultAsOf, Source: "default", Models: m}
}

// Overlay returns t with o's prices added or replacing t's; the date and
// source are o's.
func (t *Table) Overlay(o *Table) *Table {
	out := &Table{AsOf: cmp.Or(o.AsOf, t.AsOf), Source: o.Source, Models: make(map[string]Price, len(t.Models)+len(o.Models))}
	maps.Copy(out.Models, t.Models)
	maps.Copy(out.Models, o.Models)
	return out
}

// Amount is a sum of dollars that may be unknown: it is unknown as soon
// as one model in it has no price (never counted as free).
type Amount struct {
	Dollars  float64
	Unpriced []string // models with no price, sorted; non-empty means unknown
	// Paid is set when some of the work ran on a priced (remote) model;
	// an amount with calls but none paid ran offline or on local models.
	Paid bool
}

// Known reports whether every model in the amount had a price.
func (a Amount) Known() bool { return len(a.Unpriced) == 0 }

// Add sums two amounts.
func (a Amount) Add(b Amount) Amount {
	a.Dollars += b.Dollars
	a.Paid = a.Paid || b.Paid
	a.Unpriced = slices.Compact(slices.Sorted(slices.Values(slices.Concat(a.Unpriced, b.Unpriced))))
	return a
}

// String is "$1.23", "$0 (offline)" or "unknown (no price for X)".
func (a Amount) String() string {
	switch {
	case !a.Known():
		return "unknown (no price for " + strings.Join(a.Unpriced, ", ") + ")"
	case !a.Paid:
		return "$0 (offline)"
	case a.Dollars < 1:
		return fmt.Sprintf("$%.4f", a.Dollars)
	default:
		return fmt.Sprintf("$%.2f", a.Dollars)
	}
}

// free reports models that cost nothing per token: the offline backend and
// embedders that run in-process (named without a backend, e.g. "use-lite").
func free(model string) bool {
	backend, _, ok := strings.Cut(model, ":")
	return !ok || backend == "offline"
}

// Tally prices one tally, whose model is model ("backend:model").
func (t *Table) Tally(tl membench.Tally, model string) Amount {
	if tl.Calls == 0 && tl.InputTokens == 0 && tl.OutputTokens == 0 {
		return Amount{}
	}
	if model == "" {
		return Amount{Unpriced: []string{"a model the run did not record (role " + tl.Role + ")"}}
	}
	if free(model) {
		return Amount{}
	}
	backend, name, _ := strings.Cut(model, ":")
	p, ok := t.Models[name]
	if !ok || backend != "openai" {
		return Amount{Unpriced: []string{model}}
	}
	cached := min(max(tl.CachedInputTokens, 0), tl.InputTokens)
	d := (float64(tl.InputTokens-cached)*p.Input + float64(cached)*p.CachedInput + float64(tl.OutputTokens)*p.Output) / 1e6
	return Amount{Dollars: d, Paid: true}
}

// ModelOf names a tally's model: its own, else the model the run's
// manifest gives its role (tallies written before they named their
// model), else "".
func ModelOf(tl membench.Tally, roles map[string]string) string {
	if tl.Model != "" {
		return tl.Model
	}
	if tl.Label == "embedding" {
		if m, ok := roles["embedder"]; ok {
			return m
		}
	}
	return roles[tl.Role]
}

// StageKey is the stage a tally is billed under: its stage, with
// embedding work as "embed" (systems embed while building and retrieving).
func StageKey(tl membench.Tally) string {
	if tl.Label == "embedding" {
		return "embed"
	}
	return string(tl.Stage)
}

// Stages bills tallies by StageKey; roles maps a role to its model for
// tallies that do not name one (see ModelOf).
func (t *Table) Stages(tallies []membench.Tally, roles map[string]string) map[string]Amount {
	out := map[string]Amount{}
	for _, tl := range tallies {
		k := StageKey(tl)
		out[k] = out[k].Add(t.Tally(tl, ModelOf(tl, roles)))
	}
	return out
}
