package embedder

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/membench/membench/embedder/uselite"
	"github.com/membench/membench/llm"
)

// EnvEmbedder is the environment variable that chooses the embedder when
// --embedder is not given (the same names as --embedder). Only the command
// line reads it; it passes the value to Select.
const EnvEmbedder = "MEMBENCH_EMBEDDER"

// InstallHint is the command that installs the real model.
const InstallHint = "bash scripts/setup-embeddings.sh"

// Local embedder names as configs record them: the names the embedders
// report, so a config, a manifest and a report all say the same thing.
const (
	UseLite    = uselite.Name
	HashedName = "tfidf-hash-512"
)

// Info says which embedder Default chose and why.
type Info struct {
	Name     string `json:"name"`
	Fallback bool   `json:"fallback"`          // true when the lexical hashed embedder is in use
	Warning  string `json:"warning,omitempty"` // for logs and reports; empty when use-lite is in use
	// ModelSHA256 hashes the model files of embedders that load weights
	// (USE-lite); "" for those defined by their code alone (hashed).
	ModelSHA256 string `json:"model_sha256,omitempty"`
}

// DefaultModelDir is where scripts/setup-embeddings.sh installs USE-lite
// under membench's home directory ("" = ~/.cache/membench).
func DefaultModelDir(home string) string { return uselite.DefaultDir(home) }

// Canonical is the name a config records for a local embedder choice:
// "use-lite", or "tfidf-hash-512" for the hashed embedder (also called
// "hashed"). ok is false for "" (choose automatically) and for names that
// are no local embedder.
func Canonical(mode string) (name string, ok bool) {
	switch strings.TrimSpace(mode) {
	case UseLite:
		return UseLite, true
	case "hashed", HashedName:
		return HashedName, true
	}
	return "", false
}

// hashedNote is every report's note on a run that used the hashed embedder.
var hashedNote = fmt.Sprintf("the lexical fallback embedder (hashed TF-IDF, %s) is in use; it only matches shared words, so retrieval scores are not comparable with a real sentence encoder (install USE-lite with: %s)", HashedName, InstallHint)

// Select returns the embedder mode asks for, with the USE-lite model read
// from dir. mode "" picks USE-lite or, when the model is missing or fails
// to load, the hashed TF-IDF fallback with a warning saying so; "hashed"
// (or "tfidf-hash-512") is the fallback; "use-lite" makes a missing model
// an error. Errors do not say where mode came from: the caller, which
// knows (--embedder or MEMBENCH_EMBEDDER), prefixes that.
func Select(mode, dir string) (llm.Embedder, Info, error) {
	hashed := func(why string) (llm.Embedder, Info, error) {
		h := NewHashed(512)
		return h, Info{Name: h.Name(), Fallback: true, Warning: why}, nil
	}
	mode = strings.TrimSpace(mode)
	asked := mode != "" // a named embedder: no quiet fallback
	switch name, _ := Canonical(mode); {
	case name == HashedName:
		return hashed(hashedNote)
	case asked && name != UseLite:
		return nil, Info{}, fmt.Errorf("%q is not an embedder; use use-lite, %s (also called hashed) or openai:MODEL, or leave it out to use use-lite when installed, else %s", mode, HashedName, HashedName)
	}
	e, err := lazyUseLite(dir)
	switch {
	case err != nil && asked:
		return nil, Info{}, fmt.Errorf("use-lite cannot be used: %w (install it with: %s, or choose %s)", err, InstallHint, HashedName)
	case err != nil:
		hint := " Install the real model with: " + InstallHint
		if strings.Contains(err.Error(), InstallHint) {
			hint = "" // the loader's error already says how
		}
		return hashed(fmt.Sprintf("WARNING: the USE-lite sentence encoder is not available (%v); using the lexical fallback embedder (hashed TF-IDF, %s), which only matches shared words.%s", err, HashedName, hint))
	}
	return e, Info{Name: e.Name(), ModelSHA256: e.ModelSHA256()}, nil
}

// A deferred is USE-lite with its weights decoded on the first Embed: a
// rerun whose texts are all in the embedding cache never needs them, and
// decoding them would be most of such a rerun's CPU. Selecting it checks
// that the files are there and takes their hash (the manifest records it;
// see uselite.StampedModelSHA256), so a missing model is still found
// before a run starts; weights that do not decode fail the first Embed,
// naming the directory.
type deferred struct {
	dir  string
	sha  string
	once sync.Once
	e    *uselite.Embedder
	err  error
}

var (
	deferredMu sync.Mutex
	deferreds  = map[string]*deferred{}
)

// lazyUseLite is the directory's deferred USE-lite: one per directory, so
// the weights are decoded at most once per process, and the loaded model
// (immutable, safe for concurrent use) serves every caller.
func lazyUseLite(dir string) (*deferred, error) {
	deferredMu.Lock()
	defer deferredMu.Unlock()
	if d := deferreds[dir]; d != nil {
		return d, nil
	}
	if !uselite.Installed(dir) {
		// Load's own message: which file is missing and how to install.
		_, err := uselite.Load(dir)
		return nil, err
	}
	sha, err := uselite.StampedModelSHA256(dir)
	if err != nil {
		return nil, err
	}
	d := &deferred{dir: dir, sha: sha}
	deferreds[dir] = d
	return d, nil
}

func (d *deferred) Name() string { return UseLite }

// ModelSHA256 is the model files' hash, as uselite.Embedder reports it.
func (d *deferred) ModelSHA256() string { return d.sha }

func (d *deferred) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	d.once.Do(func() {
		d.e, d.err = uselite.Load(d.dir)
		if d.err == nil && d.e.ModelSHA256() != d.sha {
			d.err = fmt.Errorf("the model files in %s changed during the run (sha256 %.12s, now %.12s)", d.dir, d.sha, d.e.ModelSHA256())
		}
		if d.err != nil {
			d.err = fmt.Errorf("use-lite: %w (re-install it with: %s)", d.err, InstallHint)
		}
	})
	if d.err != nil {
		return nil, d.err
	}
	return d.e.Embed(ctx, texts)
}
