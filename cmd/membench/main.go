// Command membench replays long-term memory benchmarks into memory systems,
// answers and judges the questions, and compares systems with statistics.
// Commands are thin: each lives in internal/cli/<name> over a package.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/clierr"
)

func main() {
	root := &cobra.Command{
		Use:           "membench",
		Short:         "Benchmark harness for long-term conversational memory (LoCoMo, LongMemEval)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return clierr.Bad("%s (see `%s --help`)", err, c.CommandPath())
	})
	for _, c := range commands() {
		root.AddCommand(c)
	}
	// Ctrl-C cancels the context, so a run stops between records, writes
	// its costs and summary, and resumes on rerun; a second Ctrl-C kills.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "membench:", err)
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
