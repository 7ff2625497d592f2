// Package answerkey holds LoCoMo answer keys other than the published one:
// an audit's list of flagged questions (the locomo-audit errors.json shape)
// read, matched onto a dataset's questions and applied to them. A key
// changes the gold answer of questions whose published answer is wrong,
// the evidence of questions whose citation is wrong, and leaves ambiguous
// questions out of scoring (counted).
package answerkey

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
)

// The key names --answer-key takes besides a file.
const (
	Published = "published" // LoCoMo's own gold answers: no key applied
	Audited   = "audited"   // the registered locomo-audit file
)

// Entry is the registry name of the audited key (`membench datasets add
// locomo-audit FILE`).
const Entry = "locomo-audit"

// Error types of the audit. WrongCitation keeps the answer and fixes the
// evidence; Ambiguous questions have no single right answer and are left
// out; every other type replaces the answer.
const (
	WrongCitation = "WRONG_CITATION"
	Ambiguous     = "AMBIGUOUS"
)

// Flag is one flagged question of a key file.
type Flag struct {
	QuestionID      string   `json:"question_id"` // locomo_<conversation index>_qa<index in its qa list>
	Question        string   `json:"question"`
	GoldenAnswer    string   `json:"golden_answer"` // as published
	Category        int      `json:"category"`
	ErrorType       string   `json:"error_type"`
	CitedEvidence   []string `json:"cited_evidence"`
	CorrectEvidence []string `json:"correct_evidence"`
	CorrectAnswer   string   `json:"correct_answer"`
}

// ChangesAnswer reports whether the flag replaces the published answer
// (the published gold is wrong); ambiguous questions count as wrong gold
// too, since no answer is right by the published key.
func (f Flag) ChangesAnswer() bool { return f.ErrorType != WrongCitation && f.ErrorType != Ambiguous }

// GoldWrong reports whether the published gold answer is wrong (every
// type but a wrong citation): what the published key's ceiling counts.
func (f Flag) GoldWrong() bool { return f.ErrorType != WrongCitation }

// Key is a parsed answer key.
type Key struct {
	Name   string // "audited", or the file's base name
	Source string // the file read
	SHA256 string // of the file's bytes
	Flags  []Flag
}

// ID is how manifests and guards name the key: name and file hash.
func (k *Key) ID() string {
	if k == nil {
		return Published
	}
	return k.Name + " sha256:" + k.SHA256
}

// Label names the key in judge names (membench.KeyedJudge: "llm+audited"):
// its name with characters a judge name may not hold replaced by "-".
func (k *Key) Label() string {
	if k == nil {
		return Published
	}
	b := []byte(k.Name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

var auditID = regexp.MustCompile(`^locomo_(\d+)_qa(\d+)$`)

// shape is the file's shape, for messages.
const shape = `a JSON list of {"question_id": "locomo_0_qa1", "question", "golden_answer", "category", "error_type", "correct_answer", "correct_evidence": [...]}`

// Parse reads a key file's bytes; source names it in messages. Every
// entry needs a question_id of the audit's form, a known error type's
// fields (a correct_answer unless the type is a wrong citation or
// ambiguous; correct_evidence for a wrong citation), and ids are unique.
func Parse(data []byte, source string) (*Key, error) {
	sum := sha256.Sum256(data)
	k := &Key{Name: strings.TrimSuffix(filepath.Base(source), filepath.Ext(source)), Source: source, SHA256: hex.EncodeToString(sum[:])}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, badinput.Errorf("answer key %s: %v; an answer key is %s", source, err, shape)
	}
	seen := map[string]int{}
	for i, r := range raw {
		var e struct {
			Flag
			GoldenAnswer  json.RawMessage `json:"golden_answer"`
			CorrectAnswer json.RawMessage `json:"correct_answer"`
		}
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, badinput.Errorf("answer key %s: entry %d: %v (%s)", source, i, err, shape)
		}
		f := e.Flag
		var err error
		if f.GoldenAnswer, err = datasets.ScalarText(e.GoldenAnswer, "golden_answer"); err == nil {
			f.CorrectAnswer, err = datasets.ScalarText(e.CorrectAnswer, "correct_answer")
		}
		if err != nil {
			return nil, badinput.Errorf("answer key %s: entry %d: %v", source, i, err)
		}
		if !auditID.MatchString(f.QuestionID) {
			return nil, badinput.Errorf("answer key %s: entry %d: question_id %q is not locomo_<conversation index>_qa<question index> (e.g. locomo_0_qa1)", source, i, f.QuestionID)
		}
		if prev, dup := seen[f.QuestionID]; dup {
			return nil, badinput.Errorf("answer key %s: entry %d: question_id %s is already flagged by entry %d; give one entry per question", source, i, f.QuestionID, prev)
		}
		seen[f.QuestionID] = i
		switch {
		case f.ErrorType == "":
			return nil, badinput.Errorf("answer key %s: entry %d (%s): no error_type; give %s, %s or a type that replaces the answer", source, i, f.QuestionID, WrongCitation, Ambiguous)
		case f.ErrorType == WrongCitation && len(locomo.SplitEvidence(f.CorrectEvidence)) == 0:
			return nil, badinput.Errorf("answer key %s: entry %d (%s): %s without correct_evidence; list the right turn ids (e.g. [\"D1:14\"])", source, i, f.QuestionID, WrongCitation)
		case f.ChangesAnswer() && strings.TrimSpace(f.CorrectAnswer) == "":
			return nil, badinput.Errorf("answer key %s: entry %d (%s): error_type %s replaces the answer but correct_answer is empty; give the right answer", source, i, f.QuestionID, f.ErrorType)
		}
		k.Flags = append(k.Flags, f)
	}
	return k, nil
}

// Read reads a key file.
func Read(path string) (*Key, error) {
	b, err := datasets.ReadInputFile(path, fmt.Sprintf("--answer-key: give %s, %s or a key file (%s)", Published, Audited, shape))
	if err != nil {
		return nil, err
	}
	return Parse(b, path)
}

// Open resolves an --answer-key value: "" or published is LoCoMo's own
// key (nil, no error); audited is the registered locomo-audit copy under
// home's dataset directory, checked against its pinned sha256; anything
// else is a key file.
func Open(choice, home string) (*Key, error) {
	switch strings.TrimSpace(choice) {
	case "", Published:
		return nil, nil
	case Audited:
		e, ok := datasets.File(Entry)
		if !ok {
			return nil, fmt.Errorf("the %s entry is not registered (a build without LoCoMo)", Entry)
		}
		path := filepath.Join(datasets.DefaultDir(home), e.File)
		if _, err := os.Stat(path); err != nil {
			return nil, badinput.Errorf("--answer-key audited: the audited key is not installed at %s; register it with `membench datasets add %s PATH/errors.json`", path, Entry)
		}
		if _, err := datasets.Verify(path, e, 0); err != nil {
			return nil, badinput.Errorf("--answer-key audited: %v", err)
		}
		k, err := Read(path)
		if err != nil {
			return nil, err
		}
		k.Name = Audited
		return k, nil
	}
	return Read(choice)
}

// Change is what a key does to one question.
type Change struct {
	Flag
	Gold     string   // the gold answer under the key
	Evidence []string // the evidence under the key
	Excluded bool     // left out of scoring (ambiguous)
}

// Changes are a key matched onto a dataset, by membench question id.
type Changes map[string]Change

// Match finds every flagged question in ds, which must hold the whole
// LoCoMo file in its order (the audit counts conversations by their
// position): conversation i of the id is ds.Conversations[i], question j
// its j-th qa, category 5 included. A flag whose question text or
// category is not the dataset's is refused: the key is for another file.
func (k *Key) Match(ds *datasets.Dataset) (Changes, error) {
	out := Changes{}
	if k == nil {
		return out, nil
	}
	for _, f := range k.Flags {
		m := auditID.FindStringSubmatch(f.QuestionID)
		ci, _ := strconv.Atoi(m[1])
		qi, _ := strconv.Atoi(m[2])
		if ci >= len(ds.Conversations) || qi >= len(ds.Conversations[ci].Questions) {
			return nil, badinput.Errorf("answer key %s: %s names a question the dataset (%s, %d conversations) does not have; the key is for LoCoMo's locomo10.json", k.Source, f.QuestionID, ds.Source, len(ds.Conversations))
		}
		q := ds.Conversations[ci].Questions[qi]
		if strings.TrimSpace(q.Text) != strings.TrimSpace(f.Question) && f.Question != "" {
			return nil, badinput.Errorf("answer key %s: %s is %q in the key but %s (%s) is %q in the dataset; the key is for another file", k.Source, f.QuestionID, f.Question, q.ID, ds.Source, q.Text)
		}
		if f.Category != 0 && f.Category != q.Category {
			return nil, badinput.Errorf("answer key %s: %s has category %d in the key but %d in the dataset (%s)", k.Source, f.QuestionID, f.Category, q.Category, q.ID)
		}
		c := Change{Flag: f, Gold: q.Gold, Evidence: q.Evidence}
		switch {
		case f.ErrorType == Ambiguous:
			c.Excluded = true
		case f.ErrorType == WrongCitation:
			c.Evidence = locomo.SplitEvidence(f.CorrectEvidence)
		default:
			c.Gold = f.CorrectAnswer
		}
		out[q.ID] = c
	}
	return out, nil
}

// Applied counts what a key did to a question set.
type Applied struct {
	Key             string `json:"key"` // Key.ID
	AnswerChanged   int    `json:"answer_changed"`
	EvidenceChanged int    `json:"evidence_changed"`
	Excluded        int    `json:"excluded"` // ambiguous questions left out of scoring
}

// Apply rewrites ds's questions under the changes: gold answers and
// evidence replaced, excluded questions removed from their conversations.
// ds may be a part of the dataset the changes were matched on.
func (cs Changes) Apply(ds *datasets.Dataset) Applied {
	var a Applied
	for _, conv := range ds.Conversations {
		kept := conv.Questions[:0:0]
		for _, q := range conv.Questions {
			c, ok := cs[q.ID]
			switch {
			case !ok:
			case c.Excluded:
				a.Excluded++
				continue
			case c.ErrorType == WrongCitation:
				q.Evidence = c.Evidence
				a.EvidenceChanged++
			default:
				q.Gold = c.Gold
				a.AnswerChanged++
			}
			kept = append(kept, q)
		}
		conv.Questions = kept
	}
	return a
}

// Ceiling is the best score a perfect system gets under the published
// key, per LoCoMo category: the share of questions whose published gold
// is not wrong by this key.
type Ceiling struct {
	Category  int     `json:"category"` // 0 = overall (categories 1-4)
	Questions int     `json:"questions"`
	GoldWrong int     `json:"gold_wrong"`
	Ceiling   float64 `json:"ceiling"` // 1 - GoldWrong/Questions
}

// Ceilings are the published key's ceilings over the scored questions of
// qs (categories 1-4): one per category in order, then the overall one.
func (cs Changes) Ceilings(qs []*datasets.Question) []Ceiling {
	by := map[int]*Ceiling{}
	all := &Ceiling{}
	for _, q := range qs {
		if q.Abstains() || q.Category < locomo.CatMultiHop || q.Category > locomo.CatSingleHop {
			continue
		}
		c := by[q.Category]
		if c == nil {
			c = &Ceiling{Category: q.Category}
			by[q.Category] = c
		}
		c.Questions++
		all.Questions++
		if ch, ok := cs[q.ID]; ok && ch.GoldWrong() {
			c.GoldWrong++
			all.GoldWrong++
		}
	}
	var out []Ceiling
	for _, cat := range slices.Sorted(maps.Keys(by)) {
		out = append(out, *by[cat])
	}
	out = append(out, *all)
	for i := range out {
		if out[i].Questions > 0 {
			out[i].Ceiling = 1 - float64(out[i].GoldWrong)/float64(out[i].Questions)
		}
	}
	return out
}
