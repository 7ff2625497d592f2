package datasets

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// One LongMemEval item: a question with its own haystack of sessions.
type lmeItem struct {
	QuestionID    string          `json:"question_id"`
	QuestionType  string          `json:"question_type"`
	Question      *string         `json:"question"`
	Answer        json.RawMessage `json:"answer"`
	QuestionDate  string          `json:"question_date"`
	SessionIDs    []string        `json:"haystack_session_ids"`
	Dates         []string        `json:"haystack_dates"`
	Sessions      [][]lmeTurn     `json:"haystack_sessions"`
	AnswerSession []string        `json:"answer_session_ids"`
}

type lmeTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// LoadLongMemEval reads a LongMemEval file (S, M or oracle). Each item is
// its own conversation holding one question. The file is streamed item by
// item, so the large M file needs memory for the model only, not for the
// raw JSON as well. Sessions keep the file's order.
func LoadLongMemEval(path string, opt LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read LongMemEval file: %w; pass --data FILE or run `membench datasets fetch longmemeval-s`", err)
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(f, 1<<20)
	ds, err := decodeLongMemEval(io.TeeReader(br, h), path, opt)
	if err != nil {
		return nil, err
	}
	// Hash the trailing bytes the decoder did not need.
	if _, err := io.Copy(h, br); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ds.SHA256 = hex.EncodeToString(h.Sum(nil))
	return ds, nil
}

func decodeLongMemEval(r io.Reader, source string, opt LoadOptions) (*Dataset, error) {
	dec := json.NewDecoder(r)
	bad := func(err error) error {
		return fmt.Errorf("%s: malformed JSON near byte %d: %v; fix the file or re-fetch it with `membench datasets fetch`", source, dec.InputOffset(), err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, bad(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%s: a LongMemEval file is a JSON list of items, got %v first", source, tok)
	}
	ds := &Dataset{Name: "longmemeval", Source: source}
	seen := map[string]bool{}
	for i := 0; dec.More(); i++ {
		var it lmeItem
		if err := dec.Decode(&it); err != nil {
			return nil, bad(fmt.Errorf("item %d: %v", i, err))
		}
		c, err := lmeConversation(it, opt)
		if err != nil {
			who := fmt.Sprintf("item %d", i)
			if it.QuestionID != "" {
				who += " (" + it.QuestionID + ")"
			}
			return nil, fmt.Errorf("%s: %s: %w", source, who, err)
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("%s: item %d: duplicate question_id %q", source, i, c.ID)
		}
		seen[c.ID] = true
		ds.Conversations = append(ds.Conversations, c)
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	if len(ds.Conversations) == 0 {
		return nil, fmt.Errorf("%s: no items; expected a list of {question_id, question, answer, haystack_sessions, ...}", source)
	}
	return ds, nil
}

func lmeConversation(it lmeItem, opt LoadOptions) (*Conversation, error) {
	switch {
	case it.QuestionID == "":
		return nil, fmt.Errorf(`field "question_id" missing or empty`)
	case it.Question == nil:
		return nil, fmt.Errorf(`field "question" missing`)
	case len(it.SessionIDs) != len(it.Sessions):
		return nil, fmt.Errorf(`"haystack_session_ids" has %d entries but "haystack_sessions" has %d; they must pair up`, len(it.SessionIDs), len(it.Sessions))
	case len(it.Dates) != 0 && len(it.Dates) != len(it.Sessions):
		return nil, fmt.Errorf(`"haystack_dates" has %d entries but "haystack_sessions" has %d; they must pair up`, len(it.Dates), len(it.Sessions))
	}
	c := &Conversation{ID: it.QuestionID, Speakers: []string{"user", "assistant"}}
	q := &Question{
		ID:             it.QuestionID,
		ConversationID: it.QuestionID,
		Text:           *it.Question,
		Gold:           stringify(it.Answer),
		Type:           it.QuestionType,
		Abstention:     strings.HasSuffix(it.QuestionID, "_abs"),
		Evidence:       []string{},
	}
	q.AskedAt, _ = ParseLongMemEvalTime(it.QuestionDate)
	answerSess := map[string]bool{}
	for _, id := range it.AnswerSession {
		answerSess[id] = true
	}
	var fromSessions []string
	step := opt.step()
	used := map[string]int{}
	for i, turns := range it.Sessions {
		id := it.SessionIDs[i]
		// Some haystacks repeat a session id; suffix repeats so turn ids stay unique.
		if n := used[it.SessionIDs[i]]; n > 0 {
			id = fmt.Sprintf("%s#%d", id, n)
		}
		used[it.SessionIDs[i]]++
		s := &Session{ID: id}
		if i < len(it.Dates) {
			s.RawTime = it.Dates[i]
			s.Time, _ = ParseLongMemEvalTime(s.RawTime)
		}
		for j, t := range turns {
			if t.Role == "" {
				return nil, fmt.Errorf(`haystack_sessions[%d][%d]: "role" missing; use "user" or "assistant"`, i, j)
			}
			turn := &Turn{ID: fmt.Sprintf("%s:%d", id, j), Speaker: t.Role, Text: t.Content, HasAnswer: t.HasAnswer}
			if !s.Time.IsZero() {
				turn.Time = s.Time.Add(time.Duration(j) * step)
			}
			if t.HasAnswer {
				q.Evidence = append(q.Evidence, turn.ID)
			}
			if answerSess[it.SessionIDs[i]] {
				fromSessions = append(fromSessions, turn.ID)
			}
			s.Turns = append(s.Turns, turn)
		}
		c.Sessions = append(c.Sessions, s)
	}
	if len(q.Evidence) == 0 && len(fromSessions) > 0 {
		q.Evidence = fromSessions
	}
	c.Questions = []*Question{q}
	return c, nil
}

var lmeTime = regexp.MustCompile(`^(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]+\))?\s*(?:(\d{1,2}):(\d{2}))?$`)

// ParseLongMemEvalTime parses "2023/05/20 (Sat) 02:21" as UTC; the weekday
// is ignored and the clock part is optional.
func ParseLongMemEvalTime(s string) (time.Time, error) {
	m := lmeTime.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return time.Time{}, fmt.Errorf("date %q is not like \"2023/05/20 (Sat) 02:21\"", s)
	}
	y, mo, d := atoi(m[1]), atoi(m[2]), atoi(m[3])
	h, mi := atoi(m[4]), atoi(m[5])
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 {
		return time.Time{}, fmt.Errorf("date %q has an out-of-range field", s)
	}
	t := time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, fmt.Errorf("date %q names a day its month does not have", s)
	}
	return t, nil
}
