package embedder

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
)

// hashedReference is the hashed embedder written plainly: terms counted
// in a map by their text, added to the buckets in first-occurrence order,
// hashed with hash/fnv, weighted by the rune count of the term's text.
func hashedReference(dim int, text string) []float32 {
	words := lexical.Words(text)
	tf := map[string]int{}
	var order []string
	add := func(term string) {
		if tf[term] == 0 {
			order = append(order, term)
		}
		tf[term]++
	}
	for i, w := range words {
		if lexical.IsStopword(w) {
			continue
		}
		add(w)
		if i+1 < len(words) && !lexical.IsStopword(words[i+1]) {
			add(w + " " + words[i+1])
		}
	}
	v := make([]float64, dim)
	for _, term := range order {
		f := fnv.New64a()
		f.Write([]byte(term))
		x := f.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		w := (1 + math.Log(float64(tf[term]))) * math.Log(2+float64(len([]rune(term))))
		v[x%uint64(dim)] += sign * w
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		return out
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// The hashed embedder equals the plain reference bit for bit: on every
// LoCoMo turn and question when the file is present, on texts with
// repeated terms, Unicode, long words and no content, and on random texts
// over a small vocabulary (many repeated terms and shared buckets).
func TestHashedEqualsReference(t *testing.T) {
	texts := []string{"", "the and of", "Paint paint PAINT painted, paint!", "Ünïcödé straße İstanbul ΣΊΣΥΦΟΣ 日本語",
		strings.Repeat("supercalifragilisticexpialidocious-antidisestablishmentarianism ", 3) + strings.Repeat("x", 80),
		"Caroline: I went to the LGBTQ support group yesterday and it was so powerful.", "a b c d e f g", "'' ' '''"}
	rng := rand.New(rand.NewPCG(7, 11))
	vocab := strings.Fields("paint sunset the of kids run running ran melanie caroline 2023 it's oh camp lake ocean")
	for range 3000 {
		n := rng.IntN(40)
		var b strings.Builder
		for range n {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteString([]string{" ", ", ", "! ", "  ", "—"}[rng.IntN(5)])
		}
		texts = append(texts, b.String())
	}
	if path, ok := testutil.SharedPath("datasets", "locomo10.json"); ok {
		ds, err := datasets.Load("locomo", path, datasets.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ds.Conversations {
			for _, tr := range c.AllTurns() {
				texts = append(texts, tr.Speaker+": "+tr.Text)
			}
			for _, q := range c.Questions {
				texts = append(texts, q.Text)
			}
		}
	} else {
		t.Logf("LoCoMo not found at %s: listed and generated texts only", path)
	}
	for _, dim := range []int{512, 64, 7} {
		h := NewHashed(dim)
		got, err := h.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range texts {
			want := hashedReference(dim, s)
			for j := range want {
				if math.Float32bits(got[i][j]) != math.Float32bits(want[j]) {
					t.Fatalf("dim %d, text %q: component %d = %v, reference %v", dim, s, j, got[i][j], want[j])
				}
			}
		}
		sparse, err := h.EmbedSparse(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range texts {
			if err := sameAsDense(sparse[i], got[i]); err != nil {
				t.Fatalf("dim %d, text %q: EmbedSparse: %v", dim, s, err)
			}
		}
	}
	t.Logf("%d texts", len(texts))
}

// sameAsDense says how sv differs from dense: its width, its order, a zero
// it lists, or a component whose bits are not dense's.
func sameAsDense(sv llm.SparseVector, dense []float32) error {
	if sv.Dim != len(dense) || len(sv.Index) != len(sv.Value) {
		return fmt.Errorf("width %d with %d indexes and %d values, want width %d", sv.Dim, len(sv.Index), len(sv.Value), len(dense))
	}
	next := 0
	for j, c := range sv.Index {
		if int(c) < next {
			return fmt.Errorf("index %d after %d: not increasing", c, next-1)
		}
		if sv.Value[j] == 0 {
			return fmt.Errorf("component %d listed with value zero", c)
		}
		for ; next < int(c); next++ {
			if dense[next] != 0 {
				return fmt.Errorf("component %d = %v is not listed", next, dense[next])
			}
		}
		if math.Float32bits(sv.Value[j]) != math.Float32bits(dense[c]) {
			return fmt.Errorf("component %d = %v, Embed gives %v", c, sv.Value[j], dense[c])
		}
		next = int(c) + 1
	}
	for ; next < len(dense); next++ {
		if dense[next] != 0 {
			return fmt.Errorf("component %d = %v is not listed", next, dense[next])
		}
	}
	return nil
}

// Embedding the same texts from several goroutines at once (the scratch
// space is pooled) gives the same vectors.
func TestHashedConcurrent(t *testing.T) {
	h := NewHashed(512)
	texts := []string{"paint the sunset", "kids run to the lake", "Caroline went camping with Melanie"}
	want, _ := h.Embed(context.Background(), texts)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			for range 200 {
				got, _ := h.Embed(context.Background(), texts)
				for i := range got {
					for j := range got[i] {
						if got[i][j] != want[i][j] {
							done <- context.Canceled
							return
						}
					}
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal("concurrent vectors differ")
		}
	}
}
