// Package datasets loads benchmark conversations (LoCoMo, LongMemEval and the
// embedded sample) into one model that every system and judge reads.
package datasets

import (
	"slices"
	"strings"
	"time"
)

// Dataset is a loaded benchmark: conversations with their questions.
type Dataset struct {
	Name          string          `json:"name"`   // the registered name (--dataset)
	Source        string          `json:"source"` // file path or "embedded:sample"
	SHA256        string          `json:"sha256"`
	Conversations []*Conversation `json:"conversations"`
	// Groups are the spec's question groups in order (set by Load), which
	// a run's manifest records so that readers need no registry.
	Groups []GroupSpec `json:"groups,omitempty"`
	// Synthetic: the file was written by `membench datasets synth`
	// (IsSynthetic); its results measure scale and plumbing only.
	Synthetic bool `json:"synthetic,omitempty"`
}

// Conversation is one replayable history; questions are asked after it.
type Conversation struct {
	ID        string      `json:"id"` // LoCoMo sample_id, LongMemEval question_id
	Speakers  []string    `json:"speakers"`
	Sessions  []*Session  `json:"sessions"`
	Questions []*Question `json:"questions"`

	// hydrate reads the sessions of a lazily loaded conversation; nil
	// when Sessions are resident.
	hydrate func() (*Conversation, error)
	// lazyBytes is the size of the item in the file (lazy conversations).
	lazyBytes int64
}

// Lazy reports whether the sessions are left on disk (LoadOptions.Lazy).
func (c *Conversation) Lazy() bool { return c.hydrate != nil }

// LazyBytes is the size in the file of a lazily loaded conversation (what
// Hydrate reads back), 0 when its sessions are resident. The harness sizes
// its memory plan by it.
func (c *Conversation) LazyBytes() int64 { return c.lazyBytes }

// SetLazy makes c a lazily loaded conversation of size bytes in its file,
// whose sessions hydrate reads back (a loader's call).
func (c *Conversation) SetLazy(size int64, hydrate func() (*Conversation, error)) {
	c.lazyBytes, c.hydrate = size, hydrate
}

// Hydrate returns the conversation with its sessions: c itself when they
// are resident, else a fresh copy read from the file, which the caller
// drops when done so that only conversations in use stay in memory. The
// copy shares c's questions.
func (c *Conversation) Hydrate() (*Conversation, error) {
	if c.hydrate == nil {
		return c, nil
	}
	return c.hydrate()
}

// Session is one dated sitting of the conversation.
type Session struct {
	ID      string    `json:"id"`       // "session_1" or the LongMemEval haystack id
	Time    time.Time `json:"time"`     // zero when the dataset gave no usable date
	RawTime string    `json:"raw_time"` // the date string as the file wrote it
	Turns   []*Turn   `json:"turns"`
}

// Turn is one utterance. Time is the session time plus index × turn step, so
// utterance-level timestamps exist even though LoCoMo only dates sessions.
type Turn struct {
	ID        string    `json:"id"` // LoCoMo dia_id ("D1:3"); LongMemEval "<session>:<index>"
	Speaker   string    `json:"speaker"`
	Text      string    `json:"text"` // includes "[image: caption]" for LoCoMo image turns
	Time      time.Time `json:"time"`
	HasAnswer bool      `json:"has_answer,omitempty"` // LongMemEval marker
}

// Question is one benchmark question about a conversation.
type Question struct {
	ID                string    `json:"id"` // "conv-26:0" or LongMemEval question_id
	ConversationID    string    `json:"conversation_id"`
	Text              string    `json:"text"`
	Gold              string    `json:"gold"` // stringified; empty for most adversarial items
	AdversarialAnswer string    `json:"adversarial_answer,omitempty"`
	Category          int       `json:"category"`       // LoCoMo 1-5, 0 elsewhere: metadata (F1 rules, peers, answer keys), not the group
	Type              string    `json:"type,omitempty"` // LongMemEval question_type
	Evidence          []string  `json:"evidence"`       // turn ids (LoCoMo dia_ids)
	AskedAt           time.Time `json:"asked_at"`       // zero when unknown
	Abstention        bool      `json:"abstention"`     // set from the group's spec; ask Abstains()
	Group             string    `json:"group"`          // the summary row: a GroupSpec name of the dataset
}

// Abstains reports whether the right answer is to decline (a question of
// an abstaining group: LoCoMo adversarial, LongMemEval "_abs"). It is the
// one abstention predicate; judges, the harness and every reader ask it.
func (q *Question) Abstains() bool { return q.Abstention }

// AllTurns returns the conversation's turns in order.
func (c *Conversation) AllTurns() []*Turn {
	var out []*Turn
	for _, s := range c.Sessions {
		out = append(out, s.Turns...)
	}
	return out
}

// Questions returns every question of the dataset in order.
func (d *Dataset) Questions() []*Question {
	var out []*Question
	for _, c := range d.Conversations {
		out = append(out, c.Questions...)
	}
	return out
}

// Shard returns the index-th of count parts of the conversations:
// conversation j belongs to part j mod count, so parts stay balanced and
// the split depends only on the dataset order. For LongMemEval, where each
// conversation holds one question, this splits the questions.
func (d *Dataset) Shard(index, count int) *Dataset {
	out := &Dataset{Name: d.Name, Source: d.Source, SHA256: d.SHA256, Groups: d.Groups, Synthetic: d.Synthetic}
	for j, c := range d.Conversations {
		if j%count == index {
			out.Conversations = append(out.Conversations, c)
		}
	}
	return out
}

// SynthIDPrefix begins every conversation id a synthetic file holds
// (LoCoMo sample_id "synth-1", LongMemEval question_id "synth1a2b3c"): the
// mark by which a loaded dataset is known to be synthetic, in files made
// before and after it was read.
const SynthIDPrefix = "synth"

// IsSynthetic reports whether every conversation of ds carries the
// synthetic id prefix.
func IsSynthetic(ds *Dataset) bool {
	if len(ds.Conversations) == 0 {
		return false
	}
	notSynth := func(c *Conversation) bool { return !strings.HasPrefix(c.ID, SynthIDPrefix) }
	return !slices.ContainsFunc(ds.Conversations, notSynth)
}
