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
	`{"links":[{"text":"good link","times":["2023-05-08 13:56:00","2023-05-08 14:10:30"],"dependency":"cause -> effect"},{"text":"lonely","times":["2023-05-08 13:56:00"]}]}`,
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

func FuzzParseLinks(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if _, err := parseLinks(raw); err != nil && !errors.Is(err, errMalformed) {
			t.Fatalf("parseLinks(%q): error %v is not errMalformed", raw, err)
		}
	})
}
