package replay

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/bundle"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/prices"
	"github.com/membench/membench/plan"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
	"github.com/membench/membench/systems"
)

// Options are the settings a replay may choose; everything that
// changes the outputs comes from the bundle's manifest.
type Options struct {
	Data        string // the dataset file here, when not where the author had it; checked by sha256
	ResultsDir  string
	CacheDir    string
	Concurrency int
	Quiet       bool
	Host        membench.Host
	// Fallback sends calls the bundle lacks to the configured backend
	// (needs its key); without it such a call is an error.
	Fallback bool
	// BaseURL is the backend configured now, where Fallback sends calls
	// ("" = $OPENAI_BASE_URL, else the default); never the bundle's.
	BaseURL string
	// MaxDataSize caps the dataset file read (0 = the default cap).
	MaxDataSize int64
	// PricesFile is laid over the default price table (--prices).
	PricesFile string
	// Opts are the user's own values for the options of an outside
	// system (exec's cmd, http's url): a bundle's values are never used.
	Opts membench.Options
}

// Run reruns a bundled run with every paid reply served from the
// bundle: no network and no key. Offline roles and local embedders are
// recomputed (they are deterministic); the dataset and the embedder must
// be the ones the run used.
//
// A bundle is data from someone else, never code or a destination: its
// config is used only for what shapes the outputs. Outside systems need
// the user's own command or URL (o.Opts), paths it recorded (the dataset,
// prompt files) are not read (prompts come from the bundle's own text,
// checked by hash), and calls it lacks go only to o.BaseURL.
func Run(ctx context.Context, b *bundle.Bundle, o Options, log io.Writer) (*runlog.Summary, error) {
	cfg := b.Manifest.Config.MapSpecs(llm.StripEndpoint)
	cfg.RunID = b.Manifest.RunID
	// Checked before anything is written under --results: the id is the
	// bundle's, and the run folder is named after it.
	if err := membench.CheckRunID(cfg.RunID); err != nil {
		return nil, badinput.Errorf("--replay %s: the bundle's run id: %v", b.Path, err)
	}
	opts, err := replayOptions(b, o.Opts)
	if err != nil {
		return nil, err
	}
	cfg.Options = opts
	cfg.Data = o.Data // "" = the dataset's own copy; never a path the bundle names
	cfg.MaxDataSize = o.MaxDataSize
	cfg.PricesFile = o.PricesFile
	cfg.ResultsDir, cfg.CacheDir, cfg.Concurrency, cfg.Quiet, cfg.Host = o.ResultsDir, o.CacheDir, o.Concurrency, o.Quiet, o.Host
	play := &harness.Playback{Tape: llm.NewPlayer(b.Replies), Fallback: o.Fallback, BaseURL: o.BaseURL}
	cfg = cfg.WithDefaults() // the folder is --results and the bundle's run id
	if runlog.IsRunDir(cfg.Dir()) {
		return alreadyReplayed(b, cfg, log)
	}
	if cfg, err = localPrompts(b, cfg, cfg.Dir()); err != nil {
		return nil, err
	}
	if b.Partial {
		fmt.Fprintf(log, "replay: %s is a partial bundle (its run had not finished); questions it did not reach fail unless --replay-fallback\n", filepath.Base(b.Path))
	}
	pl, err := plan.Resolve(cfg, plan.Env{})
	if err != nil {
		return nil, err
	}
	p, err := harness.Prepare(pl, play, log)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if want := b.Manifest.DatasetSHA256; want != "" && p.Data.SHA256 != want {
		return nil, badinput.Errorf("--data %s: sha256 %.12s, but the bundled run used %s with sha256 %.12s; give that file with --data", p.Data.Source, p.Data.SHA256, b.Manifest.DatasetSource, want)
	}
	// Paid embedders are named with their server; a replay reaches none.
	if want := b.Manifest.Embedder; want != "" && llm.EmbedderModel(p.Res.EmbedderName) != llm.EmbedderModel(want) {
		return nil, badinput.Errorf("embedder %s here, but the bundled run embedded with %s; install it (USE-lite: bash scripts/setup-embeddings.sh) so local embeddings are recomputed alike", p.Res.EmbedderName, want)
	}
	p.Manifest.Replay = &runlog.ReplayInfo{Bundle: filepath.Base(b.Path), Membench: b.Membench, Replies: len(b.Replies), Partial: b.Partial}
	// Written now, so the summary Execute computes says it was replayed.
	if err := p.SaveManifest(); err != nil {
		return nil, err
	}
	sum, err := p.Execute(ctx)
	if play.Fallback && sum != nil {
		fresh := p.Res.Fresh()
		p.Manifest.Replay.Fresh = fresh
		if werr := p.SaveManifest(); werr != nil && err == nil {
			err = werr
		}
		if s2, serr := summary.Compute(p.Dir); serr == nil {
			if d, derr := prices.Dollars(p.Dir, p.Prices); derr == nil {
				s2.Dollars = d
			}
			sum = s2
			if werr := summary.Write(p.Dir, s2); werr != nil && err == nil {
				err = werr
			}
		}
		fmt.Fprintf(log, "replay: %d calls were not in the bundle and went to the backend\n", fresh)
	}
	return sum, err
}

// replayOptions are the bundle's system options with every option that
// points outside membench taken from the user instead (opts); the user
// may give no other option.
func replayOptions(b *bundle.Bundle, opts membench.Options) (membench.Options, error) {
	cfg := b.Manifest.Config
	spec, err := systems.Lookup(cfg.System)
	if err != nil {
		return nil, badinput.Errorf("--replay %s: %v", b.Path, err)
	}
	for k := range opts {
		if !slices.Contains(spec.Outside, k) {
			if len(spec.Outside) == 0 {
				return nil, badinput.Errorf("--opt %s cannot go with --replay: the bundle's manifest is the run's config, and the %s system has no outside command or URL to give", k, cfg.System)
			}
			return nil, badinput.Errorf("--opt %s cannot go with --replay: only the %s system's outside options (%s) may be given", k, cfg.System, strings.Join(spec.Outside, ", "))
		}
	}
	out := membench.Options{}
	maps.Copy(out, cfg.Options)
	for _, k := range spec.Outside {
		v, ok := opts[k]
		if !ok {
			return nil, badinput.Errorf("--replay %s: the run used the %s system, which reaches outside membench through its %s option; a replay never runs or calls what a bundle names, so give your own with --opt %s=... (the bundle says %q: check it before you use it)", b.Path, cfg.System, k, k, llm.RedactText(cfg.Options[k]))
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Unpack writes the bundle's run into dir (a directory holding no
// run) for commands that read runs, with a config safe to reuse: no
// server or key variable from the bundle, prompts pointing at the copies
// written into dir/prompts.
func Unpack(b *bundle.Bundle, dir string) error {
	if runlog.IsRunDir(dir) {
		return badinput.Errorf("%s already holds a run; unpack the bundle into another directory", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	cfg, err := localPrompts(b, b.Manifest.Config.MapSpecs(llm.StripEndpoint), abs)
	if err != nil {
		return err
	}
	return b.Unpack(abs, cfg)
}

// localPrompts points every prompt file of the config (--answer-prompt,
// --judge-prompt, a judge's prompt=) at the bundle's copy of its text,
// written into runDir/prompts, so no path the bundle names is read. A
// prompt the bundle lacks, or whose hash it does not record, is refused.
func localPrompts(b *bundle.Bundle, cfg membench.Config, runDir string) (membench.Config, error) {
	hashes := bundle.PromptFiles(b.Manifest)
	dir := filepath.Join(runDir, "prompts")
	local := func(what, path string) (string, error) {
		sum, ok := hashes[path]
		if !ok {
			return "", badinput.Errorf("--replay %s: the run's %s names the file %s, but its manifest records no hash for it; the bundle cannot be replayed faithfully", b.Path, what, path)
		}
		text, ok := b.Prompts[sum]
		if !ok {
			return "", badinput.Errorf("--replay %s: the run read the prompt file %s (sha256 %.12s), but the bundle (format %d, membench %s) does not carry its text; ask for a bundle made by a newer membench", b.Path, path, sum, b.Format, b.Membench)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		p := filepath.Join(dir, sum+".txt")
		return p, runlog.WriteFileAtomic(p, text)
	}
	var err error
	if cfg.AnswerPrompt != "" {
		if cfg.AnswerPrompt, err = local("answer prompt", cfg.AnswerPrompt); err != nil {
			return cfg, err
		}
	}
	if _, builtin := judge.BuiltinPrompts[cfg.JudgePrompt]; cfg.JudgePrompt != "" && !builtin {
		if cfg.JudgePrompt, err = local("judge prompt", cfg.JudgePrompt); err != nil {
			return cfg, err
		}
	}
	judges := make([]string, len(cfg.Judges))
	for i, spec := range cfg.Judges {
		parts := strings.Split(spec, ",")
		for j, part := range parts {
			k, v, ok := strings.Cut(part, "=")
			if _, builtin := judge.BuiltinPrompts[strings.TrimSpace(v)]; !ok || strings.ToLower(strings.TrimSpace(k)) != "prompt" || builtin {
				continue
			}
			p, err := local("judge "+strconv.Quote(spec), strings.TrimSpace(v))
			if err != nil {
				return cfg, err
			}
			parts[j] = "prompt=" + p
		}
		judges[i] = strings.Join(parts, ",")
	}
	cfg.Judges = judges
	return cfg, nil
}

// alreadyReplayed is the summary of a finished replay of the same bundle
// already in the run's folder (replaying twice is a no-op); any other run
// there is refused.
func alreadyReplayed(b *bundle.Bundle, cfg membench.Config, log io.Writer) (*runlog.Summary, error) {
	dir := cfg.Dir()
	m, err := runlog.LoadManifest(dir)
	if err == nil && m.Replay != nil && m.Replay.Bundle == filepath.Base(b.Path) && m.RunID == b.Manifest.RunID {
		r, err := runlog.Load(dir)
		if err != nil {
			return nil, err
		}
		if r.Lines.Status(m).State == runlog.StateComplete {
			fmt.Fprintf(log, "replay: %s already holds a finished replay of %s; showing its summary\n", dir, filepath.Base(b.Path))
			return summary.FromLines(m, r.Lines), nil
		}
	}
	return nil, badinput.Errorf("--results %s: run %s is already there and is not a finished replay of this bundle; replay into another --results directory", cfg.ResultsDir, cfg.RunID)
}
