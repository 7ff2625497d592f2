package peers

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/membench/membench/datasets"
)

// Matched is a peer item tied to one dataset question.
type Matched struct {
	Item
	ID             string // dataset question id, e.g. "conv-26:0"
	ConversationID string
	DataCategory   int    // the dataset's category (the peer's is Item.Category)
	DataAbstains   bool   // the dataset question's Abstains(), written to answers.jsonl
	DataGroup      string // the dataset question's group, written to answers.jsonl
	DataGold       string
	DataQuestion   string
}

// MatchReport says how well a peer file lines up with the dataset.
type MatchReport struct {
	Items            int      `json:"items"`
	Matched          int      `json:"matched"`
	Normalized       int      `json:"matched_after_normalising"` // matched only after case/space/punctuation folding
	Unmatched        int      `json:"unmatched"`
	UnmatchedSample  []string `json:"unmatched_examples,omitempty"`
	CategoryMismatch int      `json:"category_mismatch"` // peer category differs from the dataset's
	MismatchSample   []string `json:"category_mismatch_examples,omitempty"`
	Ungraded         int      `json:"ungraded"`
}

const sampleMax = 5

// Match ties items to dataset questions by conversation and question text.
// Peers drop questions (usually category 5) and may reorder them, so the
// index inside a conversation is not trusted; text is. A text asked twice in
// one conversation is matched in order, preferring the peer's category. An
// item with a QuestionID is looked up by id. Nothing unmatched is guessed:
// it is counted and left out.
func Match(items []Item, ds *datasets.Dataset) ([]Matched, MatchReport) {
	type cand struct {
		q    *datasets.Question
		used bool
	}
	byID := map[string]*datasets.Question{}
	exact := map[string]map[string][]*cand{}
	folded := map[string]map[string][]*cand{}
	for _, c := range ds.Conversations {
		exact[c.ID], folded[c.ID] = map[string][]*cand{}, map[string][]*cand{}
		for _, q := range c.Questions {
			byID[q.ID] = q
			cd := &cand{q: q}
			exact[c.ID][q.Text] = append(exact[c.ID][q.Text], cd)
			f := fold(q.Text)
			folded[c.ID][f] = append(folded[c.ID][f], cd)
		}
	}
	pick := func(cs []*cand, cat int) *cand {
		var first *cand
		for _, c := range cs {
			if c.used {
				continue
			}
			if cat == 0 || c.q.Category == cat {
				return c
			}
			if first == nil {
				first = c
			}
		}
		return first
	}
	rep := MatchReport{Items: len(items)}
	var out []Matched
	miss := func(it Item, why string) {
		rep.Unmatched++
		if len(rep.UnmatchedSample) < sampleMax {
			rep.UnmatchedSample = append(rep.UnmatchedSample, fmt.Sprintf("%s: %q (%s)", it.Source, it.Question, why))
		}
	}
	for _, it := range items {
		if !it.Graded {
			rep.Ungraded++
		}
		var q *datasets.Question
		if it.QuestionID != "" {
			q = byID[it.QuestionID]
			if q == nil {
				miss(it, "id "+it.QuestionID+" not in "+ds.Source)
				continue
			}
		} else {
			conv := it.ConvID
			if conv == "" {
				if it.ConvIndex < 0 || it.ConvIndex >= len(ds.Conversations) {
					miss(it, fmt.Sprintf("conversation position %d outside the dataset's %d", it.ConvIndex, len(ds.Conversations)))
					continue
				}
				conv = ds.Conversations[it.ConvIndex].ID
			}
			if exact[conv] == nil {
				miss(it, "conversation "+conv+" not in "+ds.Source)
				continue
			}
			c := pick(exact[conv][it.Question], it.Category)
			if c == nil {
				if c = pick(folded[conv][fold(it.Question)], it.Category); c != nil {
					rep.Normalized++
				}
			}
			if c == nil {
				miss(it, "no unused question with this text in "+conv)
				continue
			}
			c.used = true
			q = c.q
		}
		if it.Category != 0 && it.Category != q.Category {
			rep.CategoryMismatch++
			if len(rep.MismatchSample) < sampleMax {
				rep.MismatchSample = append(rep.MismatchSample, fmt.Sprintf("%s: peer category %d, dataset %d (%s)", it.Source, it.Category, q.Category, q.ID))
			}
		}
		rep.Matched++
		out = append(out, matchedTo(it, q))
	}
	return out, rep
}

// matchedTo ties it to the dataset question q.
func matchedTo(it Item, q *datasets.Question) Matched {
	return Matched{Item: it, ID: q.ID, ConversationID: q.ConversationID, DataCategory: q.Category, DataAbstains: q.Abstains(), DataGroup: q.Group, DataGold: q.Gold, DataQuestion: q.Text}
}

// fold lowercases, drops punctuation and collapses spaces, for questions a
// peer retyped slightly.
func fold(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

// Unchecked passes items that carry dataset ids through without a dataset
// to check them against (LongMemEval when its file is not at hand); the
// report says so by leaving Matched at 0 and counting them as Items only.
func Unchecked(items []Item) []Matched {
	out := make([]Matched, 0, len(items))
	for _, it := range items {
		out = append(out, Matched{Item: it, ID: it.QuestionID, ConversationID: it.QuestionID, DataGold: it.Gold})
	}
	return out
}
