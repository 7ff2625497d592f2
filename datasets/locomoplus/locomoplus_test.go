package locomoplus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomoplus"
	"github.com/membench/membench/datasets/synth"
	"github.com/membench/membench/internal/testutil"
)

func TestParseGap(t *testing.T) {
	for _, c := range []struct {
		in   string
		days int
	}{
		{"one week later", 7},
		{"two weeks later", 14},
		{"six weeks later", 42},
		{"a month later", 30},
		{"one month later", 30},
		{"three months later", 90},
		{"twelve months later", 360},
		{"a year after", 365},
		{"one year later", 365},
		{"about one month later", 30},
		{"around six weeks later", 42},
		{"about 3 weeks later", 21},
		{"10 days later", 10},
		{"two months after the challenge ended", 60},
		{"around one week after the birth", 7},
		{"an year later", 365},
		{"a couple of months later", 60},
		{"a few weeks later", 21},
		{"several years later", 3 * 365},
		{"About Six Months Later", 180},
	} {
		got, err := locomoplus.ParseGap(c.in)
		if err != nil || got != c.days {
			t.Errorf("ParseGap(%q) = %d, %v; want %d", c.in, got, err, c.days)
		}
	}
	for _, bad := range []string{"", "later", "about", "some months later", "two", "two fortnights later", "0 days later", "-3 weeks later"} {
		if d, err := locomoplus.ParseGap(bad); err == nil {
			t.Errorf("ParseGap(%q) = %d, want an error", bad, d)
		}
	}
}

func base() *datasets.Dataset {
	day := func(d int) time.Time { return time.Date(2023, 5, d, 13, 0, 0, 0, time.UTC) }
	var convs []*datasets.Conversation
	for _, id := range []string{"c1", "c2", "c3"} {
		c := &datasets.Conversation{ID: id, Speakers: []string{"Ana-" + id, "Ben-" + id}}
		for i, d := range []int{1, 10, 20} {
			c.Sessions = append(c.Sessions, &datasets.Session{ID: "session_" + string(rune('1'+i)), Time: day(d),
				Turns: []*datasets.Turn{{ID: "D" + string(rune('1'+i)) + ":1", Speaker: c.Speakers[0], Text: "hello", Time: day(d)}}})
		}
		convs = append(convs, c)
	}
	return &datasets.Dataset{Name: "locomo", Source: "base.json", SHA256: "b", Conversations: convs}
}

func TestStitchPlacesCueAndTimes(t *testing.T) {
	items := []locomoplus.Item{
		{RelationType: "goal", CueDialogue: "A: I want to run a marathon.\nB: Train slowly.", TriggerQuery: "A: My knees hurt after the long run.", TimeGap: "two weeks later"},
		{RelationType: "state", CueDialogue: "B: I moved to Oslo.", TriggerQuery: "B: It is dark at 3pm here.", TimeGap: "two months later"},
	}
	ds, err := locomoplus.Stitch(items, base(), 1, time.Minute, "plus.json")
	if err != nil {
		t.Fatal(err)
	}
	query := time.Date(2023, 5, 27, 13, 0, 0, 0, time.UTC) // last session (20 May) + 7 days
	for i, want := range []struct {
		pos int
		cue time.Time
	}{
		{2, query.AddDate(0, 0, -14)}, // 13 May: after the 10 May session, before 20 May
		{0, query.AddDate(0, 0, -60)}, // before every session: first
	} {
		c := ds.Conversations[i]
		if len(c.Sessions) != 4 {
			t.Fatalf("item %d: %d sessions, want 4", i, len(c.Sessions))
		}
		s := c.Sessions[want.pos]
		if s.ID != locomoplus.CueSession || !s.Time.Equal(want.cue) {
			t.Errorf("item %d: session %d is %s at %s; want the cue at %s", i, want.pos, s.ID, s.Time, want.cue)
		}
		q := c.Questions[0]
		if !q.AskedAt.Equal(query) || q.Group != "cognitive" || q.Gold != "" {
			t.Errorf("item %d: question asked %s group %q gold %q", i, q.AskedAt, q.Group, q.Gold)
		}
		if len(q.Evidence) != len(s.Turns) || q.Evidence[0] != s.Turns[0].ID {
			t.Errorf("item %d: evidence %v, cue turns %d", i, q.Evidence, len(s.Turns))
		}
	}
	c0 := ds.Conversations[0]
	cue := c0.Sessions[2]
	if cue.Turns[0].Speaker != c0.Speakers[0] || cue.Turns[1].Speaker != c0.Speakers[1] || cue.Turns[1].Time.Sub(cue.Turns[0].Time) != time.Minute {
		t.Errorf("cue turns %+v %+v: want A then B mapped to %v, a minute apart", cue.Turns[0], cue.Turns[1], c0.Speakers)
	}
	if q := c0.Questions[0]; q.Text != c0.Speakers[0]+": My knees hurt after the long run." || q.Type != "goal" {
		t.Errorf("question %q type %q", q.Text, q.Type)
	}
	if c1 := ds.Conversations[1]; c1.Sessions[0].Turns[0].Speaker != c1.Speakers[1] {
		t.Errorf("speaker B maps to %q, want %q", c1.Sessions[0].Turns[0].Speaker, c1.Speakers[1])
	}
	if _, err := locomoplus.Stitch([]locomoplus.Item{{CueDialogue: "C: who?", TriggerQuery: "A: x", TimeGap: "one week later"}}, base(), 1, 0, "p.json"); err == nil {
		t.Error("a cue line of speaker C was accepted")
	}
}

func TestSeededChoice(t *testing.T) {
	a, b := locomoplus.Choose(401, 10, 1), locomoplus.Choose(401, 10, 1)
	c := locomoplus.Choose(401, 10, 2)
	same, used := true, map[int]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 1 chose %d then %d for item %d", a[i], b[i], i)
		}
		same = same && a[i] == c[i]
		used[a[i]] = true
	}
	if same || len(used) != 10 {
		t.Errorf("seeds 1 and 2 agree on every item (%v) or seed 1 uses %d of 10 conversations", same, len(used))
	}
	items := []locomoplus.Item{{CueDialogue: "A: x y", TriggerQuery: "B: z", TimeGap: "one week later"}}
	d1, _ := locomoplus.Stitch(items, base(), 1, 0, "p")
	d2, _ := locomoplus.Stitch(items, base(), 2, 0, "p")
	d1b, _ := locomoplus.Stitch(items, base(), 1, 0, "p")
	if d1.SHA256 != d1b.SHA256 || d1.SHA256 == d2.SHA256 || d1.Source == d2.Source {
		t.Errorf("dataset identity must follow the seed: %s %s %s", d1.SHA256, d1b.SHA256, d2.SHA256)
	}
}

// The published files live outside the project; the test runs only when
// they are there.
func TestLoadPublishedFiles(t *testing.T) {
	plus := filepath.Join("..", "..", "..", "shared", "datasets", "locomo-plus", "locomo_plus.json")
	loc := filepath.Join("..", "..", "..", "shared", "datasets", "locomo10.json")
	for _, p := range []string{plus, loc} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is absent (LoCoMo-Plus and LoCoMo are fetched by users, not shipped): %v", p, err)
		}
	}
	ds, err := datasets.Load(locomoplus.Name, plus, datasets.LoadOptions{BaseData: loc, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ds.Questions()); n != 401 {
		t.Errorf("%d questions, want 401", n)
	}
	types := map[string]int{}
	for _, q := range ds.Questions() {
		types[q.Type]++
		if q.AskedAt.IsZero() || len(q.Evidence) == 0 {
			t.Fatalf("question %s has no time or evidence", q.ID)
		}
	}
	if types["causal"] != 101 || types["state"] != 100 || types["goal"] != 100 || types["value"] != 100 {
		t.Errorf("relation types %v", types)
	}
	if _, err := datasets.Load(locomoplus.Name, plus, datasets.LoadOptions{Home: t.TempDir()}); err == nil {
		t.Error("loading without an installed LoCoMo or --base-data succeeded")
	}
}

// locomo-plus is registered for `datasets add` (locomo_plus.json, pinned),
// and a run that names no --data reads the installed copy. The wiring is
// checked with small synthetic files installed under an unpinned copy of
// the entry: the published file is not shipped.
func TestAddedCopyIsTheDefault(t *testing.T) {
	e, ok := datasets.File(locomoplus.Name)
	if !ok || e.File != "locomo_plus.json" || e.Loader != locomoplus.Name || len(e.SHA256) != 64 || e.Key {
		t.Fatalf("registry entry %+v; want locomo_plus.json, pinned, read by locomo-plus", e)
	}
	home := t.TempDir()
	dir := datasets.DefaultDir(home)
	src := t.TempDir()
	write := testutil.Writer(t, src)
	items := write("plus.json", `[{"relation_type": "goal", "cue_dialogue": "A: I want to run a marathon.\nB: Train slowly.", "trigger_query": "A: My knees hurt.", "time_gap": "two weeks later"},
{"relation_type": "state", "cue_dialogue": "B: I moved to Oslo.", "trigger_query": "B: It is dark at 3pm.", "time_gap": "one month later"}]`)
	// The pinned entry refuses a file that is not the published one.
	if _, err := datasets.AddLocal(e, dir, items, 0); err == nil || !strings.Contains(err.Error(), "different version") {
		t.Fatalf("a synthetic file under the pinned entry: %v; want it refused as another version", err)
	}
	// Before anything is installed, the error says how to add a copy.
	_, err := datasets.Load(locomoplus.Name, "", datasets.LoadOptions{Home: home})
	if err == nil || !strings.Contains(err.Error(), "membench datasets add locomo-plus FILE") {
		t.Fatalf("nothing installed: %v; want the datasets add command", err)
	}
	unpinned := e
	unpinned.SHA256, unpinned.Size = "", 0
	if _, err := datasets.AddLocal(unpinned, dir, items, 0); err != nil {
		t.Fatal(err)
	}
	shape, _ := synth.Lookup("locomo")
	shape.Sessions, shape.Turns = 3, 4
	var base strings.Builder
	if err := synth.Write(&base, shape, 4, 1); err != nil {
		t.Fatal(err)
	}
	loc, _ := datasets.File("locomo")
	loc.SHA256, loc.Size = "", 0
	if _, err := datasets.AddLocal(loc, dir, write("base.json", base.String()), 0); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load(locomoplus.Name, "", datasets.LoadOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ds.Questions()); n != 2 || !strings.Contains(ds.Source, filepath.Join(dir, "locomo_plus.json")) {
		t.Errorf("%d questions from %s; want the 2 items of the installed copy", n, ds.Source)
	}
}
