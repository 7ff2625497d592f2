package structmem

import (
	"fmt"
	"slices"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
)

// batch is one extraction unit: the utterances one factual and one
// relational request read, and the scope failures name.
type batch struct {
	scope string
	turns []*turnInfo
}

// batches cuts the conversation's utterances into extraction batches by
// the granularity option, counts them, and under BatchClock restamps each
// utterance with its position in its batch's part of its session.
func (m *Memory) batches(conv *datasets.Conversation, sessions [][]*turnInfo) []batch {
	var out []batch
	switch m.cfg.Granularity {
	case "utterance":
		for _, ts := range sessions {
			for _, t := range ts {
				out = append(out, batch{t.ID, []*turnInfo{t}})
			}
		}
	case "buffer512":
		for i, b := range tokenBatches(slices.Concat(sessions...), BufferTokens, m.cfg.Compression) {
			scope := fmt.Sprintf("batch %d (%s..%s)", i+1, b[0].ID, b[len(b)-1].ID)
			out = append(out, batch{scope, b})
		}
	default:
		for si, ts := range sessions {
			if len(ts) > 0 {
				out = append(out, batch{conv.Sessions[si].ID, ts})
			}
		}
	}
	if m.cfg.Clock == BatchClock && m.cfg.Anchor == "utterance" {
		for _, b := range out {
			pos := map[string]int{}
			for _, t := range b.turns {
				t.stamp(pos[t.session])
				pos[t.session]++
			}
		}
	}
	m.counts["batches"] = len(out)
	return out
}

// tokenBatches emulates the authors' short-term buffer: utterances enter
// in conversation order, across session boundaries; one that would take
// the buffer past limit tokens first sends what the buffer holds; the
// rest is sent at the conversation's end. An utterance counts its
// o200k_base tokens times rate (LLMLingua-2's compression, which membench
// does not run; 1 = none). Their topic segmenter, which cuts within the
// buffer at topic shifts, is not reproduced: each utterance is its own
// segment.
func tokenBatches(ts []*turnInfo, limit int, rate float64) [][]*turnInfo {
	var out [][]*turnInfo
	var cur []*turnInfo
	held := 0.0
	for _, t := range ts {
		n := rate * float64(tokens.Count(t.Text))
		if len(cur) > 0 && held+n > float64(limit) {
			out = append(out, cur)
			cur, held = nil, 0
		}
		cur = append(cur, t)
		held += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
