package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/membench/membench/internal/cli/agreement"
	cliaudit "github.com/membench/membench/internal/cli/audit"
	"github.com/membench/membench/internal/cli/bundlecmd"
	"github.com/membench/membench/internal/cli/compare"
	clidatasets "github.com/membench/membench/internal/cli/datasets"
	"github.com/membench/membench/internal/cli/diagnose"
	cligrade "github.com/membench/membench/internal/cli/grade"
	"github.com/membench/membench/internal/cli/judgecmd"
	"github.com/membench/membench/internal/cli/kstar"
	climerge "github.com/membench/membench/internal/cli/merge"
	clipeers "github.com/membench/membench/internal/cli/peers"
	cliplot "github.com/membench/membench/internal/cli/plot"
	cliprereg "github.com/membench/membench/internal/cli/prereg"
	clireport "github.com/membench/membench/internal/cli/report"
	"github.com/membench/membench/internal/cli/run"
	"github.com/membench/membench/internal/cli/score"
	clisweep "github.com/membench/membench/internal/cli/sweep"
	"github.com/membench/membench/internal/cli/systemscmd"
	"github.com/membench/membench/internal/cli/version"
	cliview "github.com/membench/membench/internal/cli/view"

	// Registrations: datasets, systems, judges' and answerer's offline heuristics.
	_ "github.com/membench/membench/datasets/all"
	_ "github.com/membench/membench/internal/answer"
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
