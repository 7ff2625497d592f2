package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/longmemeval"
)

// Every shape must load through its real loader with the promised counts,
// evidence pointing at real turns, and the same bytes for the same seed.
func TestSynthLoads(t *testing.T) {
	for _, shape := range Shapes {
		small := shape
		if small.Sessions > 40 {
			small.Sessions = 40 // the layout is what is tested, not the size
		}
		var a, b, c bytes.Buffer
		if err := Write(&a, small, 23, 7); err != nil {
			t.Fatal(err)
		}
		Write(&b, small, 23, 7)
		Write(&c, small, 23, 8)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: same seed, different bytes", shape.Name)
		}
		if bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Errorf("%s: different seeds, same bytes", shape.Name)
		}
		path := filepath.Join(t.TempDir(), shape.Name+".json")
		if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := datasets.Load(shape.Dataset, path, datasets.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", shape.Name, err)
		}
		qs := ds.Questions()
		if len(qs) != 23 {
			t.Fatalf("%s: %d questions, want 23", shape.Name, len(qs))
		}
		abst := 0
		for _, q := range qs {
			if q.AskedAt.IsZero() {
				t.Errorf("%s %s: no question date", shape.Name, q.ID)
			}
			if q.Abstains() {
				abst++
				continue
			}
			turns := map[string]*datasets.Turn{}
			for _, c := range ds.Conversations {
				if c.ID == q.ConversationID {
					for _, tu := range c.AllTurns() {
						turns[tu.ID] = tu
					}
					if shape.Dataset == "longmemeval" && (len(c.Sessions) != small.Sessions || len(c.Sessions[0].Turns) != small.Turns) {
						t.Errorf("%s: %d sessions of %d turns", shape.Name, len(c.Sessions), len(c.Sessions[0].Turns))
					}
				}
			}
			if len(q.Evidence) == 0 {
				t.Fatalf("%s %s: no evidence", shape.Name, q.ID)
			}
			last := q.Evidence[len(q.Evidence)-1]
			tu := turns[last]
			if tu == nil || !strings.Contains(tu.Text, q.Gold) || tu.Time.IsZero() {
				t.Errorf("%s %s: evidence %s does not hold the answer %q", shape.Name, q.ID, last, q.Gold)
			}
		}
		if abst == 0 || abst == len(qs) {
			t.Errorf("%s: %d abstentions of %d", shape.Name, abst, len(qs))
		}
	}
}

// Filters apply while the file streams, and a lazy load keeps no sessions
// but hydrates each conversation to exactly what an eager load holds.
func TestLongMemEvalStreamingFiltersAndLazy(t *testing.T) {
	shape, _ := Lookup("longmemeval-s")
	shape.Sessions = 6
	var buf bytes.Buffer
	if err := Write(&buf, shape, 12, 1); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(path, buf.Bytes(), 0o644)
	eager, err := longmemeval.Load(path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{eager.Conversations[7].ID, eager.Conversations[2].ID, eager.Conversations[9].ID}
	lazy, err := longmemeval.Load(path, datasets.LoadOptions{Conversations: ids, Limit: 2, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if lazy.SHA256 != eager.SHA256 {
		t.Error("an early stop must still hash the whole file")
	}
	if len(lazy.Conversations) != 2 || lazy.Conversations[0].ID != ids[1] || lazy.Conversations[1].ID != ids[0] {
		t.Fatalf("filtered to %d conversations, want %s then %s in file order", len(lazy.Conversations), ids[1], ids[0])
	}
	for _, c := range lazy.Conversations {
		if !c.Lazy() || c.Sessions != nil {
			t.Fatalf("%s: sessions resident after a lazy load", c.ID)
		}
		h, err := c.Hydrate()
		if err != nil {
			t.Fatal(err)
		}
		var want *datasets.Conversation
		for _, e := range eager.Conversations {
			if e.ID == c.ID {
				want = e
			}
		}
		if h.Questions[0] != c.Questions[0] || !reflect.DeepEqual(h.Sessions, want.Sessions) || !reflect.DeepEqual(h.Questions, want.Questions) {
			t.Errorf("%s: hydrated conversation differs from the eager load", c.ID)
		}
		if c.Sessions != nil {
			t.Errorf("%s: hydrating kept the sessions on the stub", c.ID)
		}
	}
	if _, err := longmemeval.Load(path, datasets.LoadOptions{Conversations: []string{"nope"}, Limit: 1}); err == nil || !strings.Contains(err.Error(), "no conversation nope") {
		t.Errorf("unknown id: %v", err)
	}
	// The file changing under a lazy run is caught, not silently read.
	os.WriteFile(path, bytes.Repeat([]byte(" "), buf.Len()), 0o644)
	if _, err := lazy.Conversations[0].Hydrate(); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("changed file: %v", err)
	}
}
