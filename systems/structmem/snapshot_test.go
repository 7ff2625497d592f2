package structmem

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/membench/membench/internal/jsonl"
)

// ReadJSONL reads what WriteJSONL wrote, one Snapshot per conversation in
// file order, so a test can check the dump reads back whole (the audits
// read their part of it themselves).
func ReadJSONL(r io.Reader) ([]Snapshot, error) {
	var out []Snapshot
	idx := map[string]int{}
	// Lines of any length: one entry's source text has no size limit.
	err := jsonl.Each(r, func(line int, b []byte, _ bool) error {
		if len(b) == 0 {
			return nil
		}
		var head struct {
			Type string `json:"type"`
			Conv string `json:"conversation_id"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return fmt.Errorf("structmem memory dump line %d: %w", line, err)
		}
		i, ok := idx[head.Conv]
		if !ok {
			i = len(out)
			idx[head.Conv] = i
			out = append(out, Snapshot{ConversationID: head.Conv})
		}
		s := &out[i]
		var err error
		switch head.Type {
		case RecMeta:
			var m metaRec
			err = json.Unmarshal(b, &m)
			s.System, s.Config, s.Speakers, s.Counts = m.System, m.Config, m.Speakers, m.Counts
		case RecEntry:
			var e Entry
			err = json.Unmarshal(b, &e)
			s.Entries = append(s.Entries, e)
		case RecSynthesis:
			var y Synthesis
			err = json.Unmarshal(b, &y)
			s.Syntheses = append(s.Syntheses, y)
		case RecWindow:
			var w WindowRecord
			err = json.Unmarshal(b, &w)
			s.Windows = append(s.Windows, w)
		case RecFailure:
			var f Failure
			err = json.Unmarshal(b, &f)
			s.Failures = append(s.Failures, f)
		default:
			err = fmt.Errorf("unknown record type %q (want meta, entry, synthesis, window or failure)", head.Type)
		}
		if err != nil {
			return fmt.Errorf("structmem memory dump line %d: %w", line, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
