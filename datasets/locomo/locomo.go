package locomo

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/membench/membench/datasets"
)

// Name is the dataset's --dataset name.
const Name = "locomo"

func init() {
	datasets.Register(datasets.Spec{
		Name: Name, Load: Load, Groups: Groups, DefaultFile: Name, AnswerKeys: true,
		Shape: shape, List: "sample list",
		Fetch: []datasets.Entry{{
			Name: Name, File: "locomo10.json",
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

// Groups are LoCoMo's groups, one per category in category order;
// adversarial questions (category 5) are answered by declining.
var Groups = []datasets.GroupSpec{
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
	return Groups[c-1].Name
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

// Load reads a LoCoMo file (locomo10.json or the same schema).
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
func Load(path string, opt datasets.LoadOptions) (*datasets.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, datasets.Bad("read LoCoMo file: %w; pass --data FILE or run `membench datasets fetch locomo`", err)
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return readLoCoMo(f, size, path, Name, opt)
}

func Parse(data []byte, source, name string, opt datasets.LoadOptions) (*datasets.Dataset, error) {
	return readLoCoMo(bytes.NewReader(data), int64(len(data)), source, name, opt)
}

// shape is what a LoCoMo file is, for messages.
const shape = "a LoCoMo file is a JSON list of samples {sample_id, conversation, qa}"

// readLoCoMo reads a LoCoMo file from r (size bytes when known, else 0),
// never more than opt's cap. The fast decoder reads it as it streams in,
// which checks its syntax on the way; when it gives up, the rest of the
// file is read with a syntax check (so a broken file fails at its first
// bad byte) and the careful decoder decides.
func readLoCoMo(r io.Reader, size int64, source, name string, opt datasets.LoadOptions) (*datasets.Dataset, error) {
	max := opt.Cap()
	var buf bytes.Buffer
	if size > 0 {
		buf.Grow(int(min(size, max)) + bytes.MinRead)
	}
	src := io.TeeReader(datasets.NewCapReader(r, source, max), &buf)
	hashed := func() *datasets.Dataset {
		sum := sha256.Sum256(buf.Bytes())
		return &datasets.Dataset{Name: name, Source: source, SHA256: hex.EncodeToString(sum[:]), Groups: Groups}
	}
	convs, err := fastLoCoMoFrom(jsontext.NewDecoder(src), opt)
	if err == nil {
		ds := hashed()
		ds.Conversations = convs
		return ds, nil
	}
	// The bytes read so far, then the rest as it comes (the tee keeps
	// appending to buf; the slice taken here is not changed by that).
	seen := buf.Bytes()
	check := datasets.ListChecker{Source: source, What: shape, List: "sample list", Line: func(off int64) (int, bool) {
		if off > int64(buf.Len()) {
			return 0, false
		}
		return datasets.LineAt(buf.Bytes(), off), true
	}}
	if err := check.Check(io.MultiReader(bytes.NewReader(seen), src)); err != nil {
		return nil, err
	}
	return slowLoCoMo(buf.Bytes(), source, hashed(), opt)
}

// slowLoCoMo is the careful decoder: field by field, so that a file the
// fast decoder gave up on is either loaded or refused naming the problem.
func slowLoCoMo(data []byte, source string, ds *datasets.Dataset, opt datasets.LoadOptions) (*datasets.Dataset, error) {
	var samples []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&samples); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, datasets.Bad("%s: a LoCoMo file is a JSON list of samples {sample_id, conversation, qa}, got %s first", source, te.Value)
		}
		return nil, datasets.JSONErr(source, data, err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, datasets.Bad("%s line %d: text after the closing ] of the sample list (%s); remove it", source, datasets.LineAt(data, int64(len(data)-len(rest))), datasets.Show(rest))
	}
	if len(samples) == 0 {
		return nil, datasets.Bad("%s: no samples; a LoCoMo file is a JSON list of {sample_id, conversation, qa}", source)
	}
	// Samples are converted in parallel (decoding is most of a cached
	// rerun's start); errors are reported in file order as before.
	type conv struct {
		c   *datasets.Conversation
		id  string
		err error
	}
	convs := make([]conv, len(samples))
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(runtime.GOMAXPROCS(0), len(samples)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(samples); i = int(next.Add(1) - 1) {
				c, id, err := locomoConversation(samples[i], opt)
				convs[i] = conv{c, id, err}
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for i, cv := range convs {
		c := cv.c
		if cv.err != nil {
			return nil, datasets.Bad("%s: %s, %v", source, datasets.Who("sample", i, cv.id), cv.err)
		}
		if prev, dup := seen[c.ID]; dup {
			return nil, datasets.Bad("%s: sample %d: duplicate sample_id %q (also sample %d); give each sample a unique id", source, i, c.ID, prev)
		}
		seen[c.ID] = i
		ds.Conversations = append(ds.Conversations, c)
	}
	return ds, nil
}

// locomoConversation converts one sample; it also returns the sample_id
// when it could be read, so errors can name the sample.
func locomoConversation(raw json.RawMessage, opt datasets.LoadOptions) (*datasets.Conversation, string, error) {
	var s locomoSample
	if err := datasets.DecodeField(raw, &s, ""); err != nil {
		return nil, "", err
	}
	var id string
	if err := datasets.Required(s.SampleID, &id, "sample_id", `add a unique id such as "conv-1"`); err != nil {
		return nil, "", err
	}
	if id == "" {
		return nil, "", fmt.Errorf(`field "sample_id" is empty; add a unique id such as "conv-1"`)
	}
	var conv map[string]json.RawMessage
	if err := datasets.Required(s.Conversation, &conv, "conversation", "add the object with speaker_a, speaker_b and session_N lists"); err != nil {
		return nil, id, err
	}
	c := &datasets.Conversation{ID: id}
	for _, k := range []string{"speaker_a", "speaker_b"} {
		var sp string
		if err := datasets.Required(conv[k], &sp, "conversation."+k, "name both speakers"); err != nil {
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
	slices.SortFunc(keys, func(a, b sessKey) int { return cmp.Compare(a.n, b.n) })
	step := opt.Step()
	var last time.Time
	diaAt := map[string]string{}
	for _, sk := range keys {
		key := sk.key
		var turns []json.RawMessage
		if err := datasets.DecodeField(conv[key], &turns, "conversation."+key); err != nil {
			return nil, id, err
		}
		// Session ids stay "session_N" (the canonical form every artifact uses).
		sess := &datasets.Session{ID: fmt.Sprintf("session_%d", sk.n)}
		if raw, ok := conv[key+"_date_time"]; ok && string(raw) != "null" {
			if err := datasets.DecodeField(raw, &sess.RawTime, "conversation."+key+"_date_time"); err != nil {
				return nil, id, err
			}
			sess.Time, _ = ParseTime(sess.RawTime)
		}
		if sess.Time.After(last) {
			last = sess.Time
		}
		for j, traw := range turns {
			where := fmt.Sprintf("conversation.%s[%d]", key, j)
			var t locomoTurn
			if err := datasets.DecodeField(traw, &t, where); err != nil {
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
		if err := datasets.DecodeField(s.QA, &qas, "qa"); err != nil {
			return nil, id, err
		}
	}
	for j, qraw := range qas {
		where := fmt.Sprintf("qa[%d]", j)
		var q locomoQA
		if err := datasets.DecodeField(qraw, &q, where); err != nil {
			return nil, id, err
		}
		if q.Question == nil || q.Category == nil {
			return nil, id, fmt.Errorf(`%s: "question" and "category" are required`, where)
		}
		if *q.Category < CatMultiHop || *q.Category > CatAdversarial {
			return nil, id, fmt.Errorf(`%s.category: %d is not one of LoCoMo's 1-5`, where, *q.Category)
		}
		gold, err := datasets.ScalarText(q.Answer, where+".answer")
		if err != nil {
			return nil, id, err
		}
		adv, err := datasets.ScalarText(q.Adversarial, where+".adversarial_answer")
		if err != nil {
			return nil, id, err
		}
		c.Questions = append(c.Questions, locomoQuestion(id, j, *q.Question, gold, adv, q.Evidence, *q.Category, asked))
	}
	return c, id, nil
}

// turn is the j-th turn of a session that started at start (zero: undated).
func (t locomoTurn) turn(start time.Time, j int, step time.Duration) *datasets.Turn {
	text := t.Text
	if t.BlipCaption != "" {
		text = strings.TrimSpace(text + " [image: " + t.BlipCaption + "]")
	}
	turn := &datasets.Turn{ID: t.DiaID, Speaker: t.Speaker, Text: text}
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
func locomoQuestion(id string, j int, text, gold, adv string, evidence []string, category int, asked time.Time) *datasets.Question {
	g := Groups[category-1] // the loaders check 1-5
	return &datasets.Question{
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

// ParseTime parses "1:56 pm on 8 May, 2023" (case and spacing are
// free; months may be abbreviated). Times are UTC: LoCoMo gives no zone.
func ParseTime(s string) (time.Time, error) {
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

// IsAbstention is the abstention test of lexical judge inputs, which
// carry LoCoMo's category beside the flag: category 5 counts even
// unflagged. Questions and run records ask their own Abstains.
func IsAbstention(category int, flagged bool) bool {
	return flagged || category == CatAdversarial
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
