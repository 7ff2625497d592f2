// Package clienv reads membench's own environment variables. It is the only
// place outside tests that does: commands read them once and pass the
// values down (runlog.Host), so nothing on the run path depends on, or
// changes, process-wide state.
package clienv

import (
	"os"

	"github.com/membench/membench/internal/embedder"
	"github.com/membench/membench/runlog"
)

// Home is the environment variable naming membench's home directory
// (datasets, models, caches).
const Home = "MEMBENCH_HOME"

// Host returns what MEMBENCH_HOME, MEMBENCH_EMBEDDER and CI say.
func Host() runlog.Host {
	return runlog.Host{
		Home: os.Getenv(Home), Embedder: os.Getenv(embedder.EnvEmbedder), CI: os.Getenv("CI") != "",
	}
}

// JobIndex is JOB_COMPLETION_INDEX, which Kubernetes Indexed Jobs set on
// each pod; `run --shard auto/N` takes the shard index from it.
func JobIndex() string { return os.Getenv("JOB_COMPLETION_INDEX") }

// OpenAIBaseURL is OPENAI_BASE_URL: the server of openai backends whose
// spec names none.
func OpenAIBaseURL() string { return os.Getenv("OPENAI_BASE_URL") }
