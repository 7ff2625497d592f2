package llm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/membench/membench"
)

// A Tape holds every reply a run's paid models and its embedder gave,
// keyed like the cache, so the run can be bundled and replayed with no
// network and no key. Recording wraps a model outside its cache (hits are
// recorded too); playing serves replies from the tape alone.
//
// Tape keys leave out the base URL: a reader replaying a bundle reaches no
// server, and one run never asks one model name at two addresses.
type Tape struct {
	mu      sync.Mutex
	entries map[string]TapeEntry
	write   func(TapeEntry) error // recording; nil when playing
	// have reads what an earlier attempt recorded, once, when the first
	// reply is recorded: a rerun that asks nothing never reads it.
	have   func() ([]TapeEntry, error)
	loaded bool
	fresh  atomic.Int64 // calls a playing tape sent to its fallback
	served atomic.Int64 // calls a playing tape answered itself
}

// TapeEntry is one recorded reply.
type TapeEntry struct {
	Key    string             `json:"key"`
	Kind   string             `json:"kind"` // chat | decide | embed
	Model  string             `json:"model"`
	Text   string             `json:"text,omitempty"`
	Probs  map[string]float64 `json:"probs,omitempty"`
	Vector Vector             `json:"vector,omitempty"`
	Usage  membench.Usage     `json:"usage"`
}

// NewRecorder records replies through write; have holds entries recorded
// by an earlier attempt of the run, so a resume does not write them twice.
func NewRecorder(have []TapeEntry, write func(TapeEntry) error) *Tape {
	t := &Tape{entries: map[string]TapeEntry{}, write: write}
	for _, e := range have {
		t.entries[e.Key] = e
	}
	return t
}

// NewLazyRecorder is NewRecorder with the earlier attempt's entries read
// by have when they are first needed (an error then fails that call).
func NewLazyRecorder(have func() ([]TapeEntry, error), write func(TapeEntry) error) *Tape {
	return &Tape{entries: map[string]TapeEntry{}, write: write, have: have}
}

// load reads the earlier entries, if not yet done; t.mu is held. Entries
// recorded in this process win over earlier ones (they are the same reply).
func (t *Tape) load() error {
	if t.have == nil || t.loaded {
		return nil
	}
	have, err := t.have()
	if err != nil {
		return err
	}
	t.loaded = true
	for _, e := range have {
		if _, ok := t.entries[e.Key]; !ok {
			t.entries[e.Key] = e
		}
	}
	return nil
}

// NewPlayer serves replies from entries.
func NewPlayer(entries []TapeEntry) *Tape { return NewRecorder(entries, nil) }

// Len is the number of recorded replies.
func (t *Tape) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.load() // an unreadable file counts as empty here; recording reports it
	return len(t.entries)
}

// Fresh counts calls a player sent to its fallback backend.
func (t *Tape) Fresh() int64 { return t.fresh.Load() }

// Served counts calls (embedded texts for an embedder) a player answered
// from its entries.
func (t *Tape) Served() int64 { return t.served.Load() }

func (t *Tape) get(key string) (TapeEntry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.load()
	e, ok := t.entries[key]
	return e, ok
}

func (t *Tape) put(e TapeEntry) error {
	t.mu.Lock()
	err := t.load()
	_, dup := t.entries[e.Key]
	if err == nil && !dup {
		t.entries[e.Key] = e
	}
	t.mu.Unlock()
	if err != nil || dup || t.write == nil {
		return err // a reply recorded before is not written twice
	}
	return t.write(e)
}

// tapeID is a model's id as tape keys hold it: without its base URL.
func tapeID(id membench.ModelID) membench.ModelID {
	return membench.ModelID{Backend: id.Backend, Model: id.Model}
}

// tapeEmbedKey keys one text of an embedder; "openai:m@url" is keyed as
// "openai:m" for the reason the model keys leave out base URLs.
func tapeEmbedKey(name, text string) string {
	return HashText(EmbedderModel(name) + "\x00" + text)
}

// MissingError is a call a bundle has no reply for.
type MissingError struct {
	Kind, Model, Key, Label string
}

func (e *MissingError) Error() string {
	what := e.Kind + " request"
	if e.Label != "" {
		what += " (" + e.Label + ")"
	}
	return fmt.Sprintf("the bundle has no reply for this %s to %s (request key %s): it was not made by the recorded run; rerun with --replay-fallback to send such calls to the configured backend", what, e.Model, e.Key)
}

// Record wraps m so that every reply it gives is recorded.
func (t *Tape) Record(m Model) Model { return &taped{inner: m, tape: t} }

type taped struct {
	inner Model
	tape  *Tape
}

func (w *taped) ID() membench.ModelID { return w.inner.ID() }

func (w *taped) Chat(ctx context.Context, req Request) (Response, error) {
	r, err := w.inner.Chat(ctx, req)
	if err != nil {
		return r, err
	}
	id := w.inner.ID()
	return r, w.tape.put(TapeEntry{Key: chatKey(tapeID(id), req), Kind: "chat", Model: id.Model, Text: r.Text, Usage: r.Usage})
}

func (w *taped) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	r, err := w.inner.Decide(ctx, req)
	if err != nil {
		return r, err
	}
	id := w.inner.ID()
	return r, w.tape.put(TapeEntry{Key: decideKey(tapeID(id), req), Kind: "decide", Model: id.Model, Probs: r.Probs, Usage: r.Usage})
}

// Play is a model with id that answers from the tape; a call it lacks goes
// to fallback (counted in Fresh) or, with none, is a *MissingError.
// Replies are not marked cached: a replay reproduces the recorded run's
// records and costs, and its manifest says it was replayed.
func (t *Tape) Play(id membench.ModelID, fallback Model) Model {
	return &played{id: id, tape: t, fallback: fallback}
}

type played struct {
	id       membench.ModelID
	tape     *Tape
	fallback Model
}

func (p *played) ID() membench.ModelID { return p.id }

func (p *played) Chat(ctx context.Context, req Request) (Response, error) {
	key := chatKey(tapeID(p.id), req)
	if e, ok := p.tape.get(key); ok && e.Kind == "chat" {
		p.tape.served.Add(1)
		return Response{Text: e.Text, Usage: e.Usage}, nil
	}
	if p.fallback == nil {
		return Response{}, &MissingError{Kind: "chat", Model: p.id.Model, Key: key, Label: req.Label}
	}
	p.tape.fresh.Add(1)
	return p.fallback.Chat(ctx, req)
}

func (p *played) Decide(ctx context.Context, req DecideRequest) (DecideResponse, error) {
	key := decideKey(tapeID(p.id), req)
	if e, ok := p.tape.get(key); ok && e.Kind == "decide" {
		p.tape.served.Add(1)
		return DecideResponse{Probs: maps.Clone(e.Probs), Usage: e.Usage}, nil
	}
	if p.fallback == nil {
		return DecideResponse{}, &MissingError{Kind: "decide", Model: p.id.Model, Key: key, Label: req.Label}
	}
	p.tape.fresh.Add(1)
	return p.fallback.Decide(ctx, req)
}

// RecordEmbedder wraps e so that every vector it gives is recorded.
func (t *Tape) RecordEmbedder(e Embedder) Embedder { return &tapedEmbedder{inner: e, tape: t} }

type tapedEmbedder struct {
	inner Embedder
	tape  *Tape
}

func (w *tapedEmbedder) Name() string { return w.inner.Name() }

func (w *tapedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := w.inner.Embed(ctx, texts)
	if err != nil {
		return vs, err
	}
	for i, v := range vs {
		if err := w.tape.put(TapeEntry{Key: tapeEmbedKey(w.inner.Name(), texts[i]), Kind: "embed", Model: w.inner.Name(), Vector: v}); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// PlayEmbedder is an embedder named name that answers from the tape; a
// text it lacks goes to fallback or is a *MissingError.
func (t *Tape) PlayEmbedder(name string, fallback Embedder) Embedder {
	return &playedEmbedder{name: name, tape: t, fallback: fallback}
}

type playedEmbedder struct {
	name     string
	tape     *Tape
	fallback Embedder
}

func (p *playedEmbedder) Name() string { return p.name }

func (p *playedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []int
	for i, s := range texts {
		key := tapeEmbedKey(p.name, s)
		if e, ok := p.tape.get(key); ok && e.Kind == "embed" {
			out[i] = append([]float32(nil), e.Vector...)
			p.tape.served.Add(1)
			continue
		}
		if p.fallback == nil {
			return nil, &MissingError{Kind: "embedding", Model: p.name, Key: key}
		}
		miss = append(miss, i)
	}
	if len(miss) == 0 {
		return out, nil
	}
	p.tape.fresh.Add(int64(len(miss)))
	ask := make([]string, len(miss))
	for j, i := range miss {
		ask[j] = texts[i]
	}
	vs, err := p.fallback.Embed(ctx, ask)
	if err != nil {
		return nil, err
	}
	for j, i := range miss {
		out[i] = vs[j]
	}
	return out, nil
}

// Vector is an embedding stored as base64 of little-endian float32s: exact,
// and a third the size of decimal JSON.
type Vector []float32

func (v Vector) MarshalJSON() ([]byte, error) { return json.Marshal(v.Bytes()) }

// Bytes is the vector as little-endian float32s (the encoding the tape and
// the embedding cache store).
func (v Vector) Bytes() []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// VectorOf decodes Bytes; a trailing partial float32 is dropped.
func VectorOf(b []byte) Vector {
	v := make(Vector, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func (v *Vector) UnmarshalJSON(data []byte) error {
	var b []byte
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	if len(b)%4 != 0 {
		return fmt.Errorf("vector: %d bytes is not a whole number of float32s", len(b))
	}
	*v = VectorOf(b)
	return nil
}

// EmbedderModel is an embedder's name without the "@base-url" part
// (openai:MODEL@URL): the same model behind another URL embeds the same.
func EmbedderModel(name string) string {
	model, _, _ := strings.Cut(name, "@")
	return model
}
