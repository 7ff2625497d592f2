package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/clip"
	"github.com/membench/membench/internal/names"
)

// Formats of a file of known-wrong answers.
const (
	FormatScored = "scored" // {detailed_results: {conv: [records]}}, as the locomo-audit files
	FormatJSONL  = "jsonl"  // one record per line
)

// WrongAnswer is one answer known to be wrong.
type WrongAnswer struct {
	ID     string // question_id as the file gives it
	Answer string
	// Question is what a judge sees (text, gold, category); the file's own
	// fields until Resolve replaces them with the dataset's question.
	Question *datasets.Question
	// Recorded holds the verdicts the file carries (llm_judgments), by
	// judgment run: true = the judge accepted the answer as correct.
	Recorded map[string]bool
	where    string // for messages: "line 3" or "detailed_results.locomo_exp_user_0[2]"
	complete bool   // the file gives question, gold and category
	hasText  bool   // the file gives the question's text (Resolve checks it)
}

// WrongFile is a parsed file of known-wrong answers.
type WrongFile struct {
	Path    string
	Format  string
	Answers []WrongAnswer
	// Runs are the recorded judgment runs found in the file, in natural
	// order (judgment_2 before judgment_10).
	Runs []string
	// Accuracy is the file's published acceptance rate (its top-level
	// accuracy field), when it has one.
	Accuracy *float64
}

// wrongRecord is one answer in either format. The JSONL names (answer,
// gold) and the scored file's (generated_answer, golden_answer) are both
// read, so a record copied from one format to the other still reads.
type wrongRecord struct {
	QuestionID   *string                    `json:"question_id"`
	Question     *string                    `json:"question"`
	Answer       *string                    `json:"answer"`
	Generated    *string                    `json:"generated_answer"`
	Gold         json.RawMessage            `json:"gold"`
	GoldenAnswer json.RawMessage            `json:"golden_answer"`
	Category     json.RawMessage            `json:"category"`
	Judgments    map[string]json.RawMessage `json:"llm_judgments"`
}

const wrongShapes = `a scored file {"detailed_results": {CONV: [{question_id, question, golden_answer, generated_answer, category, llm_judgments}]}} or JSONL lines {"question_id": ..., "answer": ...}`

// ReadWrong reads a file of known-wrong answers (see ParseWrong).
func ReadWrong(path string) (*WrongFile, error) {
	data, err := datasets.ReadInputFile(path, "--wrong: give a file of known-wrong answers ("+wrongShapes+")")
	if err != nil {
		return nil, err
	}
	return ParseWrong(data, path)
}

// ParseWrong reads known-wrong answers in either shape: a scored file
// (one JSON object whose detailed_results maps conversation keys to lists
// of records, the locomo-audit ap-baseline shape) or JSONL, one record a
// line with at least question_id and answer. Question text, gold and
// category are optional in both (Resolve takes them from the dataset);
// llm_judgments, when present, are recorded verdicts (bools by run name).
func ParseWrong(data []byte, source string) (*WrongFile, error) {
	w := &WrongFile{Path: source}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, badinput.Errorf("%s: empty; give %s", source, wrongShapes)
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if trimmed[0] == '{' && dec.Decode(&top) == nil && top["detailed_results"] != nil {
		if dec.More() {
			return nil, badinput.Errorf("%s line %d: text after the scored file's closing }; remove it", source, datasets.LineAt(trimmed, dec.InputOffset()))
		}
		var details map[string]json.RawMessage
		if err := json.Unmarshal(top["detailed_results"], &details); err != nil {
			return nil, badinput.Errorf("%s: detailed_results is not an object of conversation keys (%v); give {\"detailed_results\": {CONV: [records]}}", source, err)
		}
		w.Format = FormatScored
		var acc float64
		if json.Unmarshal(top["accuracy"], &acc) == nil {
			w.Accuracy = &acc
		}
		for _, conv := range slices.Sorted(maps.Keys(details)) {
			var recs []json.RawMessage
			if err := json.Unmarshal(details[conv], &recs); err != nil {
				return nil, badinput.Errorf("%s: detailed_results.%s is not a list of records (%v); each conversation key holds [{question_id, generated_answer, ...}]", source, conv, err)
			}
			for i, raw := range recs {
				if err := w.add(raw, fmt.Sprintf("detailed_results.%s[%d]", conv, i), source); err != nil {
					return nil, err
				}
			}
		}
	} else {
		w.Format = FormatJSONL
		for n, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if err := w.add(line, fmt.Sprintf("line %d", n+1), source); err != nil {
				return nil, err
			}
		}
	}
	if len(w.Answers) == 0 {
		return nil, badinput.Errorf("%s: no answers; give %s", source, wrongShapes)
	}
	seen := map[string]string{}
	runs := map[string]bool{}
	for _, a := range w.Answers {
		if prev, dup := seen[a.ID]; dup {
			return nil, badinput.Errorf("%s %s: question_id %q is also at %s; give each question one wrong answer", source, a.where, a.ID, prev)
		}
		seen[a.ID] = a.where
		for r := range a.Recorded {
			runs[r] = true
		}
	}
	w.Runs = slices.SortedFunc(maps.Keys(runs), names.Compare)
	return w, nil
}

func (w *WrongFile) add(raw []byte, where, source string) error {
	var r wrongRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return badinput.Errorf("%s %s: not a JSON record (%v); give %s", source, where, err, wrongShapes)
	}
	a := WrongAnswer{where: where}
	switch {
	case r.QuestionID == nil || strings.TrimSpace(*r.QuestionID) == "":
		return badinput.Errorf("%s %s: no question_id; each record names its question (locomo_<conversation index>_qa<question index>)", source, where)
	case r.Answer != nil && r.Generated != nil && *r.Answer != *r.Generated:
		return badinput.Errorf("%s %s: answer and generated_answer differ; keep one of them", source, where)
	case r.Answer != nil:
		a.Answer = *r.Answer
	case r.Generated != nil:
		a.Answer = *r.Generated
	default:
		return badinput.Errorf("%s %s (%s): no answer; give the known-wrong answer as \"answer\" (or \"generated_answer\")", source, where, *r.QuestionID)
	}
	a.ID = strings.TrimSpace(*r.QuestionID)
	q := &datasets.Question{ID: a.ID, Category: -1} // -1: not given
	if r.Question != nil {
		q.Text, a.hasText = *r.Question, true
	}
	gold := r.Gold
	if len(gold) == 0 {
		gold = r.GoldenAnswer
	}
	hasGold := len(gold) > 0 && string(gold) != "null"
	var err error
	if q.Gold, err = datasets.ScalarText(gold, "gold"); err != nil {
		return badinput.Errorf("%s %s (%s): gold is %s; give a string or a number", source, where, a.ID, clip.To(string(gold), 40))
	}
	if len(r.Category) > 0 && string(r.Category) != "null" {
		c, err := categoryOf(r.Category)
		if err != nil {
			return badinput.Errorf("%s %s (%s): category %s: %v", source, where, a.ID, r.Category, err)
		}
		// LoCoMo's answer keys: the category is LoCoMo's, so is the group.
		q.Category, q.Abstention, q.Group = c, c == locomo.CatAdversarial, locomo.CategoryName(c)
	}
	a.Question, a.complete = q, r.Question != nil && hasGold && q.Category >= 0
	for name, v := range r.Judgments {
		var ok bool
		if err := json.Unmarshal(v, &ok); err != nil || string(v) == "null" {
			return badinput.Errorf("%s %s (%s): llm_judgments.%s is %s, not true or false (true = the judge accepted the answer)", source, where, a.ID, name, v)
		}
		if a.Recorded == nil {
			a.Recorded = map[string]bool{}
		}
		a.Recorded[name] = ok
	}
	w.Answers = append(w.Answers, a)
	return nil
}

// NeedsData reports whether some answer lacks its question text, gold or
// category, which then come from the dataset (Resolve).
func (w *WrongFile) NeedsData() bool {
	return slices.ContainsFunc(w.Answers, func(a WrongAnswer) bool { return !a.complete })
}

// locomoID is the audit's question id: locomo_<conversation index in the
// file>_qa<index in that conversation's full qa list>.
var locomoID = regexp.MustCompile(`^locomo_(\d+)_qa(\d+)$`)

// Resolve gives every answer the dataset's question (text, published
// gold, category, evidence), found by the audit's id
// (locomo_<conversation index>_qa<qa index>, both counted from 0 in the
// file's order, category 5 included) or by membench's own id ("conv-26:0").
// A question text in the wrong-answer file must be the dataset's: a
// mismatch means the ids do not point into this dataset.
func (w *WrongFile) Resolve(ds *datasets.Dataset) error {
	all := ds.Questions()
	byID := map[string]*datasets.Question{}
	for _, q := range all {
		byID[q.ID] = q
	}
	for i := range w.Answers {
		a := &w.Answers[i]
		q := byID[a.ID]
		if m := locomoID.FindStringSubmatch(a.ID); q == nil && m != nil {
			ci, _ := strconv.Atoi(m[1])
			if len(m[1]) > 6 || ci >= len(ds.Conversations) {
				return badinput.Errorf("%s %s: question_id %s names conversation %s, but %s has %d conversations (indexed from 0); give the dataset the ids were made from with --data", w.Path, a.where, a.ID, m[1], ds.Source, len(ds.Conversations))
			}
			c := ds.Conversations[ci]
			if j, err := strconv.Atoi(m[2]); err == nil && len(m[2]) <= 6 {
				q = byID[c.ID+":"+strconv.Itoa(j)]
			}
			if q == nil {
				return badinput.Errorf("%s %s: question_id %s names qa %s of conversation %d (%s), which has %d questions; give the dataset the ids were made from with --data", w.Path, a.where, a.ID, m[2], ci, c.ID, len(c.Questions))
			}
		}
		if q == nil {
			return badinput.Errorf("%s %s: question_id %q is neither locomo_<conversation index>_qa<question index> nor a question id of %s (such as %q)", w.Path, a.where, a.ID, ds.Source, firstID(all))
		}
		if a.hasText && strings.TrimSpace(a.Question.Text) != strings.TrimSpace(q.Text) {
			return badinput.Errorf("%s %s: question_id %s asks %q in the file but %q in %s; the ids do not match this dataset: give the one they were made from with --data", w.Path, a.where, a.ID, clip.To(a.Question.Text, 80), clip.To(q.Text, 80), ds.Source)
		}
		if a.Question.Category >= 0 && a.Question.Category != q.Category {
			return badinput.Errorf("%s %s: question_id %s has category %d in the file but %d in %s; the ids do not match this dataset: give the one they were made from with --data", w.Path, a.where, a.ID, a.Question.Category, q.Category, ds.Source)
		}
		a.Question, a.complete = q, true
	}
	return nil
}

func firstID(qs []*datasets.Question) string {
	if len(qs) == 0 {
		return ""
	}
	return qs[0].ID
}

// categoryOf reads a LoCoMo category, a number 1-5 or a string holding one.
func categoryOf(raw json.RawMessage) (int, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	c, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || c < 1 || c > locomo.CatAdversarial {
		return 0, errors.New("is not a LoCoMo category 1-5 (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)")
	}
	return c, nil
}
