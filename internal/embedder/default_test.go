package embedder

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/membench/membench/internal/embedder/uselite"
)

func TestSelectFallsBackWhenModelMissing(t *testing.T) {
	t.Setenv(EnvEmbedder, "use-lite") // ignored: the caller passes the mode
	e, info, err := Select("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !info.Fallback || info.Name != "tfidf-hash-512" || e.Name() != info.Name {
		t.Errorf("got %q %+v, want the hashed fallback", e.Name(), info)
	}
	for _, want := range []string{"fallback", "lexical", "bash scripts/setup-embeddings.sh"} {
		if !strings.Contains(info.Warning, want) {
			t.Errorf("warning %q does not mention %q", info.Warning, want)
		}
	}
	v, err := e.Embed(context.Background(), []string{"hello world"})
	if err != nil || len(v) != 1 || len(v[0]) != 512 {
		t.Errorf("fallback Embed: %d vectors, err %v", len(v), err)
	}
}

func TestSelectForced(t *testing.T) {
	missing := t.TempDir()
	if _, _, err := Select("use-lite", missing); err == nil || !strings.Contains(err.Error(), "setup-embeddings.sh") {
		t.Errorf("forced use-lite with no model: err = %v, want an error with the fix", err)
	}
	e, info, err := Select("hashed", missing)
	if err != nil || !info.Fallback || e.Name() != "tfidf-hash-512" || info.Warning == "" {
		t.Errorf("forced hashed: %v %+v %v", e, info, err)
	}
	if _, _, err := Select("bert", missing); err == nil || !strings.Contains(err.Error(), EnvEmbedder) {
		t.Errorf("unknown embedder: err = %v, want one naming %s", err, EnvEmbedder)
	}
}

func TestSelectUsesInstalledModel(t *testing.T) {
	dir := DefaultModelDir(os.Getenv("MEMBENCH_HOME")) // where CI installs it
	if !uselite.Installed(dir) {
		t.Skipf("USE-lite not installed in %s; run: bash scripts/setup-embeddings.sh", dir)
	}
	for _, mode := range []string{"", "use-lite"} {
		e, info, err := Select(mode, dir)
		if err != nil {
			t.Fatal(err)
		}
		if info.Fallback || info.Warning != "" || info.Name != "use-lite" || e.Name() != "use-lite" {
			t.Errorf("mode %q: got %q %+v, want use-lite without warning", mode, e.Name(), info)
		}
	}
}
