package sweep

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/summary"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/plot"
)

// Output file names in a sweep's output directory.
const (
	JSONFile = "sweep.json"
	MDFile   = "sweep.md"
	CSVFile  = "sweep.csv"
	PlotBase = "sweep" // sweep.png, sweep.svg, sweep.pdf
)

// Options control where a sweep writes.
type Options struct {
	Out string // output dir: sweep.json/.md/.csv, plots, and runs/ unless ResultsDir
	// ResultsDir overrides where run directories go (default: the base
	// config's results_dir, else OUT/runs).
	ResultsDir string
	Log        io.Writer
	// AllowMixed keeps points whose manifests differ (e.g. an embedder
	// that changed between resumed points) in one table and plot, listing
	// the differences, instead of refusing.
	AllowMixed bool
	// YFull draws the accuracy plot on 0-100 instead of fitting it.
	YFull bool
}

// Row is one point's headline numbers.
type Row struct {
	Point
	RunID  string `json:"run_id"`
	RunDir string `json:"run_dir"`
	N      int    `json:"n"` // scored questions (abstaining ones left out)
	// Invalid: judge -> scored questions its model gave no verdict on
	// (left out of its accuracy).
	Invalid map[string]int `json:"invalid,omitempty"`
	// Prompts labels a point of a paper config not run on the paper's
	// prompts (membench.PromptCheck.Label); "" when it was, or pins none.
	Prompts       string             `json:"prompts,omitempty"`
	Accuracy      map[string]float64 `json:"accuracy"` // judge -> overall score × 100
	ContextTokens float64            `json:"context_tokens"`
	BuildInput    int                `json:"build_input_tokens"`
	BuildOutput   int                `json:"build_output_tokens"`
	BuildCalls    int                `json:"build_calls"`
	Error         string             `json:"error,omitempty"`
}

// Result is sweep.json.
type Result struct {
	Name    string   `json:"name"`
	Config  string   `json:"config"`
	Keys    []string `json:"keys"`
	Judges  []string `json:"judges"`
	Offline bool     `json:"offline"` // some point has offline parts ("offline heuristics")
	// Synthetic: some point ran on a `datasets synth` file.
	Synthetic bool      `json:"synthetic,omitempty"`
	Mixed     []string  `json:"mixed,omitempty"`
	Rows      []Row     `json:"points"`
	Plots     []string  `json:"plots,omitempty"`
	Started   time.Time `json:"started"`
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// RunID names a point's run directory like a run id: the id `membench
// run` gives the point's config (dataset-system-hash10, after
// plan.Resolve: embedder chosen, k in one form, the data file's sha256)
// with the point's grid values before the hash, e.g.
// "sample-turns-cosine-k1-1a2b3c4d5e". A changed base config (e.g. --llm
// openai) gets a new directory while a rerun of the same sweep resumes the
// old one. A run_id in the base config is a prefix: used as is, every point
// would share one directory. It fails (bad input) where the run would,
// e.g. on a data file that does not exist.
func RunID(p Point) (string, error) {
	pl, err := resolve(p, p.Config)
	if err != nil {
		return "", err
	}
	return pl.ID, nil
}

// resolve is the plan of point p's run (cfg: its config, results folder
// chosen), named as RunID says.
func resolve(p Point, cfg membench.Config) (*plan.Plan, error) {
	prefix := cfg.RunID
	cfg.RunID = ""
	pl, err := plan.Resolve(cfg, plan.Env{})
	if err != nil {
		return nil, fmt.Errorf("point %s: %w", p.Label, err)
	}
	id := pl.ID
	// The label's grid values, "k=1 seeds=5" → "k1-seeds5".
	vals := strings.ReplaceAll(strings.Join(strings.Fields(strings.TrimPrefix(p.Label, p.System)), "-"), "=", "")
	if params := strings.Trim(unsafe.ReplaceAllString(vals, "-"), "-"); params != "" {
		if i := strings.LastIndex(id, "-"); i >= 0 {
			id = id[:i] + "-" + params + id[i:]
		} else {
			id += "-" + params
		}
	}
	if prefix != "" {
		id = prefix + "-" + id
	}
	return pl.Named(id)
}

// Run executes every point in order (sequentially: the points share the
// LLM and embedding caches) and writes the sweep's outputs. A point that
// fails is recorded and the sweep goes on; the first error is returned at
// the end so the exit code still says something went wrong.
func Run(ctx context.Context, f *File, points []Point, o Options) (*Result, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Out == "" {
		return nil, fmt.Errorf("sweep: no output directory")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", o.Out, err)
	}
	res := &Result{Name: f.Spec.Name, Config: f.Path, Keys: f.Keys(), Started: time.Now().UTC()}
	var firstErr error
	for i, p := range points {
		cfg := p.Config
		switch {
		case o.ResultsDir != "":
			cfg.ResultsDir = o.ResultsDir
		case cfg.ResultsDir == "":
			cfg.ResultsDir = filepath.Join(o.Out, "runs")
		}
		fmt.Fprintf(o.Log, "sweep %s: point %d/%d: %s\n", f.Spec.Name, i+1, len(points), p.Label)
		pl, err := resolve(p, cfg)
		row := Row{Point: p}
		var sum *runlog.Summary
		if err == nil {
			row.RunID, row.RunDir = pl.ID, pl.Dir
			sum, err = harness.RunPlan(ctx, pl, o.Log)
		}
		if sum != nil {
			row.N, row.Invalid, row.Accuracy = sum.Overall.N, sum.Overall.Invalid, sum.Overall.Scores
			row.Prompts, row.ContextTokens = sum.PaperPrompts.Label(), sum.ContextTokens.Mean
			row.BuildInput, row.BuildOutput, row.BuildCalls = sum.Build.InputTokens, sum.Build.OutputTokens, sum.Build.Calls
			res.Offline = res.Offline || sum.Offline || len(sum.OfflineParts) > 0
			res.Synthetic = res.Synthetic || sum.Synthetic
			for _, j := range sum.Judges {
				if !slices.Contains(res.Judges, j) {
					res.Judges = append(res.Judges, j)
				}
			}
		}
		if err != nil {
			row.Error = err.Error()
			fmt.Fprintf(o.Log, "sweep: point %s failed: %v\n", p.Label, err)
			if firstErr == nil {
				firstErr = fmt.Errorf("point %s: %w", p.Label, err)
			}
		}
		res.Rows = append(res.Rows, row)
		if ctx.Err() != nil {
			break
		}
	}
	// The points vary system and options; anything else that differs
	// (embedder, dataset, backends) makes the curve meaningless. A grid
	// over limit varies the question set on purpose.
	var dirs []string
	for _, r := range res.Rows {
		if r.Error == "" {
			dirs = append(dirs, r.RunDir)
		}
	}
	var ignore []string
	vary := []string{}
	for _, k := range res.Keys {
		switch {
		case k == "limit":
			ignore = append(ignore, "question set")
		case k == "k":
			vary = append(vary, "k")
		default:
			vary = append(vary, strings.TrimPrefix(k, "opt."))
		}
	}
	mixed, err := plot.ComparableVarying(dirs, f.Spec.Judge, o.AllowMixed, vary, ignore...)
	if err != nil {
		return nil, err
	}
	res.Mixed = mixed
	if kind := f.PlotKind(); kind != "none" && firstErr == nil {
		paths, err := Plot(kind, res, f.Spec.Judge, filepath.Join(o.Out, PlotBase), o.YFull)
		if err != nil {
			firstErr = fmt.Errorf("plot: %w", err)
		}
		res.Plots = paths
	}
	if err := res.Write(o.Out); err != nil {
		return res, err
	}
	return res, firstErr
}

// Plot draws the sweep's figure from its run directories.
func Plot(kind string, res *Result, judgeName, base string, yFull bool) ([]string, error) {
	var dirs []string
	for _, r := range res.Rows {
		dirs = append(dirs, r.RunDir)
	}
	var c *plot.Chart
	var err error
	switch kind {
	case "k":
		c, err = plot.KChart(dirs, judgeName)
	case "seeds":
		c, err = plot.SeedsChart(dirs, judgeName)
	case "build-tokens":
		c, err = plot.BuildTokensChart(dirs)
	default:
		return nil, fmt.Errorf("unknown plot %q", kind)
	}
	if err != nil {
		return nil, err
	}
	if res.Name != "" {
		c.Title += " — " + res.Name
	}
	c.FullRange = yFull
	return c.Save(base)
}

// Table is the sweep's summary table: one row per point.
func (r *Result) Table() *report.Table {
	t := &report.Table{Title: fmt.Sprintf("sweep %s (%s)", r.Name, r.Config)}
	t.Header = slices.Concat([]string{"system"}, r.Keys, []string{"n", "invalid"}, r.Judges, []string{"ctx tokens", "build in", "build out", "run"})
	// Some point did not run on its paper config's prompts.
	labelled := slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Prompts != "" })
	if labelled {
		t.Header = append(t.Header, "prompts")
	}
	for _, row := range r.Rows {
		cells := r.cells(row, summary.InvalidCell(row.Invalid, r.Judges), "-")
		run := row.RunID
		if row.Error != "" {
			run += " (FAILED)"
		}
		cells = append(cells, report.F(row.ContextTokens, 0), row.BuildInput, row.BuildOutput, run)
		if labelled {
			cells = append(cells, cmp.Or(row.Prompts, "-"))
		}
		t.Add(cells...)
	}
	t.Notes = append(t.Notes, "accuracy: overall score × 100 per judge (abstaining questions left out, as in the summary; invalid: verdicts a judge's model gave none on, left out of its accuracy); ctx tokens: mean rendered context per question; build: memory-construction tokens")
	if labelled {
		t.Notes = append(t.Notes, "prompts: a point labelled there did not run on the paper's prompts its config pins (each run's summary says which); docs/prompts.md says how to bring the paper's files")
	}
	if r.Synthetic {
		t.Notes = append(t.Notes, "SYNTHETIC dataset (written by `membench datasets synth`): these points measure scale and plumbing, not a benchmark")
	}
	if r.Offline {
		t.Notes = append(t.Notes, "offline heuristics: points with offline parts (runlog manifest offline_parts) come from deterministic heuristics; these numbers check the pipeline, not LLM quality")
	}
	if w := analysis.MixedWarning(r.Mixed); w != "" {
		t.Notes = append([]string{w}, t.Notes...)
	}
	for _, p := range r.Plots {
		t.Notes = append(t.Notes, "plot: "+p)
	}
	return t
}

// CSVTable is Table with snake_case headers for machines: the grid keys
// ("opt.seeds" → "opt_seeds"), accuracy_<judge> per judge, and the run id
// and error in columns of their own.
func (r *Result) CSVTable() *report.Table {
	t := &report.Table{Header: []string{"system"}}
	for _, k := range r.Keys {
		t.Header = append(t.Header, snake(k))
	}
	t.Header = append(t.Header, "n", "invalid")
	for _, j := range r.Judges {
		t.Header = append(t.Header, "accuracy_"+snake(j))
	}
	t.Header = append(t.Header, "context_tokens", "build_input_tokens", "build_output_tokens", "build_calls", "run_id", "error", "prompts")
	for _, row := range r.Rows {
		total := 0
		for _, n := range row.Invalid {
			total += n
		}
		cells := r.cells(row, total, "")
		cells = append(cells, report.F(row.ContextTokens, 1), row.BuildInput, row.BuildOutput, row.BuildCalls, row.RunID, row.Error, row.Prompts)
		t.Add(cells...)
	}
	return t
}

// cells begin a row of either table: system, grid values, n, invalid,
// then each judge's accuracy (missing where the point has none).
func (r *Result) cells(row Row, invalid any, missing string) []any {
	cells := []any{row.System}
	for _, k := range r.Keys {
		cells = append(cells, row.Params[k])
	}
	cells = append(cells, row.N, invalid)
	for _, j := range r.Judges {
		if v, ok := row.Accuracy[j]; ok {
			cells = append(cells, report.F(v, 2))
		} else {
			cells = append(cells, missing)
		}
	}
	return cells
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// snake is s in snake_case: lower case, runs of other characters as "_".
func snake(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "_"), "_")
}

// Write stores sweep.json, sweep.md and sweep.csv in dir.
func (r *Result) Write(dir string) error {
	if err := runlog.WriteJSON(filepath.Join(dir, JSONFile), r); err != nil {
		return err
	}
	var md, csv bytes.Buffer
	fmt.Fprintf(&md, "# membench sweep %s\n\n", r.Name)
	if err := r.Table().Markdown(&md); err != nil {
		return err
	}
	if err := r.CSVTable().CSV(&csv); err != nil {
		return err
	}
	if err := runlog.WriteFileAtomic(filepath.Join(dir, MDFile), md.Bytes()); err != nil {
		return err
	}
	return runlog.WriteFileAtomic(filepath.Join(dir, CSVFile), csv.Bytes())
}
