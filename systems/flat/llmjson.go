package flat

import (
	"encoding/json"
	"fmt"
	"strconv"
)

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
