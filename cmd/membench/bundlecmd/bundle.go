// Package bundlecmd is `membench bundle`: one portable file holding a run and
// every paid reply it used, so a reader reproduces it with no key.
package bundlecmd

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/membench/membench/bundle"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/internal/stamp"
	"github.com/membench/membench/runlog"
)

// Options are the command's settings.
type Options struct {
	Run     string // run directory
	Out     string // bundle file to write
	Partial bool   // pack a run that is unfinished or still being written
}

// NewCmd returns the bundle command.
func NewCmd() *cobra.Command {
	var o Options
	var runs []string
	c := &cobra.Command{
		Use:   "bundle",
		Short: "Pack a run and every paid model reply it used into one file that `run --replay` reproduces",
		Long: `Write one gzip'd tar holding the run's manifest and artifacts and exactly the
replies its paid models gave (chat text, decision probabilities read from
logprobs, usage) and the vectors of a paid embedder, recorded while the run
ran (replies.jsonl). No key, no credentials, no other run's entries. Offline
roles and local embedders are not recorded: a replay recomputes them.
Prompt files the run read (--answer-prompt, --judge-prompt, prompt=) travel
inside the bundle as text, checked against the sha256 the manifest recorded.

A run that is still being written or did not finish is refused; --partial
packs it anyway, and the bundle and its replay say it is partial.

A reader reproduces the run with:
  membench run --replay FILE [--data PATH] --results DIR`,
		Example: `  membench bundle --run results/A --out /tmp/a.tar.gz
  membench run --replay /tmp/a.tar.gz --results /tmp/replayed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(runs) > 0 {
				dirs, err := runlog.FindRuns(runs)
				if err != nil {
					return clierr.AsBad(err)
				}
				if len(dirs) != 1 {
					return clierr.Bad("bundle packs one run; --run %v gave %d (%v)", runs, len(dirs), dirs)
				}
				o.Run = dirs[0]
			}
			return Run(&o, cmd.OutOrStdout())
		},
	}
	cliflag.Runs(c, &runs, "run directory to bundle (a glob or directory must name exactly one run)")
	c.Flags().StringVar(&o.Out, "out", "", "bundle file to write (e.g. run.tar.gz)")
	c.Flags().BoolVar(&o.Partial, "partial", false, "bundle a run that did not finish or is still being written (the bundle says it is partial)")
	return c
}

// Run writes the bundle and says what it holds.
func Run(o *Options, out io.Writer) error {
	if o.Run == "" || o.Out == "" {
		return clierr.Bad("bundle needs --run DIR and --out FILE")
	}
	if !runlog.IsRunDir(o.Run) {
		return clierr.Bad("--run %s: not a run directory (no manifest.json)", o.Run)
	}
	if err := cliflag.GuardOut("--out", o.Out); err != nil {
		return err
	}
	b, err := bundle.Write(o.Run, o.Out, bundle.Options{Version: stamp.Version(), Partial: o.Partial})
	if err != nil {
		return clierr.AsBad(err)
	}
	st, err := os.Stat(o.Out)
	if err != nil {
		return err
	}
	partial := ""
	if b.Partial {
		partial = "; partial: the run had not finished"
	}
	fmt.Fprintf(out, "bundle %s: run %s, %d files, %d prompt files, %d recorded replies, %.1f KB (format %d, membench %s%s)\n",
		o.Out, b.Manifest.RunID, len(b.Files), len(b.Prompts), len(b.Replies), float64(st.Size())/1024, bundle.Format, b.Membench, partial)
	return nil
}
