package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/jsonl"
	"github.com/membench/membench/runlog"
)

// Record is one verdict line of audit_extraction.jsonl or audit_links.jsonl:
// one item (entry or synthesis link) × one judge.
type Record struct {
	ConversationID string `json:"conversation_id"`
	ItemID         string `json:"item_id"` // entry id or synthesis id
	Judge          string `json:"judge"`
	Model          string `json:"model"` // backend:model of the judge
	// Config is the synthesis configuration of a link (constrained or
	// unconstrained); empty for entries.
	Config    string `json:"config,omitempty"`
	Supported bool   `json:"supported"`
	Reason    string `json:"reason,omitempty"`
	// Unparsed marks a reply with no verdict; it is left out of the rates.
	Unparsed bool   `json:"unparsed,omitempty"`
	Raw      string `json:"raw,omitempty"`
}

func (r Record) key() string { return recKey(r.ConversationID, r.ItemID, r.Judge, r.Model) }

func recKey(conv, item, judge, model string) string {
	return conv + "\x00" + item + "\x00" + judge + "\x00" + model
}

// InputError is a problem with the run directory or its files (the
// caller's input), as opposed to a failing model. It wraps a badinput
// error, so the CLI exits 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(format string, a ...any) error {
	return &InputError{badinput.Errorf(format, a...)}
}

// memory is one conversation of a run's memory dump (runlog.MemoryFile,
// written by structmem): the part the audits judge. The file is the
// contract, so the audits need nothing of the system that wrote it.
type memory struct {
	ConversationID string
	Speakers       []string
	Entries        []memEntry
	Syntheses      []memLink
}

// memEntry is an entry record of the dump, the fields an audit reads.
type memEntry struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"`
	Text       string    `json:"text"`
	Time       time.Time `json:"time"`
	Speaker    string    `json:"speaker"`
	SourceText string    `json:"source_text"`
	Event      string    `json:"event"`
}

// memLink is a synthesis record of the dump, the fields an audit reads.
type memLink struct {
	ID             string   `json:"id"`
	Text           string   `json:"text"`
	Dependency     string   `json:"dependency"`
	CitedEvents    []string `json:"cited_events"`
	CitedEntryIDs  []string `json:"cited_entry_ids"`
	BufferEntryIDs []string `json:"buffer_entry_ids"`
	SeedEntryIDs   []string `json:"seed_entry_ids"`
	Constrained    bool     `json:"constrained"`
}

// loadMemory reads the memory dump of a run directory.
func loadMemory(dir string) ([]memory, error) {
	path := filepath.Join(dir, runlog.MemoryFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, inputErr("%s not found: --run must be a run directory of a system that dumps its memory (membench run --system structmem)", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mems, err := readMemory(f)
	if err != nil {
		return nil, inputErr("%s: %w", path, err)
	}
	if len(mems) == 0 {
		return nil, inputErr("%s is empty: the run dumped no memory; audits need a structmem run (membench run --system structmem), and an interrupted one finishes when re-run", path)
	}
	return mems, nil
}

// readMemory reads the dump's records (one JSON object a line, each with
// its type and conversation), one memory per conversation in file order.
func readMemory(r io.Reader) ([]memory, error) {
	var out []memory
	idx := map[string]int{}
	// Lines of any length: one entry's source text has no size limit.
	err := jsonl.Each(r, func(line int, b []byte, _ bool) error {
		if len(b) == 0 {
			return nil
		}
		var head struct {
			Type     string   `json:"type"`
			Conv     string   `json:"conversation_id"`
			Speakers []string `json:"speakers"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return fmt.Errorf("structmem memory dump line %d: %w", line, err)
		}
		i, ok := idx[head.Conv]
		if !ok {
			i = len(out)
			idx[head.Conv] = i
			out = append(out, memory{ConversationID: head.Conv})
		}
		m := &out[i]
		var err error
		switch head.Type {
		case "meta":
			m.Speakers = head.Speakers
		case "entry":
			var e memEntry
			err = json.Unmarshal(b, &e)
			m.Entries = append(m.Entries, e)
		case "synthesis":
			var y memLink
			err = json.Unmarshal(b, &y)
			m.Syntheses = append(m.Syntheses, y)
		case "window", "failure": // not audited
		default:
			err = fmt.Errorf("unknown record type %q (want meta, entry, synthesis, window or failure)", head.Type)
		}
		if err != nil {
			return fmt.Errorf("structmem memory dump line %d: %w", line, err)
		}
		return nil
	})
	return out, err
}

// store is an append-only verdict file, read once for resuming.
type store struct {
	mu   sync.Mutex
	f    *os.File
	done map[string]Record
}

// openStore reads the records already in path and opens it for appending;
// runlog.OpenAppend first drops a torn last line left by an interrupted
// audit, so only that pair is asked again.
func openStore(path string) (*store, error) {
	f, err := runlog.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	recs, err := runlog.ReadJSONL[Record](path)
	if err != nil {
		f.Close()
		return nil, &InputError{badinput.Wrap(err)}
	}
	s := &store{f: f, done: map[string]Record{}}
	for _, r := range recs {
		s.done[r.key()] = r
	}
	return s, nil
}

func (s *store) get(key string) (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.done[key]
	return r, ok
}

// add appends one record as a single write, so a crash loses at most it.
func (s *store) add(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return err
	}
	s.done[r.key()] = r
	return nil
}

func (s *store) Close() error { return s.f.Close() }
