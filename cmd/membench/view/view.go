// Package view is `membench view`: a local web app over run directories,
// or one self-contained HTML file with --out.
package view

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/clienv"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/cliflag"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/view"
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

The first page answers first: one table per group of comparable runs (the
same dataset file, question set, primary judge and answer key; the group
with the most runs first, each saying how many it holds), a row per run with
its primary score overall and per category with its interval, and its cost
in dollars (priced as report --table dollars prices it; --prices FILE
changes or adds prices) and tokens; the manifests follow. Runs are named by
what sets them apart within their group (k, options, models, judges); a
group of more than 10 runs shows its first 10 until asked for all. The A/B
page pairs two runs as membench compare does (same judge, same exclusions,
same test); a view of more than 8 runs pairs runs of one group.

The server answers as soon as its address is printed; the runs are read
behind it (the page says how many are read so far, then draws the first
page), and a run that cannot be read stops the command with its error.

With no --run it opens every run under --results (./results by default),
ordered by group. --out FILE.html writes
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
				ordered, groups, err := view.Arrange(runs)
				if err != nil {
					return clierr.AsBad(err)
				}
				runs = ordered
				fmt.Fprintf(out, "opening the %d run(s) under %s in %d group(s) of comparable runs (pick some with --run DIR):\n", len(runs), results, len(groups))
				for _, g := range groups {
					fmt.Fprintf(out, "  %-8s %s\n", g.Size(), g.Name)
				}
				// A short list is shown run by run too.
				if len(runs) <= 12 {
					for _, r := range list {
						if r[1] != "?" {
							fmt.Fprintf(out, "  %s  %s  %s  %s\n", r[0], r[1], r[2], r[3])
						}
					}
				}
			}
			table, err := cliflag.Prices(priceF)
			if err != nil {
				return err
			}
			if export != "" {
				// Before the runs are read: a run's own files are its record.
				if err := cliflag.GuardOut("--out", export); err != nil {
					return err
				}
			}
			dirs, err := runlog.FindRuns(runs)
			if err != nil {
				return clierr.AsBad(err)
			}
			opt := view.Options{Home: clienv.Host(cmd.Context()).Home, Prices: table}
			if export != "" {
				b, err := view.Build(dirs, opt)
				if err != nil {
					return clierr.AsBad(err)
				}
				enc, err := view.Encode(b)
				if err != nil {
					return err
				}
				var page bytes.Buffer
				if err := enc.Export(&page); err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Dir(export), 0o755); err != nil {
					return clierr.Bad("--out %s: %v", export, err)
				}
				if err := runlog.WriteFileAtomic(export, page.Bytes()); err != nil {
					return clierr.Bad("--out %s: %v", export, err)
				}
				fmt.Fprintf(out, "wrote %s (%d runs, %.1f MB)\n", export, len(dirs), float64(page.Len())/1e6)
				return nil
			}
			ln, err := view.Listen(port)
			if err != nil {
				return clierr.AsBad(err)
			}
			// The server answers at once; the runs are read behind it (a
			// results folder of many runs takes seconds).
			started := time.Now()
			live := view.Start(dirs, opt)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sctx, cancel := context.WithCancel(ctx)
			defer cancel()
			served := make(chan error, 1)
			go func() { served <- live.Serve(sctx, ln) }()
			url := "http://" + ln.Addr().String() + "/"
			fmt.Fprintf(out, "membench view: %d run(s) at %s (Ctrl-C to stop)\n", len(dirs), url)
			if open {
				if err := openBrowser(url); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "--open: %v; open %s yourself\n", err, url)
				}
			}
			select {
			case <-live.Done():
				if err := live.Err(); err != nil {
					cancel()
					<-served
					return clierr.AsBad(err)
				}
				fmt.Fprintf(out, "membench view: the %d run(s) are read (%.1f s)\n", len(dirs), time.Since(started).Seconds())
			case err := <-served:
				return err
			}
			return <-served
		},
	}
	f := c.Flags()
	cliflag.Runs(c, &runs, "run directory, glob, or directory of runs (repeatable; the first is A, the second B in the side-by-side view)")
	f.StringVar(&results, "results", cliflag.DefaultResults, "directory whose runs are opened when no --run is given")
	f.StringVar(&priceF, "prices", "", "YAML or JSON file of model prices per million tokens (input, cached_input, output) changing or adding to the default table")
	f.IntVar(&port, "port", 0, "port on 127.0.0.1 (0 = a free one)")
	f.BoolVar(&open, "open", false, "open the page in the default browser")
	f.StringVar(&export, "out", "", "write one self-contained HTML file instead of serving")
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
