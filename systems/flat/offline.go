package flat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/systems"
)

// ExtractInput is what flat_extract.tmpl renders and the offline
// "flat.extract" heuristic reads from Request.Inputs.
type ExtractInput struct {
	Speakers []string
	Previous string // the turn before, for context only
	Messages []MessageIn
	Session  bool // several messages: each fact names its turn
}

// MessageIn is one message shown for extraction.
type MessageIn struct {
	TurnID, Speaker, Date, Text string
}

// UpdateInput is what flat_update.tmpl renders and the offline
// "flat.update" heuristic reads: new facts (numbered from 0) and the stored
// facts nearest to them, under short ids.
type UpdateInput struct {
	Facts    []string
	Memories []MemoryIn
}

// MemoryIn is one stored fact shown to the update call.
type MemoryIn struct {
	ID, Text, Date string
}

func init() {
	systems.Offline(TaskExtract, offlineExtract)
	systems.Offline(TaskUpdate, offlineUpdate)
}

var greetings = []string{"hi", "hey", "hello", "thanks", "thank", "bye", "wow", "congrats", "congratulations", "cool", "great", "awesome", "nice", "ok", "okay", "lol", "haha", "sure", "yeah", "good", "amazing"}

// OfflineFacts is the offline extraction heuristic for one message: its
// sentences in the third person, without questions, greetings and
// sentences of fewer than two content words. Image captions become "X
// shared a photo of ...".
func OfflineFacts(speaker, text string) []string {
	var out []string
	for _, s := range lexical.Sentences(text) {
		if c, ok := lexical.Caption(s); ok {
			if c != "" {
				out = append(out, speaker+" shared a photo of "+strings.TrimSuffix(c, ".")+".")
			}
			continue
		}
		if strings.HasSuffix(s, "?") {
			continue
		}
		words := strings.Fields(strings.ToLower(s))
		if len(words) < 4 {
			continue
		}
		if len(words) < 7 && slices.Contains(greetings, strings.Trim(words[0], ",.!")) {
			continue
		}
		r := lexical.ResolveFirstPerson(s, speaker)
		if len(lexical.ContentWords(r)) < 2 {
			continue
		}
		out = append(out, r)
	}
	return out
}

func offlineExtract(in ExtractInput) any {
	facts := []any{}
	for _, m := range in.Messages {
		for _, f := range OfflineFacts(m.Speaker, m.Text) {
			if in.Session {
				facts = append(facts, map[string]string{"text": f, "speaker": m.Speaker, "turn": m.TurnID})
			} else {
				facts = append(facts, f)
			}
		}
	}
	return map[string]any{"facts": facts}
}

// negations mark a fact that retracts an earlier one.
var negations = []string{"no longer", "not anymore", "anymore", "stopped", "quit", "gave up", "isn't", "doesn't", "don't", "not"}

// skipKey are words passed over when looking for a fact's key word.
var skipKey = stems("longer anymore stop stopped quit gave still now recently finally actually")

// singleValued are key words whose fact holds one value at a time, so a
// new value replaces the old even without other shared words.
var singleValued = stems("lives works married moved job age old engaged dating studies favorite favourite")

// stems is the set of lexical.Stem keys of the space-separated words, so
// the lists above read as words and follow the stemmer.
func stems(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[lexical.Stem(w)] = true
	}
	return m
}

// subjectKey returns a fact's subject (its first content word, usually the
// speaker's name) and key word (the next content word that is not a
// negation or filler), both stemmed.
func subjectKey(fact string) (subject, key string, rest []string) {
	cw := lexical.ContentWords(fact)
	if len(cw) == 0 {
		return "", "", nil
	}
	subject = cw[0]
	for i := 1; i < len(cw); i++ {
		if skipKey[cw[i]] {
			continue
		}
		return subject, cw[i], cw[i+1:]
	}
	return subject, "", nil
}

func negates(fact string) bool {
	l := " " + strings.ToLower(strings.ReplaceAll(fact, "’", "'")) + " "
	for _, n := range negations {
		if strings.Contains(l, " "+n+" ") {
			return true
		}
	}
	return false
}

func jaccard(a, b []string) (j float64, aInB bool) {
	sa, sb := systems.Set(a), systems.Set(b)
	inter := 0
	for x := range sa {
		if sb[x] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 1, true
	}
	return float64(inter) / float64(union), inter == len(sa)
}

// OfflineDecide is the offline update rule for one new fact against stored
// facts (in the order given, nearest first):
//   - NONE when a stored fact has near-identical content words (Jaccard
//     >= 0.8, or the new fact's content words are all in it);
//   - DELETE when the new fact negates ("no longer", "stopped", "not", ...)
//     a stored fact with the same subject and key word;
//   - UPDATE when a stored fact has the same subject and key word and
//     either shares another content word or the key is single-valued
//     (lives, works, married, moved, job, ...): the new text replaces it;
//   - ADD otherwise.
func OfflineDecide(fact string, mems []MemoryIn) (event, id string) {
	cw := lexical.ContentWords(fact)
	subj, key, rest := subjectKey(fact)
	neg := negates(fact)
	for _, m := range mems {
		mcw := lexical.ContentWords(m.Text)
		if j, sub := jaccard(cw, mcw); !neg && (j >= 0.8 || (sub && len(cw) > 0)) {
			return "NONE", m.ID
		}
	}
	for _, m := range mems {
		ms, mk, mrest := subjectKey(m.Text)
		if subj == "" || key == "" || ms != subj || mk != key {
			continue
		}
		if neg && !negates(m.Text) {
			return "DELETE", m.ID
		}
		if j, _ := jaccard(rest, mrest); j > 0 || singleValued[key] {
			return "UPDATE", m.ID
		}
	}
	return "ADD", ""
}

func offlineUpdate(in UpdateInput) any {
	out := make([]decision, 0, len(in.Facts))
	for i, f := range in.Facts {
		ev, id := OfflineDecide(f, in.Memories)
		d := decision{Fact: FlexString(strconv.Itoa(i)), Event: ev, ID: FlexString(id)}
		if ev == "UPDATE" {
			d.Text = f
		}
		out = append(out, d)
	}
	return updateReply{Decisions: out}
}
