package structmem

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/membench/membench/llm"
)

// Answer shapes, quoted in the repair instruction.
const (
	entriesShape = `{"entries": [{"utterance": "<utterance id>", "text": "<entry>"}]}`
	linksShape   = `{"links": [{"text": "<synthesis>", "times": ["<timestamp>", "<timestamp>"], "dependency": "<dependency>"}]}`
)

// errMalformed marks answers worth one repair retry.
var errMalformed = errors.New("malformed answer")

// decodeList reads either {"<key>": [...]} or a bare list [...].
func decodeList(raw, key string, out any) error {
	s := llm.ExtractJSON(raw)
	if s == "" {
		return fmt.Errorf("%w: empty answer", errMalformed)
	}
	if s[0] == '[' {
		if err := json.Unmarshal([]byte(s), out); err != nil {
			return fmt.Errorf("%w: %v", errMalformed, err)
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	v, ok := obj[key]
	if !ok {
		return fmt.Errorf("%w: no %q list in the JSON object", errMalformed, key)
	}
	if err := json.Unmarshal(v, out); err != nil {
		return fmt.Errorf("%w: %q is not a list of objects: %v", errMalformed, key, err)
	}
	return nil
}

// parseEntries decodes an extraction answer.
func parseEntries(raw string) ([]extracted, error) {
	var xs []extracted
	if err := decodeList(raw, "entries", &xs); err != nil {
		return nil, err
	}
	return xs, nil
}

// parseLinks decodes a consolidation answer.
func parseLinks(raw string) ([]Link, error) {
	var ls []Link
	if err := decodeList(raw, "links", &ls); err != nil {
		return nil, err
	}
	for i := range ls {
		ls[i].Reason = ""
	}
	return ls, nil
}
