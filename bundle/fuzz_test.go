package bundle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/llm"
)

// FuzzOpenBundle feeds arbitrary bytes to the bundle reader: it must
// refuse or open them without panicking, and whatever it opens holds only
// names a bundle defines, within the limits it was given.
func FuzzOpenBundle(f *testing.F) {
	if b, err := os.ReadFile("../testdata/bundles/sample-turns-rerank.tar.gz"); err == nil {
		f.Add(b)
	}
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	lim := Limits{Entry: 1 << 20, Total: 4 << 20, Ratio: 100}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "b.tar.gz")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := OpenLimited(path, lim)
		if err != nil {
			return
		}
		var total int64
		for name, d := range b.Files {
			if !isBundled(name) {
				t.Fatalf("opened an entry a bundle does not define: %q", name)
			}
			total += int64(len(d))
		}
		for sum, d := range b.Prompts {
			if llm.HashText(string(d)) != sum {
				t.Fatalf("prompt %s holds text of another hash", sum)
			}
			total += int64(len(d))
		}
		if total > lim.Total || float64(total) > lim.Ratio*float64(len(data)) {
			t.Fatalf("unpacked %d bytes from %d, over the limits", total, len(data))
		}
	})
}

func isBundled(name string) bool {
	for _, n := range bundledFiles {
		if n == name {
			return true
		}
	}
	return false
}
