package judge

import (
	"fmt"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/registry"
	"github.com/membench/membench/llm"
)

// Spec describes one kind of judge, as --judge-spec names it.
type Spec struct {
	Name        string // what --judge-spec takes: f1, llm, ...
	Kind        string // membench.JudgeMetric (tables report the mean score) or JudgeVerdict (accuracy)
	Description string // one line, for `membench judges` and help text
	// TakesModel: the judge calls a model (the run's judge model unless
	// its spec names another) and accepts prompt=.
	TakesModel bool
	// Options lists the judge-level keys it accepts besides name= (e.g.
	// threshold, decline).
	Options []string
	// New builds a judge; nil for judges that are only ever logged by
	// another command (human grades, imported peers' verdicts).
	New func(c Config) (Judge, error)
	// AddedBy names the command that logs a judge with no New.
	AddedBy string
}

// Config is what a judge's constructor receives, parsed from its spec.
type Config struct {
	Name    string            // the judge's name in the run (name=, else the kind)
	Options map[string]string // judge-level keys from Spec.Options
	Model   llm.Model         // for TakesModel judges
	Prompt  string            // prompt file (prompt= or --judge-prompt), "" = ours
	// Phrases decide abstention questions for metric judges; nil means
	// LoCoMo's own.
	Phrases []string
}

// builtins is the list of judges this binary has: adding a judge is one
// file with its Spec plus one line here.
var builtins = []Spec{f1Spec, bleu1Spec, emSpec, lexicalSpec, llmSpec, humanSpec, peerSpec}

var registered = registry.New[Spec]("judge")

func init() {
	for _, s := range builtins {
		Register(s)
	}
}

// Register adds a judge kind. It panics on a duplicate or incomplete spec,
// which is a programming error.
func Register(s Spec) {
	if s.Name == "" || (s.Kind != membench.JudgeMetric && s.Kind != membench.JudgeVerdict) || s.Description == "" {
		panic(fmt.Sprintf("judge.Register: spec %q needs a name, a kind (metric|verdict) and a description", s.Name))
	}
	registered.Register(s.Name, nil, s)
}

// Lookup returns the spec of a judge kind (case and spaces aside).
func Lookup(kind string) (Spec, error) {
	return registered.Lookup(strings.ToLower(strings.TrimSpace(kind)))
}

// Specs lists every registered judge kind by name.
func Specs() []Spec { return registered.Values() }

// Known lists the judge kinds --judge-spec can build.
func Known() []string {
	var out []string
	for _, s := range Specs() {
		if s.New != nil {
			out = append(out, s.Name)
		}
	}
	return out
}
