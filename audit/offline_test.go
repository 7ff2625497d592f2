package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems/structmem"
)

func TestOfflineExtraction(t *testing.T) {
	src := "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
	speakers := []string{"Caroline", "Melanie"}
	cases := []struct {
		entry string
		want  bool
	}{
		{"Caroline went to an LGBTQ support group on 7 May 2023.", true},
		{"Caroline told Melanie that the support group was powerful (stated on 8 May 2023).", true},
		{"Caroline adopted a golden retriever puppy named Max.", false},
		{"Melanie painted a sunrise over the lake last summer.", false},
		{"Caroline, 8 May 2023.", true}, // nothing to check but a name and a date
	}
	for _, c := range cases {
		v := OfflineExtraction(ExtractionInput{Speakers: speakers, Speaker: "Caroline", Source: src, Entry: c.entry})
		if v.Supported != c.want {
			t.Errorf("%q: supported=%v (%s), want %v", c.entry, v.Supported, v.Reason, c.want)
		}
	}
	v := OfflineExtraction(ExtractionInput{Speakers: speakers, Source: src, Entry: "Caroline adopted a puppy"})
	if !strings.Contains(v.Reason, "missing: adopt, puppy") {
		t.Errorf("reason should name the missing words: %q", v.Reason)
	}
}

func TestOfflineLink(t *testing.T) {
	events := []LinkEvent{
		{Time: "2023-05-08 13:56:00", Entries: []string{"Caroline went to an LGBTQ support group.", "Caroline felt accepted."}},
		{Time: "2023-06-20 10:00:00", Entries: []string{"Caroline decided to study counseling to support LGBTQ youth."}},
		{Time: "2023-07-01 09:00:00", Entries: []string{"Melanie ran a charity race."}},
	}
	in := LinkInput{Speakers: []string{"Caroline", "Melanie"}, Cited: true, Events: events[:2],
		Link: "Caroline's LGBTQ support group experience led her to study counseling for LGBTQ youth.", Dependency: "cause: support group → counseling"}
	if v := OfflineLink(in); !v.Supported {
		t.Errorf("supported link judged unsupported: %s", v.Reason)
	}
	// Only one cited event says anything the link says.
	in.Events = []LinkEvent{events[0], events[2]}
	in.Link, in.Dependency = "Caroline's support group made Melanie quit painting.", "cause"
	if v := OfflineLink(in); v.Supported {
		t.Errorf("spurious link judged supported: %s", v.Reason)
	}
	// Names and dates shared with every event do not count as support.
	in.Events = events[1:]
	in.Link, in.Dependency = "Caroline and Melanie both did things in 2023.", "same year"
	if v := OfflineLink(in); v.Supported {
		t.Errorf("link resting on names and dates judged supported: %s", v.Reason)
	}
}

// The offline backend answers both audit tasks through the real prompts.
func TestOfflineBackendEndToEnd(t *testing.T) {
	dir := t.TempDir()
	s := structmem.Snapshot{System: "structmem", ConversationID: "conv-x", Speakers: []string{"Caroline", "Melanie"}}
	s.Entries = []structmem.Entry{
		entry("e1", "t1", t0, "Caroline went to an LGBTQ support group.", "Caroline: I went to a LGBTQ support group yesterday."),
		entry("e2", "t1", t0, "Caroline won a chess tournament in Paris.", "Caroline: I went to a LGBTQ support group yesterday."),
		entry("e3", "t2", t0.AddDate(0, 1, 0), "Caroline wants to study counseling to support LGBTQ people.", "Caroline: I want to study counseling, to support LGBTQ people."),
	}
	s.Syntheses = []structmem.Synthesis{
		{ID: "s1", Text: "Caroline's LGBTQ support group visit led to her wish to study counseling.", Dependency: "cause", CitedEvents: []string{"t1", "t2"}, CitedEntryIDs: []string{"e1", "e2", "e3"}, Constrained: true},
		{ID: "s2", Text: "Melanie's garden bloomed after the concert.", Dependency: "cause", CitedEvents: []string{"t1", "t2"}, CitedEntryIDs: []string{"e1", "e2", "e3"}, Constrained: true},
	}
	writeDump(t, dir, s)
	js, err := BuildJudges(nil, llm.BuildDeps{})
	if err != nil || len(js) != 1 || js[0].Name != "offline" {
		t.Fatalf("default judges: %v %v", js, err)
	}
	res, err := Extraction(context.Background(), dir, Options{Judges: js})
	if err != nil {
		t.Fatal(err)
	}
	wantCell(t, row(t, res, "", Overall).Cells["offline"], 1, 3)
	if !res.Offline || !strings.Contains(strings.Join(res.Table().Notes, "\n"), "not a real model") {
		t.Error("offline results must say they measure the heuristics")
	}
	lr, err := Links(context.Background(), []string{dir}, Options{Judges: js})
	if err != nil {
		t.Fatal(err)
	}
	wantCell(t, row(t, lr, ConfigConstrained, Overall).Cells["offline"], 1, 2)
}

func TestParseJudgeSpec(t *testing.T) {
	cases := []struct{ spec, name, backend, model, url string }{
		{"offline", "offline", "offline", "", ""},
		{"openai:gpt-4o-mini", "gpt-4o-mini", "openai", "gpt-4o-mini", ""},
		{"gpt=openai:gpt-4o-mini", "gpt", "openai", "gpt-4o-mini", ""},
		{"name=qwen,backend=openai,model=qwen2.5-32b-instruct,base-url=http://localhost:8000/v1", "qwen", "openai", "qwen2.5-32b-instruct", "http://localhost:8000/v1"},
		{"backend=offline", "offline", "offline", "", ""},
	}
	for _, c := range cases {
		name, sp, err := ParseJudgeSpec(c.spec)
		if err != nil || name != c.name || sp.Backend != c.backend || sp.Model != c.model || sp.BaseURL != c.url {
			t.Errorf("ParseJudgeSpec(%q) = %q %+v %v", c.spec, name, sp, err)
		}
	}
	if _, err := BuildJudges([]string{"offline", "backend=offline"}, llm.BuildDeps{}); err == nil || !strings.Contains(err.Error(), "both make a judge named") {
		t.Errorf("duplicate judge names: %v", err)
	}
	if _, _, err := ParseJudgeSpec("name=x,colour=red"); err == nil {
		t.Error("unknown spec key accepted")
	}
	if !NeedsCache([]string{"offline", "openai:gpt-4o-mini"}) || NeedsCache([]string{"offline"}) {
		t.Error("NeedsCache")
	}
}
