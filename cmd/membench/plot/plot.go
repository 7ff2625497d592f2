// Package plot is `membench plot`: the papers' figures from run directories.
package plot

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/membench/membench/analysis"

	"github.com/membench/membench/runlog"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/plot"
)

// Options are the plot command's inputs.
type Options struct {
	Figure  string   // k, seeds or build-tokens
	Runs    []string // run directories, globs or directories of runs
	OutPath string   // without extension: writes OutPath.png, .svg and .pdf
	Judge   string   // k and seeds: whose accuracy is plotted
	Title   string   // "" = the figure's
	// YFull draws accuracy on the whole 0-100 axis instead of fitting it
	// to the points and their intervals.
	YFull bool
	// AllowMixed plots runs whose manifests differ, with a warning.
	AllowMixed bool
	Out        io.Writer
}

// figures maps each subcommand to its chart.
var figures = map[string]func(runs []string, judge string) (*plot.Chart, error){
	"k":            plot.KChart,
	"seeds":        plot.SeedsChart,
	"build-tokens": func(runs []string, _ string) (*plot.Chart, error) { return plot.BuildTokensChart(runs) },
}

// NewCmd returns the plot command with its three figures.
func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "plot",
		Short: "Draw the papers' figures (PNG at 300 dpi, SVG, PDF) from finished runs",
		Long: `Draw a figure from run directories, as OUT.png (300 dpi), OUT.svg and OUT.pdf.

  plot k             overall accuracy vs retrieved items per question k, one
                     line per system (the StructMem paper's Figure 3(c))
  plot seeds         overall accuracy vs semantic seeds K (its Figure 3(d))
  plot build-tokens  cumulative memory-construction tokens vs turns, one
                     line per run, conversations concatenated (its Figure 3(a))

Accuracy figures show each point's Wilson 95% interval as an error bar
(for 0/1 judges) on a y axis fitted to the points and bars (--y-full: 0-100).
Series have colours from the Okabe-Ito colour-blind-safe palette and
distinct markers; the framed legend sits right of the data. Figures made
from offline runs say "offline heuristics" in their title.

The StructMem paper is "StructMem: Structured Memory for Long-Horizon
Behavior in LLMs" (arXiv 2604.21748). --run takes run directories, globs,
or directories holding run directories (e.g. a sweep's OUT/runs; default
results). --judge NAME defaults to the runs' primary judge.`,
		Args: cobra.NoArgs,
	}
	c.AddCommand(
		sub("k", "Accuracy vs retrieval budget k (StructMem's Figure 3(c))", "plot-k"),
		sub("seeds", "Accuracy vs number of semantic seeds K (StructMem's Figure 3(d))", "plot-seeds"),
		sub("build-tokens", "Cumulative build tokens vs turns per system (StructMem's Figure 3(a))", "plot-build-tokens"),
	)
	return c
}

// plotExamples make the runs they plot: a sweep over the figure's axis.
var plotExamples = map[string]string{
	"k":            `  membench sweep --config configs/sample_k_sweep.yaml --out /tmp/ks && membench plot k --run /tmp/ks/runs --out /tmp/plot-k`,
	"seeds":        `  membench sweep --config configs/sample_seeds_sweep.yaml --out /tmp/seeds && membench plot seeds --run /tmp/seeds/runs --out /tmp/plot-seeds`,
	"build-tokens": `  membench plot build-tokens --run results --out /tmp/plot-build-tokens`,
}

func sub(name, short, defOut string) *cobra.Command {
	o := &Options{Figure: name}
	c := &cobra.Command{
		Use:     name,
		Short:   short,
		Example: plotExamples[name],
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return Run(cmd.Context(), o)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &o.Runs, cliflag.RunsUsage+" (default: results)")
	f.StringVar(&o.OutPath, "out", defOut, "output path without extension (writes OUT.png, OUT.svg and OUT.pdf)")
	f.StringVar(&o.Title, "title", "", "chart title (default: the figure's)")
	f.BoolVar(&o.AllowMixed, "allow-mixed", false, "plot runs whose manifests differ (dataset, questions, embedder, answer model, judge, backends), with a warning")
	if name != "build-tokens" {
		cliflag.JudgeName(c, &o.Judge, "judge whose overall accuracy is plotted (default: the runs' primary judge)")
		f.BoolVar(&o.YFull, "y-full", false, "y axis 0-100 instead of fitted to the points and their intervals")
	}
	return c
}

// Run draws the figure and says where it went.
func Run(ctx context.Context, o *Options) error {
	chart, ok := figures[o.Figure]
	if !ok {
		return clierr.Bad("plot %q: want k, seeds or build-tokens", o.Figure)
	}
	if len(o.Runs) == 0 {
		o.Runs = []string{cliflag.DefaultResults}
	}
	dirs, err := runlog.FindRuns(o.Runs)
	if err != nil {
		return clierr.AsBad(err)
	}
	mixed, err := plot.Comparable(dirs, o.Judge, o.AllowMixed)
	if err != nil {
		return clierr.AsBad(err)
	}
	ch, err := chart(dirs, o.Judge)
	if err != nil {
		return clierr.AsBad(err)
	}
	if o.Title != "" {
		ch.Title = o.Title
	}
	ch.FullRange = o.YFull
	if w := analysis.MixedWarning(mixed); w != "" {
		fmt.Fprintln(o.Out, w)
		ch.Title += " (MIXED runs, see warning)"
	}
	paths, err := ch.Save(o.OutPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "%d runs → %s\n", len(dirs), strings.Join(paths, ", "))
	return nil
}
