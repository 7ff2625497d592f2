package systems

import (
	"strings"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
)

// Options are a system's string-keyed settings, from YAML or --opt k=v,
// with typed getters that validate and name the option in their errors.
// The run log records them (runlog.Options), so they are defined there.
type Options = runlog.Options

// Parse reads "k=v" pairs (as given to --opt).
func Parse(pairs []string) (Options, error) {
	o := Options{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, badinput.Errorf("--opt %q: want key=value, e.g. --opt k=20", p)
		}
		o[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return o, nil
}
