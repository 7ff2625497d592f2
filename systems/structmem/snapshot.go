package structmem

import (
	"encoding/json"
	"io"
	"maps"
)

// Snapshot is everything the fidelity audits need: each entry with the
// utterance it rests on, each synthesis with its provenance, the windows
// (seeds, reconstructed events, rejected links) and failed answers with
// their raw text. Embeddings are left out.
type Snapshot struct {
	System         string         `json:"system"`
	ConversationID string         `json:"conversation_id"`
	Config         Config         `json:"config"`
	Speakers       []string       `json:"speakers"`
	Entries        []Entry        `json:"entries"`
	Syntheses      []Synthesis    `json:"syntheses"`
	Windows        []WindowRecord `json:"windows"`
	Failures       []Failure      `json:"failures"`
	Counts         map[string]int `json:"counts"`
}

// Dump copies the store's contents.
func (m *Memory) Dump() Snapshot {
	s := Snapshot{System: m.name, ConversationID: m.convID, Config: m.cfg, Speakers: m.speakers, Counts: maps.Clone(m.counts)}
	for _, e := range m.entries {
		s.Entries = append(s.Entries, *e)
	}
	for _, y := range m.syns {
		s.Syntheses = append(s.Syntheses, *y)
	}
	s.Windows = append(s.Windows, m.windows...)
	s.Failures = append(s.Failures, m.failures...)
	return s
}

// Record types of the JSONL form.
const (
	RecMeta      = "meta"
	RecEntry     = "entry"
	RecSynthesis = "synthesis"
	RecWindow    = "window"
	RecFailure   = "failure"
)

type metaRec struct {
	System         string         `json:"system"`
	ConversationID string         `json:"conversation_id"`
	Config         Config         `json:"config"`
	Speakers       []string       `json:"speakers"`
	Counts         map[string]int `json:"counts"`
}

// WriteJSONL writes the snapshot as one JSON object per line, each with a
// "type" field (meta, entry, synthesis, window, failure); the harness
// appends one block per conversation to the run's memory.jsonl.
func (s Snapshot) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	put := func(typ string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return err
		}
		obj["type"], _ = json.Marshal(typ)
		obj["conversation_id"], _ = json.Marshal(s.ConversationID)
		return enc.Encode(obj)
	}
	if err := put(RecMeta, metaRec{s.System, s.ConversationID, s.Config, s.Speakers, s.Counts}); err != nil {
		return err
	}
	if err := putEach(put, RecEntry, s.Entries); err != nil {
		return err
	}
	if err := putEach(put, RecSynthesis, s.Syntheses); err != nil {
		return err
	}
	if err := putEach(put, RecWindow, s.Windows); err != nil {
		return err
	}
	return putEach(put, RecFailure, s.Failures)
}

// putEach writes every record of one type, in order.
func putEach[T any](put func(string, any) error, typ string, recs []T) error {
	for i := range recs {
		if err := put(typ, &recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteMemory writes this conversation's dump as JSONL; the harness can
// detect it through interface{ WriteMemory(io.Writer) error } without
// importing this package.
func (m *Memory) WriteMemory(w io.Writer) error { return m.Dump().WriteJSONL(w) }
