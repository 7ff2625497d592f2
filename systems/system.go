// Package systems defines the memory-system protocol and its registry. Each
// system lives in its own sub-package and registers itself by name.
package systems

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/registry"
	"github.com/membench/membench/llm"
	"golang.org/x/sync/errgroup"
)

// System is one memory system holding one conversation's memory. The
// harness makes a fresh instance per conversation (as the papers do: one
// store per conversation), calls Ingest once, then Retrieve per question.
type System interface {
	Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error)
	Retrieve(ctx context.Context, q *datasets.Question, b Budget) (*Context, error)
}

// Budget bounds what Retrieve may return. K is the system's main count (turns,
// facts, entries); zero means the system's configured default.
type Budget struct {
	K         int `json:"k"`
	MaxTokens int `json:"max_tokens,omitempty"`
}

// KOr is the budget's K, or def (the system's configured k) when K is unset.
func (b Budget) KOr(def int) int {
	if b.K > 0 {
		return b.K
	}
	return def
}

// Context is what the answer model reads for one question.
type Context struct {
	Items    []membench.Item `json:"items"`
	Rendered string          `json:"rendered"`
	Tokens   int             `json:"tokens"` // o200k_base count of Rendered
	// Candidates is the candidate stage of two-stage selectors (before the
	// selector); empty for single-stage systems. Used by diagnose.
	Candidates []membench.Item `json:"candidates,omitempty"`
	// Notes holds system-specific facts worth logging (fallbacks, ρ values).
	Notes map[string]any `json:"notes,omitempty"`
}

// MemoryRule is what a system declares about the memory its build makes.
// A system that keeps the raw conversation (fullcontext, turns-*, abstain)
// leaves it zero and is never judged by it.
type MemoryRule struct {
	// Builds: Ingest builds a memory and reports its size
	// (BuildStats.Entries; an adapter only when its service reports one).
	Builds bool
	// MaxEmptyReplies is the share of a conversation's extraction replies
	// that may hold no entry; 0 means no limit besides "not all of them"
	// (systems that extract one message at a time, where a greeting
	// rightly gives nothing).
	MaxEmptyReplies float64
}

// Empty says why a conversation's build is degraded by its memory: no
// entry at all, every extraction reply empty, or more empty replies than
// the limit allows. "" means the memory is fine or the rule does not
// apply.
func (r MemoryRule) Empty(b membench.BuildStats) string {
	if !r.Builds {
		return ""
	}
	if b.Entries != nil && *b.Entries == 0 {
		switch {
		case b.Extractions > 0:
			return fmt.Sprintf("the build ended with 0 memory entries (%d of %d extraction replies empty)", b.EmptyReplies, b.Extractions)
		case b.Failed == 0:
			return "the build ended with 0 memory entries"
		}
		// Every reply failed: --max-build-failures decides (BuildDegraded).
	}
	if b.Extractions > 0 && b.EmptyReplies == b.Extractions {
		return fmt.Sprintf("all %d extraction replies were empty", b.Extractions)
	}
	if r.MaxEmptyReplies > 0 && float64(b.EmptyReplies) > r.MaxEmptyReplies*float64(b.Extractions) {
		return fmt.Sprintf("%d of %d extraction replies were empty (%.1f%%, above this system's limit of %.0f%%)",
			b.EmptyReplies, b.Extractions, 100*float64(b.EmptyReplies)/float64(b.Extractions), 100*r.MaxEmptyReplies)
	}
	return ""
}

// Env is what a system may use. Models are already wrapped in the run's
// decorators (meter, cache, retry, rate limit).
type Env struct {
	Build    llm.Model    // extraction/consolidation model
	Decide   llm.Model    // decision model (relevance probabilities)
	Embedder llm.Embedder // shared, cached embedder
	// Meter, when set, lets a system read cumulative usage (for TurnTokens).
	Meter interface {
		TotalTokens(stage membench.Stage) int
	}
	// Options are the system's own settings from config/flags (--opt key=value).
	Options membench.Options
	// Concurrency bounds parallel model calls inside one system.
	Concurrency int
}

// Factory makes one system instance for one conversation.
type Factory func(env Env) (System, error)

// Spec describes a registered system.
type Spec struct {
	Name        string
	Description string
	Defaults    membench.Options // option defaults, shown by `membench systems`
	New         Factory
	// Memory declares whether Ingest builds a memory, and how many of its
	// extraction replies may be empty, so that an empty memory marks the
	// run degraded instead of scoring as the system.
	Memory MemoryRule
	// NoEmbeddings: the system never embeds a text (it keeps the whole
	// conversation, declines, or asks a service that retrieves on its
	// own), so its runs carry no note on the embedder's quality.
	NoEmbeddings bool
	// Outside names the options that point at something outside membench
	// (a command to run, a URL to call). A replayed bundle may not supply
	// them: the user gives them again (--opt), so a bundle is data only.
	Outside []string
	// Follow, when set, fills in the options whose default depends on
	// another option (StructMem's clock follows its granularity): given
	// are the options as the user gave them, merged the options over
	// Defaults; it returns merged with those values set. Nil: merged as is.
	Follow func(given, merged membench.Options) membench.Options
}

// Resolved is the option set a system runs with: the given options over
// its defaults, with the values that follow from other options, as the
// manifest records it.
func (s Spec) Resolved(given membench.Options) membench.Options {
	m := given.Merge(s.Defaults)
	if s.Follow != nil {
		m = s.Follow(given, m)
	}
	return m
}

// Followed names, sorted, the resolved options whose value Follow set
// rather than the user or the defaults: a comparison does not count them
// as a difference of their own beside the option they follow.
func (s Spec) Followed(given membench.Options) []string {
	if s.Follow == nil {
		return nil
	}
	plain, res := given.Merge(s.Defaults), s.Resolved(given)
	var out []string
	for k, v := range res {
		if plain[k] != v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

var registered = registry.New[Spec]("system")

// Register adds a system; names must be unique. Its factory first rejects
// options that are not among the defaults.
func Register(s Spec) {
	build := s.New
	s.New = func(env Env) (System, error) {
		if err := env.Options.Check(s.Name, s.Defaults); err != nil {
			return nil, err
		}
		return build(env)
	}
	registered.Register(s.Name, nil, s)
}

// Lookup finds a system by name with an error that lists the known ones.
func Lookup(name string) (Spec, error) { return registered.Lookup(name) }

// Names lists registered systems, sorted.
func Names() []string { return registered.Names() }

// Offline registers the offline heuristic of a chat task whose request
// inputs are an In: its reply is reply's value as JSON.
func Offline[In any](task string, reply func(In) any) {
	llm.RegisterOffline(task, func(req llm.Request) (string, error) {
		in, ok := req.Inputs.(In)
		if !ok {
			return "", fmt.Errorf("inputs are %T, want %T", req.Inputs, *new(In))
		}
		b, err := json.Marshal(reply(in))
		return string(b), err
	})
}

// ParallelMap runs fn for 0..n-1 with at most conc at once and returns the
// results in index order. Results do not depend on scheduling.
func ParallelMap[T any](ctx context.Context, n, conc int, fn func(ctx context.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(conc, 1))
	for i := range n {
		g.Go(func() error {
			r, err := fn(ctx, i)
			out[i] = r
			return err
		})
	}
	return out, g.Wait()
}

// Set is the set of words in ws (the heuristics' word lists).
func Set(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// MergeIDs is a followed by the ids of b it lacks, in b's order.
func MergeIDs(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
