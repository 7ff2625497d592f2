package structmem

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/membench/membench/llm"
)

// Answer shapes, quoted in the repair instruction.
const (
	entriesShape                = `{"entries": [{"utterance": "<utterance id>", "text": "<entry>"}]}`
	narrativeShape              = `{"narrative": "<200-350 words, citing [timestamps]>", "times": ["<timestamp>", "<timestamp>"]}`
	narrativeShapeUnconstrained = `{"narrative": "<200-350 words>"}`
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

// citePattern finds timestamps written inside a narrative.
var citePattern = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?`)

// parseNarrative decodes a consolidation answer: {"narrative": ..., "times":
// [...]}. Its citations are the
// listed times plus the timestamps written in the text, in order, once each.
func parseNarrative(raw string) (narrative, []string, error) {
	var n narrative
	s := llm.ExtractJSON(raw)
	if s == "" {
		return n, nil, fmt.Errorf("%w: empty answer", errMalformed)
	}
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		return n, nil, fmt.Errorf("%w: %v", errMalformed, err)
	}
	n.Narrative = strings.TrimSpace(n.Narrative)
	if n.Narrative == "" {
		return n, nil, fmt.Errorf("%w: no \"narrative\" text", errMalformed)
	}
	var cites []string
	for _, c := range slices.Concat(n.Times, citePattern.FindAllString(n.Narrative, -1)) {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(cites, c) {
			cites = append(cites, c)
		}
	}
	return n, cites, nil
}
