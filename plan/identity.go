package plan

import (
	"maps"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/badinput"
)

// A run's id is the hash of what decides its outputs. Settings that can
// be given in several ways, or that stand for something chosen at run
// time, are written down in one form before the id is computed:
//   - the embedder: no --embedder means use-lite when installed, else the
//     hashed embedder; the config records which, so installing USE-lite
//     later starts a new run instead of refusing to resume this one;
//   - k: --k and --opt k are one setting;
//   - the data file: its sha256 enters the id, not the path as typed.

// EmbedderChoice is the embedder the config asks for and where that came
// from, for error messages: --embedder, else MEMBENCH_EMBEDDER, else
// nothing (choose automatically).
func EmbedderChoice(cfg membench.Config) (mode, from string) {
	if cfg.Embedder != "" {
		return cfg.Embedder, "--embedder " + cfg.Embedder
	}
	if cfg.Host.Embedder != "" {
		return cfg.Host.Embedder, embedder.EnvEmbedder + "=" + cfg.Host.Embedder
	}
	return "", "embedder"
}

// RemoteEmbedder reports whether e names an OpenAI-compatible embedder.
func RemoteEmbedder(e string) bool {
	return strings.HasPrefix(e, "openai:") || strings.Contains(e, "backend=openai")
}

// resolveEmbedder chooses the embedder once and writes its name into
// cfg.Embedder ("use-lite", "tfidf-hash-512", or the remote spec). A local
// one is loaded here and handed to the engine with the plan; the note is
// the warning of its choice (a fallback, the hashed embedder's limits).
func resolveEmbedder(cfg membench.Config) (membench.Config, Embedder, error) {
	mode, from := EmbedderChoice(cfg)
	if RemoteEmbedder(mode) {
		cfg.Embedder = mode
		return cfg, Embedder{Name: mode}, nil
	}
	// use-lite must load now; anything else is refused with the names
	// that work.
	e, info, err := embedder.Select(mode, embedder.DefaultModelDir(cfg.Host.Home))
	if err != nil {
		return cfg, Embedder{}, badinput.Errorf("%s: %v", from, err)
	}
	cfg.Embedder = info.Name
	return cfg, Embedder{Name: info.Name, Note: info.Warning, SHA256: info.ModelSHA256, Local: e}, nil
}

// resolveK makes --k and --opt k one setting: an --opt k that is a
// positive integer moves into cfg.K (so both spellings give one run id),
// and a --k that disagrees with it is refused. Any other value of k stays
// an option, for the system to refuse by name.
func resolveK(cfg membench.Config) (membench.Config, error) {
	v, ok := cfg.Options["k"]
	if !ok {
		return cfg, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return cfg, badinput.Errorf("option k=%s: want a whole number of items of at least 1 (--opt k=N or --k N; leave both out for the system's default)", v)
	}
	if cfg.K > 0 && cfg.K != n {
		return cfg, badinput.Errorf("--k %d and --opt k=%d disagree; they are one setting (the retrieval budget): give one of them", cfg.K, n)
	}
	opts := maps.Clone(cfg.Options)
	delete(opts, "k")
	if len(opts) == 0 {
		opts = nil
	}
	cfg.Options, cfg.K = opts, n
	return cfg, nil
}
