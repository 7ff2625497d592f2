package uselite

import (
	"os"
	"testing"
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
