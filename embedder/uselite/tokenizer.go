package uselite

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer mirrors the reference JS tokenizer of @energetic-ai/embeddings
// 0.2.0 quirk for quirk, because the ids must match it exactly:
//   - NFKC, then "▁" before the text and in place of every ASCII space;
//   - pieces with index < reservedPieces are never matched;
//   - at a position with no matching piece, one code point becomes the
//     unknown id 0 with score 0;
//   - Viterbi keeps, per end position, the last candidate (by start, then
//     length) with score >= the best so far, and treats a best of exactly 0
//     as "unset";
//   - the backtrack steps back by the chosen piece's UTF-16 length;
//   - null scores in vocab.json count as 0;
//   - runs of unknown ids collapse to one.

const (
	separator      = '\u2581'
	reservedPieces = 6
	unknownID      = 0
)

type piece struct {
	text   string
	score  float64
	utf16N int
}

type trieNode struct {
	children map[rune]*trieNode
	end      bool
	length   int // code points from the root
	score    float64
	index    int
}

// Tokenizer is the SentencePiece unigram tokenizer of USE-lite.
type Tokenizer struct {
	pieces []piece
	root   *trieNode
}

// LoadTokenizer reads vocab.json: a JSON array of [piece, score] pairs.
func LoadTokenizer(path string) (*Tokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var entries [][2]any
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("%s: want a JSON array of [piece, score] pairs: %w", path, err)
	}
	t := &Tokenizer{root: &trieNode{children: map[rune]*trieNode{}}}
	for i, e := range entries {
		s, ok1 := e[0].(string)
		sc, ok2 := e[1].(float64)
		if e[1] == nil {
			// A few pieces (those with ':') have a null score; JS adds
			// null as 0, which makes them the most likely pieces.
			sc, ok2 = 0, true
		}
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: entry %d is not [string, number]", path, i)
		}
		t.pieces = append(t.pieces, piece{s, sc, len(utf16.Encode([]rune(s)))})
		if i >= reservedPieces {
			t.insert(s, sc, i)
		}
	}
	if len(t.pieces) <= reservedPieces {
		return nil, fmt.Errorf("%s: only %d pieces", path, len(t.pieces))
	}
	return t, nil
}

// insert adds a piece; a later duplicate overwrites an earlier one, as in JS.
func (t *Tokenizer) insert(s string, score float64, index int) {
	node := t.root
	depth := 0
	for _, r := range s {
		depth++
		c := node.children[r]
		if c == nil {
			c = &trieNode{children: map[rune]*trieNode{}, length: depth}
			node.children[r] = c
		}
		node = c
	}
	if node != t.root {
		node.end, node.score, node.index = true, score, index
	}
}

// VocabSize is the number of pieces.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

type candidate struct {
	length int
	score  float64
	index  int
}

// Encode returns the piece ids of text (not clipped to the model's maximum).
func (t *Tokenizer) Encode(text string) []int {
	text = norm.NFKC.String(text)
	if text == "" {
		return nil
	}
	text = string(separator) + strings.ReplaceAll(text, " ", string(separator))
	sym := []rune(text)
	n := len(sym)
	// ends[e] lists the candidates ending at e in order of their start.
	ends := make([][]candidate, n+1)
	for i := range n {
		found := false
		node := t.root.children[sym[i]]
		for j := i; node != nil; {
			if node.end {
				ends[i+node.length] = append(ends[i+node.length], candidate{node.length, node.score, node.index})
				found = true
			}
			j++
			if j >= n {
				break
			}
			node = node.children[sym[j]]
		}
		if !found {
			ends[i+1] = append(ends[i+1], candidate{1, 0, unknownID})
		}
	}
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for e := 0; e <= n; e++ {
		for _, c := range ends[e] {
			s := c.score + best[e-c.length]
			if best[e] == 0 || s >= best[e] {
				best[e], words[e] = s, c.index
			}
		}
	}
	var rev []int
	for it := n; it > 0; {
		rev = append(rev, words[it])
		it -= max(t.pieces[words[it]].utf16N, 1) // never stall on an empty piece
	}
	out := make([]int, 0, len(rev))
	prevUnk := false
	for i := len(rev) - 1; i >= 0; i-- {
		id := rev[i]
		if !(prevUnk && id == unknownID) {
			out = append(out, id)
		}
		prevUnk = id == unknownID
	}
	return out
}
