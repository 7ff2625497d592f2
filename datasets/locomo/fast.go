package locomo

import (
	"cmp"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/membench/membench/datasets"
)

// The fast LoCoMo decoder reads a well-formed file in one pass over its
// bytes (encoding/json's field-by-field decoding scans each byte five or
// six times, and was most of a cached rerun's start). It accepts only what
// the careful decoder (locomoConversation) accepts without a word, and
// gives up on anything else: a null where a value belongs, a key that
// matches a field only when case is ignored, a duplicate key, a wrong type,
// a bad escape. Parse then decodes the file again the careful way,
// which either loads it the same (FuzzLoCoMoFast checks that both agree
// whenever the fast one succeeds) or names the problem.

// errNotPlain is the fast decoder giving up; the careful one decides.
var errNotPlain = errors.New("not a plain LoCoMo file")

// fastLoCoMoFrom decodes the whole of d's input, or returns errNotPlain.
// The decoder's own checks (syntax, UTF-8, no repeated names) hold for
// whatever it accepts.
func fastLoCoMoFrom(d *jsontext.Decoder, opt datasets.LoadOptions) ([]*datasets.Conversation, error) {
	if err := fastDelim(d, '['); err != nil {
		return nil, err
	}
	var convs []*datasets.Conversation
	seen := map[string]bool{}
	for {
		switch d.PeekKind() {
		case ']':
			if _, err := d.ReadToken(); err != nil {
				return nil, errNotPlain
			}
			// Only white space may follow the list.
			if _, err := d.ReadToken(); err != io.EOF || len(convs) == 0 {
				return nil, errNotPlain
			}
			return convs, nil
		case '{':
			c, err := fastSample(d, opt)
			if err != nil || seen[c.ID] {
				return nil, errNotPlain
			}
			seen[c.ID] = true
			convs = append(convs, c)
		default:
			return nil, errNotPlain
		}
	}
}

// fastDelim reads one token that must be the delimiter want.
func fastDelim(d *jsontext.Decoder, want jsontext.Kind) error {
	t, err := d.ReadToken()
	if err != nil || t.Kind() != want {
		return errNotPlain
	}
	return nil
}

// fastString reads a value that must be a string.
func fastString(d *jsontext.Decoder) (string, error) {
	if d.PeekKind() != '"' {
		return "", errNotPlain
	}
	t, err := d.ReadToken()
	if err != nil {
		return "", errNotPlain
	}
	return t.String(), nil
}

// fastName reads an object member's name and says whether it is one of
// the fields the careful decoder's struct knows. A name that matches a
// field only when case is ignored is left to the careful decoder, which
// (like encoding/json) would fill the field with it.
func fastName(d *jsontext.Decoder, fields ...string) (string, error) {
	t, err := d.ReadToken()
	if err != nil {
		return "", errNotPlain
	}
	name := t.String()
	if !slices.Contains(fields, name) && slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(name, f) }) {
		return "", errNotPlain
	}
	return name, nil
}

type fastSession struct {
	n     int
	key   string
	turns []locomoTurn
}

type fastQA struct {
	question, gold, adv string
	evidence            []string
	category            int
	haveQ, haveCat      bool
}

// fastSample decodes one sample object.
func fastSample(d *jsontext.Decoder, opt datasets.LoadOptions) (*datasets.Conversation, error) {
	if err := fastDelim(d, '{'); err != nil {
		return nil, err
	}
	var (
		id               string
		haveID, haveConv bool
		speakers         [2]string
		sessions         []fastSession
		dates            map[string]string
		qas              []fastQA
	)
	for d.PeekKind() != '}' {
		name, err := fastName(d, "sample_id", "conversation", "qa")
		if err != nil {
			return nil, err
		}
		switch name {
		case "sample_id":
			if id, err = fastString(d); err != nil || id == "" {
				return nil, errNotPlain
			}
			haveID = true
		case "conversation":
			if speakers, sessions, dates, err = fastConversation(d); err != nil {
				return nil, err
			}
			haveConv = true
		case "qa":
			if qas, err = fastQAs(d); err != nil {
				return nil, err
			}
		default:
			if err := d.SkipValue(); err != nil {
				return nil, errNotPlain
			}
		}
	}
	if err := fastDelim(d, '}'); err != nil || !haveID || !haveConv || len(sessions) == 0 {
		return nil, errNotPlain
	}
	// Sessions in numeric order; a number given twice (session_1 and
	// session_01) is the careful decoder's to report.
	byNum := make(map[int]bool, len(sessions))
	for _, s := range sessions {
		if byNum[s.n] {
			return nil, errNotPlain
		}
		byNum[s.n] = true
	}
	slices.SortFunc(sessions, func(a, b fastSession) int { return cmp.Compare(a.n, b.n) })
	c := &datasets.Conversation{ID: id, Speakers: []string{speakers[0], speakers[1]}}
	step := opt.Step()
	var last time.Time
	diaSeen := map[string]bool{}
	for _, fs := range sessions {
		sess := &datasets.Session{ID: "session_" + strconv.Itoa(fs.n)}
		if raw, ok := dates[fs.key+"_date_time"]; ok {
			sess.RawTime = raw
			sess.Time, _ = ParseTime(raw)
		}
		if sess.Time.After(last) {
			last = sess.Time
		}
		for j, t := range fs.turns {
			if t.DiaID == "" || t.Speaker == "" || diaSeen[t.DiaID] {
				return nil, errNotPlain
			}
			diaSeen[t.DiaID] = true
			sess.Turns = append(sess.Turns, t.turn(sess.Time, j, step))
		}
		c.Sessions = append(c.Sessions, sess)
	}
	asked := askedAfter(last)
	for j, q := range qas {
		if !q.haveQ || !q.haveCat || q.category < CatMultiHop || q.category > CatAdversarial {
			return nil, errNotPlain
		}
		c.Questions = append(c.Questions, locomoQuestion(id, j, q.question, q.gold, q.adv, q.evidence, q.category, asked))
	}
	return c, nil
}

// fastConversation decodes the conversation object: the two speakers,
// session_N lists and session_N_date_time strings; other members are
// skipped, as the careful decoder ignores them.
func fastConversation(d *jsontext.Decoder) (speakers [2]string, sessions []fastSession, dates map[string]string, err error) {
	if err = fastDelim(d, '{'); err != nil {
		return
	}
	var have [2]bool
	dates = map[string]string{}
	for d.PeekKind() != '}' {
		var t jsontext.Token
		if t, err = d.ReadToken(); err != nil {
			err = errNotPlain
			return
		}
		key := t.String()
		switch {
		case key == "speaker_a" || key == "speaker_b":
			i := int(key[len(key)-1] - 'a')
			if speakers[i], err = fastString(d); err != nil || speakers[i] == "" {
				err = errNotPlain
				return
			}
			have[i] = true
		case strings.HasSuffix(key, "_date_time"):
			// Only a string or null is sure to be read alike; null means
			// no date.
			switch d.PeekKind() {
			case 'n':
				if err = d.SkipValue(); err != nil {
					err = errNotPlain
					return
				}
			case '"':
				if dates[key], err = fastString(d); err != nil {
					return
				}
			default:
				err = errNotPlain
				return
			}
		default:
			n, ok := sessionNumber(key)
			if !ok {
				if err = d.SkipValue(); err != nil {
					err = errNotPlain
					return
				}
				continue
			}
			s := fastSession{n: n, key: key}
			if s.turns, err = fastTurns(d); err != nil {
				return
			}
			sessions = append(sessions, s)
		}
	}
	if err = fastDelim(d, '}'); err != nil || !have[0] || !have[1] {
		err = errNotPlain
	}
	return
}

// sessionNumber reads N from "session_N" (ASCII digits, as the careful
// decoder's pattern); ok is false for any other key and for an N too large
// for an int (the careful decoder reports that).
func sessionNumber(key string) (int, bool) {
	digits, ok := strings.CutPrefix(key, "session_")
	if !ok || digits == "" || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// fastTurns decodes a session's list of turn objects.
func fastTurns(d *jsontext.Decoder) ([]locomoTurn, error) {
	if err := fastDelim(d, '['); err != nil {
		return nil, err
	}
	var turns []locomoTurn
	for d.PeekKind() == '{' {
		d.ReadToken()
		var t locomoTurn
		for d.PeekKind() != '}' {
			name, err := fastName(d, "speaker", "dia_id", "text", "blip_caption")
			if err != nil {
				return nil, err
			}
			var dst *string
			switch name {
			case "speaker":
				dst = &t.Speaker
			case "dia_id":
				dst = &t.DiaID
			case "text":
				dst = &t.Text
			case "blip_caption":
				dst = &t.BlipCaption
			default:
				if err := d.SkipValue(); err != nil {
					return nil, errNotPlain
				}
				continue
			}
			if *dst, err = fastString(d); err != nil {
				return nil, err
			}
		}
		if err := fastDelim(d, '}'); err != nil {
			return nil, err
		}
		turns = append(turns, t)
	}
	return turns, fastDelim(d, ']')
}

// fastQAs decodes the qa list.
func fastQAs(d *jsontext.Decoder) ([]fastQA, error) {
	if err := fastDelim(d, '['); err != nil {
		return nil, err
	}
	var qas []fastQA
	for d.PeekKind() == '{' {
		d.ReadToken()
		var q fastQA
		for d.PeekKind() != '}' {
			name, err := fastName(d, "question", "answer", "adversarial_answer", "evidence", "category")
			if err != nil {
				return nil, err
			}
			switch name {
			case "question":
				if q.question, err = fastString(d); err != nil {
					return nil, err
				}
				q.haveQ = true
			case "answer", "adversarial_answer":
				dst := &q.gold
				if name == "adversarial_answer" {
					dst = &q.adv
				}
				if *dst, err = fastScalar(d); err != nil {
					return nil, err
				}
			case "evidence":
				if q.evidence, err = fastStrings(d); err != nil {
					return nil, err
				}
			case "category":
				v, err := d.ReadValue()
				if err != nil || v.Kind() != '0' {
					return nil, errNotPlain
				}
				// As encoding/json reads an int: an integer literal only.
				n, err := strconv.ParseInt(string(v), 10, 0)
				if err != nil {
					return nil, errNotPlain
				}
				q.category, q.haveCat = int(n), true
			default:
				if err := d.SkipValue(); err != nil {
					return nil, errNotPlain
				}
			}
		}
		if err := fastDelim(d, '}'); err != nil {
			return nil, err
		}
		qas = append(qas, q)
	}
	return qas, fastDelim(d, ']')
}

// fastScalar reads an answer as ScalarText does: a string as its text, a
// number as written, null as empty.
func fastScalar(d *jsontext.Decoder) (string, error) {
	switch d.PeekKind() {
	case '"':
		return fastString(d)
	case '0':
		v, err := d.ReadValue()
		if err != nil {
			return "", errNotPlain
		}
		return string(v), nil
	case 'n':
		if err := d.SkipValue(); err != nil {
			return "", errNotPlain
		}
		return "", nil
	}
	return "", errNotPlain
}

// fastStrings reads a list of strings.
func fastStrings(d *jsontext.Decoder) ([]string, error) {
	if err := fastDelim(d, '['); err != nil {
		return nil, err
	}
	out := []string{}
	for d.PeekKind() == '"' {
		s, err := fastString(d)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, fastDelim(d, ']')
}
