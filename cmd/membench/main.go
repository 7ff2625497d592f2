// Command membench replays long-term memory benchmarks into memory systems,
// answers and judges the questions, and compares systems with statistics.
// Commands are thin: each lives in internal/cli/<name> over a package.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clierr"
	"github.com/membench/membench/internal/cli/cliflag"
	"github.com/membench/membench/internal/cli/version"
)

func main() {
	root := newRoot()
	// Ctrl-C cancels the context, so a run stops between records, writes
	// its costs and summary, and resumes on rerun; a second Ctrl-C kills.
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var caught atomic.Int32
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		if n, isSys := s.(syscall.Signal); isSys {
			caught.Store(int32(n))
		}
		signal.Stop(sigs) // the next one takes the default action: exit now
		cancel()
	}()
	err := root.ExecuteContext(ctx)
	signal.Stop(sigs)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "membench:", err)
		if n := caught.Load(); n != 0 {
			// The shells' convention for a command stopped by a signal:
			// 130 after Ctrl-C, 143 after SIGTERM.
			os.Exit(128 + int(n))
		}
		code := clierr.Code(err)
		if code == 1 {
			// cobra's own usage errors (unknown command, bad args) are usage.
			if isCobraUsage(err) {
				code = 2
			}
		}
		os.Exit(code)
	}
}

// newRoot is the membench command with every subcommand (tests walk it).
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "membench",
		Short: "Benchmark harness for long-term conversational memory (LoCoMo, LongMemEval)",
		Long: `membench replays LoCoMo and LongMemEval conversations into memory systems,
answers and judges the questions, and compares systems with statistics. With
no key and no network it runs offline on the embedded sample.

Every command speaks one vocabulary: --run DIR (repeatable; globs and
directories of runs) wherever runs are read, --out PATH wherever files are
written, --json for the result as JSON on stdout, --judge NAME to pick a
judge already in the runs (default: the run's primary judge, its first
verdict judge) and --judge-spec SPEC to run a new one (run, score, judge).`,
		Example: `  membench run --run-id cosine && membench run --system fullcontext --run-id full
  membench compare --run results/cosine --run results/full
  membench report --run results`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Old spellings of flags still work; say which to use instead.
		PersistentPreRun: func(c *cobra.Command, _ []string) { cliflag.WarnDeprecated(c) },
	}
	// --version prints what `membench version` does; the template calls
	// it lazily, so other commands never ask git.
	root.Version = "set"
	cobra.AddTemplateFunc("membenchVersion", version.Line)
	root.SetVersionTemplate("{{membenchVersion}}\n")
	for _, c := range commands() {
		root.AddCommand(c)
	}
	// A mistyped flag or command names the closest real one; a stray path
	// says the shell expanded a glob that wanted quotes.
	cliflag.ExplainArgs(root, os.Args[1:])
	return root
}
