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
	root := &cobra.Command{
		Use:           "membench",
		Short:         "Benchmark harness for long-term conversational memory (LoCoMo, LongMemEval)",
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return clierr.Bad("%s (see `%s --help`)", err, c.CommandPath())
	})
	for _, c := range commands() {
		root.AddCommand(c)
	}
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
