package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/membench/membench/internal/clip"
)

// The wire protocol (docs/adapter.md). Times are RFC 3339 strings or null.

// ResetParams is the body of reset: forget one conversation.
type ResetParams struct {
	ConversationID string `json:"conversation_id"`
}

// Turn is one utterance sent with ingest.
type Turn struct {
	ID      string  `json:"id"`
	Speaker string  `json:"speaker"`
	Text    string  `json:"text"`
	Time    *string `json:"time"`
}

// IngestParams is the body of ingest: one session, sent in order.
type IngestParams struct {
	ConversationID string  `json:"conversation_id"`
	SessionID      string  `json:"session_id"`
	SessionTime    *string `json:"session_time"`
	Turns          []Turn  `json:"turns"`
}

// RetrieveParams is the body of retrieve: one question.
type RetrieveParams struct {
	ConversationID string  `json:"conversation_id"`
	QuestionID     string  `json:"question_id"`
	Question       string  `json:"question"`
	QuestionTime   *string `json:"question_time"`
	K              int     `json:"k"`
}

// Usage is what the service spent inside itself (its own model calls).
type Usage struct {
	Calls        int `json:"calls"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Item is one retrieved memory as the service returns it.
type Item struct {
	ID      string    `json:"id"`
	Text    string    `json:"text"`
	Time    time.Time `json:"time"`
	Speaker string    `json:"speaker"`
	Sources []string  `json:"sources"`
	Score   float64   `json:"score"`
}

// Retrieved is a validated retrieve response.
type Retrieved struct {
	Items   []Item
	Context *string // nil: membench renders the items
	Usage   *Usage
}

// TimeString renders a time for the wire; nil for an unknown (zero) time.
func TimeString(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// FieldError names the response field that is wrong and how.
type FieldError struct {
	Field   string
	Problem string
}

func (e *FieldError) Error() string { return "response field " + e.Field + ": " + e.Problem }

func bad(field, format string, a ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, a...)}
}

// object decodes a JSON object keeping each field raw; an empty body is an
// empty object (a bare 2xx is a valid reset or ingest answer).
func object(body []byte, field string) (map[string]json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || string(body) == "null" {
		return map[string]json.RawMessage{}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		if field == "" {
			return nil, fmt.Errorf("response is not a JSON object (%v): %s", err, quote(body))
		}
		return nil, bad(field, "want an object, got %s", quote(body))
	}
	return m, nil
}

func isNull(raw json.RawMessage) bool {
	return raw == nil || string(bytes.TrimSpace(raw)) == "null"
}

// ParseUsage reads the optional usage object of an ingest (or retrieve)
// response; nil when absent.
func ParseUsage(m map[string]json.RawMessage) (*Usage, error) {
	raw, ok := m["usage"]
	if !ok || isNull(raw) {
		return nil, nil
	}
	um, err := object(raw, "usage")
	if err != nil {
		return nil, err
	}
	var u Usage
	for _, f := range []struct {
		key string
		dst *int
	}{{"calls", &u.Calls}, {"input_tokens", &u.InputTokens}, {"output_tokens", &u.OutputTokens}} {
		v, ok := um[f.key]
		if !ok || isNull(v) {
			continue
		}
		n, ok := count(v)
		if !ok {
			return nil, bad("usage."+f.key, "want a non-negative integer, got %s", quote(v))
		}
		*f.dst = n
	}
	return &u, nil
}

// count reads a whole number from 0 to MaxInt32 (JSON may write it as 3.0).
func count(raw json.RawMessage) (int, bool) {
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil || x < 0 || x != math.Trunc(x) || x > math.MaxInt32 {
		return 0, false
	}
	return int(x), true
}

// ParseMemories reads an ingest response's optional "memories": how many
// memory entries the service holds for the conversation after that
// session; nil when it does not say. A service that reports it lets a run
// see an empty memory (systems.MemoryRule).
func ParseMemories(body []byte) (*int, error) {
	m, err := object(body, "")
	if err != nil {
		return nil, err
	}
	raw, ok := m["memories"]
	if !ok || isNull(raw) {
		return nil, nil
	}
	n, ok := count(raw)
	if !ok {
		return nil, bad("memories", "want a non-negative integer (the entries held after this session), got %s", quote(raw))
	}
	return &n, nil
}

// ParseIngest validates an ingest (or reset) response body.
func ParseIngest(body []byte) (*Usage, error) {
	m, err := object(body, "")
	if err != nil {
		return nil, err
	}
	return ParseUsage(m)
}

// ParseRetrieve validates a retrieve response body.
func ParseRetrieve(body []byte) (*Retrieved, error) {
	m, err := object(body, "")
	if err != nil {
		return nil, err
	}
	raw, ok := m["items"]
	if !ok || isNull(raw) {
		return nil, bad("items", "missing (want an array of items, [] when nothing is found)")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, bad("items", "want an array, got %s", quote(raw))
	}
	r := &Retrieved{Items: make([]Item, 0, len(elems))}
	for i, e := range elems {
		it, err := parseItem(e, "items["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		r.Items = append(r.Items, it)
	}
	if c, ok := m["context"]; ok && !isNull(c) {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return nil, bad("context", "want a string or null, got %s", quote(c))
		}
		r.Context = &s
	}
	if r.Usage, err = ParseUsage(m); err != nil {
		return nil, err
	}
	return r, nil
}

func parseItem(raw json.RawMessage, field string) (Item, error) {
	m, err := object(raw, field)
	if err != nil {
		return Item{}, err
	}
	var it Item
	str := func(key string, required bool) (string, error) {
		v, ok := m[key]
		if !ok || isNull(v) {
			if required {
				return "", bad(field+"."+key, "missing (want a string)")
			}
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", bad(field+"."+key, "want a string, got %s", quote(v))
		}
		return s, nil
	}
	if it.ID, err = str("id", true); err != nil {
		return it, err
	}
	if it.ID == "" {
		return it, bad(field+".id", "empty (want a non-empty string)")
	}
	if it.Text, err = str("text", true); err != nil {
		return it, err
	}
	if it.Speaker, err = str("speaker", false); err != nil {
		return it, err
	}
	ts, err := str("time", false)
	if err != nil {
		return it, err
	}
	if ts != "" {
		if it.Time, err = time.Parse(time.RFC3339, ts); err != nil {
			return it, bad(field+".time", "%q is not an RFC 3339 time (e.g. 2023-05-08T13:56:00Z) or null", ts)
		}
	}
	if v, ok := m["sources"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &it.Sources); err != nil {
			return it, bad(field+".sources", "want an array of turn ids (strings), got %s", quote(v))
		}
	}
	if v, ok := m["score"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &it.Score); err != nil {
			return it, bad(field+".score", "want a number, got %s", quote(v))
		}
	}
	return it, nil
}

// quote shows a body or value on one line, cut to 200 bytes.
func quote(b []byte) string {
	return strconv.Quote(clip.To(string(bytes.TrimSpace(b)), 200))
}
