package embedder

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/membench/membench/embedder/uselite"
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
	// The hashed embedder answers to the name it reports, too.
	e2, info2, err := Select(HashedName, missing)
	if err != nil || e2.Name() != HashedName || info2.Name != HashedName || NewHashed(512).Name() != HashedName {
		t.Errorf("Select(%q): %v %+v %v", HashedName, e2, info2, err)
	}
	// Errors name neither flag nor variable (the caller knows which one
	// the value came from) and list the names that work.
	_, _, err = Select("bert", missing)
	if err == nil || strings.Contains(err.Error(), EnvEmbedder) || !strings.Contains(err.Error(), HashedName) || !strings.Contains(err.Error(), "use-lite") {
		t.Errorf("unknown embedder: err = %v, want the known names and no environment variable", err)
	}
	for _, m := range []string{"use-lite", "hashed"} {
		_, info, _ := Select(m, missing)
		if strings.Contains(info.Warning, EnvEmbedder) {
			t.Errorf("Select(%q) warning mentions %s: %q", m, EnvEmbedder, info.Warning)
		}
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{"hashed": HashedName, "tfidf-hash-512": HashedName, " use-lite ": "use-lite", "": "", "bert": "", "openai:x": ""} {
		got, ok := Canonical(in)
		if got != want || ok != (want != "") {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, ok, want)
		}
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
