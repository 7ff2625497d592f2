// Package analysis reads finished run directories and computes the
// paper-shaped numbers: token-matched k* (kstar), the retrieval-loss
// decomposition (diagnose) and the score tables (report). Loading is kept
// in this file; everything else works on loaded runs, so tests can build
// small runs by hand.
package analysis

import (
	"strconv"
	"strings"

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

// metricKinds are the lexical metrics; every other judge gives verdicts.
var metricKinds = map[string]bool{"f1": true, "bleu1": true, "em": true}

// IsMetricJudge reports whether the judge named name in run manifest m is
// a lexical metric (f1, bleu1, em), by name or by the spec it was built from.
func IsMetricJudge(m runlog.Manifest, name string) bool {
	if metricKinds[strings.ToLower(name)] {
		return true
	}
	// Manifest judge names are parallel to the config's specs.
	if len(m.Config.Judges) == len(m.Judges) {
		for i, n := range m.Judges {
			if n == name {
				kind, _, _ := strings.Cut(m.Config.Judges[i], ",")
				return !strings.Contains(kind, "=") && metricKinds[strings.ToLower(strings.TrimSpace(kind))]
			}
		}
	}
	return false
}

// DefaultJudge is the first judge in the manifest that is not a lexical
// metric; if there is none, "f1" when present, else the first judge.
func DefaultJudge(m runlog.Manifest) string {
	for _, j := range m.Judges {
		if !IsMetricJudge(m, j) {
			return j
		}
	}
	for _, j := range m.Judges {
		if j == "f1" {
			return j
		}
	}
	if len(m.Judges) > 0 {
		return m.Judges[0]
	}
	return ""
}
