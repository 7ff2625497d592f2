package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench/llm"
)

// Judge is one audit judge: a display name and the model it asks.
type Judge struct {
	Name  string
	Model llm.Model
}

// ParseJudgeSpec reads an --audit-model value of an audit. It accepts the model
// specs `membench run` accepts (offline, BACKEND:MODEL, key=value with
// name=) and the run's NAME=BACKEND:MODEL shorthand; it returns the judge
// name and the model spec.
func ParseJudgeSpec(s string) (string, llm.Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "offline") {
		return "offline", llm.Spec{Name: "offline", Backend: "offline"}, nil
	}
	// NAME=BACKEND:MODEL, e.g. gpt=openai:gpt-4o-mini.
	if k, v, ok := strings.Cut(s, "="); ok && !strings.Contains(s, ",") && !slices.Contains(specKeys, strings.TrimSpace(k)) && (strings.Contains(v, ":") || v == "offline") {
		sp, err := llm.ParseSpec(v)
		if err != nil {
			return "", llm.Spec{}, fmt.Errorf("--audit-model %q: %v", s, err)
		}
		sp.Name = strings.TrimSpace(k)
		return sp.Name, sp, nil
	}
	sp, err := llm.ParseSpec(s)
	if err != nil {
		return "", llm.Spec{}, fmt.Errorf("--audit-model %q: %v", s, err)
	}
	name := cmp.Or(sp.Name, sp.Model, sp.Backend)
	if sp.Name == "" && sp.Backend == "offline" {
		name = "offline"
	}
	return name, sp, nil
}

// specKeys are the keys of a key=value model spec, which are no judge names.
var specKeys = []string{"name", "backend", "model", "base-url", "api-key-env", "rpm", "tpm", "retries", "no-cache"}

// BuildJudges parses specs and builds their models with deps (the cache
// applies to non-offline backends). An empty list means one offline judge.
// Two judges may not share a name: records are keyed by it.
func BuildJudges(specs []string, deps llm.BuildDeps) ([]Judge, error) {
	if len(specs) == 0 {
		specs = []string{"offline"}
	}
	var out []Judge
	seen := map[string]string{}
	for _, s := range specs {
		name, sp, err := ParseJudgeSpec(s)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("--audit-model %q and --audit-model %q both make a judge named %q; give one of them its own name=N", prev, s, name)
		}
		seen[name] = s
		d := deps
		if d.Role == "" {
			d.Role = "audit:" + name
		}
		m, err := llm.Build(sp, d)
		if err != nil {
			return nil, fmt.Errorf("--audit-model %q: %w", s, err)
		}
		out = append(out, Judge{Name: name, Model: m})
	}
	return out, nil
}

// NeedsCache reports whether any spec names a non-offline backend that
// would use the LLM cache.
func NeedsCache(specs []string) bool {
	return slices.ContainsFunc(specs, func(s string) bool {
		_, sp, err := ParseJudgeSpec(s)
		return err == nil && sp.Backend != "offline" && !sp.NoCache
	})
}
