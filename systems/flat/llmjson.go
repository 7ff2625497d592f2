package flat

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/membench/membench/llm"
)

// Call is what one logical JSON request cost: every chat request made
// (the first one plus a repair retry, if any) is one call in the counts.
type Call struct {
	Calls  int
	Tokens int // input+output tokens over all requests
}

// CallOf counts an llm.ChatJSON reply.
func CallOf(r llm.JSONReply) Call { return Call{Calls: r.Calls, Tokens: r.Tokens} }

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
