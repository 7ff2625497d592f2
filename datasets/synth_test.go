package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every shape must load through its real loader with the promised counts,
// evidence pointing at real turns, and the same bytes for the same seed.
func TestSynthLoads(t *testing.T) {
	for _, shape := range SynthShapes {
		small := shape
		if small.Sessions > 40 {
			small.Sessions = 40 // the layout is what is tested, not the size
		}
		var a, b, c bytes.Buffer
		if err := Synth(&a, small, 23, 7); err != nil {
			t.Fatal(err)
		}
		Synth(&b, small, 23, 7)
		Synth(&c, small, 23, 8)
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
		ds, err := Load(shape.Dataset, path, LoadOptions{})
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
			turns := map[string]*Turn{}
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
