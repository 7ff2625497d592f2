package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/runlog"
)

// ReplayOptions are the settings a replay may choose; everything that
// changes the outputs comes from the bundle's manifest.
type ReplayOptions struct {
	Data        string // the dataset file here, when not where the author had it; checked by sha256
	ResultsDir  string
	CacheDir    string
	Concurrency int
	Quiet       bool
	Host        runlog.Host
	// Fallback sends calls the bundle lacks to the configured backend
	// (needs its key); without it such a call is an error.
	Fallback bool
}

// Replay reruns a bundled run with every paid reply served from the
// bundle: no network and no key. Offline roles and local embedders are
// recomputed (they are deterministic); the dataset and the embedder must
// be the ones the run used.
func Replay(ctx context.Context, b *runlog.Bundle, o ReplayOptions, log io.Writer) (*runlog.Summary, error) {
	cfg := b.Manifest.Config
	cfg.RunID = b.Manifest.RunID
	if o.Data != "" {
		cfg.Data = o.Data
	}
	cfg.ResultsDir, cfg.CacheDir, cfg.Concurrency, cfg.Quiet, cfg.Host = o.ResultsDir, o.CacheDir, o.Concurrency, o.Quiet, o.Host
	cfg.Replay, cfg.ReplayFallback = llm.NewPlayer(b.Replies), o.Fallback
	cfg = cfg.WithDefaults()
	if runlog.IsRunDir(cfg.Dir()) {
		return nil, badinput.Errorf("--results %s: run %s is already there; replay into another --results directory", cfg.ResultsDir, cfg.RunID)
	}
	p, err := Prepare(cfg, log)
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
	p.manifest.Replay = &runlog.ReplayInfo{Bundle: filepath.Base(b.Path), Membench: b.Membench, Replies: len(b.Replies)}
	// Written now, so the summary Execute computes says it was replayed.
	if err := runlog.WriteJSON(filepath.Join(p.Dir, runlog.ManifestFile), p.manifest); err != nil {
		return nil, err
	}
	sum, err := p.Execute(ctx)
	if cfg.ReplayFallback && sum != nil {
		fresh := p.Res.Fresh()
		p.manifest.Replay.Fresh = fresh
		if werr := runlog.WriteJSON(filepath.Join(p.Dir, runlog.ManifestFile), p.manifest); werr != nil && err == nil {
			err = werr
		}
		if s2, serr := runlog.Summarize(p.Dir); serr == nil {
			sum = s2
			if werr := s2.Write(p.Dir); werr != nil && err == nil {
				err = werr
			}
		}
		fmt.Fprintf(log, "replay: %d calls were not in the bundle and went to the backend\n", fresh)
	}
	return sum, err
}
