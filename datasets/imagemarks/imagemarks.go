// Package imagemarks marks LoCoMo questions that lean on shared images,
// computed from the LoCoMo file itself (the loader keeps only an image's
// caption, inside its turn's text):
//
//   - WithImage: an evidence turn of the question shares an image.
//   - Dependent: the gold answer needs the image. Some content word of
//     the gold answer appears in an evidence image's caption or search
//     query, and no content word of the gold answer appears in the text
//     of any evidence turn. Words are lowercase letters and digits split
//     as lexical.Words splits them, stopwords and one-letter words
//     dropped, not stemmed.
//
// Evidence strings are split as the loader splits them ("D8:6; D9:17" is
// two turns). Category 5 questions are not marked: they are not scored
// against a gold answer.
package imagemarks

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/internal/lexical"
)

// Mark is one question's image marks.
type Mark struct {
	WithImage bool `json:"with_image"`
	Dependent bool `json:"dependent"`
}

// Marks are marks by membench question id ("conv-26:3"); unmarked
// questions are absent.
type Marks map[string]Mark

// Dependent lists the ids of the image-dependent questions.
func (m Marks) Dependent() map[string]bool {
	out := map[string]bool{}
	for id, mk := range m {
		if mk.Dependent {
			out[id] = true
		}
	}
	return out
}

type turn struct {
	DiaID   string          `json:"dia_id"`
	Text    string          `json:"text"`
	Caption string          `json:"blip_caption"`
	Query   string          `json:"query"`
	ImgURL  json.RawMessage `json:"img_url"`
}

func (t turn) hasImage() bool {
	u := strings.TrimSpace(string(t.ImgURL))
	return t.Caption != "" || (u != "" && u != "null" && u != "[]" && u != `""`)
}

type qa struct {
	Answer   json.RawMessage `json:"answer"`
	Evidence []string        `json:"evidence"`
	Category int             `json:"category"`
}

type sample struct {
	ID           string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []qa                       `json:"qa"`
}

var sessionKey = regexp.MustCompile(`^session_\d+$`)

// Read computes the marks of a LoCoMo file.
func Read(path string) (Marks, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, badinput.Errorf("image marks: %v; give the LoCoMo file (locomo10.json)", err)
	}
	return Parse(b, path)
}

// Parse computes the marks of a LoCoMo file's bytes.
func Parse(data []byte, source string) (Marks, error) {
	var samples []sample
	if err := json.Unmarshal(data, &samples); err != nil {
		return nil, badinput.Errorf("image marks: %s: %v; a LoCoMo file is a JSON list of samples {sample_id, conversation, qa}", source, err)
	}
	out := Marks{}
	for si, s := range samples {
		turns := map[string]turn{}
		for key, raw := range s.Conversation {
			if !sessionKey.MatchString(key) {
				continue
			}
			var ts []turn
			if err := json.Unmarshal(raw, &ts); err != nil {
				return nil, badinput.Errorf("image marks: %s: sample %d (%s) %s: %v; a session is a list of turns {dia_id, text, blip_caption, query}", source, si, s.ID, key, err)
			}
			for _, t := range ts {
				for _, id := range locomo.SplitEvidence([]string{t.DiaID}) {
					turns[id] = t
				}
			}
		}
		for j, q := range s.QA {
			if q.Category == locomo.CatAdversarial {
				continue
			}
			if mk := mark(q, turns); mk.WithImage {
				out[s.ID+":"+strconv.Itoa(j)] = mk
			}
		}
	}
	return out, nil
}

func mark(q qa, turns map[string]turn) Mark {
	var mk Mark
	gold := words(answerText(q.Answer))
	text, image := map[string]bool{}, map[string]bool{}
	for _, id := range locomo.SplitEvidence(q.Evidence) {
		t, ok := turns[id]
		if !ok {
			continue
		}
		for _, w := range words(t.Text) {
			text[w] = true
		}
		if t.hasImage() {
			mk.WithImage = true
			for _, w := range words(t.Caption + " " + t.Query) {
				image[w] = true
			}
		}
	}
	inImage, inText := false, false
	for _, w := range gold {
		inImage = inImage || image[w]
		inText = inText || text[w]
	}
	mk.Dependent = mk.WithImage && inImage && !inText
	return mk
}

func answerText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// words are the content words of s (see the package comment).
func words(s string) []string {
	var out []string
	for _, w := range lexical.Words(strings.ReplaceAll(s, "’", "'")) {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		if len(w) >= 2 && !lexical.IsStopword(w) {
			out = append(out, w)
		}
	}
	return out
}
