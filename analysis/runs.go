// Package analysis reads finished run directories and computes the
// paper-shaped numbers: token-matched k* (kstar), the retrieval-loss
// decomposition (diagnose) and the score tables (report). Loading is kept
// in this file; everything else works on loaded runs, so tests can build
// small runs by hand.
package analysis

import (
	"strconv"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/systems"
)

// ResolveK is the retrieval budget a run used: --k when set, else the run's
// --opt k=, else the system's registered default k. ok is false when none
// applies (e.g. fullcontext, or a system not registered in this binary).
func ResolveK(cfg runlog.Config) (k int, source string, ok bool) {
	if cfg.K > 0 {
		return cfg.K, "--k", true
	}
	if v, has := cfg.Options["k"]; has {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n, "--opt k", true
		}
	}
	spec, err := systems.Lookup(cfg.System)
	if err != nil {
		return 0, "system " + cfg.System + " is not registered in this binary, so its default k is unknown", false
	}
	if v, has := spec.Defaults["k"]; has {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n, "default of " + cfg.System, true
		}
	}
	return 0, "system " + cfg.System + " has no k option (no retrieval budget)", false
}
