package flat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/membench/membench/llm"
)

// ErrMalformed marks a reply that stayed unparseable after the repair retry.
// Callers count it as a failed step and go on; any other error (network,
// cancelled context) stops the build.
var ErrMalformed = errors.New("malformed JSON reply")

// Call is the outcome of one logical JSON request: every chat request made
// (the first one plus a repair retry, if any) is one call in the counts.
type Call struct {
	Calls  int
	Tokens int // input+output tokens over all requests
}

// ChatJSON sends req (JSON mode) and decodes the reply into out. On a reply
// that does not decode, it asks once more with the bad reply and a repair
// instruction appended; if that fails too it returns ErrMalformed.
func ChatJSON(ctx context.Context, m llm.Model, req llm.Request, out any) (Call, error) {
	req.JSON = true
	var c Call
	resp, err := m.Chat(ctx, req)
	if err != nil {
		return c, err
	}
	c.Calls++
	c.Tokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
	perr := DecodeJSON(resp.Text, out)
	if perr == nil {
		return c, nil
	}
	retry := req
	retry.Messages = append(append([]llm.Message{}, req.Messages...),
		llm.Message{Role: "assistant", Content: resp.Text},
		llm.Message{Role: "user", Content: "That reply was not valid JSON of the requested shape (" + perr.Error() + "). Reply again with only the JSON object, no prose and no code fence."})
	retry.Label = req.Label + "_repair"
	resp, err = m.Chat(ctx, retry)
	if err != nil {
		return c, err
	}
	c.Calls++
	c.Tokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
	if perr := DecodeJSON(resp.Text, out); perr != nil {
		return c, fmt.Errorf("%w: task %s: %v", ErrMalformed, req.Task, perr)
	}
	return c, nil
}

// DecodeJSON reads the first JSON object in text, tolerating a code fence or
// prose around it (small models add them even in JSON mode).
func DecodeJSON(text string, out any) error {
	s := strings.TrimSpace(text)
	if i := strings.IndexAny(s, "{["); i > 0 {
		s = s[i:]
	}
	if j := strings.LastIndexAny(s, "}]"); j >= 0 && j < len(s)-1 {
		s = s[:j+1]
	}
	if s == "" {
		return errors.New("empty reply")
	}
	return json.Unmarshal([]byte(s), out)
}

// FlexString decodes a JSON string, number or {"id": ...} object as a
// string, since models write ids as "3", 3 or {"id": "3"} interchangeably.
type FlexString string

func (f *FlexString) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*f = ""
	case string:
		*f = FlexString(x)
	case float64:
		*f = FlexString(strconv.FormatFloat(x, 'f', -1, 64))
	case map[string]any:
		if id, ok := x["id"]; ok {
			return f.UnmarshalJSON(mustJSON(id))
		}
		return fmt.Errorf("object without an id: %s", b)
	default:
		return fmt.Errorf("want a string or number, got %s", b)
	}
	return nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
