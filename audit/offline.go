package audit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems/selector"
)

// Task names of the audit requests (and of their offline heuristics).
const (
	TaskExtraction = "audit.extraction"
	TaskLinks      = "audit.links"
)

// ExtractionInput is the data of audit_extraction.tmpl and the offline
// heuristic's Request.Inputs.
type ExtractionInput struct {
	Speakers []string `json:"speakers"`
	Speaker  string   `json:"speaker"`
	Kind     string   `json:"kind"`
	Date     string   `json:"date"`
	Source   string   `json:"source"` // the cited utterance(s), "Speaker: text"
	Entry    string   `json:"entry"`
}

// LinkInput is the data of audit_links.tmpl and the offline heuristic's
// Request.Inputs.
type LinkInput struct {
	Speakers   []string    `json:"speakers"`
	Link       string      `json:"link"`
	Dependency string      `json:"dependency"`
	Cited      bool        `json:"cited"` // false: Events are the window context, the link cited none
	Events     []LinkEvent `json:"events"`
}

// LinkEvent is one event shown to a link judge: its time key and entries.
type LinkEvent struct {
	Time    string   `json:"time"`
	Entries []string `json:"entries"`
}

// Thresholds of the offline heuristics.
const (
	// An entry is supported when more than this share of its checked
	// content words occur in the source.
	offlineEntryShare = 0.5
	// A link is supported when at least offlineLinkEvents events each share
	// at least offlineLinkWords content words with it.
	offlineLinkWords  = 2
	offlineLinkEvents = 2
)

var (
	numberRe  = regexp.MustCompile(`^\d+(st|nd|rd|th)?$`)
	dateWords = wordSet("january february march april may june july august september october november december " +
		"jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday " +
		"today yesterday tomorrow am pm")
	// Words a memory entry adds when it restates an utterance ("X told Y
	// that ...", "(stated on ...)", "X shared an image showing ...").
	framingWords = wordSet("said says stated told tells asked asks mentioned shared showing image later both concern")
)

func wordSet(s string) map[string]bool { return lexical.Set(selector.ContentWords(s)) }

// checked drops the words an entry may carry without the source saying
// them: speakers' names, date words, numbers and restating verbs.
func checked(words []string, names map[string]bool) []string {
	var out []string
	for _, w := range words {
		if names[w] || dateWords[w] || framingWords[w] || numberRe.MatchString(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// OfflineExtraction is the offline verdict on one entry: SUPPORTED when more
// than half of the entry's checked content words (selector.ContentWords:
// stopwords dropped, crude stemming; names, dates, numbers and restating
// verbs not checked) occur among the source's content words. An entry with
// nothing left to check is SUPPORTED.
func OfflineExtraction(in ExtractionInput) Verdict {
	names := wordSet(strings.Join(append(append([]string{}, in.Speakers...), in.Speaker), " "))
	src := wordSet(in.Source)
	words := checked(selector.ContentWords(in.Entry), names)
	if len(words) == 0 {
		return Verdict{Supported: true, Reason: "no content words beyond names and dates to check"}
	}
	var missing []string
	for _, w := range words {
		if !src[w] {
			missing = append(missing, w)
		}
	}
	found := len(words) - len(missing)
	ok := float64(found) > offlineEntryShare*float64(len(words))
	r := fmt.Sprintf("%d of %d content words occur in the utterance", found, len(words))
	if len(missing) > 0 {
		r += "; missing: " + strings.Join(missing, ", ")
	}
	return Verdict{Supported: ok, Reason: r}
}

// OfflineLink is the offline verdict on one link: supported when at least
// two of the shown events each share at least two checked content words
// with the link text and its dependency.
func OfflineLink(in LinkInput) Verdict {
	names := wordSet(strings.Join(in.Speakers, " "))
	link := lexical.Set(checked(selector.ContentWords(in.Link+" "+in.Dependency), names))
	support := 0
	var parts []string
	for _, ev := range in.Events {
		shared := 0
		for _, w := range selector.ContentWords(strings.Join(ev.Entries, " ")) { // ContentWords lists each word once
			if link[w] {
				shared++
			}
		}
		if shared >= offlineLinkWords {
			support++
		}
		parts = append(parts, fmt.Sprintf("%s: %d", ev.Time, shared))
	}
	r := fmt.Sprintf("%d of %d events share ≥ %d content words with the link (%s)", support, len(in.Events), offlineLinkWords, strings.Join(parts, "; "))
	return Verdict{Supported: support >= offlineLinkEvents, Reason: r}
}

func init() {
	registerOffline(TaskExtraction, OfflineExtraction)
	registerOffline(TaskLinks, OfflineLink)
}

// registerOffline answers task offline with verdict over the request's
// inputs, which must be a T, as the JSON reply {"reason", "verdict"}.
func registerOffline[T any](task string, verdict func(T) Verdict) {
	llm.RegisterOffline(task, func(req llm.Request) (string, error) {
		in, ok := req.Inputs.(T)
		if !ok {
			return "", fmt.Errorf("inputs are %T, want %T", req.Inputs, in)
		}
		v, label := verdict(in), Unsupported
		if v.Supported {
			label = Supported
		}
		b, err := json.Marshal(map[string]string{"reason": v.Reason, "verdict": label})
		return string(b), err
	})
}
