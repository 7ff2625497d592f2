// Package bm25memory is an example memory service for membench's adapter
// protocol (docs/adapter.md): it keeps each conversation's raw turns and
// answers retrieve with BM25 over them. It serves the protocol over HTTP
// (Handler) and as JSON lines on stdin/stdout (ServeLines); the command in
// cmd/bm25memory runs either. membench's adapter tests run against it.
package bm25memory

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/membench/membench/systems/adapter"
)

// BM25 parameters (the usual ones).
const (
	k1 = 1.2
	b  = 0.75
)

// Item is a retrieved turn as this service sends it. The requests are
// read into the adapter package's protocol types; a service in another
// language declares its own from docs/adapter.md.
type Item struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Time    *string  `json:"time"`
	Speaker *string  `json:"speaker"`
	Sources []string `json:"sources"`
	Score   float64  `json:"score"`
}

type doc struct {
	turn  adapter.Turn
	terms map[string]int
	len   int
}

// Memory holds every conversation's turns; safe for concurrent use.
type Memory struct {
	mu    sync.RWMutex
	convs map[string][]doc
}

// New returns an empty memory.
func New() *Memory { return &Memory{convs: map[string][]doc{}} }

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Reset forgets a conversation.
func (m *Memory) Reset(conv string) {
	m.mu.Lock()
	delete(m.convs, conv)
	m.mu.Unlock()
}

// Ingest stores one session's turns. Its usage reports the indexing work
// (one pass, words indexed) to show where a real service puts the model
// calls and tokens it spends.
func (m *Memory) Ingest(p adapter.IngestParams) (map[string]any, error) {
	if p.ConversationID == "" {
		return nil, errors.New("conversation_id is empty")
	}
	n := 0
	m.mu.Lock()
	for _, t := range p.Turns {
		d := doc{turn: t, terms: map[string]int{}}
		for _, w := range words(t.Speaker + " " + t.Text) {
			d.terms[w]++
			d.len++
		}
		n += d.len
		m.convs[p.ConversationID] = append(m.convs[p.ConversationID], d)
	}
	m.mu.Unlock()
	return map[string]any{"usage": map[string]int{"calls": 1, "input_tokens": n, "output_tokens": 0}}, nil
}

// Retrieve returns the k turns with the highest BM25 score for the question.
func (m *Memory) Retrieve(p adapter.RetrieveParams) (map[string]any, error) {
	if p.K < 1 {
		return nil, fmt.Errorf("k=%d: want at least 1", p.K)
	}
	m.mu.RLock()
	docs, ok := m.convs[p.ConversationID]
	m.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown conversation %q (reset and ingest it first)", p.ConversationID)
	}
	var avg float64
	df := map[string]int{}
	for _, d := range docs {
		avg += float64(d.len)
		for w := range d.terms {
			df[w]++
		}
	}
	avg /= math.Max(1, float64(len(docs)))
	type scored struct {
		i int
		s float64
	}
	var ss []scored
	q := words(p.Question)
	for i, d := range docs {
		var s float64
		for _, w := range q {
			tf := float64(d.terms[w])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (float64(len(docs))-float64(df[w])+0.5)/(float64(df[w])+0.5))
			s += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(d.len)/avg))
		}
		if s > 0 {
			ss = append(ss, scored{i, s})
		}
	}
	sort.SliceStable(ss, func(a, c int) bool { return ss[a].s > ss[c].s })
	items := []Item{}
	for _, x := range ss[:min(p.K, len(ss))] {
		t := docs[x.i].turn
		sp := t.Speaker
		items = append(items, Item{ID: t.ID, Text: t.Text, Time: t.Time, Speaker: &sp, Sources: []string{t.ID}, Score: x.s})
	}
	return map[string]any{"items": items}, nil
}

// Info is what GET /info answers.
func Info() map[string]string { return map[string]string{"name": "bm25memory", "version": "1"} }

// Handler serves POST /reset, /ingest, /retrieve and GET /info.
func (m *Memory) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /info", func(w http.ResponseWriter, r *http.Request) { reply(w, Info(), nil) })
	for _, method := range []string{"reset", "ingest", "retrieve"} {
		mux.HandleFunc("POST /"+method, func(w http.ResponseWriter, r *http.Request) {
			res, err := m.dispatch(method, func(p any) error {
				if err := json.NewDecoder(r.Body).Decode(p); err != nil {
					return fmt.Errorf("bad JSON body: %w", err)
				}
				return nil
			})
			reply(w, res, err)
		})
	}
	return mux
}

func reply(w http.ResponseWriter, v any, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// ServeLines answers {"method", "params"} lines with {"result"} or
// {"error"} lines until in ends.
func (m *Memory) ServeLines(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		var res any
		err := json.Unmarshal(sc.Bytes(), &req)
		if err == nil {
			res, err = m.dispatch(req.Method, func(p any) error { return json.Unmarshal(req.Params, p) })
		}
		if err != nil {
			err = enc.Encode(map[string]string{"error": err.Error()})
		} else {
			err = enc.Encode(map[string]any{"result": res})
		}
		if err != nil {
			return err
		}
	}
	return sc.Err()
}

// dispatch runs one protocol method on its params, read by decode (from an
// HTTP body or a JSON line).
func (m *Memory) dispatch(method string, decode func(params any) error) (any, error) {
	switch method {
	case "reset":
		return call(decode, func(p adapter.ResetParams) (map[string]any, error) {
			m.Reset(p.ConversationID)
			return map[string]any{}, nil
		})
	case "ingest":
		return call(decode, m.Ingest)
	case "retrieve":
		return call(decode, m.Retrieve)
	}
	return nil, fmt.Errorf("unknown method %q (want reset, ingest or retrieve)", method)
}

// call reads a method's params with decode and runs it.
func call[P any](decode func(params any) error, method func(P) (map[string]any, error)) (any, error) {
	var p P
	if err := decode(&p); err != nil {
		return nil, err
	}
	return method(p)
}
