// Package analysis reads finished run directories and computes the
// paper-shaped numbers: token-matched k* (kstar), the retrieval-loss
// decomposition (diagnose) and the score tables (report). Loading is kept
// in this file; everything else works on loaded runs, so tests can build
// small runs by hand.
package analysis

import (
	"strconv"

	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"

	"github.com/membench/membench/systems"
)

// ResolveK is the retrieval budget a run used: --k when set, else the run's
// --opt k=, else the system's default k as the manifest records it (its
// options after the system's defaults, system_options). ok is false when
// none applies (e.g. fullcontext). Only manifests written before
// system_options was recorded ask this binary's registry for the default.
func ResolveK(m runlog.Manifest) (k int, source string, ok bool) {
	cfg := m.Config
	if cfg.K > 0 {
		return cfg.K, "--k", true
	}
	if v, has := cfg.Options["k"]; has {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n, "--opt k", true
		}
	}
	defaults := m.SystemOptions
	if defaults == nil {
		spec, err := systems.Lookup(cfg.System)
		if err != nil {
			return 0, "system " + cfg.System + " is not registered in this binary and the manifest records no system options, so its default k is unknown", false
		}
		defaults = spec.Defaults
	}
	if v, has := defaults["k"]; has {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n, "default of " + cfg.System, true
		}
	}
	return 0, "system " + cfg.System + " has no k option (no retrieval budget)", false
}

// Load reads a finished run directory into memory, its summary computed
// from the same read (runlog.Load, then summary.FromLines): the one read of
// a run folder that report, compare, diagnose, plot and view share.
func Load(dir string) (*runlog.Run, error) {
	r, err := runlog.Load(dir)
	if err != nil {
		return nil, err
	}
	r.Summary = summary.FromLines(r.Manifest, r.Lines)
	return r, nil
}

// summaryOf is the run's summary, computed from its lines when the run
// was built without one (by hand in tests, or runlog.Load rather than Load).
func summaryOf(r *runlog.Run) *runlog.Summary {
	if r.Summary == nil {
		r.Summary = summary.FromLines(r.Manifest, r.Lines)
	}
	return r.Summary
}
