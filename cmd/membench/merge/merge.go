// Package merge is the `membench merge` command: shard runs → one run.
package merge

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/shards"
	"github.com/membench/membench/summary"
)

// NewCmd builds `membench merge`.
func NewCmd() *cobra.Command {
	var runs []string
	var out, pricesFile string
	var asJSON bool
	c := &cobra.Command{
		Use:   "merge --run A --run B ... --out DIR",
		Short: "Join the shard runs of one command (run --shard I/N) into one run",
		Long: `Checks that the runs are the N shards of one command (same configuration
apart from --shard, same dataset file, embedder, prompts and judges), that
together they answer the whole question set exactly once and that each
finished, then writes one run directory whose answers, judgments and
summary equal a single-machine run's (costs are summed over the shards).
The summary's dollars price the summed costs at the table the shards were
priced with (their --prices file when they share one), or --prices FILE.`,
		Example: `  membench run --shard 0/2 --results /tmp/shards && membench run --shard 1/2 --results /tmp/shards
  membench merge --run '/tmp/shards/*' --out /tmp/merged
  membench merge --run '/tmp/shards/*' --out /tmp/merged-json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return clierr.Bad("--out: name the directory for the merged run")
			}
			dirs, err := runlog.FindRuns(runs)
			if err != nil {
				return clierr.AsBad(err)
			}
			sum, err := shards.Merge(dirs, out, pricesFile)
			if err != nil {
				return err
			}
			if asJSON {
				return cliflag.PrintJSON(cmd.OutOrStdout(), struct {
					*runlog.Summary
					Artifacts string `json:"artifacts"`
					Shards    int    `json:"shards"`
				}{sum, out, len(dirs)})
			}
			summary.Print(cmd.OutOrStdout(), sum)
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shards into %s\n", len(dirs), out)
			return nil
		},
	}
	cliflag.Runs(c, &runs, "a shard's run directory (repeat once per shard), a glob, or a directory holding the shards")
	cliflag.JSON(c, &asJSON)
	c.Flags().StringVar(&out, "out", "", "directory for the merged run (must not hold a run yet)")
	c.Flags().StringVar(&pricesFile, "prices", "", "YAML or JSON file of model prices per million tokens changing or adding to the default table, for the summary's dollars line (default: the shards' own prices file, if they share one)")
	return c
}
