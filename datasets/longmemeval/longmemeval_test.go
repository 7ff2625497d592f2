package longmemeval

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench/datasets"
)

func TestLongMemEvalFixture(t *testing.T) {
	path := filepath.Join("..", "testdata", "longmemeval_mini.json")
	ds, err := Load(path, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	sum := sha256.Sum256(raw)
	if ds.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("sha256 %s, want %x", ds.SHA256, sum)
	}
	if ds.Name != "longmemeval" || len(ds.Conversations) != 3 {
		t.Fatalf("got %s with %d conversations", ds.Name, len(ds.Conversations))
	}
	c := ds.Conversations[0]
	q := c.Questions[0]
	if c.ID != "q_pref_1" || q.ID != "q_pref_1" || q.ConversationID != c.ID || q.Type != "single-session-user" || q.Abstention || q.Category != 0 {
		t.Errorf("first item: %+v / %+v", c, q)
	}
	if !reflect.DeepEqual(c.Speakers, []string{"user", "assistant"}) || c.Sessions[1].Turns[1].Speaker != "assistant" {
		t.Errorf("speakers %v", c.Speakers)
	}
	// Marked turns are the evidence.
	if !reflect.DeepEqual(q.Evidence, []string{"answer_q1_s1:0"}) || !c.Sessions[1].Turns[0].HasAnswer {
		t.Errorf("evidence %v", q.Evidence)
	}
	s := c.Sessions[0]
	if want := time.Date(2023, 5, 20, 2, 21, 0, 0, time.UTC); s.ID != "noise_a1" || !s.Time.Equal(want) || !s.Turns[1].Time.Equal(want.Add(datasets.DefaultTurnStep)) || s.RawTime != "2023/05/20 (Sat) 02:21" {
		t.Errorf("session 0: %+v, turn 1 at %v", s, s.Turns[1].Time)
	}
	if want := time.Date(2023, 6, 2, 9, 15, 0, 0, time.UTC); !q.AskedAt.Equal(want) {
		t.Errorf("AskedAt %v want %v", q.AskedAt, want)
	}

	// No marked turns: every turn of the answer sessions is evidence; int gold is stringified.
	q2 := ds.Conversations[1].Questions[0]
	if q2.Gold != "3" {
		t.Errorf("gold %q want \"3\"", q2.Gold)
	}
	wantEv := []string{"answer_q2_s1:0", "answer_q2_s1:1", "answer_q2_s2:0", "answer_q2_s2:1"}
	if !reflect.DeepEqual(q2.Evidence, wantEv) {
		t.Errorf("fallback evidence %v want %v", q2.Evidence, wantEv)
	}

	// _abs item: abstention, bad question date gives zero AskedAt, repeated session ids stay unique.
	c3 := ds.Conversations[2]
	q3 := c3.Questions[0]
	if !q3.Abstention || !q3.AskedAt.IsZero() {
		t.Errorf("abs item: %+v", q3)
	}
	if c3.Sessions[0].ID == c3.Sessions[1].ID || c3.Sessions[1].Turns[0].ID != "answer_q1_s1#1:0" {
		t.Errorf("repeated session ids: %s, %s", c3.Sessions[0].ID, c3.Sessions[1].Turns[0].ID)
	}
}

func TestLongMemEvalErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, json, want string }{
		{"syntax", `[{"question_id": }]`, "malformed JSON"},
		{"not list", `{"a":1}`, "JSON list of items"},
		{"no id", `[{"question":"q"}]`, `item 0, field "question_id" missing`},
		{"pairs", `[{"question_id":"a","question":"q","haystack_session_ids":["s"],"haystack_sessions":[]}]`, `item a, "haystack_session_ids" has 1`},
		{"role", `[{"question_id":"a","question":"q","haystack_session_ids":["s"],"haystack_sessions":[[{"content":"x"}]]}]`, `haystack_sessions[0][0]: "role" missing`},
		{"empty", `[]`, "no items"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(p, []byte(c.json), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p, datasets.LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want %q and the path", c.name, err, c.want)
		}
	}
}

func TestParseLongMemEvalTime(t *testing.T) {
	got, err := ParseLongMemEvalTime("2023/05/20 (Sat) 02:21")
	if err != nil || !got.Equal(time.Date(2023, 5, 20, 2, 21, 0, 0, time.UTC)) {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := ParseLongMemEvalTime("2024/02/29"); err != nil || got.Day() != 29 {
		t.Errorf("date-only: %v, %v", got, err)
	}
	for _, bad := range []string{"", "2023-05-20 02:21", "2023/02/30 (Thu) 01:00", "2023/05/20 (Sat) 25:00"} {
		if _, err := ParseLongMemEvalTime(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
