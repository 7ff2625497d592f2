package sample

import (
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
)

func TestSampleInvariants(t *testing.T) {
	ds, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "sample" || ds.Source != "embedded:sample" || len(ds.SHA256) != 64 || len(ds.Conversations) != 1 {
		t.Fatalf("header: %s %s %s, %d conversations", ds.Name, ds.Source, ds.SHA256, len(ds.Conversations))
	}
	c := ds.Conversations[0]
	if len(c.Speakers) != 2 || c.Speakers[0] == c.Speakers[1] {
		t.Errorf("speakers %v", c.Speakers)
	}
	if len(c.Sessions) < 3 {
		t.Errorf("%d sessions, want >= 3", len(c.Sessions))
	}
	days := map[string]bool{}
	for i, s := range c.Sessions {
		if s.Time.IsZero() {
			t.Errorf("session %s undated (%q)", s.ID, s.RawTime)
		}
		days[s.Time.Format("2006-01-02")] = true
		if i > 0 && !s.Time.After(c.Sessions[i-1].Time) {
			t.Errorf("session %s not after the previous one", s.ID)
		}
	}
	if len(days) != len(c.Sessions) {
		t.Errorf("sessions share days: %v", days)
	}
	turns := map[string]*datasets.Turn{}
	images := 0
	for _, tr := range c.AllTurns() {
		if turns[tr.ID] != nil {
			t.Errorf("duplicate turn id %s", tr.ID)
		}
		turns[tr.ID] = tr
		if tr.Speaker != c.Speakers[0] && tr.Speaker != c.Speakers[1] {
			t.Errorf("turn %s speaker %q is not a named speaker", tr.ID, tr.Speaker)
		}
		if strings.Contains(tr.Text, "[image: ") {
			images++
		}
	}
	if len(turns) < 40 || images < 1 {
		t.Errorf("%d turns, %d image turns; want >= 40 and >= 1", len(turns), images)
	}
	cats := map[int]int{}
	for _, q := range c.Questions {
		cats[q.Category]++
		if len(q.Evidence) == 0 {
			t.Errorf("%s has no evidence", q.ID)
		}
		for _, e := range q.Evidence {
			if turns[e] == nil {
				t.Errorf("%s cites missing turn %s", q.ID, e)
			}
		}
		if q.Abstention != (q.Category == locomo.CatAdversarial) {
			t.Errorf("%s abstention %v for category %d", q.ID, q.Abstention, q.Category)
		}
		if q.Abstention {
			if q.AdversarialAnswer == "" {
				t.Errorf("%s: adversarial item without adversarial_answer", q.ID)
			}
			continue
		}
		if q.Gold == "" {
			t.Errorf("%s has no gold", q.ID)
		}
		// Single-hop and temporal answers name words said in the evidence,
		// so an extractive answerer has something to find.
		if q.Category == locomo.CatSingleHop {
			var ev strings.Builder
			for _, e := range q.Evidence {
				ev.WriteString(turns[e].Text + " ")
			}
			if !strings.Contains(strings.ToLower(ev.String()), strings.ToLower(q.Gold)) {
				t.Errorf("%s gold %q not found in its evidence", q.ID, q.Gold)
			}
		}
	}
	if len(c.Questions) < 15 {
		t.Errorf("%d questions, want >= 15", len(c.Questions))
	}
	for cat := locomo.CatMultiHop; cat <= locomo.CatAdversarial; cat++ {
		if cats[cat] == 0 {
			t.Errorf("no question of category %d (%s)", cat, locomo.CategoryName(cat))
		}
	}
}

// Sample loads the embedded sample with default options.
func Sample() (*datasets.Dataset, error) { return Load(datasets.LoadOptions{}) }
