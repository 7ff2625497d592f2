package datasets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// LoCoMo's file is a JSON list of samples; each has a sample_id, a
// "conversation" object (speaker_a, speaker_b, session_N lists and
// session_N_date_time strings) and a "qa" list.
type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
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
func LoadLoCoMo(path string, opt LoadOptions) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read LoCoMo file: %w; pass --data FILE or run `membench datasets fetch locomo`", err)
	}
	return parseLoCoMo(data, path, "locomo", opt)
}

func parseLoCoMo(data []byte, source, name string, opt LoadOptions) (*Dataset, error) {
	sum := sha256.Sum256(data)
	var samples []locomoSample
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&samples); err != nil {
		return nil, jsonErr(source, data, err)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("%s: no samples; a LoCoMo file is a JSON list of {sample_id, conversation, qa}", source)
	}
	ds := &Dataset{Name: name, Source: source, SHA256: hex.EncodeToString(sum[:])}
	seen := map[string]bool{}
	for i, s := range samples {
		c, err := locomoConversation(s, opt)
		if err != nil {
			who := fmt.Sprintf("sample %d", i)
			if s.SampleID != "" {
				who += " (" + s.SampleID + ")"
			}
			return nil, fmt.Errorf("%s: %s: %w", source, who, err)
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("%s: sample %d: duplicate sample_id %q; give each sample a unique id", source, i, c.ID)
		}
		seen[c.ID] = true
		ds.Conversations = append(ds.Conversations, c)
	}
	return ds, nil
}

func locomoConversation(s locomoSample, opt LoadOptions) (*Conversation, error) {
	if s.SampleID == "" {
		return nil, fmt.Errorf(`field "sample_id" missing or empty; add a unique id such as "conv-1"`)
	}
	if s.Conversation == nil {
		return nil, fmt.Errorf(`field "conversation" missing; add the object with speaker_a, speaker_b and session_N lists`)
	}
	c := &Conversation{ID: s.SampleID}
	for _, k := range []string{"speaker_a", "speaker_b"} {
		var sp string
		if err := json.Unmarshal(s.Conversation[k], &sp); err != nil || sp == "" {
			return nil, fmt.Errorf(`field "conversation.%s" missing or not a string; name both speakers`, k)
		}
		c.Speakers = append(c.Speakers, sp)
	}

	// Sessions in numeric order; a date without a session is ignored.
	var nums []int
	for k := range s.Conversation {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			nums = append(nums, atoi(m[1]))
		}
	}
	sort.Ints(nums)
	step := opt.step()
	var last time.Time
	for _, n := range nums {
		key := fmt.Sprintf("session_%d", n)
		var turns []locomoTurn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return nil, fmt.Errorf(`field "conversation.%s" is not a list of turns {speaker, dia_id, text}: %v`, key, err)
		}
		sess := &Session{ID: key}
		if raw, ok := s.Conversation[key+"_date_time"]; ok {
			_ = json.Unmarshal(raw, &sess.RawTime)
			sess.Time, _ = ParseLoCoMoTime(sess.RawTime)
		}
		if sess.Time.After(last) {
			last = sess.Time
		}
		for j, t := range turns {
			if t.DiaID == "" || t.Speaker == "" {
				return nil, fmt.Errorf(`conversation.%s[%d]: "dia_id" and "speaker" are required on every turn`, key, j)
			}
			text := t.Text
			if t.BlipCaption != "" {
				text = strings.TrimSpace(text + " [image: " + t.BlipCaption + "]")
			}
			turn := &Turn{ID: t.DiaID, Speaker: t.Speaker, Text: text}
			if !sess.Time.IsZero() {
				turn.Time = sess.Time.Add(time.Duration(j) * step)
			}
			sess.Turns = append(sess.Turns, turn)
		}
		c.Sessions = append(c.Sessions, sess)
	}
	if len(c.Sessions) == 0 {
		return nil, fmt.Errorf(`no "session_N" lists in "conversation"; a sample needs at least one session`)
	}

	var asked time.Time
	if !last.IsZero() {
		asked = last.Add(24 * time.Hour)
	}
	for j, q := range s.QA {
		if q.Question == nil || q.Category == nil {
			return nil, fmt.Errorf(`qa[%d]: "question" and "category" are required`, j)
		}
		if *q.Category < CatMultiHop || *q.Category > CatAdversarial {
			return nil, fmt.Errorf(`qa[%d]: category %d is not one of LoCoMo's 1-5`, j, *q.Category)
		}
		c.Questions = append(c.Questions, &Question{
			ID:                fmt.Sprintf("%s:%d", s.SampleID, j),
			ConversationID:    s.SampleID,
			Text:              *q.Question,
			Gold:              stringify(q.Answer),
			AdversarialAnswer: stringify(q.Adversarial),
			Category:          *q.Category,
			Evidence:          SplitEvidence(q.Evidence),
			AskedAt:           asked,
			Abstention:        *q.Category == CatAdversarial,
		})
	}
	return c, nil
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
