package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/clip"
)

// ErrMalformed marks a reply that stayed unparseable after the repair
// retry (errors.Is on a *ParseError). Callers count it as a failed step and
// go on; any other error from ChatJSON (network, cancelled context) is a
// broken setup.
var ErrMalformed = errors.New("malformed JSON reply")

// ParseError is a JSON reply that did not decode even after the repair
// retry. It keeps both raw replies so callers can record what the model said.
type ParseError struct {
	Task, Label    string
	Raw, RepairRaw string // the first reply and the reply to the repair request
	Err            error  // the last decode problem
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("task %s (label %s): reply still not valid JSON after one repair retry: %v; last reply %q", e.Task, e.Label, e.Err, clip.To(e.RepairRaw, 200))
}

func (e *ParseError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformed) true for every parse failure.
func (e *ParseError) Is(target error) bool { return target == ErrMalformed }

// JSONReply is what one logical JSON request cost and saw: the first chat
// request plus, if needed, one repair request. Each request is one call in
// the counts (as the StructMem paper's Table 2 counts calls).
type JSONReply struct {
	Raw       string // the first reply
	RepairRaw string // the reply to the repair request, "" without one
	Calls     int
	Tokens    int // input+output tokens over all requests
}

// Repaired reports whether a repair request was answered.
func (r JSONReply) Repaired() bool { return r.Calls > 1 }

// JSONOption changes how ChatJSON decodes or repairs.
type JSONOption func(*jsonOpts)

type jsonOpts struct {
	decode      func(raw string) error
	instruct    func(problem error) ([]membench.Message, error)
	repairLabel string
}

// DecodeWith replaces decoding into out: f reads the whole reply text and
// returns an error when the reply is malformed, which earns the repair
// retry. out may then be nil.
func DecodeWith(f func(raw string) error) JSONOption {
	return func(o *jsonOpts) { o.decode = f }
}

// RepairWith replaces the repair instruction (the messages appended after
// the bad reply) and the repair request's meter label.
func RepairWith(label string, instruct func(problem error) ([]membench.Message, error)) JSONOption {
	return func(o *jsonOpts) { o.instruct, o.repairLabel = instruct, label }
}

// RepairInstruction is the default repair message: it names the decode
// problem and asks for bare JSON.
func RepairInstruction(problem error) ([]membench.Message, error) {
	return []membench.Message{{Role: "user", Content: "That reply was not valid JSON of the requested shape (" + problem.Error() + "). Reply again with only the JSON object, no prose and no code fence."}}, nil
}

// ChatJSON sends req in JSON mode and decodes the reply into out (see
// DecodeJSON). On a reply that does not decode it asks once more, with the
// bad reply and a repair instruction appended (label req.Label+"_repair"
// unless RepairWith says otherwise); if that fails too it returns a
// *ParseError (errors.Is ErrMalformed). Replies that do not decode are
// kept out of the cache (Request.Accept). Transport errors are returned as
// they are, with the counts of the requests that were answered.
func ChatJSON(ctx context.Context, m Model, req Request, out any, opts ...JSONOption) (JSONReply, error) {
	o := jsonOpts{instruct: RepairInstruction, repairLabel: req.Label + "_repair"}
	for _, f := range opts {
		f(&o)
	}
	decode := o.decode
	if decode == nil {
		decode = func(raw string) error { return DecodeJSON(raw, out) }
	}
	req.JSON = true
	if req.Accept == nil {
		// A reply that does not decode is never cached, so a rerun after
		// the server is fixed asks again instead of replaying the failure.
		req.Accept = decode
	}
	var r JSONReply
	ask := func(req Request) (string, error) {
		resp, err := m.Chat(ctx, req)
		if err != nil {
			return "", err // the counts are of answered requests only
		}
		r.Calls++
		r.Tokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
		return resp.Text, nil
	}
	var err error
	if r.Raw, err = ask(req); err != nil {
		return r, err
	}
	perr := decode(r.Raw)
	if perr == nil {
		return r, nil
	}
	fix, err := o.instruct(perr)
	if err != nil {
		return r, err
	}
	retry := req
	retry.Messages = append(append(append([]membench.Message{}, req.Messages...), membench.Message{Role: "assistant", Content: r.Raw}), fix...)
	retry.Label = o.repairLabel
	if r.RepairRaw, err = ask(retry); err != nil {
		return r, err
	}
	if perr := decode(r.RepairRaw); perr != nil {
		return r, &ParseError{Task: req.Task, Label: req.Label, Raw: r.Raw, RepairRaw: r.RepairRaw, Err: perr}
	}
	return r, nil
}

// DecodeJSON decodes the JSON value in a model reply (see ExtractJSON) into
// out.
func DecodeJSON(text string, out any) error {
	s := ExtractJSON(text)
	if s == "" {
		return errors.New("empty reply")
	}
	return json.Unmarshal([]byte(s), out)
}

// ExtractJSON returns the JSON object or array in a model reply, without
// the code fence or prose that small models add even in JSON mode: the text
// from the first '{' or '[' to the last '}' or ']' when that is valid JSON,
// else the first complete value in the text (prose with brackets before it,
// or a second value after it). When nothing decodes it returns that first
// cut, so the caller's decode error describes the broken reply; "" means an
// empty reply.
func ExtractJSON(text string) string {
	s := strings.TrimSpace(text)
	body := s
	if i := strings.IndexAny(body, "{["); i > 0 {
		body = body[i:]
	}
	if j := strings.LastIndexAny(body, "}]"); j >= 0 && j < len(body)-1 {
		body = body[:j+1]
	}
	if body == "" || json.Valid([]byte(body)) {
		return body
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		var v json.RawMessage
		// A Decoder stops at the end of the first value and ignores what follows.
		if json.NewDecoder(strings.NewReader(s[i:])).Decode(&v) == nil {
			return string(v)
		}
	}
	return body
}
