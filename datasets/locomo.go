package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

func init() {
	Register(Spec{
		Name: "locomo", Load: LoadLoCoMo, Groups: locomoGroups, DefaultFile: "locomo", AnswerKeys: true,
		Fetch: []Entry{{
			Name: "locomo", File: "locomo10.json",
			URL:    "https://raw.githubusercontent.com/snap-research/locomo/main/data/locomo10.json",
			SHA256: "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
			Note:   "LoCoMo, 10 conversations, 1,986 questions",
		}, {
			// An audited answer key, not a dataset: run, score, judge and
			// report read it with --answer-key audited. It has no public URL.
			Name: "locomo-audit", File: "locomo-audit-errors.json", Key: true,
			SHA256: "f298ef46263fada20688a1d672be37d4f488c6da3b19343eea55ae5c1b5fe55e",
			Note:   "LoCoMo audited answer key (errors.json of the locomo-audit data); add a local copy",
		}},
	})
}

// Category numbers follow LoCoMo's qa "category" field.
const (
	CatMultiHop    = 1
	CatTemporal    = 2
	CatOpenDomain  = 3
	CatSingleHop   = 4
	CatAdversarial = 5
)

// locomoGroups are LoCoMo's groups, one per category in category order;
// adversarial questions (category 5) are answered by declining.
var locomoGroups = []GroupSpec{
	{Name: "multi-hop"}, {Name: "temporal"}, {Name: "open-domain"}, {Name: "single-hop"},
	{Name: "adversarial", Abstains: true},
}

// CategoryName is the group of a LoCoMo category number ("unknown" for
// others), for what still speaks LoCoMo's numbers: peers' files, answer
// keys and older preregistrations (exclude_category).
func CategoryName(c int) string {
	if c < CatMultiHop || c > CatAdversarial {
		return "unknown"
	}
	return locomoGroups[c-1].Name
}

// LoCoMo's file is a JSON list of samples; each has a sample_id, a
// "conversation" object (speaker_a, speaker_b, session_N lists and
// session_N_date_time strings) and a "qa" list. Fields are decoded one at a
// time so a wrong type is reported by sample and field, as the file names them.
type locomoSample struct {
	SampleID     json.RawMessage `json:"sample_id"`
	Conversation json.RawMessage `json:"conversation"`
	QA           json.RawMessage `json:"qa"`
}

type locomoQA struct {
	Question    *string         `json:"question"`
	Answer      json.RawMessage `json:"answer"`
	Adversarial json.RawMessage `json:"adversarial_answer"`
	Evidence    []string        `json:"evidence"`
	Category    *int            `json:"category"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// LoadLoCoMo reads a LoCoMo file (locomo10.json or the same schema).
//
// Quirks handled: integer answers are stringified; category 5 items are
// abstentions whose misleading answer goes to AdversarialAnswer; evidence
// strings holding several ids ("D8:6; D9:17", "D9:1 D4:4") are split and
// normalised ("D:11:26" → "D11:26", "D30:05" → "D30:5"), empty or id-less
// strings are dropped; session_N_date_time keys without a session_N are
// ignored; image turns get " [image: caption]" appended to their text.
// AskedAt is the latest session time plus one day: LoCoMo does not date its
// questions, and they are meant to be asked after the whole history.
//
// Refused (InputError): bytes that are not UTF-8, text after the closing
// bracket, a dia_id used twice in a sample, two keys for one session number
// (session_1 and session_01), answers that are objects, lists or booleans,
// and any field of the wrong type.
func LoadLoCoMo(path string, opt LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, bad("read LoCoMo file: %w; pass --data FILE or run `membench datasets fetch locomo`", err)
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return readLoCoMo(f, size, path, "locomo", opt)
}

func parseLoCoMo(data []byte, source, name string, opt LoadOptions) (*Dataset, error) {
	return readLoCoMo(bytes.NewReader(data), int64(len(data)), source, name, opt)
}

// locomoShape is what a LoCoMo file is, for messages.
const locomoShape = "a LoCoMo file is a JSON list of samples {sample_id, conversation, qa}"

// readLoCoMo reads a LoCoMo file from r (size bytes when known, else 0),
// never more than opt's cap. The fast decoder reads it as it streams in,
// which checks its syntax on the way; when it gives up, the rest of the
// file is read with a syntax check (so a broken file fails at its first
// bad byte) and the careful decoder decides.
func readLoCoMo(r io.Reader, size int64, source, name string, opt LoadOptions) (*Dataset, error) {
	max := opt.maxBytes()
	var buf bytes.Buffer
	if size > 0 {
		buf.Grow(int(min(size, max)) + bytes.MinRead)
	}
	src := io.TeeReader(newCapReader(r, source, max), &buf)
	convs, err := fastLoCoMoFrom(jsontext.NewDecoder(src), opt)
	if err == nil {
		data := buf.Bytes()
		sum := sha256.Sum256(data)
		return &Dataset{Name: name, Source: source, SHA256: hex.EncodeToString(sum[:]), Conversations: convs, Groups: locomoGroups}, nil
	}
	// The bytes read so far, then the rest as it comes (the tee keeps
	// appending to buf; the slice taken here is not changed by that).
	seen := buf.Bytes()
	check := listChecker{source: source, what: locomoShape, list: "sample list", line: func(off int64) (int, bool) {
		if off > int64(buf.Len()) {
			return 0, false
		}
		return lineAt(buf.Bytes(), off), true
	}}
	if err := check.check(io.MultiReader(bytes.NewReader(seen), src)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	sum := sha256.Sum256(data)
	return slowLoCoMo(data, source, &Dataset{Name: name, Source: source, SHA256: hex.EncodeToString(sum[:]), Groups: locomoGroups}, opt)
}

// slowLoCoMo is the careful decoder: field by field, so that a file the
// fast decoder gave up on is either loaded or refused naming the problem.
func slowLoCoMo(data []byte, source string, ds *Dataset, opt LoadOptions) (*Dataset, error) {
	var samples []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&samples); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, bad("%s: a LoCoMo file is a JSON list of samples {sample_id, conversation, qa}, got %s first", source, te.Value)
		}
		return nil, jsonErr(source, data, err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, bad("%s line %d: text after the closing ] of the sample list (%s); remove it", source, lineAt(data, int64(len(data)-len(rest))), show(rest))
	}
	if len(samples) == 0 {
		return nil, bad("%s: no samples; a LoCoMo file is a JSON list of {sample_id, conversation, qa}", source)
	}
	// Samples are converted in parallel (decoding is most of a cached
	// rerun's start); errors are reported in file order as before.
	type conv struct {
		c   *Conversation
		id  string
		err error
	}
	convs := make([]conv, len(samples))
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(runtime.GOMAXPROCS(0), len(samples)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(samples); i = int(next.Add(1) - 1) {
				c, id, err := locomoConversation(samples[i], opt)
				convs[i] = conv{c, id, err}
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for i, cv := range convs {
		c, id, err := cv.c, cv.id, cv.err
		if err != nil {
			return nil, bad("%s: %s, %v", source, who("sample", i, id), err)
		}
		if prev, dup := seen[c.ID]; dup {
			return nil, bad("%s: sample %d: duplicate sample_id %q (also sample %d); give each sample a unique id", source, i, c.ID, prev)
		}
		seen[c.ID] = i
		ds.Conversations = append(ds.Conversations, c)
	}
	return ds, nil
}

// required decodes a field that must be present.
func required(raw json.RawMessage, v any, where, hint string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("field %q missing; %s", where, hint)
	}
	return decodeField(raw, v, where)
}

// locomoConversation converts one sample; it also returns the sample_id
// when it could be read, so errors can name the sample.
func locomoConversation(raw json.RawMessage, opt LoadOptions) (*Conversation, string, error) {
	var s locomoSample
	if err := decodeField(raw, &s, ""); err != nil {
		return nil, "", err
	}
	var id string
	if err := required(s.SampleID, &id, "sample_id", `add a unique id such as "conv-1"`); err != nil {
		return nil, "", err
	}
	if id == "" {
		return nil, "", fmt.Errorf(`field "sample_id" is empty; add a unique id such as "conv-1"`)
	}
	var conv map[string]json.RawMessage
	if err := required(s.Conversation, &conv, "conversation", "add the object with speaker_a, speaker_b and session_N lists"); err != nil {
		return nil, id, err
	}
	c := &Conversation{ID: id}
	for _, k := range []string{"speaker_a", "speaker_b"} {
		var sp string
		if err := required(conv[k], &sp, "conversation."+k, "name both speakers"); err != nil {
			return nil, id, err
		}
		if sp == "" {
			return nil, id, fmt.Errorf(`field "conversation.%s" is empty; name both speakers`, k)
		}
		c.Speakers = append(c.Speakers, sp)
	}

	// Sessions in numeric order, under their keys as written ("session_01"
	// stays "session_01" in messages); a date without a session is ignored.
	type sessKey struct {
		n   int
		key string
	}
	var keys []sessKey
	byNum := map[int]string{}
	for k := range conv {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, id, fmt.Errorf("conversation.%s: session number too large", k)
		}
		if other, dup := byNum[n]; dup {
			a, b := min(k, other), max(k, other)
			return nil, id, fmt.Errorf("conversation.%s and conversation.%s are both session %d; keep one", a, b, n)
		}
		byNum[n] = k
		keys = append(keys, sessKey{n, k})
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].n < keys[j].n })
	step := opt.step()
	var last time.Time
	diaAt := map[string]string{}
	for _, sk := range keys {
		key := sk.key
		var turns []json.RawMessage
		if err := decodeField(conv[key], &turns, "conversation."+key); err != nil {
			return nil, id, err
		}
		// Session ids stay "session_N" (the canonical form every artifact uses).
		sess := &Session{ID: fmt.Sprintf("session_%d", sk.n)}
		if raw, ok := conv[key+"_date_time"]; ok && string(raw) != "null" {
			if err := decodeField(raw, &sess.RawTime, "conversation."+key+"_date_time"); err != nil {
				return nil, id, err
			}
			sess.Time, _ = ParseLoCoMoTime(sess.RawTime)
		}
		if sess.Time.After(last) {
			last = sess.Time
		}
		for j, traw := range turns {
			where := fmt.Sprintf("conversation.%s[%d]", key, j)
			var t locomoTurn
			if err := decodeField(traw, &t, where); err != nil {
				return nil, id, err
			}
			if t.DiaID == "" || t.Speaker == "" {
				return nil, id, fmt.Errorf(`%s: "dia_id" and "speaker" are required on every turn`, where)
			}
			if prev, dup := diaAt[t.DiaID]; dup {
				return nil, id, fmt.Errorf("%s.dia_id: %q is also %s; give every turn its own dia_id", where, t.DiaID, prev)
			}
			diaAt[t.DiaID] = where
			sess.Turns = append(sess.Turns, t.turn(sess.Time, j, step))
		}
		c.Sessions = append(c.Sessions, sess)
	}
	if len(c.Sessions) == 0 {
		return nil, id, fmt.Errorf(`no "session_N" lists in "conversation"; a sample needs at least one session`)
	}

	asked := askedAfter(last)
	var qas []json.RawMessage
	if len(s.QA) > 0 {
		if err := decodeField(s.QA, &qas, "qa"); err != nil {
			return nil, id, err
		}
	}
	for j, qraw := range qas {
		where := fmt.Sprintf("qa[%d]", j)
		var q locomoQA
		if err := decodeField(qraw, &q, where); err != nil {
			return nil, id, err
		}
		if q.Question == nil || q.Category == nil {
			return nil, id, fmt.Errorf(`%s: "question" and "category" are required`, where)
		}
		if *q.Category < CatMultiHop || *q.Category > CatAdversarial {
			return nil, id, fmt.Errorf(`%s.category: %d is not one of LoCoMo's 1-5`, where, *q.Category)
		}
		gold, err := scalarText(q.Answer, where+".answer")
		if err != nil {
			return nil, id, err
		}
		adv, err := scalarText(q.Adversarial, where+".adversarial_answer")
		if err != nil {
			return nil, id, err
		}
		c.Questions = append(c.Questions, locomoQuestion(id, j, *q.Question, gold, adv, q.Evidence, *q.Category, asked))
	}
	return c, id, nil
}

// turn is the j-th turn of a session that started at start (zero: undated).
func (t locomoTurn) turn(start time.Time, j int, step time.Duration) *Turn {
	text := t.Text
	if t.BlipCaption != "" {
		text = strings.TrimSpace(text + " [image: " + t.BlipCaption + "]")
	}
	turn := &Turn{ID: t.DiaID, Speaker: t.Speaker, Text: text}
	if !start.IsZero() {
		turn.Time = start.Add(time.Duration(j) * step)
	}
	return turn
}

// askedAfter is when LoCoMo's questions are asked: a day after the latest
// session (zero when no session is dated).
func askedAfter(last time.Time) time.Time {
	if last.IsZero() {
		return time.Time{}
	}
	return last.Add(24 * time.Hour)
}

// locomoQuestion is qa[j] of sample id.
func locomoQuestion(id string, j int, text, gold, adv string, evidence []string, category int, asked time.Time) *Question {
	g := locomoGroups[category-1] // the loaders check 1-5
	return &Question{
		ID:                id + ":" + strconv.Itoa(j),
		ConversationID:    id,
		Text:              text,
		Gold:              gold,
		AdversarialAnswer: adv,
		Category:          category,
		Evidence:          SplitEvidence(evidence),
		AskedAt:           asked,
		Abstention:        g.Abstains,
		Group:             g.Name,
	}
}

var diaID = regexp.MustCompile(`D:?(\d+):(\d+)`)

// SplitEvidence turns LoCoMo evidence strings into clean dia_ids: strings
// with several ids are split, "D:11:26" and "D30:05" are normalised, and
// strings with no id in them are dropped. Order is kept, duplicates removed.
func SplitEvidence(raw []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, r := range raw {
		for _, m := range diaID.FindAllStringSubmatch(r, -1) {
			id := fmt.Sprintf("D%d:%d", atoi(m[1]), atoi(m[2]))
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

var locomoTime = regexp.MustCompile(`^(\d{1,2})\s*:\s*(\d{2})\s*([ap])\.?\s*m\.?\s*(?:on\s+)?(\d{1,2})\s+([a-z]+)\.?\s*,?\s*(\d{4})$`)

// ParseLoCoMoTime parses "1:56 pm on 8 May, 2023" (case and spacing are
// free; months may be abbreviated). Times are UTC: LoCoMo gives no zone.
func ParseLoCoMoTime(s string) (time.Time, error) {
	norm := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	m := locomoTime.FindStringSubmatch(norm)
	if m == nil {
		return time.Time{}, fmt.Errorf("date %q is not like \"1:56 pm on 8 May, 2023\"", s)
	}
	h, mi, day, year := atoi(m[1]), atoi(m[2]), atoi(m[4]), atoi(m[6])
	mon, ok := monthByName(m[5])
	if !ok || h < 1 || h > 12 || mi > 59 || day < 1 || day > 31 {
		return time.Time{}, fmt.Errorf("date %q has an out-of-range field", s)
	}
	if m[3] == "p" && h != 12 {
		h += 12
	}
	if m[3] == "a" && h == 12 {
		h = 0
	}
	t := time.Date(year, mon, day, h, mi, 0, 0, time.UTC)
	if t.Day() != day {
		return time.Time{}, fmt.Errorf("date %q names a day its month does not have", s)
	}
	return t, nil
}

func monthByName(s string) (time.Month, bool) {
	for m := time.January; m <= time.December; m++ {
		full := strings.ToLower(m.String())
		if s == full || (len(s) >= 3 && strings.HasPrefix(full, s)) {
			return m, true
		}
	}
	return 0, false
}
