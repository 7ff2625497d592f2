package longmemeval_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/longmemeval"
	"github.com/membench/membench/datasets/synth"
)

// A lazily loaded item knows its size in the file (the harness sizes its
// memory plan by it); a resident one reports 0.
func TestLongMemEvalLazyBytesAreTheItemsBytes(t *testing.T) {
	shape, _ := synth.Lookup("longmemeval-s")
	var buf bytes.Buffer
	if err := synth.Write(&buf, shape, 3, 7); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &items); err != nil {
		t.Fatal(err)
	}
	lazy, err := longmemeval.Load(path, datasets.LoadOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	resident, err := longmemeval.Load(path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lazy.Conversations) != len(items) {
		t.Fatalf("%d conversations, %d items", len(lazy.Conversations), len(items))
	}
	for i, c := range lazy.Conversations {
		if c.LazyBytes() != int64(len(items[i])) {
			t.Errorf("item %d: LazyBytes %d, the item is %d bytes", i, c.LazyBytes(), len(items[i]))
		}
		if r := resident.Conversations[i].LazyBytes(); r != 0 {
			t.Errorf("resident item %d: LazyBytes %d, want 0", i, r)
		}
	}
}
