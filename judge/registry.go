package judge

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/membench/membench/llm"
)

// Kind says how a judge's scores are read.
type Kind string

const (
	// KindMetric judges give a graded score in [0,1] (F1, BLEU-1); tables
	// report its mean, and Correct is the score thresholded.
	KindMetric Kind = "metric"
	// KindVerdict judges say correct or wrong; tables report accuracy.
	KindVerdict Kind = "verdict"
)

// Spec describes one kind of judge, as --judge-spec names it.
type Spec struct {
	Name        string // what --judge-spec takes: f1, llm, ...
	Kind        Kind
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
var builtins = []Spec{
	f1Spec,
	bleu1Spec,
	emSpec,
	lexicalSpec,
	llmSpec,
	humanSpec,
	peerSpec,
}

var (
	regMu    sync.RWMutex
	registry = map[string]Spec{}
)

func init() {
	for _, s := range builtins {
		Register(s)
	}
}

// Register adds a judge kind. It panics on a duplicate or incomplete spec,
// which is a programming error.
func Register(s Spec) {
	if s.Name == "" || (s.Kind != KindMetric && s.Kind != KindVerdict) || s.Description == "" {
		panic(fmt.Sprintf("judge.Register: spec %q needs a name, a kind (metric|verdict) and a description", s.Name))
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic("judge.Register: duplicate judge " + s.Name)
	}
	registry[s.Name] = s
}

// Lookup returns the spec of a judge kind.
func Lookup(kind string) (Spec, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	s, ok := registry[strings.ToLower(strings.TrimSpace(kind))]
	return s, ok
}

// Specs lists every registered judge kind by name.
func Specs() []Spec {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

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
