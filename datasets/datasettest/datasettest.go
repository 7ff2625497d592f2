// Package datasettest registers "tinyqa", a dataset that exists for tests.
// It is also the shape of every new dataset: one package whose init calls
// datasets.Register, linked in by one blank import (datasets/all for the
// command line; a test imports this package itself).
//
// A tinyqa file is one JSON object:
//
//	{"conversations": [{"id": "c1", "speakers": ["Ana", "Ben"],
//	  "sessions": [{"date": "2024-03-01", "turns": [{"speaker": "Ana", "text": "..."}]}],
//	  "questions": [{"question": "...", "answer": "...", "kind": "recall", "evidence": ["s1:0"]}]}]}
//
// Turn ids are "s<session>:<index>"; a question's kind is one of Groups.
package datasettest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/badinput"
)

// Name is the dataset's --dataset name.
const Name = "tinyqa"

// Groups are tinyqa's question kinds; "refusal" questions ask about what
// the conversation never says, so the right answer declines.
var Groups = []datasets.GroupSpec{{Name: "recall"}, {Name: "inference"}, {Name: "refusal", Abstains: true}}

func init() {
	datasets.Register(datasets.Spec{Name: Name, Load: Load, Groups: Groups})
}

type file struct {
	Conversations []struct {
		ID       string   `json:"id"`
		Speakers []string `json:"speakers"`
		Sessions []struct {
			Date  string `json:"date"`
			Turns []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
			} `json:"turns"`
		} `json:"sessions"`
		Questions []struct {
			Question string   `json:"question"`
			Answer   string   `json:"answer"`
			Kind     string   `json:"kind"`
			Evidence []string `json:"evidence"`
		} `json:"questions"`
	} `json:"conversations"`
}

// Load reads a tinyqa file.
func Load(path string, opt datasets.LoadOptions) (*datasets.Dataset, error) {
	b, err := datasets.ReadFile(path, opt.MaxBytes, "pass a tinyqa file with --data")
	if err != nil {
		return nil, err
	}
	return Parse(b, path, opt.TurnStep)
}

// Parse reads a tinyqa file's bytes; step spaces the turns of a session
// (0 = datasets.DefaultTurnStep).
func Parse(b []byte, source string, step time.Duration) (*datasets.Dataset, error) {
	if step <= 0 {
		step = datasets.DefaultTurnStep
	}
	var in file
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, badinput.Errorf("%s: %v; see the format in package datasettest", source, err)
	}
	if len(in.Conversations) == 0 {
		return nil, badinput.Errorf("%s: no conversations; give at least one", source)
	}
	sum := sha256.Sum256(b)
	ds := &datasets.Dataset{Name: Name, Source: source, SHA256: hex.EncodeToString(sum[:]), Groups: Groups}
	seen := map[string]bool{}
	for ci, c := range in.Conversations {
		where := fmt.Sprintf("%s: conversations[%d]", source, ci)
		if c.ID == "" || seen[c.ID] {
			return nil, badinput.Errorf(`%s: "id" is empty or repeated; give each conversation its own id`, where)
		}
		seen[c.ID] = true
		conv := &datasets.Conversation{ID: c.ID, Speakers: c.Speakers}
		turns := map[string]bool{}
		var last time.Time
		for si, s := range c.Sessions {
			start, err := time.Parse(time.DateOnly, s.Date)
			if err != nil {
				return nil, badinput.Errorf(`%s.sessions[%d].date: %q is not a date; write it as 2024-03-01`, where, si, s.Date)
			}
			sess := &datasets.Session{ID: fmt.Sprintf("s%d", si+1), Time: start, RawTime: s.Date}
			for ti, t := range s.Turns {
				at := start.Add(time.Duration(ti) * step)
				id := fmt.Sprintf("%s:%d", sess.ID, ti)
				turns[id] = true
				sess.Turns = append(sess.Turns, &datasets.Turn{ID: id, Speaker: t.Speaker, Text: t.Text, Time: at})
				last = at
			}
			conv.Sessions = append(conv.Sessions, sess)
		}
		var asked time.Time // a day after the last turn, as LoCoMo's questions
		if !last.IsZero() {
			asked = last.Add(24 * time.Hour)
		}
		for qi, q := range c.Questions {
			g, ok := datasets.Spec{Groups: Groups}.Group(q.Kind)
			if !ok {
				return nil, badinput.Errorf(`%s.questions[%d].kind: %q is not one of recall, inference, refusal`, where, qi, q.Kind)
			}
			for _, e := range q.Evidence {
				if !turns[e] {
					return nil, badinput.Errorf(`%s.questions[%d].evidence: no turn %q in this conversation (ids are s<session>:<index>)`, where, qi, e)
				}
			}
			conv.Questions = append(conv.Questions, &datasets.Question{
				ID: fmt.Sprintf("%s:%d", c.ID, qi), ConversationID: c.ID, Text: q.Question, Gold: q.Answer,
				Group: g.Name, Abstention: g.Abstains, Evidence: append([]string{}, q.Evidence...), AskedAt: asked,
			})
		}
		ds.Conversations = append(ds.Conversations, conv)
	}
	return ds, nil
}
