// Command membench replays long-term memory benchmarks into memory systems,
// answers and judges the questions, and compares systems with statistics.
// Commands are thin: each lives in cmd/membench/<name> over a package.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/cmd/membench/version"
)

func main() {
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
	code := execute(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	signal.Stop(sigs)
	cancel()
	if n := caught.Load(); n != 0 && code != 0 {
		// The shells' convention for a command stopped by a signal:
		// 130 after Ctrl-C, 143 after SIGTERM.
		code = 128 + int(n)
	}
	os.Exit(code)
}

// execute runs one membench command line and returns its exit code: 0,
// 1 for a failed run, 2 for bad input or usage. Commands read env
// ("KEY=value" entries) through clienv, so tests run many command lines
// in-process at once, each with its own environment.
func execute(ctx context.Context, args, env []string, stdout, stderr io.Writer) int {
	ctx = clienv.WithEnv(ctx, env)
	root := newRoot(args)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "membench:", err)
	code := clierr.Code(err)
	if code == 1 && isCobraUsage(err) {
		code = 2 // cobra's own usage errors (unknown command, bad args) are usage
	}
	return code
}

// versionTemplate registers the --version template function once: cobra
// keeps template functions in a process-wide map.
var versionTemplate sync.Once

// newRoot is the membench command with every subcommand (tests walk it).
func newRoot(argv []string) *cobra.Command {
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
	}
	// --version prints what `membench version` does; the template calls
	// it lazily, so other commands never ask git.
	root.Version = "set"
	versionTemplate.Do(func() { cobra.AddTemplateFunc("membenchVersion", version.Line) })
	root.SetVersionTemplate("{{membenchVersion}}\n")
	root.AddCommand(commands()...)
	// A mistyped flag or command names the closest real one; a stray path
	// says the shell expanded a glob that wanted quotes.
	cliflag.ExplainArgs(root, argv)
	return root
}
