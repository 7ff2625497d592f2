package structmem

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/systems"
)

func registerOffline() {
	systems.Offline(TaskFact, func(in ExtractInput) any { return map[string]any{"entries": offlineFacts(in)} })
	systems.Offline(TaskRel, func(in ExtractInput) any { return map[string]any{"entries": offlineRelations(in)} })
	systems.Offline(TaskConsolidate, func(in ConsolidateInput) any {
		text, times := offlineNarrative(in)
		out := map[string]any{"narrative": text}
		if in.Constrained {
			out["times"] = times
		}
		return out
	})
}

// sentences splits text with lexical.Sentences (curly apostrophes
// straightened first, for resolvePerson) and returns the "[image: caption]"
// tags' captions separately.
func sentences(text string) (sents, images []string) {
	for _, s := range lexical.Sentences(strings.ReplaceAll(text, "’", "'")) {
		if c, ok := lexical.Caption(s); ok {
			if c != "" {
				images = append(images, c)
			}
			continue
		}
		sents = append(sents, s)
	}
	return sents, images
}

// contentWords are the words that carry meaning for the heuristics. Unlike
// lexical.ContentWords they stay unstemmed and repeat, because links show
// the shared words ("Both concern ...") and a count of them gates a fact.
func contentWords(s string, skip map[string]bool) []string {
	var out []string
	for _, w := range lexical.Words(s) {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		if len(w) < 3 || lexical.IsStopword(w) || skip[w] || stopExtra[w] || isNumber(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

func isNumber(w string) bool { return strings.Trim(w, "0123456789") == "" }

// stopExtra are words the heuristics themselves add or that carry no topic.
var stopExtra = systems.Set(strings.Fields(`said told asked stated shared image showing january february march april may june july
august september october november december undated i'm i've i'll i'd you're you've that's it's don't can't
thanks thank yeah wow great good nice cool lot lots`))

func otherSpeaker(speakers []string, sp string) string {
	for _, s := range speakers {
		if s != sp {
			return s
		}
	}
	return "the other speaker"
}

type rewrite struct {
	re   *regexp.Regexp
	repl string // %[1]s = speaker, %[2]s = other
}

// Person resolution, longest forms first, with the verb agreement the
// third person needs.
var rewrites = func() []rewrite {
	pairs := [][2]string{
		{`I'm|I am`, "%[1]s is"}, {`I've|I have`, "%[1]s has"}, {`I'll`, "%[1]s will"}, {`I'd`, "%[1]s would"},
		{`I was`, "%[1]s was"}, {`myself`, "%[1]s"}, {`mine`, "%[1]s's"}, {`my`, "%[1]s's"}, {`me`, "%[1]s"}, {`I`, "%[1]s"},
		{`you're|you are`, "%[2]s is"}, {`you've|you have`, "%[2]s has"}, {`you were`, "%[2]s was"}, {`yourself`, "%[2]s"},
		{`yours`, "%[2]s's"}, {`your`, "%[2]s's"}, {`you`, "%[2]s"},
		{`we're|we are`, "%[1]s and %[2]s are"}, {`we've`, "%[1]s and %[2]s have"}, {`our`, "%[1]s and %[2]s's"},
		{`we`, "%[1]s and %[2]s"}, {`us`, "%[1]s and %[2]s"},
	}
	out := make([]rewrite, len(pairs))
	for i, p := range pairs {
		out[i] = rewrite{regexp.MustCompile(`(?i)\b(?:` + p[0] + `)\b`), p[1]}
	}
	return out
}()

func resolvePerson(s, speaker, other string) string {
	for _, r := range rewrites {
		s = r.re.ReplaceAllLiteralString(s, fmt.Sprintf(r.repl, speaker, other))
	}
	return s
}

func withDate(s, date string) string {
	s = strings.TrimRight(s, ".!? ")
	if date == "" {
		return s + "."
	}
	return s + " (stated on " + date + ")."
}

func nameSkip(speakers []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range speakers {
		for _, w := range lexical.Words(s) {
			m[w] = true
		}
	}
	return m
}

// offlineFacts: every declarative sentence with at least two content words,
// first and second person resolved to names, the utterance date attached;
// image captions become "X shared an image showing ...".
func offlineFacts(in ExtractInput) []extracted {
	var out []extracted
	names := nameSkip(in.Speakers)
	for _, u := range in.Utterances {
		other := otherSpeaker(in.Speakers, u.Speaker)
		sents, images := sentences(u.Text)
		for _, s := range sents {
			if strings.HasSuffix(s, "?") || len(contentWords(s, names)) < 2 {
				continue
			}
			out = append(out, extracted{Utterance: u.ID, Text: withDate(resolvePerson(s, u.Speaker, other), u.Date)})
		}
		for _, c := range images {
			out = append(out, extracted{Utterance: u.ID, Text: withDate(u.Speaker+" shared an image showing "+c, u.Date)})
		}
	}
	return out
}

var (
	relWords = systems.Set(strings.Fields(`we we're we've us our ours together join joined both
happy glad proud excited love loved loving sad upset angry scared nervous grateful thankful thank thanks
worried stressed enjoy enjoyed amazing awesome hope hoping feel felt feeling inspired inspiring support
supported supportive lonely joy fun afraid anxious relieved disappointed frustrated appreciate appreciated miss
because since so therefore reason why caused helped result led made decided
yesterday today tomorrow last next ago before after when week weekend month year recently soon later`))
	secondPerson = systems.Set(strings.Fields(`you your yours you're you've yourself`))
)

// offlineRelations: sentences that address or name the other speaker, say
// "we", or carry an emotion, causal or temporal word, written as "X told Y
// that ..." (questions: "X asked Y: ...") with persons resolved and the
// date attached.
func offlineRelations(in ExtractInput) []extracted {
	var out []extracted
	names := nameSkip(in.Speakers)
	for _, u := range in.Utterances {
		other := otherSpeaker(in.Speakers, u.Speaker)
		otherWords := nameSkip([]string{other})
		sents, _ := sentences(u.Text)
		for _, s := range sents {
			if len(contentWords(s, names)) < 1 {
				continue
			}
			relational := false
			for _, w := range lexical.Words(s) {
				if relWords[w] || secondPerson[w] || otherWords[w] {
					relational = true
					break
				}
			}
			if !relational {
				continue
			}
			r := resolvePerson(s, u.Speaker, other)
			var text string
			if strings.HasSuffix(s, "?") {
				text = u.Speaker + " asked " + other + ": " + strings.TrimRight(r, "?") + "?"
				if u.Date != "" {
					text += " (asked on " + u.Date + ")"
				}
			} else {
				text = withDate(u.Speaker+" told "+other+" that "+lowerFirst(r, names), u.Date)
			}
			out = append(out, extracted{Utterance: u.ID, Text: text})
		}
	}
	return out
}

// lowerFirst lowers a plain sentence-initial word so the sentence reads
// after "that"; speaker names and acronyms keep their case.
func lowerFirst(s string, names map[string]bool) string {
	first, _, _ := strings.Cut(s, " ")
	if len(first) < 2 || names[strings.ToLower(strings.Trim(first, "',"))] || strings.ToLower(first[1:]) != first[1:] {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// offlineNarrative writes a window's synthesis the way the prompt asks,
// from the entries alone: the first entry of every event (buffer events
// before related ones), then the second of each, and so on, while the text
// stays within MaxWords; the chosen lines are then told in time order, each
// opened by its event's [time] (constrained) or as is (unconstrained, whose
// entries carry their dates). Deterministic: no ranking, no randomness.
func offlineNarrative(in ConsolidateInput) (string, []string) {
	type event struct {
		key   string
		order int
		texts []string
	}
	var evs []*event
	idx := map[string]*event{}
	for _, e := range append(append([]PromptEntry{}, in.Buffer...), in.Related...) {
		ev := idx[e.Time]
		if ev == nil {
			ev = &event{key: e.Time, order: len(evs)}
			idx[e.Time] = ev
			evs = append(evs, ev)
		}
		ev.texts = append(ev.texts, strings.TrimSpace(e.Text))
	}
	type line struct {
		ev   *event
		rank int
		text string
	}
	var chosen []line
	words := 0
	maxW := in.MaxWords
	if maxW <= 0 {
		maxW = maxNarrativeWords
	}
	full := false
	for rank := 0; !full; rank++ {
		added := false
		for _, ev := range evs {
			if rank >= len(ev.texts) {
				continue
			}
			text := ev.texts[rank]
			if in.Constrained {
				text = "[" + ev.key + "] " + text
			}
			n := len(strings.Fields(text))
			if words+n > maxW {
				full = true
				break
			}
			words += n
			chosen = append(chosen, line{ev, rank, text})
			added = true
		}
		if !added {
			break
		}
	}
	sort.SliceStable(chosen, func(a, b int) bool {
		if chosen[a].ev.key != chosen[b].ev.key {
			return chosen[a].ev.key < chosen[b].ev.key
		}
		return chosen[a].rank < chosen[b].rank
	})
	var b strings.Builder
	var times []string
	seen := map[string]bool{}
	for i, l := range chosen {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l.text)
		if in.Constrained && !seen[l.ev.key] {
			seen[l.ev.key] = true
			times = append(times, l.ev.key)
		}
	}
	return b.String(), times
}
