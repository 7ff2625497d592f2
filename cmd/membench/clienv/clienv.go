// Package clienv reads membench's own environment variables. It is the only
// place outside tests that does: commands read them once and pass the
// values down (membench.Host), so nothing on the run path depends on, or
// changes, process-wide state.
package clienv

import (
	"context"
	"os"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/embedder"
)

// Home is the environment variable naming membench's home directory
// (datasets, models, caches).
const Home = "MEMBENCH_HOME"

// envKey carries an environment in a context.
type envKey struct{}

// WithEnv returns ctx carrying env ("KEY=value" entries, later ones win):
// commands run under it read env instead of the process's, so tests can
// run many command lines at once in one process.
func WithEnv(ctx context.Context, env []string) context.Context {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return context.WithValue(ctx, envKey{}, m)
}

// Getenv is the variable's value in ctx's environment (WithEnv), else in
// the process's.
func Getenv(ctx context.Context, key string) string {
	if ctx != nil {
		if m, ok := ctx.Value(envKey{}).(map[string]string); ok {
			return m[key]
		}
	}
	return os.Getenv(key)
}

// Host returns what MEMBENCH_HOME, MEMBENCH_EMBEDDER and CI say.
func Host(ctx context.Context) membench.Host {
	return membench.Host{
		Home: Getenv(ctx, Home), Embedder: Getenv(ctx, embedder.EnvEmbedder), CI: Getenv(ctx, "CI") != "",
	}
}

// JobIndex is JOB_COMPLETION_INDEX, which Kubernetes Indexed Jobs set on
// each pod; `run --shard auto/N` takes the shard index from it.
func JobIndex(ctx context.Context) string { return Getenv(ctx, "JOB_COMPLETION_INDEX") }

// OpenAIBaseURL is OPENAI_BASE_URL: the server of openai backends whose
// spec names none.
func OpenAIBaseURL(ctx context.Context) string { return Getenv(ctx, "OPENAI_BASE_URL") }
