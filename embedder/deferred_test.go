package embedder

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/membench/membench/embedder/uselite"
)

// Selected USE-lite decodes its weights on the first Embed only, and then
// embeds exactly as the loaded model does, under the same model hash.
func TestSelectDefersUseLite(t *testing.T) {
	dir := uselite.DefaultDir(os.Getenv("MEMBENCH_HOME"))
	if !uselite.Installed(dir) {
		t.Skipf("USE-lite model not installed in %s; run: bash scripts/setup-embeddings.sh", dir)
	}
	e, info, err := Select("use-lite", dir)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := e.(*deferred)
	if !ok || d.e != nil {
		t.Fatalf("Select gave %T, loaded %v; want the weights not yet decoded", e, ok && d.e != nil)
	}
	m, err := uselite.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.ModelSHA256 != m.ModelSHA256() || info.Name != UseLite || e.Name() != UseLite {
		t.Fatalf("info %+v; the loaded model's hash is %s", info, m.ModelSHA256())
	}
	texts := []string{"I went hiking with my dog last weekend.", "What did Caroline paint?"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Embed(context.Background(), texts)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("deferred vectors differ from the loaded model's (err %v)", err)
	}
}

// A model whose files are all there but whose weights do not decode is
// selected (its files hash), and its first Embed fails naming the fix.
func TestDeferredUseLiteBadWeights(t *testing.T) {
	src := uselite.DefaultDir(os.Getenv("MEMBENCH_HOME"))
	if !uselite.Installed(src) {
		t.Skipf("USE-lite model not installed in %s", src)
	}
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ents {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(f.Name(), "group1-shard7") {
			b = b[:len(b)/2] // a download cut short
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, _, err := Select("use-lite", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "setup-embeddings.sh") {
		t.Fatalf("Embed on cut weights: err = %v, want an error with the fix", err)
	}
}
