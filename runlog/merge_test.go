package runlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Shards that are not the parts of one command are refused before
// anything is written.
func TestMergeRefusesMismatchedShards(t *testing.T) {
	shard := func(t *testing.T, i, n int, mod func(*Manifest)) string {
		d := t.TempDir()
		m := Manifest{RunID: filepath.Base(d), Config: Config{System: "turns-cosine", Dataset: "locomo", Shard: "x"},
			DatasetSHA256: "abc", Embedder: "hashed", Judges: []string{"f1"},
			Shard: &ShardInfo{Index: i, Count: n, SetQuestions: 4, SetSHA256: "set"}}
		if mod != nil {
			mod(&m)
		}
		if err := WriteJSON(filepath.Join(d, ManifestFile), m); err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		name string
		dirs func(t *testing.T) []string
		want string
	}{
		{"config", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, nil), shard(t, 1, 2, func(m *Manifest) { m.Config.K = 3 })}
		}, "different configuration"},
		{"same index", func(t *testing.T) []string { return []string{shard(t, 0, 2, nil), shard(t, 0, 2, nil)} }, "both shard 0/2"},
		{"dataset", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, nil), shard(t, 1, 2, func(m *Manifest) { m.DatasetSHA256 = "def" })}
		}, "different dataset file"},
		{"not a shard", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, func(m *Manifest) { m.Shard = nil })}
		}, "not a shard run"},
		{"unfinished", func(t *testing.T) []string {
			return []string{shard(t, 0, 2, func(m *Manifest) { m.Questions = 2 }), shard(t, 1, 2, func(m *Manifest) { m.Questions = 2 })}
		}, "answered 0 of its 2"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "merged")
		_, err := Merge(c.dirs(t), out)
		if !errors.Is(err, ErrMergeInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a bad-shards error mentioning %q", c.name, err, c.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: refused merge created %s", c.name, out)
		}
	}
}
