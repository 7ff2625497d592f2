package uselite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// ModelSHA256 hashes what Load hashes, without decoding the weights.
func TestModelSHA256MatchesLoad(t *testing.T) {
	m := loadModel(t)
	got, err := ModelSHA256(DefaultDir(os.Getenv("MEMBENCH_HOME")))
	if err != nil {
		t.Fatal(err)
	}
	if got != m.ModelSHA256() || len(got) != 64 {
		t.Fatalf("ModelSHA256 = %q, Load's = %q", got, m.ModelSHA256())
	}
	if _, err := ModelSHA256(t.TempDir()); err == nil {
		t.Fatal("no error for a directory without the model")
	}
}

// The stamp stands in for the hash while the files keep their sizes and
// times, and the hash is taken again (equal to ModelSHA256) when one
// changes. Any files will do: ModelSHA256 does not decode them.
func TestStampedModelSHA256(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("model.json", `{"weightsManifest": [{"paths": ["s1"]}, {"paths": ["s2", "s3"]}]}`)
	write("s1", "one")
	write("s2", "two")
	write("s3", "three")
	write("vocab.json", `[["a", 0]]`)
	want, err := ModelSHA256(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := StampedModelSHA256(dir)
	if err != nil || got != want {
		t.Fatalf("first: %q, %v; want %q", got, err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, stampFile)); err != nil {
		t.Fatalf("no stamp written: %v", err)
	}
	// Nothing touched: the stamp answers (a stamp with a wrong hash in it
	// shows that the files were not read again).
	raw, _ := os.ReadFile(filepath.Join(dir, stampFile))
	var fake stamp
	if err := json.Unmarshal(raw, &fake); err != nil {
		t.Fatal(err)
	}
	fake.SHA256 = strings.Repeat("ab", 32)
	b, _ := json.Marshal(fake)
	write(stampFile, string(b))
	if got, _ := StampedModelSHA256(dir); got != fake.SHA256 {
		t.Fatalf("stamp not used: %q", got)
	}
	// Content rewritten at the same size with the old modification time put
	// back (as unpacking an archive does): hashed again on Linux, where the
	// change time moved. The pause lets the coarse file clock tick.
	st, _ := os.Stat(filepath.Join(dir, "s2"))
	time.Sleep(50 * time.Millisecond)
	write("s2", "TWO")
	os.Chtimes(filepath.Join(dir, "s2"), st.ModTime(), st.ModTime())
	now, err := ModelSHA256(dir)
	if err != nil || now == want {
		t.Fatalf("the changed file did not change the hash (%v)", err)
	}
	if runtime.GOOS == "linux" {
		if got, _ := StampedModelSHA256(dir); got != now {
			t.Fatalf("same size and modification time, new content: %q, want %q", got, now)
		}
	}
	// A new modification time is hashed again everywhere.
	later := st.ModTime().Add(time.Second)
	os.Chtimes(filepath.Join(dir, "s2"), later, later)
	if got, _ := StampedModelSHA256(dir); got != now {
		t.Fatalf("after a change: %q, want %q", got, now)
	}
	// A shard gone is an error, stamp or not.
	os.Remove(filepath.Join(dir, "s3"))
	if _, err := StampedModelSHA256(dir); err == nil {
		t.Fatal("no error for a missing shard")
	}
}
