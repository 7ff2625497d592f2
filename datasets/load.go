package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultTurnStep spaces turns inside a session when LoadOptions leaves it 0.
const DefaultTurnStep = 30 * time.Second

// LoadOptions tune how a file becomes the model.
type LoadOptions struct {
	// TurnStep is added per turn index to the session time, giving every
	// utterance its own timestamp (0 means DefaultTurnStep).
	TurnStep time.Duration
	// Home is membench's home directory (MEMBENCH_HOME, read by the command
	// line); with no path, the fetched file is looked for under it. "" =
	// ~/.cache/membench.
	Home string
	// Conversations and Limit filter while a LongMemEval file streams in
	// (the other loaders leave them to Dataset.Filter): items not named,
	// or past the first Limit questions, are never kept.
	Conversations []string
	Limit         int
	// Lazy keeps LongMemEval haystacks on disk: the loaded conversations
	// hold their questions (with evidence) but no sessions, and
	// Dataset.Hydrate reads one item back when it is needed, so memory
	// does not grow with the number of questions.
	Lazy bool
	// MaxBytes caps how much of the file is read (0 = DefaultMaxBytes):
	// a larger file is refused, naming MaxBytesFlag.
	MaxBytes int64
	// Seed drives a dataset's seeded choices (LoCoMo-Plus: the base
	// conversation of each item); 0 = the dataset's default.
	Seed int
	// BaseData is the file a stitched dataset takes its base conversations
	// from ("" = the installed copy of the base dataset).
	BaseData string
}

func (o LoadOptions) Step() time.Duration {
	if o.TurnStep <= 0 {
		return DefaultTurnStep
	}
	return o.TurnStep
}

// Load loads a registered dataset by name. An empty path means the
// installed copy of the dataset's default file (DefaultPath); an embedded
// dataset takes no path. The questions come marked from the dataset's
// spec: their group, and abstention for abstaining groups.
func Load(name, path string, opt LoadOptions) (*Dataset, error) {
	if opt.TurnStep < 0 {
		return nil, Bad("turn step %s is negative; give a duration such as 30s", opt.TurnStep)
	}
	s, err := Lookup(name)
	if err != nil {
		if e, ok := File(name); ok && e.Key {
			return nil, Bad("%q is an answer key of dataset %s, not a dataset; run with --dataset %s --answer-key audited", name, e.Loader, e.Loader)
		}
		if e, ok := File(name); ok && e.Loader != name {
			// Registry names are for `datasets fetch`; the loader reads
			// every variant under its own name plus the file.
			return nil, Bad("dataset %q is a registry name for `membench datasets fetch`; run it with --dataset %s --data %s", name, e.Loader, filepath.Join(DefaultDir(opt.Home), e.File))
		}
		return nil, &InputError{Err: err}
	}
	switch {
	case s.Embedded && path != "":
		return nil, Bad("dataset %s is embedded and takes no file (got %q); drop --data, or name the file's dataset with --dataset (known: %s)", name, path, strings.Join(Names(), ", "))
	case !s.Embedded && path == "" && s.DefaultFile == "":
		return nil, Bad("dataset %s has no installed default; pass its file with --data FILE", name)
	case !s.Embedded && path == "":
		path = DefaultPath(opt.Home, name)
		if _, err := os.Stat(path); err != nil {
			if e, _ := File(s.DefaultFile); e.URL == "" {
				return nil, Bad("dataset %s is not installed at %s; register your copy with `membench datasets add %s FILE` or pass --data FILE", name, path, s.DefaultFile)
			}
			return nil, Bad("dataset %s is not installed at %s; run `membench datasets fetch %s` or pass --data FILE", name, path, s.DefaultFile)
		}
	}
	ds, err := s.Load(path, opt)
	if err != nil {
		return nil, err
	}
	if err := s.mark(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// DefaultDir is where fetched files live: HOME/datasets for membench's home
// directory (MEMBENCH_HOME, passed in by the command line), else
// ~/.cache/membench/datasets.
func DefaultDir(home string) string {
	if home != "" {
		return filepath.Join(home, "datasets")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(".cache", "membench", "datasets")
	}
	return filepath.Join(home, ".cache", "membench", "datasets")
}

// DefaultPath is the fetched location of a dataset. It accepts registry
// names ("longmemeval-oracle") and dataset names (a dataset's DefaultFile:
// "longmemeval" means the S file); unknown names get a path under
// DefaultDir(home) named after them.
func DefaultPath(home, name string) string {
	if s, err := Lookup(name); err == nil && s.DefaultFile != "" {
		name = s.DefaultFile
	}
	if e, ok := File(name); ok {
		return filepath.Join(DefaultDir(home), e.File)
	}
	return filepath.Join(DefaultDir(home), name+".json")
}

// Filter returns a copy holding only the named conversations (all when
// convIDs is empty), in dataset order, and at most limitQuestions questions
// in total (0 = no limit). Conversations the limit leaves without questions
// are dropped, since replaying them would cost time and answer nothing.
// The receiver is not changed; sessions are shared with it.
func (d *Dataset) Filter(convIDs []string, limitQuestions int) (*Dataset, error) {
	if limitQuestions < 0 {
		return nil, Bad("question limit %d is negative; use 0 for no limit", limitQuestions)
	}
	want := map[string]bool{}
	for _, id := range convIDs {
		if id = strings.TrimSpace(id); id != "" {
			want[id] = true
		}
	}
	var unknown []string
	for id := range want {
		if !slices.ContainsFunc(d.Conversations, func(c *Conversation) bool { return c.ID == id }) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, Bad("dataset %s has no conversation %s (it has: %s)", d.Name, strings.Join(unknown, ", "), convList(d))
	}
	out := &Dataset{Name: d.Name, Source: d.Source, SHA256: d.SHA256, Groups: d.Groups, Synthetic: d.Synthetic}
	left := limitQuestions
	for _, c := range d.Conversations {
		if len(want) > 0 && !want[c.ID] {
			continue
		}
		cc := *c
		if limitQuestions > 0 {
			if left <= 0 {
				break
			}
			if len(cc.Questions) > left {
				cc.Questions = cc.Questions[:left]
			}
			left -= len(cc.Questions)
			if len(cc.Questions) == 0 {
				continue
			}
		}
		out.Conversations = append(out.Conversations, &cc)
	}
	return out, nil
}

// convList names a few conversation ids for error messages.
func convList(d *Dataset) string {
	var ids []string
	for i, c := range d.Conversations {
		if i == 8 {
			ids = append(ids, fmt.Sprintf("… %d more", len(d.Conversations)-i))
			break
		}
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, ", ")
}

// JSONErr makes decoder errors say where in the file they happened.
func JSONErr(file string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && data != nil {
		line := 1 + strings.Count(string(data[:min(int(se.Offset), len(data))]), "\n")
		return Bad("%s: malformed JSON at line %d: %v; fix the file or re-fetch it with `membench datasets fetch`", file, line, se)
	}
	return Bad("%s: malformed JSON: %v; fix the file or re-fetch it with `membench datasets fetch`", file, err)
}
