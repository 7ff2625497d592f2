package imagemarks

import (
	"os"
	"strings"
	"testing"

	"github.com/membench/membench/internal/badinput"
)

const shippedLoCoMo = "../../../shared/datasets/locomo10.json"

// On locomo10.json: 701 of the 1,540 scored questions cite an image turn
// (evidence strings split), and the dependence rule finds a few dozen.
func TestShippedMarks(t *testing.T) {
	if _, err := os.Stat(shippedLoCoMo); err != nil {
		t.Skipf("shipped LoCoMo absent (%v)", err)
	}
	m, err := Read(shippedLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	wi, dep := m.Counts()
	if wi != 701 {
		t.Errorf("%d questions with an image, want 701", wi)
	}
	if dep < 20 || dep > 60 {
		t.Errorf("%d image-dependent questions; the rule should find a few dozen", dep)
	}
}

const tiny = `[{"sample_id":"c1","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[
 {"speaker":"A","dia_id":"D1:1","text":"Look at this!","img_url":["http://x/y.jpg"],"blip_caption":"a photo of a red bicycle","query":"red bike"},
 {"speaker":"B","dia_id":"D1:2","text":"I love my red bicycle","img_url":["http://x/z.jpg"],"blip_caption":"a red bicycle"},
 {"speaker":"A","dia_id":"D1:3","text":"Nice."}]},
 "qa":[{"question":"What did A show?","answer":"a bicycle","evidence":["D1:1"],"category":4},
       {"question":"What does B love?","answer":"red bicycle","evidence":["D1:2"],"category":4},
       {"question":"What did A say?","answer":"nice","evidence":["D1:3"],"category":4},
       {"question":"Both?","answer":"bicycle","evidence":["D1:3; D1:1"],"category":1},
       {"question":"Adv?","answer":"bicycle","evidence":["D1:1"],"category":5}]}]`

func TestRule(t *testing.T) {
	m, err := Parse([]byte(tiny), "tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	want := Marks{
		"c1:0": {WithImage: true, Dependent: true},  // only the caption says bicycle
		"c1:1": {WithImage: true, Dependent: false}, // the text says it too
		"c1:3": {WithImage: true, Dependent: true},  // "D1:3; D1:1" is split
	}
	if len(m) != len(want) {
		t.Fatalf("marks %v, want %v", m, want)
	}
	for id, mk := range want {
		if m[id] != mk {
			t.Errorf("%s: %+v, want %+v", id, m[id], mk)
		}
	}
	_, err = Parse([]byte(`{"x":1}`), "bad.json")
	if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad file: %v", err)
	}
}

func FuzzMarks(f *testing.F) {
	f.Add([]byte(tiny))
	f.Add([]byte(`[{"sample_id":"c","conversation":{"session_1":[{"dia_id":"D:1:2","text":"t"}]},"qa":[{"answer":3,"evidence":["D1:2"],"category":2}]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b, "fuzz.json")
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("not bad input: %v", err)
			}
			return
		}
		for id, mk := range m {
			if !mk.WithImage || !strings.Contains(id, ":") {
				t.Fatalf("%s: %+v", id, mk)
			}
		}
	})
}

// Counts are how many questions carry each mark.
func (m Marks) Counts() (withImage, dependent int) {
	for _, mk := range m {
		if mk.WithImage {
			withImage++
		}
		if mk.Dependent {
			dependent++
		}
	}
	return
}
