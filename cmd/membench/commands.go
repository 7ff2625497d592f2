package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/cmd/membench/agreement"
	cliaudit "github.com/membench/membench/cmd/membench/audit"
	"github.com/membench/membench/cmd/membench/bundlecmd"
	"github.com/membench/membench/cmd/membench/compare"
	clidatasets "github.com/membench/membench/cmd/membench/datasets"
	"github.com/membench/membench/cmd/membench/diagnose"
	cligrade "github.com/membench/membench/cmd/membench/grade"
	"github.com/membench/membench/cmd/membench/judgecmd"
	"github.com/membench/membench/cmd/membench/kstar"
	climerge "github.com/membench/membench/cmd/membench/merge"
	clipeers "github.com/membench/membench/cmd/membench/peers"
	cliplot "github.com/membench/membench/cmd/membench/plot"
	cliprereg "github.com/membench/membench/cmd/membench/prereg"
	clireport "github.com/membench/membench/cmd/membench/report"
	"github.com/membench/membench/cmd/membench/run"
	"github.com/membench/membench/cmd/membench/score"
	clisweep "github.com/membench/membench/cmd/membench/sweep"
	"github.com/membench/membench/cmd/membench/systemscmd"
	"github.com/membench/membench/cmd/membench/version"
	cliview "github.com/membench/membench/cmd/membench/view"

	// Registrations: datasets, systems, judges' and answerer's offline heuristics.
	_ "github.com/membench/membench/answer"
	_ "github.com/membench/membench/datasets/all"
	_ "github.com/membench/membench/systems/all"
)

// commands lists every subcommand; one line per command folder.
func commands() []*cobra.Command {
	return []*cobra.Command{
		run.NewCmd(),
		score.NewCmd(),
		systemscmd.NewCmd(),
		clidatasets.NewCmd(),
		kstar.NewCmd(),
		diagnose.NewCmd(),
		clireport.NewCmd(),
		compare.NewCmd(),
		agreement.NewCmd(),
		cliaudit.NewCmd(),
		clipeers.NewCmd(),
		clisweep.NewCmd(),
		cliplot.NewCmd(),
		judgecmd.NewCmd(),
		cligrade.NewCmd(),
		cliprereg.NewCmd(),
		cliview.NewCmd(),
		bundlecmd.NewCmd(),
		version.NewCmd(),
		climerge.NewCmd(),
	}
}

func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.Contains(s, "accepts ") || strings.Contains(s, "requires at least") || strings.Contains(s, "unknown flag") || strings.Contains(s, "unknown shorthand")
}
