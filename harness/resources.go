package harness

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/bundle"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/judge/judging"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// Resources are the run's shared, unmetered models (cache → retry → rate
// limit → backend), its embedder and caches. Each conversation wraps the
// models in its own meter so its costs can be reported alone.
type Resources struct {
	cfg          membench.Config
	chosen       *plan.Embedder // the plan's embedder; nil: chosen here
	play         *Playback      // a replay's bundle; nil records the run's own replies
	base         map[string]llm.Model
	specs        map[string]llm.Spec
	cache        *llm.Cache
	embCache     *embedder.Cache
	judges       *judging.Builder
	tokens       *tokens.Store // token counts kept between runs
	tape         *llm.Tape     // records paid replies (replies.jsonl), or plays a bundle's
	limit        *llm.Limiter  // --concurrency: requests in flight across the run
	http         *http.Client  // one connection pool for every openai model
	tapeOut      io.Closer
	Embedder     llm.Embedder
	EmbedderName string
	EmbedderNote string
	// EmbedderSHA256 hashes the local embedder's model files ("" for the
	// hashed and remote embedders).
	EmbedderSHA256 string
}

// Playback serves every paid model's reply (and a paid embedder's
// vectors) from a bundle (`membench run --replay`); with Fallback a call
// the bundle lacks goes to BaseURL, the server configured now, never one
// the bundle names ("" = $OPENAI_BASE_URL, else the default). It is the
// engine's, not the run's: the run log records only that a run was
// replayed (runlog.ReplayInfo).
type Playback struct {
	Tape     *llm.Tape
	Fallback bool
	BaseURL  string
}

// OpenResources builds the models of specs and the embedder the config
// names, for work that is not a run (scoring predictions).
func OpenResources(cfg membench.Config, specs map[string]llm.Spec) (*Resources, error) {
	return openResources(cfg, specs, nil, nil)
}

// openResources builds the models of specs and the embedder (chosen, or
// the config's when nil).
func openResources(cfg membench.Config, specs map[string]llm.Spec, chosen *plan.Embedder, play *Playback) (*Resources, error) {
	if cfg.CacheDir == "" {
		cfg.CacheDir = cfg.Host.CacheDir()
	}
	r := &Resources{cfg: cfg, chosen: chosen, play: play, base: map[string]llm.Model{}, specs: specs}
	if cfg.Concurrency > 0 {
		r.limit = llm.NewLimiter(cfg.Concurrency)
		r.http = llm.NewHTTPClient(cfg.Concurrency, 120*time.Second)
	}
	if err := os.MkdirAll(cfg.CacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("cache dir %s: %w (set --cache-dir or MEMBENCH_HOME)", cfg.CacheDir, err)
	}
	needCache := false
	for _, spec := range specs {
		if spec.Backend != "offline" && !spec.NoCache {
			needCache = true
		}
	}
	if needCache {
		c, err := llm.NewCache(filepath.Join(cfg.CacheDir, "llm.sqlite"))
		if err != nil {
			return nil, fmt.Errorf("llm cache: %w", err)
		}
		r.cache = c
	}
	if err := r.openTape(); err != nil {
		r.Close()
		return nil, err
	}
	for _, role := range plan.Roles { // a fixed order: an error names the same role every time
		spec := r.specs[role]
		m, err := llm.Build(spec, r.buildDeps(role))
		if err != nil {
			r.Close()
			return nil, badinput.Wrap(fmt.Errorf("%s model: %w", role, err))
		}
		r.base[role] = m
	}
	r.judges = &judging.Builder{
		DefaultModel: func(meter *llm.Meter) llm.Model { return r.Model(plan.RoleJudge, meter) },
		PromptFile:   cfg.JudgePrompt, CacheDir: cfg.CacheDir, NoCache: cfg.NoCache, Cache: r.cache,
		Deps: func(d llm.BuildDeps) llm.BuildDeps {
			tuned := r.buildDeps(d.Role)
			tuned.Cache, tuned.Meter = d.Cache, d.Meter
			return tuned
		},
	}
	if err := r.openEmbedder(); err != nil {
		r.Close()
		return nil, err
	}
	// Counting tokens is most of a rerun's CPU; counts are kept per text.
	ts, err := tokens.OpenStore(filepath.Join(cfg.CacheDir, "tokens-o200k.bin"))
	if err != nil {
		r.Close()
		return nil, err
	}
	r.tokens = ts
	return r, nil
}

func (r *Resources) openEmbedder() error {
	var inner llm.Embedder
	e := r.cfg.Embedder
	var spec llm.Spec // a remote embedder's
	if plan.RemoteEmbedder(e) {
		var err error
		if spec, err = llm.ParseSpec(e); err != nil {
			return badinput.Errorf("--embedder %s: %v", llm.RedactText(e), err)
		}
	}
	switch {
	case plan.RemoteEmbedder(e) && r.play != nil:
		// The bundle's spec was stripped of its server: the one configured now.
		if spec.BaseURL == "" {
			spec.BaseURL = r.play.BaseURL
		}
		name := llm.EmbedderName(spec)
		var fb llm.Embedder
		if r.play.Fallback {
			o, err := llm.BuildEmbedder(spec, r.http)
			if err != nil {
				return badinput.Wrap(fmt.Errorf("--embedder %s: %w", llm.RedactText(e), err))
			}
			fb = llm.LimitEmbedder(o, r.limit)
		}
		r.Embedder, r.EmbedderName = r.tape.PlayEmbedder(name, fb), name
		return nil
	case plan.RemoteEmbedder(e):
		// openai:MODEL, or the key=value form (backend=openai,model=M,base-url=U).
		// The embedding server is the build model's unless the spec says otherwise.
		if b := r.specs[plan.RoleBuild]; spec.BaseURL == "" && b.Backend == "openai" {
			spec.BaseURL = b.BaseURL
		}
		if r.cfg.Dry {
			// Hashed vectors under the paid embedder's name: its tokens
			// are counted and priced, no server is asked.
			r.EmbedderName = llm.EmbedderName(spec)
			r.Embedder = llm.DryEmbedder(r.EmbedderName, embedder.NewHashed(512))
			return nil
		}
		o, err := llm.BuildEmbedder(spec, r.http)
		if err != nil {
			return badinput.Wrap(fmt.Errorf("--embedder %s: %w", llm.RedactText(e), err))
		}
		inner = llm.LimitEmbedder(o, r.limit)
		r.EmbedderName = o.Name()
	case r.chosen != nil && r.chosen.Local != nil:
		inner = r.chosen.Local
		r.EmbedderName, r.EmbedderNote, r.EmbedderSHA256 = r.chosen.Name, r.chosen.Note, r.chosen.SHA256
	default:
		mode, from := plan.EmbedderChoice(r.cfg)
		d, info, err := embedder.Select(mode, embedder.DefaultModelDir(r.cfg.Host.Home))
		if err != nil {
			return badinput.Errorf("%s: %v", from, err)
		}
		inner, r.EmbedderName, r.EmbedderNote, r.EmbedderSHA256 = d, info.Name, info.Warning, info.ModelSHA256
	}
	if !embedder.WorthCaching(inner) {
		r.Embedder = inner
		return nil
	}
	c, err := embedder.NewCache(inner, filepath.Join(r.cfg.CacheDir, "embeddings.sqlite"))
	if err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	r.embCache = c
	r.Embedder = c
	if plan.RemoteEmbedder(r.cfg.Embedder) && r.play == nil {
		// A paid embedder's vectors go into the run's replies; local
		// embedders are reproduced from their pinned model files.
		r.Embedder = r.tape.RecordEmbedder(c)
	}
	return nil
}

// PreloadCache reads the LLM cache into memory in the background when
// calls expected lookups make that cheaper than one query each
// (llm.Cache.Preload).
func (r *Resources) PreloadCache(calls int) {
	if r.cache != nil {
		r.cache.Preload(calls)
	}
}

// Damaged counts the cache entries found damaged (and recomputed) so far
// in this process; nil when there were none.
func (r *Resources) Damaged() *runlog.CacheDamage {
	var d runlog.CacheDamage
	if r.cache != nil {
		d.LLM += r.cache.Damaged()
	}
	if r.judges != nil {
		d.LLM += r.judges.Damaged()
	}
	if r.embCache != nil {
		d.Embeddings += r.embCache.Damaged()
	}
	if r.tokens != nil {
		d.Tokens += r.tokens.Damaged()
	}
	return d.Add(nil)
}

// Log sends the caches' notes (a damaged file set aside, and the cache
// started again) to w, the run's log.
func (r *Resources) Log(w io.Writer) {
	if r.cache != nil {
		r.cache.Log(w)
	}
	if r.embCache != nil {
		r.embCache.Log(w)
	}
	if r.judges != nil {
		r.judges.Log(w)
	}
}

// Close releases the caches.
func (r *Resources) Close() {
	if r.cache != nil {
		r.cache.Close()
	}
	if r.embCache != nil {
		r.embCache.Close()
	}
	if r.judges != nil {
		r.judges.Close()
	}
	if r.tapeOut != nil {
		r.tapeOut.Close()
	}
	if r.tokens != nil {
		r.tokens.Close()
		r.tokens = nil
	}
}

// Model returns role's model wrapped in meter (when non-nil).
func (r *Resources) Model(role string, meter *llm.Meter) llm.Model {
	m := r.base[role]
	if meter == nil {
		return m
	}
	return llm.WithMeter(m, meter, role)
}

// Env is the system environment for one conversation.
func (r *Resources) Env(meter *llm.Meter, cfg membench.Config) systems.Env {
	return systems.Env{
		Build:  r.Model(plan.RoleBuild, meter),
		Decide: r.Model(plan.RoleDecide, meter),
		// Embedding work is metered as "embed": systems embed while building
		// and while retrieving, and the embedder cannot tell which.
		Embedder:    llm.WithEmbedMeter(r.Embedder, meter, "embedder", "embed"),
		Meter:       meter,
		Options:     cfg.Options,
		Concurrency: cfg.Concurrency,
	}
}

// Judges parses judge specs; model judges use the judge model unless their
// spec names another, and are metered by meter when it is non-nil.
func (r *Resources) Judges(specs []string, meter *llm.Meter) ([]judge.Judge, error) {
	js, err := r.judges.Judges(specs, meter)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	return js, nil
}

// ModelIDs lists the configured models by role (never keys).
func (r *Resources) ModelIDs() map[string]membench.ModelID {
	out := map[string]membench.ModelID{}
	for role, m := range r.base {
		out[role] = m.ID()
	}
	return out
}

// Offline reports whether every model role is the offline backend (the
// manifest's Offline also asks the judges' own models).
func (r *Resources) Offline() bool {
	for _, s := range r.specs {
		if s.Backend != "offline" {
			return false
		}
	}
	return true
}

// buildDeps wires a role's model to the cache and to the run's tape:
// recording, or playing a bundle.
func (r *Resources) buildDeps(role string) llm.BuildDeps {
	d := llm.BuildDeps{Cache: r.cache, Role: role, Limit: r.limit, HTTP: r.http, Dry: r.cfg.Dry}
	if r.play != nil {
		d.Replay, d.ReplayFallback, d.ReplayBaseURL = r.play.Tape, r.play.Fallback, r.play.BaseURL
	} else {
		d.Tape = r.tape
	}
	return d
}

// openTape plays the config's bundle, or records into the run's
// replies.jsonl, keeping the replies an earlier attempt recorded.
func (r *Resources) openTape() error {
	if r.play != nil {
		r.tape = r.play.Tape
		return nil
	}
	var err error
	r.tape, r.tapeOut, err = bundle.OpenRecorder(r.cfg.Dir())
	return err
}

// Fresh counts calls a replayed run sent to the backend (--replay-fallback).
func (r *Resources) Fresh() int64 {
	if r.play == nil {
		return 0
	}
	return r.tape.Fresh()
}

// checkSystem builds the system once, with the run's models and embedder,
// so an option value the system refuses (k=abc, order=sideways) is bad
// input before any run folder exists. Systems' constructors only read
// their options: they reach no service and start no process.
func checkSystem(spec systems.Spec, res *Resources, cfg membench.Config) error {
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
