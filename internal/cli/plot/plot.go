// Package plot is `membench plot`: the papers' figures from run directories.
package plot

import (
	"fmt"
	"strings"

	"github.com/membench/membench/runlog"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/study/plot"
)

// NewCmd returns the plot command with its three figures.
func NewCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "plot",
		Short: "Draw the papers' figures (PNG and SVG) from finished runs",
		Long: `Draw a figure from run directories, as OUT.png and OUT.svg.

  plot k             overall accuracy vs retrieved items per question k, one
                     line per system (Figure 3(c))
  plot seeds         overall accuracy vs semantic seeds K (Figure 3(d))
  plot build-tokens  cumulative memory-construction tokens vs turns, one
                     line per run, conversations concatenated (Figure 3(a))

--runs takes run directories, globs, or directories holding run directories
(e.g. a sweep's OUT/runs).`,
		Args: cobra.NoArgs,
	}
	c.AddCommand(
		sub("k", "Accuracy vs retrieval budget k (Figure 3(c))", "plot-k", func(runs []string, j string) (*plot.Chart, error) { return plot.KChart(runs, j) }),
		sub("seeds", "Accuracy vs number of semantic seeds K (Figure 3(d))", "plot-seeds", func(runs []string, j string) (*plot.Chart, error) { return plot.SeedsChart(runs, j) }),
		sub("build-tokens", "Cumulative build tokens vs turns per system (Figure 3(a))", "plot-build-tokens", func(runs []string, _ string) (*plot.Chart, error) { return plot.BuildTokensChart(runs) }),
	)
	return c
}

func sub(name, short, defOut string, chart func([]string, string) (*plot.Chart, error)) *cobra.Command {
	var runs []string
	var out, judgeName, title string
	c := &cobra.Command{
		Use:     name,
		Short:   short,
		Example: fmt.Sprintf("  membench plot %s --runs results/sweeps/NAME/runs --out fig", name),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(runs) == 0 {
				return clierr.Bad("plot %s needs --runs DIR (repeatable): run directories or a directory holding them", name)
			}
			dirs, err := runlog.FindRuns(runs)
			if err != nil {
				return clierr.AsBad(err)
			}
			ch, err := chart(dirs, judgeName)
			if err != nil {
				return clierr.AsBad(err)
			}
			if title != "" {
				ch.Title = title
			}
			paths, err := ch.Save(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d runs → %s\n", len(dirs), strings.Join(paths, ", "))
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&runs, "runs", nil, "run directory, glob, or directory of runs (repeatable)")
	f.StringVar(&out, "out", defOut, "output path without extension (writes OUT.png and OUT.svg)")
	f.StringVar(&title, "title", "", "chart title (default: the figure's)")
	if name != "build-tokens" {
		f.StringVar(&judgeName, "judge", "", "judge whose overall accuracy is plotted (default llm, else the first)")
	}
	return c
}
