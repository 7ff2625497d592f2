package judge

import (
	"math"
	"testing"

	"github.com/membench/membench/datasets"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		// commas go, lower-case, '!' stripped, "The", "and", "a" dropped
		{"The cat, and a Dog!", "cat dog"},
		// articles only as whole words; the apostrophe and hyphen are stripped
		// first, so "A-list" becomes "alist" (not an article)
		{"Theme park's A-list", "theme parks alist"},
		// non-ASCII punctuation is kept, yet it bounds words for the article rule
		{"the—end", "—end"},
		{"  An   apple\tand\npear ", "apple pear"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func q(cat int, gold string) *datasets.Question {
	return &datasets.Question{ID: "c:1", Text: "What?", Gold: gold, Category: cat, Abstention: cat == 5}
}

func TestLoCoMoF1ByCategory(t *testing.T) {
	cases := []struct {
		name string
		q    *datasets.Question
		pred string
		want float64
	}{
		// cat 4: pred tokens she,went,to,beach,in,hawaii (6); gold beach,hawaii;
		// overlap 2: P=2/6, R=1, F1=2·(1/3)·1/(4/3)=0.5
		{"single-hop", q(4, "Hawaii beach"), "She went to the beach in Hawaii", 0.5},
		// stemming: run,marathon vs ran,marathon: overlap 1, P=R=1/2, F1=1/2
		{"stemmed", q(4, "ran a marathon"), "running marathons", 0.5},
		// cat 1 comma split: gold parts "hiking"→hike and "painting"→paint; the
		// prediction's one part matches paint only: mean(0, 1) = 0.5
		// (without the split, F1 would be 2/3)
		{"multi-hop split", q(1, "hiking, painting"), "painting", 0.5},
		// cat 1, two prediction parts: gold "Rome" best vs "Rome" =1, gold
		// "Paris" best vs "in Paris" (pari of in,pari: P=1/2,R=1 → 2/3):
		// mean(1, 2/3) = 5/6
		{"multi-hop best part", q(1, "Rome, Paris"), "Rome, in Paris", 5.0 / 6},
		// cat 3: only "Likely yes" counts → like,ye vs like,ye = 1
		{"open-domain ; cut", q(3, "Likely yes; she said she wants to travel"), "likely yes", 1},
		// cat 2 with an integer gold (loaded as "2022"): in,2022 vs 2022:
		// P=1/2, R=1, F1=2/3
		{"integer gold", q(2, "2022"), "In 2022.", 2.0 / 3},
		// no overlap is 0, and so are two empty strings (as in LoCoMo)
		{"no overlap", q(4, "Paris"), "London", 0},
		{"both empty", q(4, ""), "", 0},
		// cat 5: 1 iff the prediction contains a LoCoMo decline phrase
		{"adversarial declines", q(5, ""), "That is Not Mentioned in the conversation.", 1},
		{"adversarial answers", q(5, ""), "He went to Paris", 0},
		{"adversarial other wording", q(5, ""), "Unknown.", 0},
	}
	for _, c := range cases {
		if got := LoCoMoF1(c.q, c.pred, nil); !near(got, c.want) {
			t.Errorf("%s: LoCoMoF1(%q, gold %q) = %v, want %v", c.name, c.pred, c.q.Gold, got, c.want)
		}
	}
	// the phrase list is configurable
	if got := LoCoMoF1(q(5, ""), "Unknown.", []string{"unknown"}); got != 1 {
		t.Errorf("custom decline phrase: got %v, want 1", got)
	}
	// without the cat-3 cut the same prediction scores below 1
	if got := TokenF1("likely yes", "Likely yes; she said she wants to travel"); got >= 1 {
		t.Errorf("uncut cat-3 gold scored %v", got)
	}
	// the plain F1 of the multi-hop case is 2/3, so the split mattered
	if got := TokenF1("painting", "hiking, painting"); !near(got, 2.0/3) {
		t.Errorf("TokenF1 unsplit = %v, want 2/3", got)
	}
}

func TestBLEU1(t *testing.T) {
	cases := []struct {
		pred, gold string
		want       float64
	}{
		// normalised: cat,sat,on,mat vs cat,is,on,mat: 3 of 4 match, equal lengths
		{"the cat sat on the mat", "the cat is on the mat", 0.75},
		// c=1 < r=3: P=1, BP=exp(1-3/1)=exp(-2)
		{"cat", "black cat sat", math.Exp(-2)},
		// clipping: "cat" counts once: P=1/3, c=3 > r=2 so BP=1
		{"cat cat cat", "cat mat", 1.0 / 3},
		{"dog", "cat", 0},
		{"", "cat", 0},
		// BLEU is not stemmed: running ≠ run
		{"running", "run", 0},
	}
	for _, c := range cases {
		if got := BLEU1(c.pred, c.gold); !near(got, c.want) {
			t.Errorf("BLEU1(%q, %q) = %v, want %v", c.pred, c.gold, got, c.want)
		}
	}
}

func TestExactMatch(t *testing.T) {
	cases := []struct {
		pred, gold string
		want       bool
	}{
		{"Paris, France", "france paris", true}, // token sets, order-free
		{"The Beatles", "beatles", true},
		{"Paris", "Paris France", false},
		{"ran", "run", false}, // not stemmed
	}
	for _, c := range cases {
		if got := ExactMatch(c.pred, c.gold); got != c.want {
			t.Errorf("ExactMatch(%q, %q) = %v, want %v", c.pred, c.gold, got, c.want)
		}
	}
}
