package flat

import (
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/membench/membench/internal/vindex"
	"github.com/membench/membench/systems"
)

// Fact is one extracted memory. UPDATE rewrites Text in place and keeps the
// old text in History; DELETE sets Deleted (the fact leaves retrieval but
// stays in the store with its history).
type Fact struct {
	ID      string    `json:"id"`
	Text    string    `json:"text"`
	Speaker string    `json:"speaker"` // whose message the fact came from
	Time    time.Time `json:"time"`    // time of the message that last set Text
	Sources []string  `json:"sources"` // turn ids that added or changed it
	Deleted bool      `json:"deleted,omitempty"`
	History []Change  `json:"history,omitempty"`
}

// Change records one UPDATE or DELETE of a fact.
type Change struct {
	Event   string    `json:"event"`    // UPDATE | DELETE
	OldText string    `json:"old_text"` // text before the change
	OldTime time.Time `json:"old_time"` // when the old text had been set
	At      time.Time `json:"at"`       // time of the changing message
	By      []string  `json:"by"`       // turn ids of the changing message(s)
}

// Hit is one search result.
type Hit struct {
	Fact
	Score float64
}

// Store holds one conversation's facts and their vectors.
type Store struct {
	mu    sync.RWMutex
	facts []*Fact
	byID  map[string]*Fact
	idx   *vindex.Index
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{byID: map[string]*Fact{}, idx: vindex.New()} }

func cloneFact(f *Fact) Fact {
	c := *f
	c.Sources = append([]string(nil), f.Sources...)
	c.History = append([]Change(nil), f.History...)
	return c
}

// Facts returns copies of all facts, deleted ones included, in creation order.
func (s *Store) Facts() []Fact {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Fact, len(s.facts))
	for i, f := range s.facts {
		out[i] = cloneFact(f)
	}
	return out
}

// Live returns copies of the facts that are not deleted.
func (s *Store) Live() []Fact {
	return slices.DeleteFunc(s.Facts(), func(f Fact) bool { return f.Deleted })
}

// Get returns a copy of one fact.
func (s *Store) Get(id string) (Fact, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	f, ok := s.byID[id]
	if !ok {
		return Fact{}, false
	}
	return cloneFact(f), true
}

// Search returns the k live facts most similar to vec (all when k <= 0).
func (s *Store) Search(vec []float32, k int) []Hit {
	return s.SearchWhere(vec, k, nil)
}

// SearchWhere is Search restricted to live facts keep accepts.
func (s *Store) SearchWhere(vec []float32, k int, keep func(Fact) bool) []Hit {
	s.mu.RLock()
	defer s.mu.RUnlock()
	hits := s.idx.Search(vec, k, func(id string) bool {
		f := s.byID[id]
		return f != nil && !f.Deleted && (keep == nil || keep(*f))
	})
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit{Fact: cloneFact(s.byID[h.ID]), Score: h.Score}
	}
	return out
}

// Add stores a new fact with its vector and returns its id ("f1", "f2", ...).
func (s *Store) Add(text, speaker string, t time.Time, sources []string, vec []float32) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := "f" + strconv.Itoa(len(s.facts)+1)
	f := &Fact{ID: id, Text: text, Speaker: speaker, Time: t, Sources: append([]string(nil), sources...)}
	s.facts = append(s.facts, f)
	s.byID[id] = f
	s.idx.Add(id, vec)
	return id
}

// Update replaces a live fact's text, keeping the old one in History.
func (s *Store) Update(id, text string, t time.Time, by []string, vec []float32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.byID[id]
	if f == nil || f.Deleted {
		return false
	}
	f.History = append(f.History, Change{Event: "UPDATE", OldText: f.Text, OldTime: f.Time, At: t, By: append([]string(nil), by...)})
	f.Text, f.Time = text, t
	f.Sources = systems.MergeIDs(f.Sources, by)
	s.idx.Add(id, vec)
	return true
}

// Delete takes a live fact out of retrieval, recording when and by what.
func (s *Store) Delete(id string, t time.Time, by []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.byID[id]
	if f == nil || f.Deleted {
		return false
	}
	f.History = append(f.History, Change{Event: "DELETE", OldText: f.Text, OldTime: f.Time, At: t, By: append([]string(nil), by...)})
	f.Deleted = true
	return true
}

// AddSources notes more turns supporting a fact (a NONE decision on a
// restated fact), which helps evidence recall without changing the text.
func (s *Store) AddSources(id string, by []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.byID[id]; f != nil {
		f.Sources = systems.MergeIDs(f.Sources, by)
	}
}

// Speakers lists the speakers that facts are attributed to, sorted.
func (s *Store) Speakers() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	set := map[string]bool{}
	for _, f := range s.facts {
		set[f.Speaker] = true
	}
	return slices.Sorted(maps.Keys(set))
}
