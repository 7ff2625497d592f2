package vindex

import (
	"fmt"
	"math"
	"sync"
	"testing"
)

func ids(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func eq(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestSearchExactCosineOrder(t *testing.T) {
	x := New()
	x.Add("east", []float32{1, 0})
	x.Add("north", []float32{0, 5}) // length must not matter
	x.Add("ne", []float32{3, 3})
	x.Add("west", []float32{-2, 0})

	hs := x.Search([]float32{10, 1}, 0, nil)
	if got := ids(hs); !eq(got, []string{"east", "ne", "north", "west"}) {
		t.Fatalf("order = %v", got)
	}
	// Expected cosines computed independently here.
	qn := math.Hypot(10, 1)
	want := map[string]float64{
		"east":  10 / qn,
		"north": 1 / qn,
		"ne":    (10 + 1) / (qn * math.Sqrt2),
		"west":  -10 / qn,
	}
	for _, h := range hs {
		if math.Abs(h.Score-want[h.ID]) > 1e-6 {
			t.Errorf("%s score = %v, want %v", h.ID, h.Score, want[h.ID])
		}
	}
	if got := ids(x.Search([]float32{10, 1}, 2, nil)); !eq(got, []string{"east", "ne"}) {
		t.Errorf("top-2 = %v", got)
	}
	if got := x.Search([]float32{1, 0}, 99, nil); len(got) != 4 {
		t.Errorf("k beyond size gave %d hits", len(got))
	}
}

func TestTiesGoToEarlierInsertion(t *testing.T) {
	x := New()
	for _, id := range []string{"c", "a", "d", "b"} {
		x.Add(id, []float32{1, 1})
	}
	x.Add("far", []float32{-1, 0})
	hs := x.Search([]float32{2, 2}, 3, nil)
	if got := ids(hs); !eq(got, []string{"c", "a", "d"}) {
		t.Fatalf("ties not in insertion order: %v", got)
	}
	for i, h := range hs {
		if h.Index != i {
			t.Errorf("hit %s Index = %d, want %d", h.ID, h.Index, i)
		}
	}
}

func TestFilter(t *testing.T) {
	x := New()
	x.Add("s1:a", []float32{1, 0})
	x.Add("s2:b", []float32{1, 0.1})
	x.Add("s1:c", []float32{0, 1})
	only1 := func(id string) bool { return id[:2] == "s1" }
	if got := ids(x.Search([]float32{1, 0}, 0, only1)); !eq(got, []string{"s1:a", "s1:c"}) {
		t.Fatalf("filtered = %v", got)
	}
	// k counts filtered hits, not all entries.
	if got := ids(x.Search([]float32{0, 1}, 1, only1)); !eq(got, []string{"s1:c"}) {
		t.Fatalf("filtered top-1 = %v", got)
	}
	none := func(string) bool { return false }
	if got := x.Search([]float32{1, 0}, 5, none); len(got) != 0 {
		t.Fatalf("reject-all filter gave %v", got)
	}
}

func TestReplaceOnSameID(t *testing.T) {
	x := New()
	x.Add("a", []float32{1, 0})
	x.Add("b", []float32{0, 1})
	x.Add("a", []float32{0, 2}) // replaces, keeps a's slot
	if x.Len() != 2 {
		t.Fatalf("Len = %d after replace, want 2", x.Len())
	}
	hs := x.Search([]float32{0, 1}, 0, nil)
	if got := ids(hs); !eq(got, []string{"a", "b"}) {
		t.Fatalf("after replace order = %v (a keeps the earlier slot)", got)
	}
	if math.Abs(hs[0].Score-1) > 1e-6 || hs[0].Index != 0 {
		t.Fatalf("replaced vector not used: %+v", hs[0])
	}
}

func TestNormalize(t *testing.T) {
	v := []float32{3, 4}
	u := Normalize(v)
	if math.Abs(float64(u[0])-0.6) > 1e-6 || math.Abs(float64(u[1])-0.8) > 1e-6 {
		t.Fatalf("Normalize(3,4) = %v", u)
	}
	if v[0] != 3 || v[1] != 4 {
		t.Fatalf("Normalize modified its input: %v", v)
	}
	z := Normalize([]float32{0, 0, 0})
	if len(z) != 3 || z[0] != 0 || z[1] != 0 || z[2] != 0 {
		t.Fatalf("zero vector -> %v", z)
	}
	// Stored vectors must not alias the caller's slice.
	x := New()
	in := []float32{1, 0}
	x.Add("a", in)
	in[0], in[1] = 0, 1
	if s := x.Search([]float32{1, 0}, 1, nil)[0].Score; math.Abs(s-1) > 1e-6 {
		t.Fatalf("index aliased caller slice: score %v", s)
	}
}

func TestZeroVectors(t *testing.T) {
	x := New()
	x.Add("a", []float32{1, 0})
	x.Add("zero", []float32{0, 0})
	x.Add("b", []float32{0, 1})
	for _, h := range x.Search([]float32{1, 0}, 0, nil) {
		if math.IsNaN(h.Score) {
			t.Fatalf("NaN score for %s", h.ID)
		}
		if h.ID == "zero" && h.Score != 0 {
			t.Fatalf("zero vector scored %v", h.Score)
		}
	}
	// A zero query scores everything 0, so insertion order decides.
	hs := x.Search([]float32{0, 0}, 0, nil)
	if got := ids(hs); !eq(got, []string{"a", "zero", "b"}) {
		t.Fatalf("zero query order = %v", got)
	}
	for _, h := range hs {
		if h.Score != 0 {
			t.Fatalf("zero query scored %s %v", h.ID, h.Score)
		}
	}
	if got := New().Search([]float32{1}, 3, nil); len(got) != 0 {
		t.Fatalf("empty index gave %v", got)
	}
}

func TestDot(t *testing.T) {
	if d := Dot([]float32{1, 2, 3}, []float32{4, 5, 6}); d != 32 {
		t.Fatalf("Dot = %v", d)
	}
	// Mismatched lengths use the common prefix rather than panicking.
	if d := Dot([]float32{1, 2, 3}, []float32{4, 5}); d != 14 {
		t.Fatalf("Dot prefix = %v", d)
	}
}

func TestConcurrentAddSearch(t *testing.T) {
	x := New()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				x.Add(fmt.Sprintf("w%d-%d", w, i%50), []float32{float32(w), float32(i), 1})
				x.Search([]float32{1, float32(i), 0}, 5, nil)
			}
		}(w)
	}
	wg.Wait()
	if x.Len() != 200 {
		t.Fatalf("Len = %d, want 200 distinct ids", x.Len())
	}
}
