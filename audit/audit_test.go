package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/stats"
	"github.com/membench/membench/systems/structmem"
)

// scripted is a fake judge model: verdict(inputs) picks each answer, and it
// records every request it gets.
type scripted struct {
	name    string
	verdict func(in any) bool
	mu      sync.Mutex
	calls   int
	inputs  []any
}

func (s *scripted) ID() membench.ModelID { return membench.ModelID{Backend: "fake", Model: s.name} }

func (s *scripted) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	s.calls++
	s.inputs = append(s.inputs, req.Inputs)
	s.mu.Unlock()
	if len(req.Messages) == 0 || !strings.Contains(req.Messages[len(req.Messages)-1].Content, "Verdict as JSON") {
		return llm.Response{}, nil
	}
	v := "UNSUPPORTED"
	if s.verdict(req.Inputs) {
		v = "SUPPORTED"
	}
	return llm.Response{Text: `{"reason": "scripted", "verdict": "` + v + `"}`}, nil
}

func (s *scripted) Decide(ctx context.Context, req llm.DecideRequest) (llm.DecideResponse, error) {
	return llm.DecideResponse{}, nil
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

var t0 = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

func entry(id, event string, at time.Time, text, source string) structmem.Entry {
	return structmem.Entry{ID: id, Kind: structmem.KindFactual, Text: text, Time: at, Speaker: "Caroline",
		Sources: []string{"D1:" + id}, SourceText: source, SessionID: "session_1", Event: event}
}

// writeDump writes snapshots to dir/memory.jsonl in the dump format.
func writeDump(t *testing.T, dir string, snaps ...structmem.Snapshot) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "memory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range snaps {
		if err := s.WriteJSONL(f); err != nil {
			t.Fatal(err)
		}
	}
}

// extractionDump: conv-a has 4 entries (one marked BAD), conv-b 6 (two BAD).
func extractionDump(t *testing.T) string {
	dir := t.TempDir()
	a := structmem.Snapshot{System: "structmem", ConversationID: "conv-a", Speakers: []string{"Caroline", "Melanie"}}
	for i, txt := range []string{"BAD one", "fine", "fine", "fine"} {
		id := "e" + string(rune('1'+i))
		a.Entries = append(a.Entries, entry(id, "k"+id, t0, txt, "Caroline: something"))
	}
	b := structmem.Snapshot{System: "structmem", ConversationID: "conv-b", Speakers: []string{"Caroline", "Melanie"}}
	for i, txt := range []string{"fine", "BAD two", "fine", "BAD three", "fine", "fine"} {
		id := "e" + string(rune('1'+i))
		b.Entries = append(b.Entries, entry(id, "k"+id, t0, txt, "Melanie: something"))
	}
	writeDump(t, dir, a, b)
	return dir
}

func entryText(in any) string { return in.(ExtractionInput).Entry }

func row(t *testing.T, r *Result, group, conv string) Row {
	t.Helper()
	for _, x := range r.Rows {
		if x.Group == group && x.Conversation == conv {
			return x
		}
	}
	t.Fatalf("no row %q/%q in %+v", group, conv, r.Rows)
	return Row{}
}

func wantCell(t *testing.T, got Cell, bad, n int) {
	t.Helper()
	if got.Unsupported != bad || got.Judged != n {
		t.Errorf("cell = %d/%d, want %d/%d", got.Unsupported, got.Judged, bad, n)
	}
	if n > 0 && math.Abs(got.Rate-float64(bad)/float64(n)) > 1e-12 {
		t.Errorf("rate = %v, want %v", got.Rate, float64(bad)/float64(n))
	}
}

func TestExtractionRatesPerConversationAndOverall(t *testing.T) {
	dir := extractionDump(t)
	ja := &scripted{name: "a", verdict: func(in any) bool { return !strings.Contains(entryText(in), "BAD") }}
	// Judge b flags only the first BAD entry of conv-a (text "BAD one").
	jb := &scripted{name: "b", verdict: func(in any) bool { return entryText(in) != "BAD one" }}
	res, err := Extraction(context.Background(), dir, Options{Judges: []Judge{{"A", ja}, {"B", jb}}, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if ja.count() != 10 || jb.count() != 10 {
		t.Fatalf("calls = %d, %d; want 10 each", ja.count(), jb.count())
	}
	wantCell(t, row(t, res, "", "conv-a").Cells["A"], 1, 4)
	wantCell(t, row(t, res, "", "conv-b").Cells["A"], 2, 6)
	wantCell(t, row(t, res, "", "conv-a").Cells["B"], 1, 4)
	wantCell(t, row(t, res, "", "conv-b").Cells["B"], 0, 6)
	ov := row(t, res, "", Overall)
	wantCell(t, ov.Cells["A"], 3, 10)
	wantCell(t, ov.Cells["B"], 1, 10)
	if math.Abs(ov.MeanRate-0.2) > 1e-12 {
		t.Errorf("overall mean = %v, want 0.2", ov.MeanRate)
	}
	lo, hi, _ := stats.Wilson(3, 10, 0.95)
	if c := ov.Cells["A"]; c.Lo == nil || *c.Lo != lo || *c.Hi != hi {
		t.Errorf("overall A interval = %v..%v, want %v..%v", c.Lo, c.Hi, lo, hi)
	}
	if row(t, res, "", "conv-a").Cells["A"].Lo != nil {
		t.Error("per-conversation cells should carry no interval")
	}
	// One record per entry × judge, with the fields the brief names.
	b, err := os.ReadFile(filepath.Join(dir, ExtractionFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d records, want 20", len(lines))
	}
	var r Record
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil || r.ItemID == "" || r.ConversationID == "" || r.Judge == "" || r.Reason != "scripted" {
		t.Errorf("record %s: %+v %v", lines[0], r, err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ExtractionReport))
	if err != nil || !strings.Contains(string(md), "| overall | 30.00% (3/10) [") {
		t.Errorf("markdown report:\n%s (%v)", md, err)
	}
	tab := res.Table()
	if got := tab.Header; len(got) != 4 || got[1] != "A" || got[2] != "B" || got[3] != "Mean" {
		t.Errorf("header = %v", got)
	}
}

func TestExtractionResumesWithoutCalls(t *testing.T) {
	dir := extractionDump(t)
	mk := func() *scripted {
		return &scripted{name: "a", verdict: func(in any) bool { return !strings.Contains(entryText(in), "BAD") }}
	}
	first := mk()
	r1, err := Extraction(context.Background(), dir, Options{Judges: []Judge{{"A", first}}})
	if err != nil {
		t.Fatal(err)
	}
	second := mk()
	r2, err := Extraction(context.Background(), dir, Options{Judges: []Judge{{"A", second}}})
	if err != nil {
		t.Fatal(err)
	}
	if second.count() != 0 || r2.Resumed != 10 {
		t.Fatalf("second run made %d calls, resumed %d; want 0 and 10", second.count(), r2.Resumed)
	}
	wantCell(t, row(t, r2, "", Overall).Cells["A"], 3, 10)
	wantCell(t, row(t, r1, "", Overall).Cells["A"], 3, 10)

	// A torn last line (interrupted write) is dropped and only that pair re-asked.
	path := filepath.Join(dir, ExtractionFile)
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	torn := strings.Join(lines[:len(lines)-1], "") + lines[len(lines)-1][:10]
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	third := mk()
	r3, err := Extraction(context.Background(), dir, Options{Judges: []Judge{{"A", third}}})
	if err != nil {
		t.Fatal(err)
	}
	if third.count() != 1 {
		t.Errorf("after a torn line: %d calls, want 1", third.count())
	}
	wantCell(t, row(t, r3, "", Overall).Cells["A"], 3, 10)
	// A new judge is asked about everything; the old one still resumes.
	fourth, other := mk(), mk()
	other.name = "other"
	if _, err := Extraction(context.Background(), dir, Options{Judges: []Judge{{"A", fourth}, {"C", other}}}); err != nil {
		t.Fatal(err)
	}
	if fourth.count() != 0 || other.count() != 10 {
		t.Errorf("calls = %d (old judge), %d (new judge); want 0, 10", fourth.count(), other.count())
	}
}

func sampledIDs(t *testing.T, sample int, seed uint64) []string {
	t.Helper()
	dir := extractionDump(t)
	j := &scripted{name: "a", verdict: func(any) bool { return true }}
	res, err := Extraction(context.Background(), dir, Options{Judges: []Judge{{"A", j}}, Sample: sample, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != sample || res.Total != 10 || j.count() != sample {
		t.Fatalf("items %d of %d, %d calls; want %d of 10", res.Items, res.Total, j.count(), sample)
	}
	var ids []string
	b, _ := os.ReadFile(filepath.Join(dir, ExtractionFile))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r Record
		json.Unmarshal([]byte(l), &r)
		ids = append(ids, r.ConversationID+":"+r.ItemID)
	}
	sort.Strings(ids)
	return ids
}

func TestSamplingIsSeededAndReproducible(t *testing.T) {
	a, b := sampledIDs(t, 5, 7), sampledIDs(t, 5, 7)
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("same seed, different samples: %v vs %v", a, b)
	}
	differs := false
	for seed := uint64(8); seed < 14 && !differs; seed++ {
		differs = strings.Join(sampledIDs(t, 5, seed), ",") != strings.Join(a, ",")
	}
	if !differs {
		t.Error("six other seeds all picked the same 5 of 10 entries")
	}
	if got := sample(make([]item, 3), 5, 1); len(got) != 3 {
		t.Errorf("sample larger than the list kept %d items", len(got))
	}
}

// linkDump: events t1, t2, t3 with two entries each; syntheses given.
func linkDump(t *testing.T, conv string, syns ...structmem.Synthesis) string {
	dir := t.TempDir()
	s := structmem.Snapshot{System: "structmem", ConversationID: conv, Speakers: []string{"Caroline", "Melanie"}}
	for i, ev := range []string{"t1", "t2", "t3"} {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		s.Entries = append(s.Entries,
			entry(ev+"a", ev, at, "entry "+ev+"a", "Caroline: x"),
			entry(ev+"b", ev, at, "entry "+ev+"b", "Caroline: y"))
	}
	s.Syntheses = syns
	writeDump(t, dir, s)
	return dir
}

func TestLinksSplitByConfiguration(t *testing.T) {
	cons := linkDump(t, "conv-26",
		structmem.Synthesis{ID: "s1", Text: "fine link", Dependency: "d", CitedEvents: []string{"t1", "t2"}, CitedEntryIDs: []string{"t1a", "t1b", "t2a", "t2b"}, Constrained: true},
		structmem.Synthesis{ID: "s2", Text: "spurious link", Dependency: "d", CitedEvents: []string{"t2", "t3"}, CitedEntryIDs: []string{"t2a", "t2b", "t3a", "t3b"}, Constrained: true},
		structmem.Synthesis{ID: "s3", Text: "fine link", Dependency: "d", CitedEvents: []string{"t1", "t3"}, Constrained: true}, // events only: entries looked up
	)
	uncons := linkDump(t, "conv-26",
		structmem.Synthesis{ID: "s1", Text: "spurious one", CitedEntryIDs: []string{"t1a", "t3a"}},
		structmem.Synthesis{ID: "s2", Text: "spurious two", BufferEntryIDs: []string{"t3a"}, SeedEntryIDs: []string{"t1b"}}, // cites nothing
		structmem.Synthesis{ID: "s3", Text: "fine"},
		structmem.Synthesis{ID: "s4", Text: "fine", CitedEvents: []string{"t2"}},
	)
	j := &scripted{name: "g", verdict: func(in any) bool { return !strings.Contains(in.(LinkInput).Link, "spurious") }}
	res, err := Links(context.Background(), []string{cons, uncons}, Options{Judges: []Judge{{"GPT", j}}})
	if err != nil {
		t.Fatal(err)
	}
	wantCell(t, row(t, res, ConfigConstrained, Overall).Cells["GPT"], 1, 3)
	wantCell(t, row(t, res, ConfigUnconstrained, Overall).Cells["GPT"], 2, 4)
	wantCell(t, row(t, res, ConfigConstrained, filepath.Base(cons)+"/conv-26").Cells["GPT"], 1, 3)
	if res.Rows[0].Group != ConfigConstrained {
		t.Errorf("constrained rows should come first: %+v", res.Rows[0])
	}
	// What the judge saw.
	seen := map[string]LinkInput{}
	for _, in := range j.inputs {
		li := in.(LinkInput)
		seen[li.Link+"|"+li.Dependency+"|"+strings.Join(eventTimes(li), ",")] = li
	}
	for _, want := range []string{"fine link|d|t1,t2", "spurious link|d|t2,t3", "fine link|d|t1,t3", "spurious one||t1,t3", "spurious two||t1,t3", "fine||", "fine||t2"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no judge input %q; got %v", want, keys(seen))
		}
	}
	if li := seen["spurious two||t1,t3"]; li.Cited || len(li.Events[0].Entries) != 2 {
		t.Errorf("uncited link should see its window's whole events, uncited: %+v", li)
	}
	if li := seen["spurious one||t1,t3"]; !li.Cited || len(li.Events[0].Entries) != 1 {
		t.Errorf("cited_entry_ids should be shown as given: %+v", li)
	}
	// Each directory has its own records and report, counting its own
	// calls; the result counts them all.
	for d, calls := range map[string]int{cons: 3, uncons: 4} {
		md, err := os.ReadFile(filepath.Join(d, LinksReport))
		if want := fmt.Sprintf("model calls this time: %d;", calls); err != nil || !strings.Contains(string(md), want) {
			t.Errorf("%s: want %q, err %v:\n%s", d, want, err, md)
		}
	}
	if n := callsOf(res.Usage); n != 7 {
		t.Errorf("usage of both directories: %d calls, want 7", n)
	}
	j2 := &scripted{name: "g", verdict: func(any) bool { return true }}
	if _, err := Links(context.Background(), []string{cons, uncons}, Options{Judges: []Judge{{"GPT", j2}}}); err != nil || j2.count() != 0 {
		t.Errorf("links resume: %d calls, err %v", j2.count(), err)
	}
	tab := res.Table()
	if got := tab.Rows[len(tab.Rows)-1][2]; !strings.HasPrefix(got, "2/4 = 50.00% [") {
		t.Errorf("unconstrained overall cell = %q", got)
	}
}

func eventTimes(li LinkInput) []string {
	var out []string
	for _, e := range li.Events {
		out = append(out, e.Time)
	}
	return out
}

func keys(m map[string]LinkInput) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestMissingDumpIsInputError(t *testing.T) {
	_, err := Extraction(context.Background(), t.TempDir(), Options{Judges: []Judge{{"A", &scripted{}}}})
	var ie *InputError
	if err == nil || !strings.Contains(err.Error(), "memory.jsonl not found") || !asInput(err, &ie) {
		t.Errorf("err = %v", err)
	}
}

func asInput(err error, ie **InputError) bool {
	e, ok := err.(*InputError)
	*ie = e
	return ok
}

// A damaged line in the middle of an audit file is the user's to mend:
// refused as bad input naming the file and line, never skipped.
func TestDamagedAuditLineIsInputError(t *testing.T) {
	dir := extractionDump(t)
	path := filepath.Join(dir, ExtractionFile)
	if err := os.WriteFile(path, []byte("{\"item_id\": \nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j := &scripted{name: "a", verdict: func(any) bool { return true }}
	_, err := Extraction(context.Background(), dir, Options{Judges: []Judge{{"A", j}}})
	var ie *InputError
	if !errors.As(err, &ie) || !badinput.Is(err) || !strings.Contains(err.Error(), ExtractionFile+" line 1:") || !strings.Contains(err.Error(), "fix or delete the line") || j.count() != 0 {
		t.Fatalf("got %v after %d calls; want an input error naming %s line 1", err, j.count(), ExtractionFile)
	}
}
