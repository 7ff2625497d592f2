package datasets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench/internal/registry"
)

// Spec is a dataset membench loads by name. A dataset registers itself
// from its package's init (Register); the command line links it in with a
// blank import in datasets/all.
type Spec struct {
	// Name is what --dataset takes.
	Name string
	// Load reads the dataset from path: the file given with --data, else
	// the installed copy of DefaultFile; "" for an Embedded dataset. The
	// questions it returns carry their Group; Load (the package function)
	// marks those of abstaining groups.
	Load func(path string, opt LoadOptions) (*Dataset, error)
	// Fetch are the files `membench datasets fetch` installs for this
	// dataset (their Loader is Name).
	Fetch []Entry
	// DefaultFile names the Fetch entry read when no file is given; ""
	// means the user must pass --data (unless Embedded).
	DefaultFile string
	// Embedded datasets are built into the binary and take no file.
	Embedded bool
	// Groups are the dataset's question groups in the order summaries and
	// tables show them.
	Groups []GroupSpec
	// AnswerKeys: the dataset's gold answers can be replaced by an answer
	// key (--answer-key, package answerkey) and its image-dependent
	// questions left out (--exclude-image-questions, package imagemarks).
	AnswerKeys bool
	// Shape says what the dataset's file is ("a LoCoMo file is a JSON list
	// of samples ..."), and List what its top-level list holds ("sample
	// list"), for the messages that refuse a file being fetched or added.
	Shape, List string
	// Base names the dataset a stitched dataset takes its conversations
	// from ("" for none). A stitched dataset's files list after those of
	// the datasets that stand alone, whatever order the packages
	// registered in.
	Base string
	// Default marks the dataset a run takes when none is named (one
	// registered dataset at most).
	Default bool
}

// GroupSpec is one group of a dataset's questions, a row of the summary.
type GroupSpec struct {
	Name string `json:"name"`
	// Abstains marks a group whose right answer is to decline: it is
	// scored apart and left out of the overall score, as the papers do.
	Abstains bool `json:"abstains,omitempty"`
	// JudgePrompt names the built-in judge prompt the group's questions
	// are judged with (judge.BuiltinPrompts, e.g. "cognitive"); "" leaves
	// each judge its own.
	JudgePrompt string `json:"judge_prompt,omitempty"`
}

// JudgePrompt is the judge prompt q's group asks for ("" = the judges' own).
func (d *Dataset) JudgePrompt(q *Question) string {
	g, _ := Spec{Groups: d.Groups}.Group(q.Group)
	return g.JudgePrompt
}

var registered = registry.New[Spec]("dataset")

// standalone counts the Registry entries of datasets without a Base.
var standalone int

// Register adds a dataset; it panics on a malformed spec or a name taken,
// as a program that registers one is wrong at build time, not at run time.
func Register(s Spec) {
	if s.Name == "" || s.Load == nil {
		panic("datasets.Register: a spec needs a Name and a Load")
	}
	if len(s.Groups) == 0 {
		panic(fmt.Sprintf("datasets.Register(%s): list the question groups (one is enough)", s.Name))
	}
	for i, g := range s.Groups {
		if g.Name == "" || slices.IndexFunc(s.Groups, func(o GroupSpec) bool { return o.Name == g.Name }) < i {
			panic(fmt.Sprintf("datasets.Register(%s): group name %q is empty or repeated", s.Name, g.Name))
		}
	}
	fetch := make([]Entry, len(s.Fetch))
	hasDefault := s.DefaultFile == ""
	for i, e := range s.Fetch {
		if _, taken := File(e.Name); taken || e.Name == "" || e.File == "" {
			panic(fmt.Sprintf("datasets.Register(%s): fetch entry %q has no name or file, or its name is taken", s.Name, e.Name))
		}
		if e.Loader == "" {
			e.Loader = s.Name
		}
		if e.Loader != s.Name {
			panic(fmt.Sprintf("datasets.Register(%s): fetch entry %s names loader %s", s.Name, e.Name, e.Loader))
		}
		hasDefault = hasDefault || e.Name == s.DefaultFile
		fetch[i] = e
	}
	if !hasDefault {
		panic(fmt.Sprintf("datasets.Register(%s): DefaultFile %q is not one of its Fetch entries", s.Name, s.DefaultFile))
	}
	s.Fetch, s.Groups = fetch, append([]GroupSpec(nil), s.Groups...)
	if s.Default && Default() != "" {
		panic(fmt.Sprintf("datasets.Register(%s): %s is the default dataset already", s.Name, Default()))
	}
	registered.Register(s.Name, nil, s) // panics on a name taken
	if s.Base == "" {
		Registry = slices.Insert(Registry, standalone, fetch...)
		standalone += len(fetch)
	} else {
		Registry = append(Registry, fetch...)
	}
}

// Lookup returns the spec of a dataset name.
func Lookup(name string) (Spec, error) { return registered.Lookup(name) }

// Names lists the registered dataset names (what Load accepts), sorted.
func Names() []string { return registered.Names() }

// Default is the name of the dataset a run takes when none is named ("" when
// no registered dataset is the default).
func Default() string {
	for _, s := range registered.Values() {
		if s.Default {
			return s.Name
		}
	}
	return ""
}

// KeyID names the answer key a run on dataset was judged under, for
// comparisons: applied ("NAME sha256:HEX") when the run applied one, else
// "published" (the dataset's own gold answers) for a dataset that takes
// keys, else "".
func KeyID(dataset, applied string) string {
	switch {
	case applied != "":
		return applied
	case HasAnswerKeys(dataset):
		return "published"
	}
	return ""
}

// HasAnswerKeys says whether the dataset name takes answer keys and image
// marks (Spec.AnswerKeys); an unknown name does not.
func HasAnswerKeys(name string) bool {
	s, err := Lookup(name)
	return err == nil && s.AnswerKeys
}

// KeyedNames lists, sorted, the datasets that take answer keys, for the
// error that refuses one elsewhere.
func KeyedNames() string {
	var out []string
	for _, s := range registered.Values() {
		if s.AnswerKeys {
			out = append(out, s.Name)
		}
	}
	return strings.Join(out, ", ")
}

// Group returns the spec of one of the dataset's groups.
func (s Spec) Group(name string) (GroupSpec, bool) {
	for _, g := range s.Groups {
		if g.Name == name {
			return g, true
		}
	}
	return GroupSpec{}, false
}

// mark sets each question's abstention flag from its group, so the flag a
// run records is the spec's; a group the spec does not list keeps the
// loader's flag. A question without a group is the loader's mistake.
func (s Spec) mark(ds *Dataset) error {
	ds.Groups = s.Groups
	ds.Synthetic = IsSynthetic(ds)
	for _, c := range ds.Conversations {
		for _, q := range c.Questions {
			if q.Group == "" {
				return fmt.Errorf("dataset %s: its loader gave question %s no group (a bug in the dataset's package)", s.Name, q.ID)
			}
			if g, ok := s.Group(q.Group); ok && g.Abstains {
				q.Abstention = true
			}
		}
	}
	return nil
}
