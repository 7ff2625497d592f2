package longmemeval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/membench/membench/datasets"
)

// Name is the dataset's --dataset name.
const Name = "longmemeval"

func init() {
	const hf = "https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/main/"
	datasets.Register(datasets.Spec{
		Name: Name, Load: Load, Groups: lmeGroups, DefaultFile: "longmemeval-s",
		Shape: shape, List: "item list",
		Fetch: []datasets.Entry{
			{
				Name: "longmemeval-s", File: "longmemeval_s_cleaned.json",
				URL:    hf + "longmemeval_s_cleaned.json",
				SHA256: "d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442",
				Size:   277383467,
				Note:   "LongMemEval S (cleaned), 500 questions, ~115k-token haystacks",
			},
			{
				Name: "longmemeval-oracle", File: "longmemeval_oracle.json",
				URL:  hf + "longmemeval_oracle.json",
				Note: "LongMemEval oracle: evidence sessions only",
			},
			{
				Name: "longmemeval-m", File: "longmemeval_m_cleaned.json",
				URL:  hf + "longmemeval_m_cleaned.json",
				Note: "LongMemEval M (cleaned), ~500 sessions per question; several GB",
			},
		},
	})
}

// lmeAbstention is the group of LongMemEval's "_abs" questions, which its
// paper scores apart from their question types.
const lmeAbstention = "abstention"

// lmeGroups are LongMemEval's question types in its paper's order, then
// the abstention questions. A type the list lacks is still its own group.
var lmeGroups = []datasets.GroupSpec{
	{Name: "single-session-user"}, {Name: "single-session-assistant"}, {Name: "single-session-preference"},
	{Name: "multi-session"}, {Name: "knowledge-update"}, {Name: "temporal-reasoning"},
	{Name: lmeAbstention, Abstains: true},
}

// One LongMemEval item: a question with its own haystack of sessions.
type lmeItem struct {
	QuestionID    json.RawMessage `json:"question_id"`
	QuestionType  string          `json:"question_type"`
	Question      *string         `json:"question"`
	Answer        json.RawMessage `json:"answer"`
	QuestionDate  string          `json:"question_date"`
	SessionIDs    []string        `json:"haystack_session_ids"`
	Dates         []string        `json:"haystack_dates"`
	Sessions      json.RawMessage `json:"haystack_sessions"`
	AnswerSession []string        `json:"answer_session_ids"`
}

type lmeTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// Load reads a LongMemEval file (S, M or oracle). Each item is
// its own conversation holding one question. The file is streamed item by
// item, so the large M file needs memory for the model only, not for the
// raw JSON as well. Sessions keep the file's order. Refused (InputError):
// bytes that are not UTF-8, text after the closing bracket, answers that are
// objects, lists or booleans, and any field of the wrong type.
func Load(path string, opt datasets.LoadOptions) (*datasets.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, datasets.Bad("read LongMemEval file: %w; pass --data FILE or run `membench datasets fetch longmemeval-s`", err)
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(datasets.NewCapReader(f, path, opt.Cap()), 1<<20)
	ds, err := decodeLongMemEval(datasets.NewUTF8Reader(io.TeeReader(br, h), path), path, datasets.FileLine(path), opt)
	if err != nil {
		return nil, err
	}
	// Hash the trailing bytes the decoder did not need (only spaces, as
	// the decoder checked, unless --limit stopped it early).
	if _, err := io.Copy(h, br); err != nil {
		if datasets.IsInputError(err) {
			return nil, err // the size cap
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ds.SHA256 = hex.EncodeToString(h.Sum(nil))
	return ds, nil
}

// shape is what a LongMemEval file is, for messages.
const shape = "a LongMemEval file is a JSON list of items {question_id, question, answer, haystack_sessions, ...}"

// decodeLongMemEval reads the items of r one at a time, checking the
// file's syntax as it streams (a broken file fails at its first bad
// byte); line, when set, finds the line of a byte offset for messages.
func decodeLongMemEval(r io.Reader, source string, line func(int64) (int, bool), opt datasets.LoadOptions) (*datasets.Dataset, error) {
	if opt.Limit < 0 {
		return nil, datasets.Bad("question limit %d is negative; use 0 for no limit", opt.Limit)
	}
	check := datasets.ListChecker{Source: source, What: shape, List: "item list", Line: line}
	d := jsontext.NewDecoder(r, datasets.Permissive...)
	if err := check.Open(d); err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, check.Syntax(err)
	}
	want := map[string]bool{}
	for _, id := range opt.Conversations {
		if id = strings.TrimSpace(id); id != "" {
			want[id] = true
		}
	}
	found := map[string]bool{}
	var ids []string // the first ids, for the unknown-id message
	ds := &datasets.Dataset{Name: Name, Source: source, Groups: lmeGroups}
	seen := map[string]int{}
	full := false // Limit reached: later items are only looked at for names
	for i := 0; d.PeekKind() != ']'; i++ {
		if full && len(found) == len(want) {
			// Nothing more to keep or look for: the rest of the file is
			// only hashed (by the caller), not checked.
			return ds, nil
		}
		v, err := d.ReadValue()
		if err != nil {
			return nil, check.Syntax(err)
		}
		end := d.InputOffset()
		var head struct {
			QuestionID any `json:"question_id"`
		}
		_ = json.Unmarshal(v, &head)
		hid, _ := head.QuestionID.(string)
		if len(ids) < 8 {
			ids = append(ids, hid)
		}
		// Items not named are dropped without being parsed in full (an id
		// that is not a string falls through to the full parse's error).
		if len(want) > 0 && head.QuestionID != nil && !want[hid] {
			if _, isString := head.QuestionID.(string); isString {
				continue
			}
		}
		found[hid] = true
		if full {
			continue
		}
		// The decoder reuses its buffer: the item is copied out.
		raw := json.RawMessage(bytes.Clone(v))
		c, id, err := lmeConversation(raw, opt)
		if err != nil {
			return nil, datasets.Bad("%s: %s, %v", source, datasets.Who("item", i, id), err)
		}
		if prev, dup := seen[c.ID]; dup {
			return nil, datasets.Bad("%s: item %d: duplicate question_id %q (also item %d); give each item a unique id", source, i, c.ID, prev)
		}
		seen[c.ID] = i
		if opt.Lazy {
			// Keep the question and its evidence; read the haystack
			// back from the file when the run gets to it.
			c.Sessions = nil
			c.SetLazy(int64(len(raw)), lmeHydrator(source, end-int64(len(raw)), end, i, c, opt))
		}
		ds.Conversations = append(ds.Conversations, c)
		if opt.Limit > 0 && len(ds.Conversations) >= opt.Limit {
			full = true
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, check.Syntax(err)
	}
	if err := check.Close(d); err != nil {
		return nil, err
	}
	if len(found) < len(want) {
		unknown := slices.DeleteFunc(slices.Sorted(maps.Keys(want)), func(id string) bool { return found[id] })
		return nil, datasets.Bad("dataset longmemeval (%s) has no conversation %s (it has: %s …)", source, strings.Join(unknown, ", "), strings.Join(ids, ", "))
	}
	if len(ds.Conversations) == 0 {
		return nil, datasets.Bad("%s: no items; expected a list of {question_id, question, answer, haystack_sessions, ...}", source)
	}
	return ds, nil
}

// lmeHydrator reads item i back from bytes [start, end) of the file.
func lmeHydrator(path string, start, end int64, i int, stub *datasets.Conversation, opt datasets.LoadOptions) func() (*datasets.Conversation, error) {
	return func() (*datasets.Conversation, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("re-read LongMemEval item %s: %w", stub.ID, err)
		}
		defer f.Close()
		raw := make([]byte, end-start)
		if _, err := f.ReadAt(raw, start); err != nil {
			return nil, fmt.Errorf("re-read LongMemEval item %s from %s: %w", stub.ID, path, err)
		}
		c, _, err := lmeConversation(raw, opt)
		if err != nil || c.ID != stub.ID {
			return nil, fmt.Errorf("%s changed while the run was using it (item %d is no longer %s); restore the file and resume", path, i, stub.ID)
		}
		c.Questions = stub.Questions
		return c, nil
	}
}

// lmeSessions decodes haystack_sessions; on a type error it decodes again
// turn by turn so the message names the session and turn.
func lmeSessions(raw json.RawMessage) ([][]lmeTurn, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var out [][]lmeTurn
	if json.Unmarshal(raw, &out) == nil {
		return out, nil
	}
	var sessions []json.RawMessage
	if err := datasets.DecodeField(raw, &sessions, "haystack_sessions"); err != nil {
		return nil, err
	}
	for i, sraw := range sessions {
		var turns []json.RawMessage
		if err := datasets.DecodeField(sraw, &turns, fmt.Sprintf("haystack_sessions[%d]", i)); err != nil {
			return nil, err
		}
		for j, traw := range turns {
			var t lmeTurn
			if err := datasets.DecodeField(traw, &t, fmt.Sprintf("haystack_sessions[%d][%d]", i, j)); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("haystack_sessions: want a list of lists of turns {role, content}")
}

func lmeConversation(raw json.RawMessage, opt datasets.LoadOptions) (*datasets.Conversation, string, error) {
	var it lmeItem
	if err := datasets.DecodeField(raw, &it, ""); err != nil {
		var named struct {
			QuestionID string `json:"question_id"`
		}
		_ = json.Unmarshal(raw, &named) // only to name the item in the message
		return nil, named.QuestionID, err
	}
	var id string
	if err := datasets.Required(it.QuestionID, &id, "question_id", "give each item a unique id"); err != nil {
		return nil, "", err
	}
	sessions, err := lmeSessions(it.Sessions)
	if err != nil {
		return nil, id, err
	}
	switch {
	case id == "":
		return nil, id, fmt.Errorf(`field "question_id" is empty; give each item a unique id`)
	case it.Question == nil:
		return nil, id, fmt.Errorf(`field "question" missing`)
	case len(it.SessionIDs) != len(sessions):
		return nil, id, fmt.Errorf(`"haystack_session_ids" has %d entries but "haystack_sessions" has %d; they must pair up`, len(it.SessionIDs), len(sessions))
	case len(it.Dates) != 0 && len(it.Dates) != len(sessions):
		return nil, id, fmt.Errorf(`"haystack_dates" has %d entries but "haystack_sessions" has %d; they must pair up`, len(it.Dates), len(sessions))
	}
	gold, err := datasets.ScalarText(it.Answer, "answer")
	if err != nil {
		return nil, id, err
	}
	c := &datasets.Conversation{ID: id, Speakers: []string{"user", "assistant"}}
	q := &datasets.Question{
		ID:             id,
		ConversationID: id,
		Text:           *it.Question,
		Gold:           gold,
		Type:           it.QuestionType,
		Abstention:     strings.HasSuffix(id, "_abs"),
		Group:          it.QuestionType,
		Evidence:       []string{},
	}
	switch {
	case q.Abstention:
		q.Group = lmeAbstention
	case q.Group == "":
		q.Group = "all" // an item without a type, as runs before groups named it
	}
	q.AskedAt, _ = ParseLongMemEvalTime(it.QuestionDate)
	var fromSessions []string
	step := opt.Step()
	used := map[string]int{}
	for i, turns := range sessions {
		id := it.SessionIDs[i]
		// Some haystacks repeat a session id; suffix repeats so turn ids stay unique.
		if n := used[it.SessionIDs[i]]; n > 0 {
			id = fmt.Sprintf("%s#%d", id, n)
		}
		used[it.SessionIDs[i]]++
		s := &datasets.Session{ID: id}
		fromAnswer := slices.Contains(it.AnswerSession, it.SessionIDs[i])
		if i < len(it.Dates) {
			s.RawTime = it.Dates[i]
			s.Time, _ = ParseLongMemEvalTime(s.RawTime)
		}
		for j, t := range turns {
			if t.Role == "" {
				return nil, c.ID, fmt.Errorf(`haystack_sessions[%d][%d]: "role" missing; use "user" or "assistant"`, i, j)
			}
			turn := &datasets.Turn{ID: fmt.Sprintf("%s:%d", id, j), Speaker: t.Role, Text: t.Content, HasAnswer: t.HasAnswer}
			if !s.Time.IsZero() {
				turn.Time = s.Time.Add(time.Duration(j) * step)
			}
			if t.HasAnswer {
				q.Evidence = append(q.Evidence, turn.ID)
			}
			if fromAnswer {
				fromSessions = append(fromSessions, turn.ID)
			}
			s.Turns = append(s.Turns, turn)
		}
		c.Sessions = append(c.Sessions, s)
	}
	if len(q.Evidence) == 0 && len(fromSessions) > 0 {
		q.Evidence = fromSessions
	}
	c.Questions = []*datasets.Question{q}
	return c, c.ID, nil
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

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
