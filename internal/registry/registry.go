// Package registry is the one way membench keeps what a name on the
// command line can pick: systems, judges and datasets each hold a
// Registry of their specs, filled from init functions, and look a name up
// with the same error and did-you-mean hint.
package registry

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/suggest"
)

// Registry maps names (and their aliases) to values of one kind.
type Registry[T any] struct {
	kind   string
	mu     sync.RWMutex
	values map[string]T
	alias  map[string]string // alias -> name
}

// New returns an empty registry whose errors call its entries kind
// ("system", "judge", "dataset").
func New[T any](kind string) *Registry[T] {
	return &Registry[T]{kind: kind, values: map[string]T{}, alias: map[string]string{}}
}

// Register adds v under name and its aliases. It panics on an empty or
// taken name, as a program registering one is wrong when it is built.
func (r *Registry[T]) Register(name string, aliases []string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range append([]string{name}, aliases...) {
		if n == "" || r.taken(n) {
			panic(fmt.Sprintf("registry: %s name %q is empty or registered twice", r.kind, n))
		}
	}
	r.values[name] = v
	for _, a := range aliases {
		r.alias[a] = name
	}
}

func (r *Registry[T]) taken(n string) bool {
	_, v := r.values[n]
	_, a := r.alias[n]
	return v || a
}

// Get returns the value of a name or alias.
func (r *Registry[T]) Get(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if n, ok := r.alias[name]; ok {
		name = n
	}
	v, ok := r.values[name]
	return v, ok
}

// Lookup returns the value of a name or alias; an unknown name is a
// bad-input error naming the closest known names and listing them all.
func (r *Registry[T]) Lookup(name string) (T, error) {
	if v, ok := r.Get(name); ok {
		return v, nil
	}
	var zero T
	known := r.Names()
	return zero, badinput.Errorf("unknown %s %q%s; known: %s", r.kind, name, suggest.Hint(name, known), strings.Join(known, ", "))
}

// Names lists the registered names (not aliases), sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.values))
	for n := range r.values {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Values lists the registered values in the order of Names.
func (r *Registry[T]) Values() []T {
	names := r.Names()
	out := make([]T, len(names))
	for i, n := range names {
		out[i], _ = r.Get(n)
	}
	return out
}
