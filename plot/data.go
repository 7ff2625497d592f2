package plot

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/internal/names"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/systems"
)

// runInfo is what the figures need from one run directory.
type runInfo struct {
	dir      string
	manifest runlog.Manifest
	summary  *runlog.Summary
	run      *runlog.Run
}

func loadRun(dir string) (*runInfo, error) {
	r, err := analysis.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("--runs %s: %w", dir, err)
	}
	return &runInfo{dir: dir, manifest: r.Manifest, summary: r.Summary, run: r}, nil
}

// option is a run's number for a system option: its own setting, else the
// system's default as the manifest records it (system_options); only
// manifests written before those were recorded ask this binary's registry.
func option(m runlog.Manifest, keys ...string) (int, bool) {
	defaults := m.SystemOptions
	if defaults == nil {
		if spec, err := systems.Lookup(m.Config.System); err == nil {
			defaults = spec.Defaults
		}
	}
	for _, opts := range []membench.Options{m.Config.Options, defaults} {
		for _, k := range keys {
			if v := opts[k]; v != "" {
				n, err := strconv.Atoi(v)
				return n, err == nil
			}
		}
	}
	return 0, false
}

// BudgetK is the number of items a run retrieved per question: --k, else
// the system's k (or StructMem's entries) option, else its default.
func BudgetK(m runlog.Manifest) (int, bool) {
	if m.Config.K > 0 {
		return m.Config.K, true
	}
	return option(m, "k", "entries")
}

// Seeds is a run's number of semantic seeds (StructMem's seeds option).
func Seeds(m runlog.Manifest) (int, bool) { return option(m, "seeds") }

// PickJudge is want when given, else the first run's primary judge
// (runlog.Manifest.PrimaryJudge) when every run has it, else the first
// judge of the first run that every run has.
func PickJudge(runs []*runInfo, want string) (string, error) {
	if len(runs) == 0 {
		return "", fmt.Errorf("no runs")
	}
	// lacking is the first run without scores by judge j, nil when none.
	lacking := func(j string) *runInfo {
		i := slices.IndexFunc(runs, func(r *runInfo) bool {
			_, ok := r.summary.Overall.Scores[j]
			return !ok
		})
		if i < 0 {
			return nil
		}
		return runs[i]
	}
	if want != "" {
		if r := lacking(want); r != nil {
			return "", fmt.Errorf("--judge %s: run %s has no scores by that judge (it has %s)", want, r.dir, strings.Join(r.summary.Judges, ", "))
		}
		return want, nil
	}
	if p := runs[0].manifest.PrimaryJudge(); p != "" && lacking(p) == nil {
		return p, nil
	}
	if len(runs[0].summary.Judges) == 0 {
		return "", fmt.Errorf("run %s has no judges", runs[0].dir)
	}
	// A judge some run lacks would be plotted there as 0% accuracy.
	for _, j := range runs[0].summary.Judges {
		if lacking(j) == nil {
			return j, nil
		}
	}
	return "", fmt.Errorf("no judge scores every run (%s has %s); add one with `membench judge --run DIR --judge-spec NAME`, or leave the odd run out of --run", runs[0].dir, strings.Join(runs[0].summary.Judges, ", "))
}

// accuracyChart groups runs by system and plots overall accuracy against
// x(run), titled title with x axis xLabel; runs x cannot place are an
// error naming the run and what x reads.
func accuracyChart(dirs []string, judgeName string, x func(runlog.Manifest) (int, bool), what, title, xLabel string) (*Chart, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("--runs: no run directories given")
	}
	var runs []*runInfo
	for _, d := range dirs {
		r, err := loadRun(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	j, err := PickJudge(runs, judgeName)
	if err != nil {
		return nil, err
	}
	by := map[string]*Series{}
	var order []string
	offline, bars, synthetic := false, false, false
	minN, maxN := math.MaxInt, 0
	for _, r := range runs {
		cfg := r.manifest.Config
		xv, ok := x(r.manifest)
		if !ok {
			return nil, fmt.Errorf("run %s (system %s) has no %s setting to plot against; leave it out of --runs (e.g. point --runs at a sweep's runs directory, results/sweeps/NAME/runs)", r.dir, cfg.System, what)
		}
		s := by[cfg.System]
		if s == nil {
			s = &Series{Name: cfg.System}
			by[cfg.System] = s
			order = append(order, cfg.System)
		}
		// The report's overall (same questions, same Wilson interval).
		o, err := analysis.OverallOf(r.run, j)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.dir, err)
		}
		lo, hi := o.Lo, o.Hi
		if !o.Binary || o.N == 0 {
			lo, hi = o.Score, o.Score // a metric's mean has no Wilson interval
		} else {
			bars = true
		}
		minN, maxN = min(minN, o.N), max(maxN, o.N)
		s.X = append(s.X, float64(xv))
		s.Y = append(s.Y, o.Score)
		s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
		offline = offline || len(r.manifest.OfflineList()) > 0
		synthetic = synthetic || r.manifest.Synthetic
	}
	c := &Chart{Title: title, XLabel: xLabel, YLabel: fmt.Sprintf("overall accuracy, %% (judge %s)", j), Points: true, Percent: true}
	for _, name := range order {
		c.Series = append(c.Series, *by[name])
	}
	sortSeries(c.Series)
	var notes []string
	if synthetic {
		notes = append(notes, "SYNTHETIC dataset: scale and plumbing, not a benchmark")
	}
	if offline {
		notes = append(notes, offlineNote)
	}
	if minN == maxN {
		notes = append(notes, fmt.Sprintf("n = %d per point", minN))
	} else {
		notes = append(notes, fmt.Sprintf("n = %d–%d per point", minN, maxN))
	}
	if bars {
		notes = append(notes, "error bars: Wilson 95% intervals")
	}
	c.Note = strings.Join(notes, " · ")
	return c, nil
}

// KChart is Figure 3(c): accuracy vs retrieved items per question.
func KChart(dirs []string, judgeName string) (*Chart, error) {
	return accuracyChart(dirs, judgeName, BudgetK, "retrieval budget (k)", "Accuracy vs number of retrieved entries (k)", "retrieved entries per question (k)")
}

// SeedsChart is Figure 3(d): accuracy vs semantic seeds K.
func SeedsChart(dirs []string, judgeName string) (*Chart, error) {
	return accuracyChart(dirs, judgeName, Seeds, "seeds option", "Accuracy vs number of semantic seeds (K)", "semantic seeds per consolidation (K)")
}

// BuildTokensChart is Figure 3(a): cumulative build tokens (input+output)
// against turns ingested, one line per run, conversations concatenated in
// the run's order (its --conversations list, else by id). A conversation
// whose system reports no per-turn curve contributes one point at its end.
func BuildTokensChart(dirs []string) (*Chart, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("--runs: no run directories given")
	}
	c := &Chart{Title: "Cumulative memory-construction tokens vs turns", XLabel: "turns ingested", YLabel: "cumulative build tokens (input + output)"}
	names := map[string]int{}
	for _, d := range dirs {
		r, err := loadRun(d)
		if err != nil {
			return nil, err
		}
		// The load read build.jsonl already: its last record per conversation.
		if len(r.run.Builds) == 0 {
			return nil, fmt.Errorf("run %s has no build.jsonl records; finish the run first", d)
		}
		last := map[string]runlog.BuildRecord{}
		for _, b := range r.run.Builds {
			last[b.ConversationID] = b
		}
		s := Series{Name: r.manifest.Config.System, X: []float64{0}, Y: []float64{0}}
		if n := names[s.Name]; n > 0 {
			s.Name = fmt.Sprintf("%s (%s)", s.Name, r.manifest.RunID)
		}
		names[r.manifest.Config.System]++
		turns, tokens := 0, 0
		for _, id := range convOrder(r.manifest.Config.Conversations, last) {
			b := last[id]
			if len(b.Stats.TurnTokens) > 0 {
				for i, t := range b.Stats.TurnTokens {
					s.X = append(s.X, float64(turns+i+1))
					s.Y = append(s.Y, float64(tokens+t))
				}
			} else {
				s.X = append(s.X, float64(turns+b.Turns))
				s.Y = append(s.Y, float64(tokens+b.InputTokens+b.OutputTokens))
			}
			turns += b.Turns
			tokens += b.InputTokens + b.OutputTokens
		}
		c.Series = append(c.Series, s)
		c.Note = noteFor(r.manifest, c.Note)
	}
	return c, nil
}

const offlineNote = "offline heuristics: pipeline check, not LLM quality"

func noteFor(m runlog.Manifest, prev string) string {
	if m.Synthetic {
		return "SYNTHETIC dataset: scale and plumbing, not a benchmark"
	}
	if len(m.OfflineList()) > 0 {
		return offlineNote
	}
	return prev
}

// Comparable checks that runs may share a figure (analysis.CheckComparable;
// the judge's spec too when one is named). ignore lists differences a
// caller varies on purpose (a sweep over limit varies the question set).
// It returns the differences accepted with allowMixed.
func Comparable(dirs []string, judgeName string, allowMixed bool, ignore ...string) ([]string, error) {
	return ComparableVarying(dirs, judgeName, allowMixed, nil, ignore...)
}

// ComparableVarying is Comparable for runs that vary the system options in
// vary on purpose (a sweep's grid): runs of one system may differ in
// those and in nothing else (analysis.DifferencesVarying).
func ComparableVarying(dirs []string, judgeName string, allowMixed bool, vary []string, ignore ...string) ([]string, error) {
	var sides []analysis.Side
	for _, d := range dirs {
		m, err := runlog.LoadManifest(d)
		if err != nil {
			return nil, err
		}
		sides = append(sides, analysis.Side{Label: d, Manifest: &m})
	}
	var judges []string
	if judgeName != "" {
		judges = []string{judgeName}
	}
	diffs := slices.DeleteFunc(analysis.DifferencesVarying(sides, vary, judges...), func(d analysis.Difference) bool { return slices.Contains(ignore, d.Field) })
	return analysis.MixedLines(diffs, allowMixed)
}

// convOrder lists conversation ids: the configured order first, then the
// rest sorted with numbers compared as numbers (conv-9 before conv-10).
func convOrder(configured []string, have map[string]runlog.BuildRecord) []string {
	var out []string
	for _, id := range configured {
		if _, ok := have[id]; ok && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	rest := slices.DeleteFunc(slices.Collect(maps.Keys(have)), func(id string) bool { return slices.Contains(out, id) })
	slices.SortFunc(rest, names.Compare)
	return append(out, rest...)
}
