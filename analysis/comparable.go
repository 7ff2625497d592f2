package analysis

// Comparability: what keeps runs from being put side by side. It reads
// only what each run's manifest records, so an old run is judged the same
// by any later binary.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/runlog"
)

// Side is one run as a comparison names it.
type Side struct {
	Label    string           // how messages name the run (its path or id)
	Manifest *runlog.Manifest // nil for a bare judgments file with no manifest
}

// Difference is one property on which runs put side by side differ.
type Difference struct {
	Field  string   `json:"field"`
	Values []string `json:"values"` // "run: value", one per run
	// runs and vals are Values apart, for the refusal's short form; opts
	// are the differing system options' values, one list per option
	// (runs' order), for an options difference.
	runs, vals []string
	opts       map[string][]string
}

// brief is the difference in a few words: each value once, after the
// first run that has it and how many others share it (briefValues). An
// options difference names the options and lists the values of the one
// with the fewest: the value most runs share, and the runs that stray.
func (d Difference) brief() string {
	if len(d.runs) == 0 {
		return d.String()
	}
	if len(d.opts) == 0 {
		return d.Field + " differs (" + strings.Join(briefValues(d.runs, d.vals), "; ") + ")"
	}
	keys := slices.Sorted(maps.Keys(d.opts))
	odd := keys[0]
	for _, k := range keys {
		if distinct(d.opts[k]) < distinct(d.opts[odd]) {
			odd = k
		}
	}
	var vals []string
	for _, v := range d.opts[odd] {
		vals = append(vals, odd+"="+v)
	}
	sys, _, _ := strings.Cut(d.Field, " ")
	return fmt.Sprintf("%s runs differ in %s, where one option may differ, the one compared (%s)", sys, strings.Join(keys, " and "), strings.Join(briefValues(d.runs, vals), "; "))
}

func distinct(xs []string) int { return len(slices.Compact(slices.Sorted(slices.Values(xs)))) }

// briefValues lists each value once after the first run that has it and
// how many others share it: at most three values, a long one cut.
func briefValues(runs, vals []string) []string {
	var order []string
	by := map[string][]string{}
	for i, v := range vals {
		if by[v] == nil {
			order = append(order, v)
		}
		by[v] = append(by[v], runs[i])
	}
	const most, long = 3, 60
	var parts []string
	for _, v := range order[:min(most, len(order))] {
		who := by[v][0]
		if n := len(by[v]) - 1; n > 0 {
			who += fmt.Sprintf(" and %d more", n)
		}
		if r := []rune(v); len(r) > long {
			v = string(r[:long-1]) + "…"
		}
		parts = append(parts, who+": "+v)
	}
	if n := len(order) - most; n > 0 {
		parts = append(parts, fmt.Sprintf("%d more values", n))
	}
	return parts
}

// newDifference is field's difference between the runs, vals[i] the value
// of runs[i].
func newDifference(field string, runs, vals []string) Difference {
	d := Difference{Field: field, runs: runs, vals: vals}
	for i, r := range runs {
		d.Values = append(d.Values, r+": "+vals[i])
	}
	return d
}

func (d Difference) String() string {
	return d.Field + " differs (" + strings.Join(d.Values, "; ") + ")"
}

// facets are the properties that must match, in message order. A system
// facet belongs to the system under test when the run is an imported
// peer (its own answer model, retrieval, prompts): only membench's own
// runs must agree on it, and a difference a peer brings is reported by
// PeerSettings instead of refused.
var facets = []struct {
	name   string
	of     func(m *runlog.Manifest, judges []string) string
	system bool
}{
	{"dataset", func(m *runlog.Manifest, _ []string) string {
		if m.Synthetic {
			return m.Dataset + " SYNTHETIC sha256:" + prefix(m.DatasetSHA256, 12)
		}
		if m.DatasetSHA256 != "" {
			return m.Dataset + " sha256:" + prefix(m.DatasetSHA256, 12)
		}
		if m.Dataset == "" {
			return ""
		}
		return m.Dataset + " " + m.DatasetSource
	}, false},
	{"question set", func(m *runlog.Manifest, _ []string) string {
		if m.QuestionSetSHA256 == "" {
			return "" // older manifests: not recorded
		}
		return fmt.Sprintf("%d questions sha256:%s", m.Questions, prefix(m.QuestionSetSHA256, 12))
	}, false},
	{"answer key", func(m *runlog.Manifest, _ []string) string { return datasets.KeyID(m.Dataset, m.AppliedKey()) }, false},
	{"embedder", func(m *runlog.Manifest, _ []string) string {
		if m.EmbedderSHA256 != "" {
			return m.Embedder + " sha256:" + prefix(m.EmbedderSHA256, 12)
		}
		return m.Embedder
	}, true},
	{"answer model", roleModel("answer"), true},
	{"build model", roleModel("build"), true},
	{"decide model", roleModel("decide"), true},
	{"answer prompt", func(m *runlog.Manifest, _ []string) string {
		if h, _, _ := strings.Cut(m.Prompts["answer"], " "); h != "" {
			return "sha256:" + prefix(h, 12) // the content, not the file's path
		}
		if m.Config.AnswerPrompt != "" {
			return m.Config.AnswerPrompt // older manifests: the file's name
		}
		return ""
	}, true},
	{"turn step", func(m *runlog.Manifest, _ []string) string {
		if m.TurnStep != "" {
			return m.TurnStep
		}
		if m.Config.TurnStep != 0 {
			return m.Config.TurnStep.String()
		}
		return ""
	}, true},
	{"backends", func(m *runlog.Manifest, _ []string) string { return m.Backends() }, false},
	{"judge", func(m *runlog.Manifest, judges []string) string {
		var parts []string
		for _, name := range judges {
			if s := m.JudgeSet().Spec(name); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "; ")
	}, false},
}

// roleModel is the facet of one model role (answer, build, decide): a role a
// system never calls still records the run's model, so runs made with the
// same flags match.
func roleModel(role string) func(m *runlog.Manifest, _ []string) string {
	return func(m *runlog.Manifest, _ []string) string {
		id, ok := m.Models[role]
		if !ok {
			return ""
		}
		s := id.Backend + ":" + id.Model
		if id.BaseURL != "" {
			s += "@" + id.BaseURL
		}
		return s
	}
}

// DifferencesVarying is Differences where vary names the system options
// the caller compares on purpose (k for kstar, a sweep's grid keys): runs
// of one system may differ in those and in nothing else. With vary nil,
// runs of one system may differ in one option, the one compared (compare
// A vs B, a report with a system at two budgets). Runs of different
// systems are not compared on options: the system is what differs.
func DifferencesVarying(sides []Side, vary []string, judges ...string) []Difference {
	mixed, _ := splitFacets(sides, judges)
	return append(mixed, optionDifferences(sides, vary)...)
}

// optionDifferences compares the system options (after the system's
// defaults, as the manifest records them) of runs of one system.
func optionDifferences(sides []Side, vary []string) []Difference {
	bySystem := map[string][]Side{}
	var systemsSeen []string
	for _, s := range sides {
		if s.Manifest == nil || s.Manifest.Config.System == "" {
			continue
		}
		sys := s.Manifest.Config.System
		if _, ok := bySystem[sys]; !ok {
			systemsSeen = append(systemsSeen, sys)
		}
		bySystem[sys] = append(bySystem[sys], s)
	}
	var out []Difference
	for _, sys := range systemsSeen {
		group := bySystem[sys]
		if len(group) < 2 {
			continue
		}
		opts := func(m *runlog.Manifest) map[string]string { return m.SystemOptions }
		for _, s := range group {
			if len(s.Manifest.SystemOptions) == 0 {
				// An older manifest without the resolved options: compare
				// what every run was given.
				opts = func(m *runlog.Manifest) map[string]string { return m.Config.Options }
			}
		}
		keys, followed := map[string]bool{}, map[string]bool{}
		for _, s := range group {
			for k := range opts(s.Manifest) {
				keys[k] = true
			}
			for _, k := range s.Manifest.FollowedOptions {
				followed[k] = true
			}
		}
		var differ, own []string
		varied := false // a varied option differs
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			vals := map[string]bool{}
			for _, s := range group {
				vals[opts(s.Manifest)[k]] = true
			}
			switch {
			case len(vals) < 2:
			case slices.Contains(vary, k):
				varied = true
			default:
				differ = append(differ, k)
				if !followed[k] {
					own = append(own, k)
				}
			}
		}
		// An option whose value follows from another (StructMem's clock
		// from its granularity) differs with it: one difference, not two.
		// It counts alone when nothing else differs.
		if len(own) > 0 || varied {
			differ = own
		}
		if len(differ) == 0 || (vary == nil && len(differ) == 1) {
			continue
		}
		var runs, vals []string
		byOpt := map[string][]string{}
		for _, s := range group {
			var kv []string
			for _, k := range differ {
				kv = append(kv, k+"="+opts(s.Manifest)[k])
				byOpt[k] = append(byOpt[k], opts(s.Manifest)[k])
			}
			runs, vals = append(runs, s.Label), append(vals, strings.Join(kv, ","))
		}
		field := sys + " options"
		if vary != nil {
			field += " other than " + strings.Join(vary, ", ")
		} else {
			field += " (runs of one system may differ in one option, the one compared)"
		}
		d := newDifference(field, runs, vals)
		d.opts = byOpt
		out = append(out, d)
	}
	return out
}

// PeerSettings lists the system facets (answer model, embedder, ...) on
// which runs differ only because an imported peer brings its own: they
// are part of that peer's system, so Differences holds none of them
// against the runs, and a comparison says so (PeerNote).
func PeerSettings(sides []Side, judges ...string) []Difference {
	_, peer := splitFacets(sides, judges)
	return peer
}

// PeerNote is the line a comparison prints for one of PeerSettings.
func PeerNote(d Difference) string {
	return fmt.Sprintf("%s; the %s is part of an imported peer's system under test, so it was not treated as a mixed setting", d, d.Field)
}

// splitFacets returns the facets on which the runs differ (mixed), and
// the system facets on which only imported peers make them differ.
func splitFacets(sides []Side, judges []string) (mixed, peer []Difference) {
	for _, f := range facets {
		all, own := map[string]bool{}, map[string]bool{}
		var runs, vals []string
		for _, s := range sides {
			if s.Manifest == nil {
				continue
			}
			v := f.of(s.Manifest, judges)
			if v == "" {
				continue
			}
			all[v] = true
			if !f.system || !importedPeer(s.Manifest) {
				own[v] = true
			}
			runs, vals = append(runs, s.Label), append(vals, v)
		}
		switch {
		case len(own) > 1:
			mixed = append(mixed, newDifference(f.name, runs, vals))
		case len(all) > 1:
			peer = append(peer, newDifference(f.name, runs, vals))
		}
	}
	return mixed, peer
}

// MixedError refuses to put incomparable runs side by side.
type MixedError struct{ Diffs []Difference }

func (e *MixedError) Error() string {
	return "runs are not comparable: " + e.Brief() + "; compare runs made the same way, or pass --allow-mixed to show them side by side with a warning"
}

// Brief names the differences in one short line: the first two in full
// (Difference.brief), the others by their field.
func (e *MixedError) Brief() string {
	const most = 2
	var parts []string
	for _, d := range e.Diffs[:min(most, len(e.Diffs))] {
		parts = append(parts, d.brief())
	}
	if len(e.Diffs) > most {
		var rest []string
		for _, d := range e.Diffs[most:] {
			f, _, _ := strings.Cut(d.Field, " (")
			rest = append(rest, f)
		}
		parts = append(parts, "also "+strings.Join(rest, ", "))
	}
	return strings.Join(parts, "; ")
}

// BadInput marks the refusal as the user's input (exit code 2).
func (e *MixedError) BadInput() bool { return true }

// CheckComparable is the one decision every command that puts runs side
// by side takes: it returns a *MixedError naming the differences, or,
// with allowMixed, the differences as lines for the output's "mixed"
// list and warning.
func CheckComparable(sides []Side, allowMixed bool, judges ...string) ([]string, error) {
	return CheckComparableVarying(sides, allowMixed, nil, judges...)
}

// CheckComparableVarying is CheckComparable where the runs vary the
// system options in vary on purpose (DifferencesVarying).
func CheckComparableVarying(sides []Side, allowMixed bool, vary []string, judges ...string) ([]string, error) {
	out, err := MixedLines(DifferencesVarying(sides, vary, judges...), allowMixed)
	sort.Strings(out)
	return out, err
}

// MixedLines decides on differences found: none pass, any are a
// *MixedError unless allowMixed, which accepts them as lines, in order.
func MixedLines(diffs []Difference, allowMixed bool) ([]string, error) {
	if len(diffs) > 0 && !allowMixed {
		return nil, &MixedError{Diffs: diffs}
	}
	var out []string
	for _, d := range diffs {
		out = append(out, d.String())
	}
	return out, nil
}

// MixedWarning is the text outputs' warning line for an --allow-mixed view.
func MixedWarning(mixed []string) string {
	if len(mixed) == 0 {
		return ""
	}
	return "WARNING (--allow-mixed): these runs are not comparable: " + strings.Join(mixed, "; ")
}

// SidesOf names loaded runs for CheckComparable.
func SidesOf(runs []*runlog.Run) []Side {
	out := make([]Side, len(runs))
	for i, r := range runs {
		out[i] = Side{Label: r.ID(), Manifest: &r.Manifest}
	}
	return out
}
