package structmem

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/testutil"

	"github.com/membench/membench/internal/tokens"
)

// The options that run StructMem as the authors' code really runs it
// (seed-scope=authors-code, granularity=buffer512, seeds=0), each on
// LoCoMo conv-26 with the offline backend.

func loadLoCoMo(t *testing.T) []*datasets.Conversation {
	t.Helper()
	if testing.Short() {
		t.Skip("short")
	}
	ds, err := locomo.Load(testutil.Shared(t, "datasets", "locomo10.json"), datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Conversations) != 10 {
		t.Fatalf("%d conversations in the LoCoMo file, want 10", len(ds.Conversations))
	}
	return ds.Conversations
}

func conv26(t *testing.T) *datasets.Conversation {
	t.Helper()
	for _, c := range loadLoCoMo(t) {
		if c.ID == "conv-26" {
			return c
		}
	}
	t.Fatal("conv-26 not in the LoCoMo file")
	return nil
}

// figures is the line a build's report gives: what the memory holds and
// what it cost on both call counters.
func figures(st membench.BuildStats) string {
	c := st.Counts
	return fmt.Sprintf("events %d, entries %d, batches %d, windows %d, syntheses %d, calls %d (ours: %d extraction + %d synthesis), authors' counter %d",
		c["events"], c["entries"], c["batches"], c["windows"], c["syntheses"],
		c["calls_extract_fact"]+c["calls_extract_rel"]+c["calls_consolidate"], c["calls_extract_fact"]+c["calls_extract_rel"], c["calls_consolidate"],
		c[membench.CountAuthorsCalls])
}

// The default build on conv-26, the reference the options differ from:
// one batch per session, one window per session, seeds never from the
// window itself.
func TestConv26Default(t *testing.T) {
	conv := conv26(t)
	m, st := build(t, Name, testEnv(newFake(nil), nil), conv)
	t.Logf("conv-26 default: %s", figures(st))
	n := len(conv.Sessions)
	if st.Counts["batches"] != n || st.Counts["windows"] != n || st.Counts[membench.CountAuthorsCalls] != 2*n {
		t.Errorf("counts %v: want %d batches, %d windows, %d on the authors' counter", st.Counts, n, n, 2*n)
	}
	for _, w := range m.windows {
		if slices.ContainsFunc(w.SeedIDs, func(id string) bool { return slices.Contains(w.BufferIDs, id) }) {
			t.Fatalf("window %d: a seed from the window itself under seed-scope=global", w.Index)
		}
	}
}

// seed-scope=authors-code: nothing excludes the window, so seeds come
// from the window itself (its own entries are the nearest to its text),
// and such a seed is shown to the synthesis model a second time.
func TestConv26AuthorsCodeSeeds(t *testing.T) {
	conv := conv26(t)
	fm := newFake(nil)
	m, st := build(t, Name, testEnv(fm, membench.Options{"seed-scope": "authors-code"}), conv)
	t.Logf("conv-26 seed-scope=authors-code: %s, seeds from the window itself %d of %d", figures(st), st.Counts["seeds_in_window"], st.Counts["seeds"])
	inWindow, windows := 0, 0
	for _, w := range m.windows {
		own := 0
		for _, id := range w.SeedIDs {
			if slices.Contains(w.BufferIDs, id) {
				own++
				if !slices.Contains(w.EventIDs, id) {
					t.Errorf("window %d: seed %s from the window is not listed again among its related entries", w.Index, id)
				}
			}
		}
		inWindow += own
		if own > 0 {
			windows++
		}
	}
	if inWindow == 0 || inWindow != st.Counts["seeds_in_window"] {
		t.Errorf("%d seeds from their own window (count %d); the authors' search excludes nothing", inWindow, st.Counts["seeds_in_window"])
	}
	if windows < len(m.windows)/2 {
		t.Errorf("only %d of %d windows drew a seed from themselves", windows, len(m.windows))
	}
}

// granularity=buffer512: extraction batches of at most 512 tokens across
// session boundaries, and the authors' clock restarting in each batch, so
// utterance k of two batches of one session share a time: one event.
func TestConv26Buffer512(t *testing.T) {
	conv := conv26(t)
	fm := newFake(nil)
	m, st := build(t, Name, testEnv(fm, membench.Options{"granularity": "buffer512"}), conv)
	t.Logf("conv-26 granularity=buffer512: %s", figures(st))
	if m.cfg.Clock != BatchClock {
		t.Fatalf("clock %s, want %s", m.cfg.Clock, BatchClock)
	}
	sess := sessionOf(conv)
	// The factual requests are the batches; put them in conversation
	// order (they were sent concurrently).
	idx := map[string]int{}
	for i, tu := range conv.AllTurns() {
		idx[tu.ID] = i
	}
	var reqs []ExtractInput
	for _, r := range fm.reqs {
		if in, ok := r.Inputs.(ExtractInput); ok && in.Kind == KindFactual {
			reqs = append(reqs, in)
		}
	}
	slices.SortFunc(reqs, func(a, b ExtractInput) int { return idx[a.Utterances[0].ID] - idx[b.Utterances[0].ID] })
	var order []string
	time0 := map[string]time.Time{} // turn -> its time on the batch clock
	crossing := 0
	for _, in := range reqs {
		held, pos := 0, map[string]int{}
		for _, u := range in.Utterances {
			order = append(order, u.ID)
			held += tokens.Count(u.Text)
			s := sess[u.ID]
			time0[u.ID] = s.Time.Add(time.Duration(pos[s.ID]) * time.Second)
			pos[s.ID]++
		}
		if held > BufferTokens && len(in.Utterances) > 1 {
			t.Errorf("a batch of %d utterances holds %d tokens", len(in.Utterances), held)
		}
		if len(pos) > 1 {
			crossing++
		}
	}
	var all []string
	for _, tu := range conv.AllTurns() {
		all = append(all, tu.ID)
	}
	if !slices.Equal(order, all) {
		t.Errorf("the batches do not cover the conversation's %d utterances in order (%d listed)", len(all), len(order))
	}
	nb := st.Counts["batches"]
	if nb == 0 || st.Counts["calls_extract_fact"] != nb || st.Counts["calls_extract_rel"] != nb || st.Counts[membench.CountAuthorsCalls] != nb+st.Counts["windows"] {
		t.Errorf("counts %v: want one factual and one relational call per batch, authors' counter = batches + windows", st.Counts)
	}
	if crossing == 0 {
		t.Error("no batch crosses a session boundary")
	}
	// Entries sit on the batch clock, and events merge utterances.
	anchors := map[string]map[string]bool{}
	for _, e := range m.entries {
		if !e.Time.Equal(time0[e.Sources[0]]) {
			t.Fatalf("entry %s at %v, not its utterance's batch-clock time %v", e.ID, e.Time, time0[e.Sources[0]])
		}
		if anchors[e.Event] == nil {
			anchors[e.Event] = map[string]bool{}
		}
		anchors[e.Event][e.Sources[0]] = true
	}
	merged := 0
	for ev, us := range anchors {
		if len(us) > 1 {
			merged++
			var ss []string
			for u := range us {
				ss = append(ss, sess[u].ID)
			}
			slices.Sort(ss)
			if ss[0] != ss[len(ss)-1] {
				t.Errorf("event %s merges utterances of sessions %v", ev, ss)
			}
		}
	}
	if merged == 0 || st.Counts["events"] != len(anchors) {
		t.Errorf("%d events merge utterances of different batches; counts say %d events for %d", merged, st.Counts["events"], len(anchors))
	}
	t.Logf("%d batches (%d across a session boundary), %d events of which %d hold utterances of two or more batches", nb, crossing, len(anchors), merged)
}

// seeds=0: every window still gets its synthesis, made from its own
// entries (Figure 3(d)'s K=0 as the authors' code runs it).
func TestConv26SeedsZero(t *testing.T) {
	conv := conv26(t)
	fm := newFake(nil)
	m, st := build(t, Name, testEnv(fm, membench.Options{"seeds": "0"}), conv)
	t.Logf("conv-26 seeds=0: %s", figures(st))
	n := len(conv.Sessions)
	if len(m.syns) != n || st.Counts["syntheses"] != n || st.Counts["seeds"] != 0 || fm.count(TaskConsolidate) != n {
		t.Errorf("seeds=0: %d syntheses, %d synthesis calls, counts %v; want one synthesis per window, no seed", len(m.syns), fm.count(TaskConsolidate), st.Counts)
	}
	_, none := build(t, Name, testEnv(newFake(nil), membench.Options{"synthesis": "none"}), conv)
	t.Logf("conv-26 synthesis=none: %s", figures(none))
	if none.Counts["syntheses"] != 0 || none.Counts["calls_consolidate"] != 0 || none.Counts[membench.CountAuthorsCalls] != n {
		t.Errorf("synthesis=none counts %v", none.Counts)
	}
}

// The 512-token buffer over all ten LoCoMo conversations: how many
// extraction batches the authors' buffer makes (at compression 1 and at
// their README's 0.8), against 272 sessions. Batching only, no model.
func TestBuffer512BatchesFullLoCoMo(t *testing.T) {
	convs := loadLoCoMo(t)
	for _, rate := range []float64{1, 0.8} {
		total, sessions, utterances := 0, 0, 0
		var per []string
		for _, c := range convs {
			var ts []*turnInfo
			for _, s := range c.Sessions {
				for _, tu := range s.Turns {
					ts = append(ts, &turnInfo{Turn: tu, session: s.ID})
				}
			}
			b := tokenBatches(ts, BufferTokens, rate)
			n := 0
			for _, x := range b {
				n += len(x)
			}
			if n != len(ts) {
				t.Fatalf("%s: batches hold %d of %d utterances", c.ID, n, len(ts))
			}
			total += len(b)
			sessions += len(c.Sessions)
			utterances += len(ts)
			per = append(per, fmt.Sprintf("%s %d", c.ID, len(b)))
		}
		t.Logf("compression %g: %d batches over %d utterances, %d sessions (%v)", rate, total, utterances, sessions, per)
		if sessions != 272 || total <= sessions {
			t.Errorf("compression %g: %d batches for %d sessions", rate, total, sessions)
		}
	}
}

// tokenBatches on made-up turns: a batch is sent when the next utterance
// would pass the limit, an utterance above the limit goes alone, the
// rest goes at the end, and compression scales the counts.
func TestTokenBatches(t *testing.T) {
	mk := func(words ...int) []*turnInfo {
		var out []*turnInfo
		for i, n := range words {
			text := ""
			for range n {
				text += " word"
			}
			out = append(out, &turnInfo{Turn: &datasets.Turn{ID: fmt.Sprint(i), Text: text}})
		}
		return out
	}
	sizes := func(b [][]*turnInfo) []int {
		var out []int
		for _, x := range b {
			out = append(out, len(x))
		}
		return out
	}
	ts := mk(4, 4, 4, 16, 1)
	if got := sizes(tokenBatches(ts, 10, 1)); !slices.Equal(got, []int{2, 1, 1, 1}) {
		t.Errorf("batches %v, want [2 1 1 1]", got)
	}
	if got := sizes(tokenBatches(ts, 10, 0.5)); !slices.Equal(got, []int{3, 2}) {
		t.Errorf("at rate 0.5: batches %v, want [3 2]", got)
	}
	if len(tokenBatches(nil, 10, 1)) != 0 {
		t.Error("batches over no utterance")
	}
}
