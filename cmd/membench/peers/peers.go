// Package peers is `membench peers import`: other systems' published
// per-question results made into run directories every reader takes.
package peers

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/datasets/longmemeval"
	"github.com/membench/membench/internal/names"
	"github.com/membench/membench/internal/report"
	"github.com/membench/membench/peers"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// Options are `peers import`'s inputs.
type Options struct {
	In      string   // FILE or the shared peers directory
	Out     string   // --out
	Data    string   // --data: LoCoMo file
	LMEData string   // --lme-data: LongMemEval file (optional)
	Format  string   // --format: the file's layout when it is not a scored file
	System  string   // --system: the run's system name
	Only    []string // --only: known systems to import from a directory
	JSON    bool
	Host    membench.Host
	W       io.Writer // where the tables go
}

// Imported is one imported run and its published figures beside ours.
type Imported struct {
	System  string              `json:"system"`
	Dir     string              `json:"dir"`
	Match   peers.MatchReport   `json:"match"`
	Figures []peers.Figure      `json:"figures,omitempty"`
	Repeats *runlog.RepeatStats `json:"repeats,omitempty"`
	Where   string              `json:"published_in,omitempty"` // where the published figures come from
	Note    string              `json:"note,omitempty"`
}

// NewCmd returns the peers command.
func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "peers",
		Short: "Import other systems' published per-question results as runs",
	}
	c.AddCommand(importCmd())
	return c
}

func importCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "import FILE|DIR --out DIR",
		Short: "Make a peer's published per-question results a run directory",
		Long: `Read a peer's published per-question results into an ordinary run
directory (answers.jsonl, judgments.jsonl, manifest.json, predictions.jsonl
for membench score, match.json, peer.json), so summary, report, compare,
agreement and view read it and score re-judges its answers with our judges.

FILE may be a scored file (the locomo-audit fc-baseline and ap-baseline
shape: detailed_results with per-run verdicts llm_judgments, metadata with
the published figures and token totals): each judgment run becomes one
repeat of the judge peer-llm, so the run's score is the mean over runs and
its summary gives their spread and majority vote. The published figures
are printed beside the ones the per-question records give.

Other layouts (zep, memobase, backboard, core, longmemeval) need --format,
unless the file is one of the known shared peers' files. DIR, a folder in
the shared peers layout (zep/, memobase/, ...), imports every known peer,
each into --out/<system>.`,
		Example: `  membench peers import ../shared/datasets/locomo-audit/fc-baseline/gpt-4o-mini-cot.json --out results/peers/fc-gpt-4o-mini-cot --data ../shared/datasets/locomo10.json
  membench peers import ../shared/peers --out results/peers --data ../shared/datasets/locomo10.json
  membench peers import ../shared/peers --only memobase-v0.0.37 --out results/peers
  membench peers import ../shared/peers/zep/zep_locomo_grades.json --format zep --system zep-rerun --out results/peers/zep-rerun`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.In, o.Host, o.W = args[0], clienv.Host(cmd.Context()), cmd.OutOrStdout()
			return Run(o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Out, "out", "", "run directory to write (a folder of runs, one per system, when importing a directory)")
	f.StringVar(&o.Data, "data", "", "LoCoMo file the questions are matched against (default: the fetched LoCoMo)")
	f.StringVar(&o.LMEData, "lme-data", "", "LongMemEval file to check LongMemEval ids against (optional)")
	f.StringVar(&o.Format, "format", "", "layout of FILE: scored, zep, memobase, backboard, core, longmemeval (default: scored when it has detailed_results)")
	f.StringVar(&o.System, "system", "", "system name of the imported run (default: the known peer's, else the file's name)")
	f.StringArrayVar(&o.Only, "only", nil, "with a directory: import only this known system (repeatable), e.g. zep, memobase-v0.0.37")
	cliflag.JSON(c, &o.JSON)
	return c
}

// Run imports and prints what was reproduced.
func Run(o *Options) error {
	if o.Out == "" {
		return clierr.Bad("peers import needs --out DIR: the run directory to write (e.g. results/peers/NAME)")
	}
	st, err := os.Stat(o.In)
	if err != nil {
		return clierr.Bad("peers import %s: %v; give a results file or the shared peers directory", o.In, err)
	}
	loco, err := loadLoCoMo(o)
	if err != nil {
		return err
	}
	var lme *datasets.Dataset
	if o.LMEData != "" {
		if lme, err = datasets.Load(longmemeval.Name, o.LMEData, datasets.LoadOptions{Home: o.Host.Home}); err != nil {
			return clierr.AsBad(err)
		}
	}
	var res []Imported
	if st.IsDir() {
		if o.Format != "" || o.System != "" {
			return clierr.Bad("--format and --system name one file's layout; give the file, not the directory %s", o.In)
		}
		srcs := peers.Known()
		if len(o.Only) > 0 {
			srcs = slices.DeleteFunc(srcs, func(s peers.Source) bool { return !slices.Contains(o.Only, s.System) })
			if len(srcs) == 0 {
				return clierr.Bad("--only %v names no known system; known: %s", o.Only, knownNames())
			}
		}
		for _, s := range srcs {
			r, err := importSource(s, o.In, filepath.Join(o.Out, s.System), loco, lme)
			if err != nil {
				return err
			}
			res = append(res, r)
		}
	} else {
		if len(o.Only) > 0 {
			return clierr.Bad("--only picks systems from a directory of peers; %s is a file", o.In)
		}
		r, err := importFile(o, loco, lme)
		if err != nil {
			return err
		}
		res = append(res, r)
	}
	if o.JSON {
		return cliflag.PrintJSON(o.W, res)
	}
	for _, r := range res {
		if err := Table(r).Terminal(o.W); err != nil {
			return err
		}
	}
	return nil
}

// loadLoCoMo reads the LoCoMo file the questions are matched against:
// --data, else the installed copy. Without either nothing can be matched
// (nor its sha256 recorded for compare), so the import stops and says how
// to get one.
func loadLoCoMo(o *Options) (*datasets.Dataset, error) {
	if p := datasets.DefaultPath(o.Host.Home, locomo.Name); o.Data == "" {
		if _, err := os.Stat(p); err != nil {
			return nil, clierr.Bad("peers import: no LoCoMo file to match the questions against: no --data, and none installed at %s; pass --data FILE, or install one with `membench datasets fetch locomo` or `membench datasets add locomo FILE`", p)
		}
	}
	ds, err := datasets.Load(locomo.Name, o.Data, datasets.LoadOptions{Home: o.Host.Home})
	if err != nil {
		return nil, clierr.AsBad(err)
	}
	return ds, nil
}

// importFile imports one file: scored, a known peer's, or --format.
func importFile(o *Options, loco, lme *datasets.Dataset) (Imported, error) {
	format := peers.Format(o.Format)
	if format == "" {
		if s, ok := knownFile(o.In); ok {
			s.System = cmp.Or(o.System, s.System)
			dir, file := filepath.Split(o.In)
			s.Glob = file
			return importSource(s, dir, o.Out, loco, lme)
		}
		if !isScored(o.In) {
			return Imported{}, clierr.Bad("%s: not a scored results file (no detailed_results) nor a known peer's file; give its layout with --format zep|memobase|backboard|core|longmemeval", o.In)
		}
		format = peers.FormatScored
	}
	system := cmp.Or(o.System, strings.TrimSuffix(strings.TrimSuffix(filepath.Base(o.In), filepath.Ext(o.In)), ".scored"))
	if err := names.Check("--system", system); err != nil {
		return Imported{}, clierr.AsBad(err)
	}
	if format != peers.FormatScored {
		ds := locomo.Name
		if format == peers.FormatLongMemEval {
			ds = longmemeval.Name
		}
		dir, file := filepath.Split(o.In)
		return importSource(peers.Source{System: system, Format: format, Glob: file, Dataset: ds}, dir, o.Out, loco, lme)
	}
	sc, err := peers.ReadScored(o.In, loco)
	if err != nil {
		return Imported{}, clierr.AsBad(err)
	}
	info := sc.Info(system, loco)
	if err := peers.WriteRun(o.Out, info, sc.Items, sc.Report); err != nil {
		return Imported{}, fmt.Errorf("write %s: %w", o.Out, err)
	}
	return finish(system, o.Out, sc.Report, sc.Published)
}

// importSource imports a known (or --format) source's files under dir.
func importSource(s peers.Source, dir, out string, loco, lme *datasets.Dataset) (Imported, error) {
	if s.Format == peers.FormatScored {
		return Imported{}, clierr.Bad("%s: a scored file is imported on its own: give the file", s.Glob)
	}
	items, _, err := peers.LoadFiles(s.Format, dir, s.Glob)
	if err != nil {
		return Imported{}, clierr.Bad("%s: %v", s.System, err)
	}
	var ms []peers.Matched
	var rep peers.MatchReport
	against := loco // the file the questions are matched against
	note := ""
	switch {
	case s.Dataset == locomo.Name:
		ms, rep = peers.Match(items, loco)
	case lme != nil:
		ms, rep = peers.Match(items, lme)
		against = lme
	default:
		ms = peers.Unchecked(items)
		rep = peers.MatchReport{Items: len(items)}
		against = nil
		note = "LongMemEval ids not checked: give --lme-data FILE"
	}
	info := peers.RunInfo{System: s.System, Dataset: s.Dataset, DatasetSource: "unchecked (no --lme-data)", Format: s.Format, Source: filepath.Join(dir, s.Glob), Published: s.Published}
	if against != nil {
		info.DatasetSource, info.DatasetSHA256 = against.Source, against.SHA256
	}
	if err := peers.WriteRun(out, info, ms, rep); err != nil {
		return Imported{}, fmt.Errorf("%s: write %s: %w", s.System, out, err)
	}
	r, err := finish(s.System, out, rep, s.Published)
	r.Note = cmp.Or(r.Note, note)
	if s.Note != "" {
		r.Note = strings.TrimPrefix(r.Note+"; "+s.Note, "; ")
	}
	return r, err
}

// finish summarises the written run and sets the published figures beside
// its own.
func finish(system, dir string, rep peers.MatchReport, pub *peers.Published) (Imported, error) {
	sum, err := summary.Compute(dir)
	if err != nil {
		return Imported{}, err
	}
	if err := summary.Write(dir, sum); err != nil {
		return Imported{}, err
	}
	r := Imported{System: system, Dir: dir, Match: rep, Figures: pub.Figures(sum)}
	if pub != nil {
		r.Where = pub.Where
	}
	if st, ok := sum.Overall.Repeats[peers.JudgeName]; ok {
		r.Repeats = &st
	}
	return r, nil
}

// Table shows one import: how the file matched and, when the peer
// published figures, each beside the one its per-question records give.
func Table(r Imported) *report.Table {
	t := &report.Table{Title: fmt.Sprintf("%s -> %s", r.System, r.Dir), Header: []string{"figure", "published", "from the records", "difference"}}
	for _, f := range r.Figures {
		ours, diff := "-", "-"
		if f.Has {
			d := f.Ours - f.Published
			if math.Abs(d) < 5e-5 {
				d = 0 // float sums differ in the last bits; -0.0000 would read as a loss
			}
			ours, diff = report.F(f.Ours, 4), fmt.Sprintf("%+.4f", d)
		}
		t.Add(f.Name, report.F(f.Published, 4), ours, diff)
	}
	m := r.Match
	t.Notes = append(t.Notes, fmt.Sprintf("%d items, matched %d (%d after normalising text), unmatched %d, category mismatches %d, ungraded %d",
		m.Items, m.Matched, m.Normalized, m.Unmatched, m.CategoryMismatch, m.Ungraded))
	for _, u := range m.UnmatchedSample {
		t.Notes = append(t.Notes, "unmatched: "+u)
	}
	for _, u := range m.MismatchSample {
		t.Notes = append(t.Notes, "category: "+u)
	}
	if r.Repeats != nil {
		t.Notes = append(t.Notes, summary.RepeatNote(peers.JudgeName, *r.Repeats))
	}
	if len(r.Figures) == 0 {
		t.Notes = append(t.Notes, "the peer published no figures to check")
	} else if r.Where != "" {
		t.Notes = append(t.Notes, "published: "+r.Where)
	}
	if r.Note != "" {
		t.Notes = append(t.Notes, r.Note)
	}
	t.Notes = append(t.Notes, "scores are points; overall leaves out the questions whose right answer is to decline, as the papers do")
	return t
}

// knownFile finds the known peer whose glob matches the end of path.
func knownFile(path string) (peers.Source, bool) {
	p := filepath.ToSlash(filepath.Clean(path))
	for _, s := range peers.Known() {
		n := strings.Count(s.Glob, "/") + 1
		parts := strings.Split(p, "/")
		if len(parts) < n {
			continue
		}
		if ok, _ := filepath.Match(s.Glob, strings.Join(parts[len(parts)-n:], "/")); ok {
			return s, true
		}
	}
	return peers.Source{}, false
}

// isScored reports whether the file is a JSON object with detailed_results.
func isScored(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		if k == "detailed_results" {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

func knownNames() string {
	var n []string
	for _, s := range peers.Known() {
		n = append(n, s.System)
	}
	return strings.Join(n, ", ")
}
