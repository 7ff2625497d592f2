package membench

import (
	"slices"
	"strings"
)

// PaperPrompts is a paper config's pin of the prompts its authors used
// (paper_prompts: in the YAML): for each prompt, the sha256 of the file a
// user must bring (the authors' text saved byte for byte, docs/prompts.md
// says how) and where that text is. membench ships none of their text, so
// a run given no file uses membench's own prompts and says so beside every
// figure; a run given another file is refused unless
// --allow-prompt-mismatch, which labels every figure instead.
type PaperPrompts struct {
	// Paper names the paper and the code its prompts come from.
	Paper  string      `yaml:"paper" json:"paper"`
	Answer []PromptPin `yaml:"answer" json:"answer,omitempty"`
	Judge  []PromptPin `yaml:"judge" json:"judge,omitempty"`
}

// PromptPin is one pinned prompt.
type PromptPin struct {
	// Systems are the systems an answer pin applies to (the authors used
	// another answer prompt for runs without syntheses); none = every one.
	Systems []string `yaml:"systems" json:"systems,omitempty"`
	// Judge is the name of the judge a judge pin applies to (the judge
	// whose prompt= must be the authors' file).
	Judge string `yaml:"judge" json:"judge,omitempty"`
	// SHA256 is the authors' file's; "" when it is not known, and then a
	// file given is run but labelled not verified.
	SHA256 string `yaml:"sha256" json:"sha256"`
	// File says where the authors' text is: repository, path, the name in
	// the code, commit.
	File string `yaml:"file" json:"file"`
}

// AnswerPin is the answer pin that applies to system; nil when none does.
func (p *PaperPrompts) AnswerPin(system string) *PromptPin {
	if p == nil {
		return nil
	}
	for i, pin := range p.Answer {
		if len(pin.Systems) == 0 || slices.Contains(pin.Systems, system) {
			return &p.Answer[i]
		}
	}
	return nil
}

// How a run's prompts stand against the paper's (PromptCheck.Status),
// from best to worst.
const (
	PromptsPaper      = "paper"      // every pinned prompt given, with the pinned sha256
	PromptsOwn        = "own"        // some prompt is membench's own
	PromptsUnverified = "unverified" // a file was given whose pinned sha256 is not known
	PromptsMismatch   = "mismatch"   // a file with another sha256, run under --allow-prompt-mismatch
)

var promptRank = map[string]int{PromptsPaper: 0, PromptsOwn: 1, PromptsUnverified: 2, PromptsMismatch: 3}

// Labels every figure of a run carries, by status.
const (
	OwnPromptsLabel        = "membench's own prompts, not the paper's"
	UnverifiedPromptsLabel = "prompts not verified as the paper's (sha256 unknown)"
	MismatchPromptsLabel   = "PROMPT MISMATCH: not the paper's prompts (--allow-prompt-mismatch)"
)

// PromptCheck is how a run's prompts stand against its config's pins, as
// the manifest records it (paper_prompts).
type PromptCheck struct {
	Paper   string          `json:"paper"`
	Status  string          `json:"status"`
	Prompts []PromptVerdict `json:"prompts"`
}

// PromptVerdict is one pinned prompt of a run.
type PromptVerdict struct {
	Prompt string `json:"prompt"` // "answer" or "judge NAME"
	Status string `json:"status"`
	File   string `json:"file,omitempty"`   // the file given ("" = membench's own prompt)
	SHA256 string `json:"sha256,omitempty"` // its sha256
	Pinned string `json:"pinned,omitempty"` // the authors' file's sha256 ("" = not known)
	Source string `json:"source,omitempty"` // where the authors' text is
}

// Add records one prompt's verdict and makes the run's status the worst
// so far.
func (c *PromptCheck) Add(v PromptVerdict) {
	c.Prompts = append(c.Prompts, v)
	if c.Status == "" || promptRank[v.Status] > promptRank[c.Status] {
		c.Status = v.Status
	}
}

// Label is what every figure of the run carries: "" when the paper's
// prompts ran (or the run pins none).
func (c *PromptCheck) Label() string {
	if c == nil {
		return ""
	}
	return promptLabels[c.Status]
}

// promptLabels are the labels of the statuses that get one.
var promptLabels = map[string]string{PromptsOwn: OwnPromptsLabel, PromptsUnverified: UnverifiedPromptsLabel, PromptsMismatch: MismatchPromptsLabel}

// Note says, for a run not on the paper's prompts, which prompts are not
// the paper's and why; "" otherwise.
func (c *PromptCheck) Note() string {
	if c.Label() == "" {
		return ""
	}
	var parts []string
	for _, v := range c.Prompts {
		switch v.Status {
		case PromptsOwn:
			if v.Pinned == "" && v.Source == "" {
				parts = append(parts, v.Prompt+": membench's own (the paper's is not known for it)")
			} else {
				parts = append(parts, v.Prompt+": membench's own (no file given)")
			}
		case PromptsUnverified:
			parts = append(parts, v.Prompt+": "+v.File+" (the paper's sha256 is not known)")
		case PromptsMismatch:
			parts = append(parts, v.Prompt+": "+v.File+" sha256 "+short(v.SHA256)+", not the paper's "+short(v.Pinned))
		}
	}
	return "PROMPTS: " + c.Label() + " (" + c.Paper + "): " + strings.Join(parts, "; ") + "; docs/prompts.md says how to bring the paper's files"
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
