package harness

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/membench/membench/answer"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/prompts"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/systems"
)

// A run's id is the hash of what decides its outputs. Settings that can
// be given in several ways, or that stand for something chosen at run
// time, are written down in one form before the id is computed:
//   - the embedder: no --embedder means use-lite when installed, else the
//     hashed embedder; the config records which, so installing USE-lite
//     later starts a new run instead of refusing to resume this one;
//   - k: --k and --opt k are one setting;
//   - the data file: its sha256 enters the id, not the path as typed.

// resolution is a config checked and written in its one form, with what
// checking it loaded.
type resolution struct {
	cfg       runlog.Config
	spec      systems.Spec
	prompts   prompts.Set
	data      *datasets.Dataset
	embedNote string // why an automatic embedder choice fell back
	scoring   Scoring
	// paper is how the run's prompts stand against the paper's its
	// config pins (nil: it pins none).
	paper *runlog.PromptCheck
}

// Resolve returns the config as the run records it (see above): its ID()
// is the id of the run harness.Run makes of cfg. It loads the dataset to
// hash it, so callers that run anyway read the id from the summary.
func Resolve(cfg runlog.Config) (runlog.Config, error) {
	if err := cfg.Validate(); err != nil {
		return cfg, badinput.Wrap(err)
	}
	r, err := resolve(WithDefaults(cfg))
	if err != nil {
		return cfg, err
	}
	return r.cfg, nil
}

// resolve checks everything that can be checked without models, in the
// order a user fixes them, and resolves the config.
func resolve(cfg runlog.Config) (*resolution, error) {
	if err := cfg.Validate(); err != nil {
		return nil, badinput.Wrap(err)
	}
	spec, err := systems.Lookup(cfg.System)
	if err != nil {
		return nil, badinput.Errorf("--system: %v", err)
	}
	if err := cfg.Options.Check(cfg.System, spec.Defaults); err != nil {
		return nil, badinput.Errorf("--opt: %v", err)
	}
	if cfg, err = resolveK(cfg); err != nil {
		return nil, err
	}
	cfg, paper, err := paperPrompts(cfg)
	if err != nil {
		return nil, err
	}
	var set prompts.Set
	if cfg.AnswerPrompt != "" {
		t, err := prompts.FromFile(answer.Prompt, cfg.AnswerPrompt)
		if err != nil {
			return nil, badinput.Errorf("--answer-prompt: %v", err)
		}
		set = set.With(t)
	}
	ds, err := datasets.Load(cfg.Dataset, cfg.Data, datasets.LoadOptions{TurnStep: cfg.TurnStep, Home: cfg.Host.Home,
		Conversations: cfg.Conversations, Limit: cfg.Limit, Lazy: true, MaxBytes: cfg.MaxDataSize, Seed: cfg.Seed, BaseData: cfg.BaseData})
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	if len(cfg.Conversations) > 0 || cfg.Limit > 0 {
		if ds, err = ds.Filter(cfg.Conversations, cfg.Limit); err != nil {
			return nil, badinput.Errorf("--conversations: %v", err)
		}
	}
	cfg = resolveData(cfg, ds)
	if cfg.AnswerKey == "published" {
		cfg.AnswerKey = "" // the dataset's own key: one run id for both spellings
	}
	sum, scoring, err := ApplyScoring(ds, cfg.AnswerKey, cfg.ExcludeImageQuestions, datasets.LoadOptions{TurnStep: cfg.TurnStep, Home: cfg.Host.Home, MaxBytes: cfg.MaxDataSize, Seed: cfg.Seed, BaseData: cfg.BaseData})
	if err != nil {
		return nil, err
	}
	cfg.AnswerKeySHA256 = sum
	cfg, note, err := resolveEmbedder(cfg)
	if err != nil {
		return nil, err
	}
	return &resolution{cfg: cfg, spec: spec, prompts: set, data: ds, embedNote: note, scoring: scoring, paper: paper}, nil
}

// embedderChoice is the embedder the config asks for and where that came
// from, for error messages: --embedder, else MEMBENCH_EMBEDDER, else
// nothing (choose automatically).
func embedderChoice(cfg runlog.Config) (mode, from string) {
	if cfg.Embedder != "" {
		return cfg.Embedder, "--embedder " + cfg.Embedder
	}
	if cfg.Host.Embedder != "" {
		return cfg.Host.Embedder, embedder.EnvEmbedder + "=" + cfg.Host.Embedder
	}
	return "", "embedder"
}

// remoteEmbedder reports whether e names an OpenAI-compatible embedder.
func remoteEmbedder(e string) bool {
	return strings.HasPrefix(e, "openai:") || strings.Contains(e, "backend=openai")
}

// resolveEmbedder writes the local embedder the run will use into
// cfg.Embedder ("use-lite" or "tfidf-hash-512"). note is the warning of an
// automatic choice that fell back to the hashed embedder ("" otherwise).
func resolveEmbedder(cfg runlog.Config) (runlog.Config, string, error) {
	mode, from := embedderChoice(cfg)
	if remoteEmbedder(mode) {
		cfg.Embedder = mode
		return cfg, "", nil
	}
	dir := embedder.DefaultModelDir(cfg.Host.Home)
	if mode != "" {
		name, ok := embedder.Canonical(mode)
		if ok && name == embedder.HashedName {
			cfg.Embedder = name
			return cfg, "", nil
		}
		// use-lite must load now; anything else is refused with the names
		// that work.
		if _, _, err := embedder.Select(mode, dir); err != nil {
			return cfg, "", badinput.Errorf("%s: %v", from, err)
		}
		cfg.Embedder = name
		return cfg, "", nil
	}
	_, info, err := embedder.Select("", dir)
	if err != nil {
		return cfg, "", badinput.Errorf("%s: %v", from, err)
	}
	cfg.Embedder = info.Name
	return cfg, info.Warning, nil
}

// resolveK makes --k and --opt k one setting: an --opt k that is a
// positive integer moves into cfg.K (so both spellings give one run id),
// and a --k that disagrees with it is refused. Any other value of k stays
// an option, for the system to refuse by name.
func resolveK(cfg runlog.Config) (runlog.Config, error) {
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
	opts := systems.Options{}
	for key, val := range cfg.Options {
		if key != "k" {
			opts[key] = val
		}
	}
	if len(opts) == 0 {
		opts = nil
	}
	cfg.Options, cfg.K = opts, n
	return cfg, nil
}

// resolveData records the dataset's content hash in the config, so the
// run id does not depend on how the path was typed.
func resolveData(cfg runlog.Config, ds *datasets.Dataset) runlog.Config {
	cfg.DataSHA256 = ds.SHA256
	return cfg
}

// checkSystem builds the system once, with the run's models and embedder,
// so an option value the system refuses (k=abc, order=sideways) is bad
// input before any run folder exists. Systems' constructors only read
// their options: they reach no service and start no process.
func checkSystem(spec systems.Spec, res *Resources, cfg runlog.Config) error {
	sys, err := spec.New(res.Env(llm.NewMeter(), cfg))
	if err != nil {
		return badinput.Errorf("--system %s: %v (see membench systems for its options)", cfg.System, err)
	}
	if c, ok := sys.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil {
			return fmt.Errorf("system %s: %w", cfg.System, err)
		}
	}
	return nil
}
