package embedder

import (
	"fmt"
	"strings"
	"sync"

	"github.com/membench/membench/internal/embedder/uselite"
	"github.com/membench/membench/llm"
)

// EnvEmbedder is the environment variable that forces the embedder choice
// ("hashed" or "use-lite"). Only the command line reads it; it passes the
// value to Select.
const EnvEmbedder = "MEMBENCH_EMBEDDER"

// InstallHint is the command that installs the real model.
const InstallHint = "bash scripts/setup-embeddings.sh"

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

// Select returns the embedder mode asks for, with the USE-lite model read
// from dir. mode "" picks USE-lite or, when the model is missing or fails
// to load, the hashed TF-IDF fallback with a warning saying so; "hashed"
// forces the fallback; "use-lite" makes a missing model an error. mode is
// the --embedder flag or MEMBENCH_EMBEDDER, whichever the caller resolved.
func Select(mode, dir string) (llm.Embedder, Info, error) {
	hashed := func(why string) (llm.Embedder, Info, error) {
		h := NewHashed(512)
		return h, Info{Name: h.Name(), Fallback: true, Warning: why}, nil
	}
	switch mode = strings.TrimSpace(mode); mode {
	case "hashed":
		return hashed(fmt.Sprintf("%s=hashed: using the lexical fallback embedder (hashed TF-IDF, %s); it only matches shared words, so retrieval scores are not comparable with a real sentence encoder", EnvEmbedder, NewHashed(512).Name()))
	case "use-lite":
		e, err := loadUseLite(dir)
		if err != nil {
			return nil, Info{}, fmt.Errorf("%s=use-lite but the model cannot be used: %w (install it with: %s, or unset %s to fall back to the lexical embedder)", EnvEmbedder, err, InstallHint, EnvEmbedder)
		}
		return e, Info{Name: e.Name(), ModelSHA256: e.ModelSHA256()}, nil
	case "":
		e, err := loadUseLite(dir)
		if err != nil {
			hint := " Install the real model with: " + InstallHint
			if strings.Contains(err.Error(), InstallHint) {
				hint = "" // the loader's error already says how
			}
			return hashed(fmt.Sprintf("WARNING: the USE-lite sentence encoder is not available (%v); using the lexical fallback embedder (hashed TF-IDF, %s), which only matches shared words.%s", err, NewHashed(512).Name(), hint))
		}
		return e, Info{Name: e.Name(), ModelSHA256: e.ModelSHA256()}, nil
	default:
		return nil, Info{}, fmt.Errorf("%s=%q is not an embedder; use %s=hashed or %s=use-lite (or unset it to pick automatically)", EnvEmbedder, mode, EnvEmbedder, EnvEmbedder)
	}
}

// Loaded models are immutable and safe for concurrent use, so one load per
// directory serves every caller.
var (
	loadedMu sync.Mutex
	loaded   = map[string]*uselite.Embedder{}
)

func loadUseLite(dir string) (*uselite.Embedder, error) {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if e := loaded[dir]; e != nil {
		return e, nil
	}
	e, err := uselite.Load(dir)
	if err != nil {
		return nil, err
	}
	loaded[dir] = e
	return e, nil
}
