package uselite

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Name is the embedder's name in manifests and caches.
const Name = "use-lite"

// Files that make an installed model directory.
var modelFiles = []string{"model.json", "vocab.json"}

// Embedder is the USE-lite sentence encoder. It is safe for concurrent use.
type Embedder struct {
	tok *Tokenizer
	net *network
	// sha is the sha256 of the model files (model.json, shards, vocab).
	sha string
	// MaxBatchTokens bounds the rows of one forward pass. 512 keeps a
	// pass's intermediates (512 x 1536 floats at most) in cache, which is
	// faster than larger products once the kernel is fast; smaller batches
	// also spread better over the cores.
	MaxBatchTokens int
}

// Installed reports whether dir looks like an installed model.
func Installed(dir string) bool { return missingFile(dir) == "" }

// missingFile is the first of modelFiles dir lacks; "" when it has them all.
func missingFile(dir string) string {
	for _, f := range modelFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return f
		}
	}
	return ""
}

// Load reads the model from dir (the npm package's dist/ directory).
func Load(dir string) (*Embedder, error) { return load(dir, defaultKernel) }

// load reads the model with its dense layers on kern (nil: gonum).
func load(dir string, kern *kernel) (*Embedder, error) {
	if f := missingFile(dir); f != "" {
		return nil, fmt.Errorf("USE-lite model not installed in %s (%s missing); run: bash scripts/setup-embeddings.sh", dir, f)
	}
	g, err := loadGraph(dir)
	if err != nil {
		return nil, err
	}
	net, err := loadNetwork(g, kern)
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() > net.vocab {
		return nil, fmt.Errorf("%s: vocab.json has %d pieces but the embedding table only %d rows", dir, tok.VocabSize(), net.vocab)
	}
	vocab, err := os.ReadFile(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, err
	}
	g.sha.Write(vocab)
	return &Embedder{tok: tok, net: net, sha: hex.EncodeToString(g.sha.Sum(nil)), MaxBatchTokens: 512}, nil
}

// ModelSHA256 is the sha256 of the installed model's files (model.json,
// its weight shards and vocab.json), for run manifests: two runs that say
// use-lite used the same weights only if their hashes agree.
func (e *Embedder) ModelSHA256() string { return e.sha }

// Name implements llm.Embedder.
func (e *Embedder) Name() string { return Name }

// Dim is the output width (512).
func (e *Embedder) Dim() int { return e.net.dOut }

// MaxTokens is the number of leading tokens the model reads (128).
func (e *Embedder) MaxTokens() int { return e.net.maxLen }

// Tokenize returns the reference tokenizer's ids for text (unclipped).
func (e *Embedder) Tokenize(text string) []int { return e.tok.Encode(text) }

// Embed implements llm.Embedder: unit vectors, one per text, in order.
// Texts are tokenized in parallel, then run in batches of about
// MaxBatchTokens tokens; the batches are split over the CPUs.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ids := make([][]int, len(texts))
	tokenize := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := e.tok.Encode(texts[i])
			if len(x) > e.net.maxLen {
				x = x[:e.net.maxLen]
			}
			ids[i] = x
		}
	}
	// Tokenizing is a small part of the work, but serial it would leave a
	// core idle for that long in every call.
	if n := runtime.GOMAXPROCS(0); n > 1 && len(texts) >= 64 {
		var tw sync.WaitGroup
		per := (len(texts) + n - 1) / n
		for lo := 0; lo < len(texts); lo += per {
			tw.Go(func() { tokenize(lo, min(lo+per, len(texts))) })
		}
		tw.Wait()
	} else {
		tokenize(0, len(texts))
	}
	limit := max(e.MaxBatchTokens, e.net.maxLen)
	type job struct{ lo, hi int }
	var jobs []job
	for lo := 0; lo < len(ids); {
		hi, tok := lo, 0
		for hi < len(ids) && (hi == lo || tok+len(ids[hi]) <= limit) {
			tok += len(ids[hi])
			hi++
		}
		jobs = append(jobs, job{lo, hi})
		lo = hi
	}
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	ch := make(chan job)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range ch {
				copy(out[j.lo:j.hi], e.net.forward(ids[j.lo:j.hi]))
			}
		})
	}
	var err error
	for _, j := range jobs {
		if err = ctx.Err(); err != nil {
			break
		}
		ch <- j
	}
	close(ch)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DefaultDir is where scripts/setup-embeddings.sh installs the model:
// HOME/models/use-lite for membench's home directory (MEMBENCH_HOME, passed
// in by the command line), home defaulting to ~/.cache/membench.
func DefaultDir(home string) string {
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".cache", "membench")
		} else {
			home = filepath.Join(os.TempDir(), "membench")
		}
	}
	return filepath.Join(home, "models", "use-lite")
}
