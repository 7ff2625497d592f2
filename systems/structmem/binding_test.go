package structmem

import (
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
)

func turnTimes(conv *datasets.Conversation) map[string]*datasets.Turn {
	out := map[string]*datasets.Turn{}
	for _, t := range conv.AllTurns() {
		out[t.ID] = t
	}
	return out
}

// sessionOf maps turn ids to their session.
func sessionOf(conv *datasets.Conversation) map[string]*datasets.Session {
	out := map[string]*datasets.Session{}
	for _, s := range conv.Sessions {
		for _, t := range s.Turns {
			out[t.ID] = s
		}
	}
	return out
}

// utteranceClock is UtteranceClock computed independently: session time +
// 1 s × the turn's position in its session.
func utteranceClock(conv *datasets.Conversation) map[string]time.Time {
	out := map[string]time.Time{}
	for _, s := range conv.Sessions {
		for i, t := range s.Turns {
			out[t.ID] = s.Time.Add(time.Duration(i) * time.Second)
		}
	}
	return out
}

// The anchor=session ablation: an entry carries its session's time, so
// one session is one event.
func TestBindingToSessionTime(t *testing.T) {
	for _, gran := range []string{"session", "utterance"} {
		t.Run(gran, func(t *testing.T) {
			conv := testConv()
			m, _ := build(t, NameNoCross, testEnv(newFake(nil), membench.Options{"granularity": gran, "anchor": "session"}), conv)
			sess := sessionOf(conv)
			events := map[string]bool{}
			for _, e := range m.entries {
				s := sess[e.Sources[0]]
				if !e.Time.Equal(s.Time) || e.Event != TimeLabel(s.Time) || e.SessionID != s.ID {
					t.Errorf("entry %s: time %v event %q, want session %s's %v", e.ID, e.Time, e.Event, s.ID, s.Time)
				}
				events[e.Event] = true
			}
			if len(events) != len(conv.Sessions) {
				t.Errorf("%d events for %d sessions", len(events), len(conv.Sessions))
			}
		})
	}
}

// By default an entry carries the time of the utterance it cites on
// StructMem's own clock (session + 1 s × position), whatever step the
// dataset's turn times use: the test conversation's turns are 30 s apart.
func TestBindingKeepsUtteranceTimes(t *testing.T) {
	for _, gran := range []string{"session", "utterance"} {
		t.Run(gran, func(t *testing.T) {
			conv := testConv()
			fm := newFake(nil)
			m, st := build(t, NameNoCross, testEnv(fm, membench.Options{"granularity": gran}), conv)
			turns := turnTimes(conv)
			clock := utteranceClock(conv)
			if len(m.entries) == 0 {
				t.Fatal("no entries")
			}
			distinct := map[time.Time]bool{}
			kinds := map[string]int{}
			for _, e := range m.entries {
				src := turns[e.Sources[0]]
				if src == nil {
					t.Fatalf("entry %s cites unknown turn %v", e.ID, e.Sources)
				}
				if want := clock[src.ID]; !e.Time.Equal(want) || e.Speaker != src.Speaker {
					t.Errorf("entry %s: time %v speaker %s, want the cited turn's %v %s", e.ID, e.Time, e.Speaker, want, src.Speaker)
				}
				if e.Event != TimeLabel(clock[src.ID]) {
					t.Errorf("entry %s: event %q", e.ID, e.Event)
				}
				distinct[e.Time] = true
				kinds[e.Kind]++
			}
			// Per-utterance anchoring: one session's entries keep several times.
			if len(distinct) < 8 {
				t.Errorf("only %d distinct entry times; anchoring collapsed", len(distinct))
			}
			if kinds[KindFactual] == 0 || kinds[KindRelational] == 0 {
				t.Errorf("kinds %v: want both perspectives", kinds)
			}
			wantCalls := 2 * len(conv.Sessions)
			if gran == "utterance" {
				wantCalls = 2 * len(conv.AllTurns())
			}
			got := fm.count(TaskFact) + fm.count(TaskRel)
			if got != wantCalls || st.Counts["calls_extract_fact"]+st.Counts["calls_extract_rel"] != wantCalls {
				t.Errorf("extraction calls %d (counted %d), want %d", got, st.Counts["calls_extract_fact"]+st.Counts["calls_extract_rel"], wantCalls)
			}
			if fm.count(TaskConsolidate) != 0 {
				t.Error("binding-only variant consolidated")
			}
			for _, r := range fm.reqs {
				if r.Stage != membench.StageBuild || (r.Label != LabelFact && r.Label != LabelRel) {
					t.Errorf("request tagged %q/%q", r.Stage, r.Label)
				}
			}
		})
	}
}

func TestSessionModeDropsUncitedEntries(t *testing.T) {
	conv := testConv()
	fm := newFake(func(req llm.Request, _ int) (string, bool) {
		if req.Task != TaskFact {
			return "", false
		}
		in := req.Inputs.(ExtractInput)
		u := in.Utterances[len(in.Utterances)-1]
		return `{"entries":[
			{"utterance":"` + u.ID + `","text":"kept fact"},
			{"text":"no citation"},
			{"utterance":"D9:99","text":"unknown citation"},
			{"utterance":"` + u.ID + `","text":"  "}]}`, true
	})
	m, st := build(t, NameNoCross, testEnv(fm, nil), conv)
	n := len(conv.Sessions)
	if st.Counts["entries_factual"] != n {
		t.Errorf("factual entries %d, want %d", st.Counts["entries_factual"], n)
	}
	if st.Counts["dropped_entries"] != 3*n || st.Counts["dropped_no_utterance"] != n || st.Counts["dropped_unknown_utterance"] != n {
		t.Errorf("drop counts %v", st.Counts)
	}
	clock := utteranceClock(conv)
	for _, e := range m.entries {
		if e.Text == "kept fact" && !e.Time.Equal(clock[e.Sources[0]]) {
			t.Errorf("kept fact anchored at %v", e.Time)
		}
	}
}

func TestExtractionPromptListsUtterances(t *testing.T) {
	conv := testConv()
	fm := newFake(nil)
	build(t, NameNoCross, testEnv(fm, nil), conv)
	var first llm.Request
	for _, r := range fm.reqs {
		if r.Task == TaskRel && r.Inputs.(ExtractInput).Utterances[0].ID == "D1:1" {
			first = r
		}
	}
	user := first.Messages[len(first.Messages)-1].Content
	for _, want := range []string{"[D1:1 | 2023-05-08 13:00:00] Caroline:", "[D1:3 | 2023-05-08 13:00:02] Caroline:", "session of 8 May 2023"} {
		if !strings.Contains(user, want) {
			t.Errorf("relational prompt lacks %q:\n%s", want, user)
		}
	}
	if !first.JSON {
		t.Error("extraction should ask for a JSON object")
	}
}

func TestOfflineHeuristics(t *testing.T) {
	got := resolvePerson("I'm sure my dog likes you and we went out", "Caroline", "Melanie")
	want := "Caroline is sure Caroline's dog likes Melanie and Caroline and Melanie went out"
	if got != want {
		t.Errorf("resolvePerson = %q, want %q", got, want)
	}
	in := ExtractInput{Speakers: []string{"Caroline", "Melanie"}, Utterances: []Utterance{{
		ID: "D1:1", Speaker: "Caroline", Date: "8 May 2023",
		Text: "Hi! I adopted a puppy named Oscar. Have you been to the lake? [image: a puppy on a sofa]",
	}}}
	facts := offlineFacts(in)
	if len(facts) != 2 || facts[0].Text != "Caroline adopted a puppy named Oscar (stated on 8 May 2023)." ||
		facts[1].Text != "Caroline shared an image showing a puppy on a sofa (stated on 8 May 2023)." {
		t.Errorf("facts %+v", facts)
	}
	rels := offlineRelations(in)
	if len(rels) != 1 || rels[0].Text != "Caroline asked Melanie: Have Melanie been to the lake? (asked on 8 May 2023)" {
		t.Errorf("relations %+v", rels)
	}
}

// structmem-flat (Table 4 "Flat") sends the factual prompt alone: no
// relational call or entry, no synthesis; structmem-no-cross-event sends
// both perspectives and no synthesis either.
func TestTable4Variants(t *testing.T) {
	conv := testConv()
	ff := newFake(nil)
	f, fs := build(t, NameFlat, testEnv(ff, nil), conv)
	if ff.count(TaskFact) != len(conv.Sessions) || ff.count(TaskRel) != 0 || ff.count(TaskConsolidate) != 0 {
		t.Errorf("structmem-flat calls: fact %d rel %d consolidate %d", ff.count(TaskFact), ff.count(TaskRel), ff.count(TaskConsolidate))
	}
	if fs.Counts["entries_relational"] != 0 || fs.Counts["entries_factual"] == 0 || len(f.syns) != 0 || !f.Config().FactualOnly {
		t.Errorf("structmem-flat counts %v, %d syntheses", fs.Counts, len(f.syns))
	}
	fn := newFake(nil)
	n, ns := build(t, NameNoCross, testEnv(fn, nil), conv)
	if fn.count(TaskRel) != len(conv.Sessions) || ns.Counts["entries_relational"] == 0 || len(n.syns) != 0 {
		t.Errorf("no-cross-event: rel calls %d, counts %v", fn.count(TaskRel), ns.Counts)
	}
	// The factual entries are the same in both: only the relational
	// perspective differs.
	if fs.Counts["entries_factual"] != ns.Counts["entries_factual"] {
		t.Errorf("factual entries %d vs %d", fs.Counts["entries_factual"], ns.Counts["entries_factual"])
	}
}
