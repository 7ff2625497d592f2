package locomo

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
)

func TestLoCoMoRealFile(t *testing.T) {
	path := testutil.Shared(t, "datasets", "locomo10.json")
	ds, err := Load(path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sessions, turns := 0, 0
	cats := map[int]int{}
	byID := map[string]*datasets.Question{}
	for _, c := range ds.Conversations {
		sessions += len(c.Sessions)
		for _, s := range c.Sessions {
			turns += len(s.Turns)
			if s.Time.IsZero() {
				t.Errorf("%s %s: date %q did not parse", c.ID, s.ID, s.RawTime)
			}
			for i := 1; i < len(s.Turns); i++ {
				if !s.Turns[i].Time.After(s.Turns[i-1].Time) {
					t.Errorf("%s %s: turn %d time %v not after %v", c.ID, s.ID, i, s.Turns[i].Time, s.Turns[i-1].Time)
				}
			}
		}
		for _, q := range c.Questions {
			cats[q.Category]++
			byID[q.ID] = q
		}
	}
	t.Logf("conversations=%d sessions=%d turns=%d questions=%d categories=%v sha256=%s",
		len(ds.Conversations), sessions, turns, len(ds.Questions()), cats, ds.SHA256)
	if len(ds.Conversations) != 10 || sessions != 272 || turns != 5882 || len(ds.Questions()) != 1986 {
		t.Errorf("got %d conversations, %d sessions, %d turns, %d questions; want 10, 272, 5882, 1986",
			len(ds.Conversations), sessions, turns, len(ds.Questions()))
	}
	want := map[int]int{1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
	if !reflect.DeepEqual(cats, want) {
		t.Errorf("categories %v, want %v", cats, want)
	}
	if ds.SHA256 != "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4" {
		t.Errorf("sha256 %s differs from the registry's", ds.SHA256)
	}

	q0 := byID["conv-26:0"]
	if q0 == nil || q0.ConversationID != "conv-26" || q0.Text == "" {
		t.Fatalf("conv-26:0 missing or empty: %+v", q0)
	}
	// conv-26 qa[37] has evidence "D8:6; D9:17" in one string.
	if q := byID["conv-26:37"]; q == nil || !reflect.DeepEqual(q.Evidence, []string{"D8:6", "D9:17"}) {
		t.Errorf("conv-26:37 evidence not split: %+v", q)
	}
	// conv-26 qa[1] has the integer answer 2022.
	if q := byID["conv-26:1"]; q == nil || q.Gold != "2022" {
		t.Errorf("conv-26:1 gold = %q, want \"2022\"", q.Gold)
	}
	ints := 0
	for _, q := range ds.Questions() {
		if q.Gold == "2022" || q.Gold == "2" || q.Gold == "3" {
			ints++
		}
		for _, e := range q.Evidence {
			if !diaID.MatchString(e) || strings.ContainsAny(e, " ;,") {
				t.Errorf("%s: evidence id %q not clean", q.ID, e)
			}
		}
		if q.Category == CatAdversarial {
			if !q.Abstention || q.AdversarialAnswer == "" {
				t.Errorf("%s: adversarial item not an abstention with adversarial answer", q.ID)
			}
		} else if q.Abstention || q.Gold == "" {
			t.Errorf("%s: category %d should have gold and no abstention", q.ID, q.Category)
		}
		if q.AskedAt.IsZero() {
			t.Errorf("%s: AskedAt is zero", q.ID)
		}
	}
	if ints < 6 {
		t.Errorf("found %d stringified integer answers, want at least 6", ints)
	}
	// Every image turn carries its caption; D1:5 of conv-26 is one.
	var d15 *datasets.Turn
	for _, tr := range ds.Conversations[0].AllTurns() {
		if tr.ID == "D1:5" {
			d15 = tr
		}
	}
	if d15 == nil || !strings.Contains(d15.Text, " [image: a photo of a dog") {
		t.Errorf("conv-26 D1:5 lacks its image caption: %+v", d15)
	}
	// conv-26 has dates for sessions 20-35 but no sessions: they are ignored.
	if n := len(ds.Conversations[0].Sessions); n != 19 {
		t.Errorf("conv-26 has %d sessions, want 19", n)
	}
}

// quirks holds each LoCoMo oddity in a tiny file so the loader is tested
// even without the real data.
const quirks = `[{"sample_id":"x-1","conversation":{
 "speaker_a":"Ann","speaker_b":"Bo",
 "session_2_date_time":"  9:05 AM on  3 feb 2024",
 "session_2":[{"speaker":"Bo","dia_id":"D2:1","text":"later"}],
 "session_1_date_time":"12:30 pm on 1 February, 2024",
 "session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"},
              {"speaker":"Bo","dia_id":"D1:2","text":"look","blip_caption":"a photo of a cat","img_url":["u"]},
              {"speaker":"Ann","dia_id":"D1:3","text":"nice"}],
 "session_3_date_time":"sometime in spring",
 "session_3":[{"speaker":"Ann","dia_id":"D3:1","text":"undated"}],
 "session_9_date_time":"1:00 pm on 9 May, 2024"},
 "qa":[{"question":"year?","answer":2022,"evidence":["D1:1; D2:1"],"category":2},
       {"question":"trick?","adversarial_answer":"yes","evidence":["D:1:3","D","","D1:02 D1:3"],"category":5},
       {"question":"open?","answer":"maybe","evidence":[],"category":3}]}]`

func TestLoCoMoQuirks(t *testing.T) {
	ds, err := Parse([]byte(quirks), "quirks.json", "locomo", datasets.LoadOptions{TurnStep: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Conversations[0]
	if len(c.Sessions) != 3 || c.Sessions[0].ID != "session_1" || c.Sessions[2].ID != "session_3" {
		t.Fatalf("sessions not numeric-ordered or orphan date kept: %+v", c.Sessions)
	}
	s1 := c.Sessions[0]
	if want := time.Date(2024, 2, 1, 12, 30, 0, 0, time.UTC); !s1.Time.Equal(want) || !s1.Turns[2].Time.Equal(want.Add(2*time.Minute)) {
		t.Errorf("session 1 time %v, turn 3 %v", s1.Time, s1.Turns[2].Time)
	}
	if want := time.Date(2024, 2, 3, 9, 5, 0, 0, time.UTC); !c.Sessions[1].Time.Equal(want) {
		t.Errorf("lenient date parsed as %v, want %v", c.Sessions[1].Time, want)
	}
	s3 := c.Sessions[2]
	if !s3.Time.IsZero() || s3.RawTime != "sometime in spring" || !s3.Turns[0].Time.IsZero() {
		t.Errorf("unparsable date: %+v / %+v", s3, s3.Turns[0])
	}
	if got := s1.Turns[1].Text; got != "look [image: a photo of a cat]" {
		t.Errorf("image turn text %q", got)
	}
	q := c.Questions
	if q[0].ID != "x-1:0" || q[0].Gold != "2022" || !reflect.DeepEqual(q[0].Evidence, []string{"D1:1", "D2:1"}) {
		t.Errorf("q0 = %+v", q[0])
	}
	if !q[1].Abstention || q[1].Gold != "" || q[1].AdversarialAnswer != "yes" || !reflect.DeepEqual(q[1].Evidence, []string{"D1:3", "D1:2"}) {
		t.Errorf("q1 = %+v", q[1])
	}
	if q[2].Evidence == nil || len(q[2].Evidence) != 0 {
		t.Errorf("empty evidence should be an empty list, got %#v", q[2].Evidence)
	}
	// Asked one day after the latest dated session (3 Feb 9:05).
	if want := time.Date(2024, 2, 4, 9, 5, 0, 0, time.UTC); !q[0].AskedAt.Equal(want) {
		t.Errorf("AskedAt %v, want %v", q[0].AskedAt, want)
	}
}

func TestLoCoMoErrors(t *testing.T) {
	cases := []struct{ name, json, want string }{
		{"syntax", "[{\"sample_id\": \n oops}]", "bad.json line 2 (byte 17): malformed JSON: invalid character 'o'"},
		{"no speaker", `[{"sample_id":"a","conversation":{"speaker_a":"A","session_1":[]},"qa":[]}]`, `bad.json: sample a, field "conversation.speaker_b" missing`},
		{"no id", `[{"conversation":{}}]`, `bad.json: sample 0, field "sample_id" missing`},
		{"no category", `[{"sample_id":"a","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[]},"qa":[{"question":"q"}]}]`, `qa[0]: "question" and "category" are required`},
		{"turn", `[{"sample_id":"a","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[{"text":"x"}]},"qa":[]}]`, `conversation.session_1[0]`},
		{"empty", `[]`, "no samples"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.json), "bad.json", "locomo", datasets.LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: error %v, want it to contain %q and the file name", c.name, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json"), datasets.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "datasets fetch locomo") {
		t.Errorf("missing file error %v should say how to fetch", err)
	}
}

func TestParseLoCoMoTime(t *testing.T) {
	good := map[string]time.Time{
		"1:56 pm on 8 May, 2023":         time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		"12:09 am on 13 September, 2023": time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC),
		"12:00 PM on 1 Jan 2024":         time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC),
		"10:37am on 27 june,2023":        time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC),
	}
	for in, want := range good {
		got, err := ParseTime(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q -> %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "13:00 pm on 1 May, 2023", "1:00 pm on 31 June, 2023", "1:00 pm on 3 Smarch, 2023"} {
		if _, err := ParseTime(in); err == nil {
			t.Errorf("%q parsed, want error", in)
		}
	}
}

// sampleJSON is the embedded sample's file (package sample imports this one).
func sampleJSON(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "sample", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
