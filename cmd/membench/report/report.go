// Package report is `membench report`: the paper-shaped tables over runs.
package report

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/membench/membench/runlog"

	"github.com/spf13/cobra"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/audit"
	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	tables "github.com/membench/membench/internal/report"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/summary"
)

// Options are the report command's inputs.
type Options struct {
	Runs   []string // run directories, globs or directories of runs
	Format string   // terminal, markdown or csv
	Table  string   // 2, 3, 4, dollars or all ("": all, or Table 2 alone for each group of a results folder)
	Prices string   // a prices file laid over the default table ("": the default)
	Judge  string   // "" = the runs' primary judge
	JSON   bool     // print ReportJSON instead of tables
	// AllowMixed shows runs whose manifests differ side by side, with a warning.
	AllowMixed bool
	// InvalidAsWrong scores invalid verdicts as WRONG (--invalid-as wrong).
	InvalidAsWrong bool
	// Wide prints every column in the terminal too (markdown and CSV
	// always have them).
	Wide bool
	// FalseAccept are [JUDGE=]FILE: judges' measured false-accept rates
	// (membench audit judge --json, or a wrong-answer file's recorded
	// verdicts), shown beside the accuracies those judges give.
	FalseAccept []string
	Out         io.Writer
	// AnswerKeys (--answer-key published,audited), ByImage and
	// ExcludeImages print the answer-key table instead of the paper's.
	AnswerKeys    string
	ByImage       bool
	ExcludeImages bool
	Home          string // MEMBENCH_HOME: where the audited key is installed

	table2Only bool // each group of a results folder gets Table 2 alone
}

// NewCmd returns the report command.
func NewCmd() *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:   "report",
		Short: "Print the paper-shaped tables (2: accuracy and build cost, 3: per judge, 4: ablation)",
		Long: `Print the table shapes of the StructMem paper ("StructMem: Structured Memory
for Long-Horizon Behavior in LLMs", arXiv 2604.21748) over finished runs
(from membench run or membench score; scored predictions have no build
cost, printed "-").

  Table 2: per run Overall, Multi, Open, Single, Temp under one judge, then
           build In/Out/Sum M tokens, calls and seconds
  Table 3: overall under every judge (one column per judge)
  Table 4: per run Multi, Open, Single, Temp (ablation variants are runs)

Every row gives n (questions with a verdict) and a Wilson 95% interval on
overall for 0/1 judges; build seconds are the wall time of memory
construction (conversations built in parallel count once). The terminal
table fits 120 columns: rows are labelled by system and k, incomplete runs
are marked "(incomplete)". --wide (and every markdown or CSV table) adds the
run ids, input and output tokens apart, and each run's dataset, question
count, embedder, backend and status. Runs that differ
in dataset or question set, embedder, answer model, the judge's spec or
offline vs real backends are refused (exit 2) unless --allow-mixed, which
prints a warning line. --judge NAME defaults to the runs' primary judge
(each run's first verdict judge; f1 when runs have only metrics; the one
most runs share when they differ). Rows of offline runs are marked
"(offline)" (the title says so when all are). --run takes run directories, globs, or a directory holding run
directories (default: results); rows are ordered by system, then k, and
labelled by what sets each run apart from the others. With --format
csv and --table all, the tables are separated by a blank line.

The runs of a folder (no --run, or --run naming the folder holding them)
are split into groups of comparable runs: the same dataset file, question
set, primary judge and answer key. Each group is reported under a heading
with its run count (Table 2 alone unless --table is given), groups with
the most runs first; a group whose runs still differ (embedder, models,
backends) is refused under its heading (exit 2) unless --allow-mixed.
Runs named one by one or by a glob are one table, refused when they differ.

--answer-key KEYS (LoCoMo: published, audited or a key file, comma-separated)
prints instead one row per run and key with the declining groups (LoCoMo
adversarial, LongMemEval abstention) in columns of their own, and the
published key's ceiling under each other key; --by-image adds overall with
and without LoCoMo's image-dependent questions, --exclude-image-questions
leaves them out (docs/answer-keys.md).`,
		Example: `  membench report
  membench report --run results --table 2 --wide
  membench report --run 'results/sample-*' --table 2 --format markdown
  membench report --run results/A --run results/B --table 3 --format csv
  membench report --run results --json
  membench report --run results --answer-key published`,
		// Extra arguments are more runs, so a shell-expanded --run results/* works.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Runs = append(o.Runs, args...)
			if !cmd.Flags().Changed("table") {
				o.Table = ""
			}
			o.Out, o.Home = cmd.OutOrStdout(), clienv.Host(cmd.Context()).Home
			err := Run(cmd.Context(), o)
			if len(args) > 0 && clierr.Code(err) == 2 && strings.Contains(err.Error(), "--run ") {
				// The paths were a shell's expansion: membench's own skips
				// what is not a run.
				pattern := cliflag.Pattern(o.Runs)
				pattern = pattern[:strings.LastIndex(pattern, "*")+1]
				return clierr.Bad("%v; if the shell expanded an unquoted glob into %s, quote it so membench expands it over runs only, e.g. --run '%s'", err, strings.Join(o.Runs, " "), pattern)
			}
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&o.Format, "format", "terminal", "terminal, markdown or csv")
	f.StringVar(&o.Table, "table", "all", "which table: 2, 3, 4, dollars or all")
	f.StringVar(&o.Prices, "prices", "", "YAML or JSON file of model prices per million tokens (input, cached_input, output) changing or adding to the default table")
	cliflag.InvalidAs(c, &o.InvalidAsWrong)
	f.BoolVar(&o.AllowMixed, "allow-mixed", false, "show runs whose manifests differ (dataset, questions, embedder, answer model, judge, backends) side by side, with a warning")
	f.BoolVar(&o.Wide, "wide", false, "terminal: every column (run ids, input/output tokens, dataset, questions, embedder, backend, status) instead of fitting 120 columns")
	cliflag.Runs(c, &o.Runs, cliflag.RunsUsage+" (default: results)")
	cliflag.JudgeName(c, &o.Judge, "judge for tables 2 and 4 and the interval (default: the runs' primary judge)")
	f.StringArrayVar(&o.FalseAccept, "false-accept", nil, "[JUDGE=]FILE: a judge's measured false-accept rate (membench audit judge --json, or a wrong-answer file's recorded verdicts), shown beside the accuracies it gives; JUDGE names the runs' judge the file's one judge stands for (repeatable)")
	cliflag.JSON(c, &o.JSON)
	f.StringVar(&o.AnswerKeys, "answer-key", "", "show each run under these LoCoMo answer keys side by side (comma-separated: published, audited or a key FILE), with the published key's ceiling; a key other than a run's own needs 'membench judge --answer-key'")
	f.BoolVar(&o.ByImage, "by-image", false, "LoCoMo: overall with and without the image-dependent questions, and on them alone")
	cliflag.ExcludeImageQuestions(c, &o.ExcludeImages)
	return c
}

// Run loads the runs and prints the chosen tables.
func Run(ctx context.Context, o *Options) error {
	if len(o.Runs) == 0 {
		o.Runs = []string{cliflag.DefaultResults}
	}
	var builders []builder
	priceTable, err := cliflag.Prices(o.Prices)
	if err != nil {
		return err
	}
	dollars := func(runs []*runlog.Run, _ string, v analysis.View) (*tables.Table, error) {
		bills := make([]*prices.Bill, len(runs))
		for i, r := range runs {
			b, err := prices.ForRun(r.Dir, priceTable)
			if err != nil {
				return nil, err
			}
			bills[i] = b
		}
		return analysis.Dollars(runs, bills, v), nil
	}
	one := map[string]builder{"2": analysis.Table2, "3": analysis.Table3, "4": analysis.Table4, "dollars": dollars, "repeats": analysis.RepeatsTable}
	switch b, ok := one[o.Table]; {
	case ok:
		builders = append(builders, b)
	case o.Table == "false-accept":
		if len(o.FalseAccept) == 0 {
			return clierr.Bad("--table false-accept needs --false-accept [JUDGE=]FILE (membench audit judge --json writes one)")
		}
	case o.Table == "all" || o.Table == "":
		builders = append(builders, analysis.Table2, analysis.Table3, analysis.Table4, dollars)
	default:
		return clierr.Bad("--table %q: want 2, 3, 4, dollars, repeats, false-accept or all", o.Table)
	}
	if len(o.FalseAccept) > 0 && (o.Table == "all" || o.Table == "" || o.Table == "false-accept") {
		rates, err := falseAccepts(o.FalseAccept)
		if err != nil {
			return err
		}
		builders = append(builders, func(runs []*runlog.Run, _ string, v analysis.View) (*tables.Table, error) {
			return analysis.FalseAcceptTable(runs, rates, v)
		})
	}
	switch o.Format {
	case "terminal", "text", "markdown", "md", "csv":
	default:
		return clierr.Bad("--format %q: want terminal, markdown or csv", o.Format)
	}
	loaded, err := cliflag.LoadRuns(o.Runs)
	if err != nil {
		return err
	}
	for _, r := range loaded {
		if o.InvalidAsWrong {
			r.CountInvalidAsWrong()
		}
	}
	analysis.SortRuns(loaded)
	hasJudge := func(r *runlog.Run) bool { return analysis.HasJudge(r.Manifest, o.Judge) }
	if o.Judge != "" && !slices.ContainsFunc(loaded, hasJudge) {
		return clierr.Bad("--judge %s: none of the %d runs has this judge (first run has %v)", o.Judge, len(loaded), loaded[0].Manifest.Judges)
	}
	// A caveat shared by several tables is printed under the first only.
	seen := map[string]bool{}
	groups := o.groups(loaded)
	if len(groups) == 1 {
		err := writeGroup(o, groups[0].runs, builders, seen)
		var me *analysis.MixedError
		if errors.As(err, &me) {
			if n := len(analysis.GroupRuns(loaded)); n > 1 {
				return clierr.Bad("%v; they fall in %d groups of comparable runs (dataset, question set, primary judge, answer key): give their folder (--run DIR) to report each group apart", err, n)
			}
		}
		return err
	}
	if o.JSON || o.keysWanted() {
		return clierr.Bad("the %d runs under %s fall in %d groups of comparable runs (dataset, question set, primary judge, answer key); --json, --answer-key, --by-image and --exclude-image-questions take one: pick its runs with --run (membench report alone prints every group's tables)", len(loaded), strings.Join(o.Runs, " "), len(groups))
	}
	if o.Table == "" {
		// Every table of every group would bury the answer: Table 2 (and
		// the false-accept table asked for) per group.
		builders = append(builders[:1], builders[4:]...)
		o.table2Only = true
	}
	refused := 0
	for i, g := range groups {
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		if err := heading(o, g.name); err != nil {
			return err
		}
		err := writeGroup(o, g.runs, builders, seen)
		var me *analysis.MixedError
		if errors.As(err, &me) {
			refused++
			fmt.Fprintln(o.Out, "not reported, the runs are not comparable: "+me.Brief())
			continue
		}
		if err != nil {
			return err
		}
	}
	if o.Table == "" && o.Format != "csv" {
		fmt.Fprintln(o.Out)
		line := fmt.Sprintf("%d groups of comparable runs (the same dataset file, question set, primary judge and answer key), each with Table 2; --table all (or 3, 4, dollars) prints the others, --run DIR one group's runs", len(groups))
		for _, l := range tables.Wrap(line, tables.TerminalWidth) {
			fmt.Fprintln(o.Out, l)
		}
	}
	if refused > 0 {
		return clierr.Bad("%d of the %d groups not reported: their runs are not comparable (said under each); compare runs made the same way, or pass --allow-mixed to show them side by side with a warning", refused, len(groups))
	}
	return nil
}

// builder makes one table over the runs under a judge.
type builder = func([]*runlog.Run, string, analysis.View) (*tables.Table, error)

// runGroup is one group of comparable runs and its heading.
type runGroup struct {
	name string
	runs []*runlog.Run
}

// groups splits a results folder's runs into groups of comparable runs
// (analysis.Groups), each reported apart. Runs named one by one or by a
// glob are one group: the user chose them to be put side by side.
func (o *Options) groups(runs []*runlog.Run) []runGroup {
	all := []runGroup{{runs: runs}}
	for _, a := range o.Runs {
		if strings.ContainsAny(a, "*?[") || runlog.IsRunDir(a) {
			return all
		}
	}
	gs := analysis.GroupRuns(runs)
	if len(gs) < 2 {
		return all
	}
	var out []runGroup
	for _, g := range gs {
		rg := runGroup{name: g.Name + ": " + g.Size()}
		for _, i := range g.Runs {
			rg.runs = append(rg.runs, runs[i])
		}
		out = append(out, rg)
	}
	return out
}

// heading names a group above its tables, in the table format's way.
func heading(o *Options, name string) error {
	var err error
	switch o.Format {
	case "markdown", "md":
		_, err = fmt.Fprintf(o.Out, "## %s\n\n", name)
	case "csv":
		w := csv.NewWriter(o.Out)
		w.Write([]string{"group: " + name})
		w.Flush()
		err = w.Error()
	default:
		_, err = fmt.Fprintf(o.Out, "== %s ==\n", name)
	}
	return err
}

// writeGroup prints the tables of runs that are put side by side: it
// refuses them (a *analysis.MixedError) unless they are comparable or
// --allow-mixed is given.
func writeGroup(o *Options, loaded []*runlog.Run, builders []builder, seen map[string]bool) error {
	j := analysis.ChooseJudge(loaded, o.Judge)
	mixed, err := analysis.CheckComparable(analysis.SidesOf(loaded), o.AllowMixed, j)
	if err != nil {
		return err
	}
	out := o.Out
	view := analysis.Brief
	if o.Wide || (o.Format != "terminal" && o.Format != "text") {
		view = analysis.Wide
	}
	if o.keysWanted() {
		if o.JSON {
			return clierr.Bad("--answer-key, --by-image and --exclude-image-questions print tables; drop --json")
		}
		kv, err := openKeys(o, loaded)
		if err != nil {
			return err
		}
		if w := analysis.MixedWarning(mixed); w != "" {
			fmt.Fprintln(out, w)
		}
		return writeKeys(out, o, kv, loaded, j, view)
	}
	if o.JSON {
		rep, err := analysis.Report(loaded, j, mixed)
		if err != nil {
			return err
		}
		return cliflag.PrintJSON(out, rep)
	}
	if w := analysis.MixedWarning(mixed); w != "" {
		lines := []string{w}
		if view == analysis.Brief {
			lines = tables.Wrap(w, tables.TerminalWidth)
		}
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
	}
	if (o.Table == "all" || o.Table == "") && !o.table2Only && analysis.HasRepeats(loaded) {
		builders = append(builders[:len(builders):len(builders)], analysis.RepeatsTable)
	}
	for i, b := range builders {
		t, err := b(loaded, j, view)
		if err != nil {
			return err
		}
		if i == 0 {
			t.Notes = append(t.Notes, judgeModels(loaded)...)
		}
		t.Notes = slices.DeleteFunc(t.Notes, func(n string) bool {
			dup := seen[n]
			seen[n] = true
			return dup
		})
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := t.Write(out, o.Format); err != nil {
			return err
		}
	}
	return nil
}

// falseAccepts reads --false-accept [JUDGE=]FILE values. Without JUDGE,
// each judge of the file stands for the runs' judge of its name; with it,
// the file must hold one judge, which stands for JUDGE.
func falseAccepts(vals []string) ([]analysis.FalseAccept, error) {
	var out []analysis.FalseAccept
	for _, v := range vals {
		judgeName, path := "", v
		if k, p, ok := strings.Cut(v, "="); ok && !strings.ContainsAny(k, `/\`) {
			judgeName, path = k, p
		}
		a, err := audit.ReadRates(path)
		if err != nil {
			return nil, clierr.AsBad(err)
		}
		if judgeName != "" && len(a.Judges) != 1 {
			names := make([]string, len(a.Judges))
			for i, j := range a.Judges {
				names[i] = j.Judge
			}
			return nil, clierr.Bad("--false-accept %s: %s holds judges %s; JUDGE= needs a file of one judge (membench audit judge with one --judge-spec)", v, path, strings.Join(names, ", "))
		}
		for _, j := range a.Judges {
			o := j.Overall()
			out = append(out, analysis.FalseAccept{Judge: cmp.Or(judgeName, j.Judge), Audited: j.Judge, Source: filepath.Base(a.File), Answers: o.Answers, Rate: o.Rate, Lo: o.Lo, Hi: o.Hi, Offline: j.Offline})
		}
	}
	return out, nil
}

// judgeModels names the runs' model judges' models (summary.JudgeModelNote),
// once for all runs when they agree, else per run.
func judgeModels(runs []*runlog.Run) []string {
	var order []string
	by := map[string][]string{}
	for _, r := range runs {
		n := summary.JudgeModelNote(summary.JudgeModels(r.Manifest))
		if n == "" {
			continue
		}
		if by[n] == nil {
			order = append(order, n)
		}
		by[n] = append(by[n], r.ID())
	}
	if len(order) == 1 && len(by[order[0]]) == len(runs) {
		return order
	}
	var out []string
	for _, n := range order {
		out = append(out, "runs "+strings.Join(by[n], ", ")+": "+n)
	}
	return out
}
