package systems

import (
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
)

// Parse reads "k=v" pairs (as given to --opt).
func Parse(pairs []string) (membench.Options, error) {
	o := membench.Options{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, badinput.Errorf("--opt %q: want key=value, e.g. --opt k=20", p)
		}
		o[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return o, nil
}
