// Package view is `membench view`: a local web app over run directories,
// or one self-contained HTML file with --out.
package view

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/study/view"
)

// NewCmd returns the view command.
func NewCmd() *cobra.Command {
	var (
		runs    []string
		results string
		port    int
		open    bool
		export  string
		priceF  string
	)
	c := &cobra.Command{
		Use:   "view",
		Short: "Look at runs question by question in the browser (local web app or one HTML file)",
		Long: `Serve a local web app on 127.0.0.1 over one or more runs: the runs with
their manifest facts, per-category scores with 95% intervals and costs; a
question browser (filter by category, each judge's verdict, judge
disagreement, abstention, text; sort; paginate); each question's
conversation with the evidence turns highlighted and the retrieved ones
marked, the candidates with their scores, the context as the answer model
read it, the answer, the gold and every judge's verdict and reason; two runs
side by side (McNemar's four cells, each a list of questions, and the two
contexts next to each other); and the cost panel.

Contexts, requests and replies come from transcripts.jsonl.gz, which runs
write since transcripts exist; older runs show scores and verdicts only.

The first page answers first: each run's primary score per category with
its interval, overall, and its cost in dollars (priced as report --table
dollars prices it; --prices FILE changes or adds prices) and tokens; the
manifest follows. Runs are named by what sets them apart (k, options,
models, judges, dataset). The A/B page pairs two runs as membench compare
does (same judge, same exclusions, same test).

With no --run it opens every run under --results (./results by default).
--out FILE.html writes
the same views as one self-contained file instead of serving them (never
inside a run folder). The server answers only requests addressed to
127.0.0.1, localhost or [::1] with its port.`,
		Example: `  membench view
  membench view --run results/A
  membench view --run results/A --run results/B --open
  membench view --run results/A --run results/B --out /tmp/ab.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if len(runs) == 0 {
				list, err := view.ListRuns(results)
				if errors.Is(err, fs.ErrNotExist) {
					fmt.Fprintf(out, "no runs under %s (it does not exist here); make one with `membench run`, or pass --run DIR or --results DIR\n", results)
					return nil
				}
				if err != nil {
					return clierr.Bad("--results %s: %v (give the directory holding the runs, or --run DIR)", results, err)
				}
				for _, r := range list {
					if r[1] == "?" {
						fmt.Fprintf(cmd.ErrOrStderr(), "view: left out %s: %s\n", r[0], r[3])
						continue
					}
					runs = append(runs, r[0])
				}
				if len(runs) == 0 {
					fmt.Fprintf(out, "no runs under %s; make one with `membench run`, or pass --run DIR\n", results)
					return nil
				}
				fmt.Fprintf(out, "opening the %d run(s) under %s (pick some with --run DIR):\n", len(runs), results)
				for _, r := range list {
					if r[1] != "?" {
						fmt.Fprintf(out, "  %s  %s  %s  %s\n", r[0], r[1], r[2], r[3])
					}
				}
			}
			table := prices.Default()
			if priceF != "" {
				t, err := prices.Load(priceF)
				if err != nil {
					return clierr.AsBad(err)
				}
				table = t
			}
			if export != "" {
				// Before the runs are read: a run's own files are its record.
				if err := runlog.GuardOut("--out", export); err != nil {
					return err
				}
			}
			dirs, err := runlog.FindRuns(runs)
			if err != nil {
				return clierr.AsBad(err)
			}
			b, err := view.Build(dirs, view.Options{Home: clienv.Host(cmd.Context()).Home, Prices: table})
			if err != nil {
				return clierr.AsBad(err)
			}
			enc, err := view.Encode(b)
			if err != nil {
				return err
			}
			if export != "" {
				if err := os.MkdirAll(filepath.Dir(export), 0o755); err != nil {
					return clierr.Bad("--out %s: %v", export, err)
				}
				f, err := os.CreateTemp(filepath.Dir(export), ".view-*.html")
				if err != nil {
					return clierr.Bad("--out %s: %v", export, err)
				}
				if err := enc.Export(f); err != nil {
					f.Close()
					os.Remove(f.Name())
					return err
				}
				f.Close()
				os.Chmod(f.Name(), 0o644)
				if err := os.Rename(f.Name(), export); err != nil {
					return err
				}
				st, _ := os.Stat(export)
				fmt.Fprintf(out, "wrote %s (%d runs, %.1f MB)\n", export, len(dirs), float64(st.Size())/1e6)
				return nil
			}
			ln, err := view.Listen(port)
			if err != nil {
				return clierr.AsBad(err)
			}
			url := "http://" + ln.Addr().String() + "/"
			fmt.Fprintf(out, "membench view: %d run(s) at %s (Ctrl-C to stop)\n", len(dirs), url)
			if open {
				if err := openBrowser(url); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "--open: %v; open %s yourself\n", err, url)
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return enc.Serve(ctx, ln)
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &runs, "run directory, glob, or directory of runs (repeatable; the first is A, the second B in the side-by-side view)")
	f.StringVar(&results, "results", cliflag.DefaultResults, "directory whose runs are opened when no --run is given")
	f.StringVar(&priceF, "prices", "", "YAML or JSON file of model prices per million tokens (input, cached_input, output) changing or adding to the default table")
	f.IntVar(&port, "port", 0, "port on 127.0.0.1 (0 = a free one)")
	f.BoolVar(&open, "open", false, "open the page in the default browser")
	f.StringVar(&export, "out", "", "write one self-contained HTML file instead of serving")
	cliflag.Alias(c, "export", "out")
	return c
}

func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
