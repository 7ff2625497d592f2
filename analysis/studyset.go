package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/runlog"
)

// StudySet is a LoCoMo question set the raw-turn selection study
// (PaperStudy) reports figures on. Its figures are printed beside a run's
// only when the run answered exactly that set: the same conversations, all
// of their questions, LoCoMo's published answer key.
type StudySet struct {
	Name          string   `json:"name"`
	Conversations []string `json:"conversations"`
	// Scored are the questions scored (categories 1-4); Abstaining the
	// adversarial ones (category 5), 0 when the set's figure leaves them
	// out.
	Scored     int `json:"scored"`
	Abstaining int `json:"abstaining"`
}

var (
	// HeldOutSet is where the study decomposes its losses: the 9 LoCoMo
	// conversations it did not develop on (all but conv-26), 1,388 scored
	// questions (papers.md B, "Loss decomposition").
	HeldOutSet = StudySet{
		Name:          "the 9 held-out LoCoMo conversations (all but conv-26), 1,388 scored questions",
		Conversations: []string{"conv-30", "conv-41", "conv-42", "conv-43", "conv-44", "conv-47", "conv-48", "conv-49", "conv-50"},
		Scored:        1388, // its adversarial questions are not in the figure
	}
	// PrimarySet is the study's registered split: conv-44, 47, 48, 49 and
	// 50, 778 scored questions plus 209 adversarial ones. The paper gives
	// no other set for its abstention figures at k=3, so they are read as
	// measured here.
	PrimarySet = StudySet{
		Name:          "the study's split, LoCoMo conv-44, 47, 48, 49, 50 (778 scored + 209 adversarial questions)",
		Conversations: []string{"conv-44", "conv-47", "conv-48", "conv-49", "conv-50"},
		Scored:        778, Abstaining: 209,
	}
)

// QuestionSet is the question set one run answered, as far as the study
// sets are concerned.
type QuestionSet struct {
	Dataset       string   `json:"dataset"`
	AnswerKey     string   `json:"answer_key,omitempty"` // datasets.KeyID
	Synthetic     bool     `json:"synthetic,omitempty"`
	Conversations []string `json:"conversations"` // sorted
	Scored        int      `json:"scored"`        // answered questions that do not abstain
	Abstaining    int      `json:"abstaining"`    // answered questions whose right answer is to decline
}

// questionSetOf reads the set from the run's manifest and answers.
func questionSetOf(r *runlog.Run) QuestionSet {
	q := QuestionSet{Dataset: r.Manifest.Dataset, AnswerKey: datasets.KeyID(r.Manifest.Dataset, r.Manifest.AppliedKey()), Synthetic: r.Manifest.Synthetic}
	for _, a := range r.Answers {
		if a.ConversationID != "" {
			q.Conversations = append(q.Conversations, a.ConversationID)
		}
		if a.Abstains() {
			q.Abstaining++
		} else {
			q.Scored++
		}
	}
	slices.Sort(q.Conversations)
	q.Conversations = slices.Compact(q.Conversations)
	return q
}

// String names the set in a note: "conv-26, 152 scored questions".
func (q QuestionSet) String() string {
	convs := strings.Join(q.Conversations, ", ")
	if len(q.Conversations) > 3 {
		convs = fmt.Sprintf("%d conversations", len(q.Conversations))
	}
	if convs == "" {
		convs = "no conversation ids"
	}
	s := fmt.Sprintf("%s %s, %d scored questions", q.Dataset, convs, q.Scored)
	if q.AnswerKey != "" && q.AnswerKey != "published" {
		s += ", answer key " + strings.Fields(q.AnswerKey)[0]
	}
	if q.Synthetic {
		s += ", SYNTHETIC"
	}
	return s
}

// Mismatch is "" when q is the study set s, else why it is not, in words
// a note can print after "does not apply: ".
func (s StudySet) Mismatch(q QuestionSet) string {
	differs := ""
	switch {
	case q.Dataset != locomo.Name || q.Synthetic:
		differs = "not LoCoMo"
	case q.AnswerKey != "published":
		differs = "another answer key than LoCoMo's published one"
	case !slices.Equal(q.Conversations, s.Conversations):
		differs = "other conversations"
	case q.Scored != s.Scored || (s.Abstaining > 0 && q.Abstaining != s.Abstaining):
		differs = "not all of their questions"
	default:
		return ""
	}
	return fmt.Sprintf("the study's figures are over %s; this run answered %s (%s)", s.Name, q, differs)
}
