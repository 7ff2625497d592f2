package structmem

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

func TestMalformedAnswerRetriedOnceThenFailed(t *testing.T) {
	conv := testConv()
	n := len(conv.Sessions)
	for _, bad := range []string{"this is not json", "", `{"facts": []}`, `{"entries": [{"utterance": "D1:1", "text": `, `{"entries": "none"}`} {
		fm := newFake(func(req llm.Request, _ int) (string, bool) {
			return bad, req.Task == TaskFact
		})
		m, st := build(t, NameNoCross, testEnv(fm, nil), conv)
		if fm.count(TaskFact) != 2*n || st.Counts["calls_extract_fact"] != 2*n || st.Counts["repair_retries"] != n {
			t.Errorf("%q: %d fact calls (counted %v), want %d", bad, fm.count(TaskFact), st.Counts, 2*n)
		}
		if st.Counts["failed_extractions"] != n || len(m.failures) != n || m.failures[0].Raw != bad || m.failures[0].RepairRaw != bad || m.failures[0].Label != LabelFact {
			t.Errorf("%q: failures %d %+v", bad, st.Counts["failed_extractions"], m.failures)
		}
		if st.Counts["entries_factual"] != 0 || st.Counts["entries_relational"] == 0 {
			t.Errorf("%q: the run should go on with relational entries: %v", bad, st.Counts)
		}
	}
	// The repair request carries the bad answer and the instruction.
	// Sessions are extracted concurrently, so the capture is locked.
	var (
		repairMu sync.Mutex
		repair   llm.Request
	)
	fm := newFake(func(req llm.Request, attempt int) (string, bool) {
		if req.Task != TaskRel {
			return "", false
		}
		if attempt == 0 {
			return "Sure! Here are the entries: {\"entries\": [", true
		}
		repairMu.Lock()
		repair = req
		repairMu.Unlock()
		in := req.Inputs.(ExtractInput)
		return `{"entries":[{"utterance":"` + in.Utterances[0].ID + `","text":"repaired"}]}`, true
	})
	m, st := build(t, NameNoCross, testEnv(fm, nil), conv)
	if st.Counts["failed_extractions"] != 0 || st.Counts["repair_retries"] != n || st.Counts["entries_relational"] != n {
		t.Errorf("repaired run counts %v", st.Counts)
	}
	k := len(repair.Messages)
	if k < 3 || repair.Messages[k-2].Role != "assistant" || !strings.HasPrefix(repair.Messages[k-2].Content, "Sure!") ||
		!strings.Contains(repair.Messages[k-1].Content, `{"entries": [{"utterance"`) {
		t.Errorf("repair messages %+v", repair.Messages)
	}
	if len(m.failures) != 0 {
		t.Error(m.failures)
	}
	// Fenced JSON is accepted without a retry.
	fence := newFake(func(req llm.Request, _ int) (string, bool) {
		in := req.Inputs.(ExtractInput)
		return "```json\n[{\"utterance\":\"" + in.Utterances[0].ID + "\",\"text\":\"x y\"}]\n```", req.Task == TaskFact
	})
	_, st = build(t, NameNoCross, testEnv(fence, nil), conv)
	if st.Counts["repair_retries"] != 0 || st.Counts["entries_factual"] != n {
		t.Errorf("fenced list: %v", st.Counts)
	}
}

func TestMalformedConsolidationCounted(t *testing.T) {
	fm := newFake(func(req llm.Request, _ int) (string, bool) { return "{links: nope}", req.Task == TaskConsolidate })
	m, st := build(t, Name, testEnv(fm, nil), testConv())
	if st.Counts["failed_consolidations"] != 3 || st.Counts["calls_consolidate"] != 6 || len(m.syns) != 0 {
		t.Errorf("counts %v", st.Counts)
	}
}

func TestOddConversationsDoNotCrash(t *testing.T) {
	undated := mkSession("D1", time.Time{}, "I moved to Paris last year for my new job.", "Do you like your new job in Paris?")
	convs := map[string]*datasets.Conversation{
		"empty":      {ID: "empty", Speakers: []string{"A", "B"}},
		"no-turns":   {ID: "no-turns", Sessions: []*datasets.Session{{ID: "S1", Time: day0}}},
		"one-turn":   {ID: "one", Sessions: []*datasets.Session{mkSession("D1", day0, "I adopted a cat named Milo today.")}},
		"undated":    {ID: "undated", Speakers: []string{"Caroline", "Melanie"}, Sessions: []*datasets.Session{undated}},
		"mixed":      {ID: "mixed", Sessions: []*datasets.Session{mkSession("D1", time.Time{}, "I painted my kitchen blue today."), {ID: "D2"}, mkSession("D3", day0, "Your blue kitchen painting sounds lovely.", "I painted the kitchen walls with my kids.")}},
		"blank-text": {ID: "blank", Sessions: []*datasets.Session{mkSession("D1", day0, "", "  ")}},
	}
	for name, conv := range convs {
		for _, sys := range []string{Name, NameNoCross} {
			for _, gran := range []string{"session", "utterance"} {
				m, st := build(t, sys, testEnv(newFake(nil), membench.Options{"granularity": gran}), conv)
				if len(st.TurnTokens) != len(conv.AllTurns()) {
					t.Errorf("%s: %d turn token points for %d turns", name, len(st.TurnTokens), len(conv.AllTurns()))
				}
				ctx, err := m.Retrieve(context.Background(), &datasets.Question{Text: "Where did Caroline move?"}, systems.Budget{})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if name == "undated" {
					if len(ctx.Items) == 0 || !strings.HasPrefix(ctx.Rendered, "[undated] ") {
						t.Errorf("undated render %q", ctx.Rendered)
					}
					for _, e := range m.entries {
						// Undated entries key their event by their utterance, so
						// undated material never merges.
						if e.Event != "undated "+e.Sources[0] {
							t.Errorf("undated entry event %q", e.Event)
						}
					}
				}
			}
		}
	}
}

func TestBuildsAreDeterministic(t *testing.T) {
	dump := func() []byte {
		env := testEnv(newFake(nil), membench.Options{"granularity": "utterance"})
		env.Concurrency = 8
		m, _ := build(t, Name, env, testConv())
		b, err := json.Marshal(m.Dump())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := dump(), dump()
	if !bytes.Equal(a, b) {
		t.Error("two builds gave different dumps")
	}
	// The JSONL form reads back to the same snapshot.
	m, _ := build(t, Name, testEnv(newFake(nil), nil), testConv())
	var buf bytes.Buffer
	if err := m.WriteMemory(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONL(&buf)
	if err != nil || len(back) != 1 {
		t.Fatalf("read back: %v (%d)", err, len(back))
	}
	x, _ := json.Marshal(m.Dump())
	y, _ := json.Marshal(back[0])
	if !bytes.Equal(x, y) {
		t.Errorf("JSONL round trip differs:\n%s\n%s", x, y)
	}
}

func TestRetrieve(t *testing.T) {
	m, _ := build(t, Name, testEnv(llm.NewOffline(), nil), testConv())
	q := &datasets.Question{Text: "What did Caroline paint at her painting class?"}
	ctx, err := m.Retrieve(context.Background(), q, systems.Budget{K: 4})
	if err != nil {
		t.Fatal(err)
	}
	var ents, syns int
	lines := strings.Split(ctx.Rendered, "\n")
	if len(lines) != len(ctx.Items) {
		t.Fatalf("%d lines for %d items", len(lines), len(ctx.Items))
	}
	for i, it := range ctx.Items {
		// Entries cite their turns; a synthesis under session anchoring
		// cites sessions, which name no turn (see TestSynthesisRecallCountsCitedTurns).
		if len(it.Sources) == 0 && it.Kind != "synthesis" {
			t.Errorf("item %s has no sources", it.ID)
		}
		if it.Kind == "synthesis" {
			syns++
			if !strings.HasPrefix(lines[i], "[synthesis, events ") {
				t.Errorf("synthesis line %q", lines[i])
			}
			continue
		}
		ents++
		if syns > 0 {
			t.Error("entries must come before syntheses")
		}
		want := "[" + it.Time.Format("2 January 2006 15:04") + "] " + it.Speaker + ": "
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("entry line %q, want prefix %q", lines[i], want)
		}
		if i > 0 && it.Time.Before(ctx.Items[i-1].Time) {
			t.Error("entries not in time order")
		}
	}
	if ents != 4 || syns == 0 || syns > 5 {
		t.Errorf("%d entries, %d syntheses; want 4 (Budget.K) and 1..5", ents, syns)
	}
	if ctx.Tokens != tokens.Count(ctx.Rendered) {
		t.Error("token count")
	}
	if !strings.Contains(ctx.Rendered, "[8 May 2023 13:00] Caroline:") && !strings.Contains(ctx.Rendered, "[12 May 2023 13:00] Caroline:") {
		t.Errorf("rendered %q", ctx.Rendered)
	}
	full, _ := m.Retrieve(context.Background(), q, systems.Budget{})
	if n := full.Notes["entries"].(int); n != len(m.entries) { // 60 > the 20 stored
		t.Errorf("default budget gave %d entries of %d", n, len(m.entries))
	}
	small, _ := m.Retrieve(context.Background(), q, systems.Budget{MaxTokens: 120})
	if small.Tokens > 120 || len(small.Items) == 0 || len(small.Items) >= len(full.Items) {
		t.Errorf("MaxTokens=120 gave %d tokens, %d items", small.Tokens, len(small.Items))
	}
}

func TestOptions(t *testing.T) {
	bad := []struct {
		sys  string
		opts membench.Options
		want string
	}{
		{Name, membench.Options{"k": "3"}, `no option "k"`},
		{NameNoCross, membench.Options{"seeds": "15"}, `no option "seeds"`},
		{Name, membench.Options{"seed-scope": "future"}, "global, historical, authors-code"},
		{Name, membench.Options{"seeds": "authors-code"}, "seed-scope=authors-code"},
		{Name, membench.Options{"compression": "0.8"}, "applies only to granularity=buffer512"},
		{Name, membench.Options{"granularity": "buffer512", "compression": "0"}, "want a rate in (0, 1]"},
		{Name, membench.Options{"clock": BatchClock}, "applies only to granularity=buffer512"},
		{NameNoCross, membench.Options{"anchor": "turn"}, "utterance, session"},
		{NameFlat, membench.Options{"synthesis": "constrained"}, `no option "synthesis"`},
		{Name, membench.Options{"clock": "turn-step"}, "whatever --turn-step says"},
		{Name, membench.Options{"window": "0"}, "at least 1"},
		{Name, membench.Options{"seeds": "-1"}, "at least 0"},
		{Name, membench.Options{"granularity": "turn"}, "session, utterance, buffer512"},
		{Name, membench.Options{"synthesis": "free"}, "constrained, unconstrained, none"},
		{Name, membench.Options{"entries": "x"}, "want an integer"},
	}
	for _, b := range bad {
		spec, _ := systems.Lookup(b.sys)
		_, err := spec.New(testEnv(llm.NewOffline(), b.opts))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s %v: err %v, want %q", b.sys, b.opts, err, b.want)
		}
	}
	spec, _ := systems.Lookup(Name)
	def, err := spec.New(testEnv(llm.NewOffline(), nil))
	if err != nil {
		t.Fatal(err)
	}
	// The defaults are the authors' code's: utterance time, global seeds.
	if got, want := def.(*Memory).Config(), (Config{Seeds: 15, SeedScope: "global", Synthesis: "constrained", WindowSec: 3600, Granularity: "session", Compression: 1, Anchor: "utterance", Clock: UtteranceClock, Entries: 60, Syntheses: 5}); got != want {
		t.Errorf("default config %+v, want %+v", got, want)
	}
	sys, err := spec.New(testEnv(llm.NewOffline(), membench.Options{"seeds": "5", "seed-scope": "global", "window": "600", "entries": "30", "syntheses": "2", "synthesis": "unconstrained", "granularity": "utterance", "anchor": "utterance"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Seeds: 5, SeedScope: "global", Synthesis: "unconstrained", WindowSec: 600, Granularity: "utterance", Compression: 1, Anchor: "utterance", Clock: UtteranceClock, Entries: 30, Syntheses: 2}
	if got := sys.(*Memory).Config(); got != want {
		t.Errorf("config %+v, want %+v", got, want)
	}
	// buffer512 brings the authors' batch clock unless a clock is given,
	// and the manifest's resolved options say which.
	for _, c := range []struct {
		given membench.Options
		clock string
	}{
		{membench.Options{"granularity": "buffer512", "compression": "0.8"}, BatchClock},
		{membench.Options{"granularity": "buffer512", "clock": UtteranceClock}, UtteranceClock},
		{nil, UtteranceClock},
	} {
		sys, err := spec.New(testEnv(llm.NewOffline(), c.given))
		if err != nil {
			t.Fatal(err)
		}
		if got := sys.(*Memory).Config().Clock; got != c.clock {
			t.Errorf("%v: clock %s, want %s", c.given, got, c.clock)
		}
		if got := spec.Resolved(c.given)["clock"]; got != c.clock {
			t.Errorf("%v: resolved options say clock=%s, want %s", c.given, got, c.clock)
		}
		followed := spec.Followed(c.given)
		if want := c.clock == BatchClock; slices.Equal(followed, []string{"clock"}) != want || (!want && len(followed) > 0) {
			t.Errorf("%v: followed options %v", c.given, followed)
		}
	}
}

func TestTurnTokensFollowTheMeter(t *testing.T) {
	meter := llm.NewMeter()
	env := testEnv(llm.WithMeter(llm.NewOffline(), meter, "build"), nil)
	env.Meter = meter
	conv := testConv()
	_, st := build(t, Name, env, conv)
	tt := st.TurnTokens
	if len(tt) != len(conv.AllTurns()) {
		t.Fatalf("%d points", len(tt))
	}
	for i := 1; i < len(tt); i++ {
		if tt[i] < tt[i-1] {
			t.Fatal("cumulative tokens decrease")
		}
	}
	if total := meter.TotalTokens(membench.StageBuild); tt[len(tt)-1] != total || total == 0 {
		t.Errorf("last point %d, meter %d", tt[len(tt)-1], total)
	}
	if tt[0] != 0 || tt[2] == 0 {
		t.Errorf("session 1's cost should land on its last turn: %v", tt)
	}
	for _, tl := range meter.Snapshot() {
		if tl.Label != LabelFact && tl.Label != LabelRel && tl.Label != LabelConsolidate {
			t.Errorf("meter label %q", tl.Label)
		}
	}
}
