package structmem

import (
	"errors"
	"testing"
)

// Seeds are answers the extraction and consolidation prompts get back
// (the shapes quoted in the repair instruction, fenced or bare).
var answerSeeds = []string{
	`{"entries":[{"utterance":"D1:3","text":"kept fact"},{"text":"no citation"},{"utterance":"D9:99","text":"unknown citation"}]}`,
	"```json\n{\"entries\": [{\"utterance\": \"D1:1\", \"utterances\": [\"D1:1\", \"D1:2\"], \"text\": \"x\"}]}\n```",
	`[{"utterance":"D1:1","text":"bare list"}]`,
	`{"narrative":"On [2023-05-08 13:56:00] Caroline ... later, 2023-05-08T14:10 ...","times":["2023-05-08 13:56:00","2023-05-08 14:10:30"]}`,
	`{"narrative":"   ","times":"x"}`, `{"narrative": 3}`,
	`{"entries": [{"utterance": "D1:1", "text": `, `{"entries": "none"}`, "this is not json", "",
}

func FuzzParseEntries(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if _, err := parseEntries(raw); err != nil && !errors.Is(err, errMalformed) {
			t.Fatalf("parseEntries(%q): error %v is not errMalformed (no repair would be tried)", raw, err)
		}
	})
}

func FuzzParseNarrative(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, cites, err := parseNarrative(raw)
		if err != nil {
			if !errors.Is(err, errMalformed) {
				t.Fatalf("parseNarrative(%q): error %v is not errMalformed", raw, err)
			}
			return
		}
		if n.Narrative == "" {
			t.Fatalf("parseNarrative(%q): accepted an empty narrative", raw)
		}
		seen := map[string]bool{}
		for _, c := range cites {
			if c == "" || seen[c] {
				t.Fatalf("parseNarrative(%q): citations %q empty or repeated", raw, cites)
			}
			seen[c] = true
		}
	})
}
