package fullcontext

import (
	"context"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/tokens"
	"github.com/membench/membench/systems"
)

func TestRendersAllSessionsWithDates(t *testing.T) {
	d1 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	conv := &datasets.Conversation{ID: "c", Sessions: []*datasets.Session{
		{ID: "s1", Time: d1, Turns: []*datasets.Turn{
			{ID: "D1:1", Speaker: "Caroline", Text: "Hi Mel!", Time: d1},
			{ID: "D1:2", Speaker: "Melanie", Text: "Hey Caroline,\nhow are you?", Time: d1},
		}},
		{ID: "s2", RawTime: "sometime in June", Turns: []*datasets.Turn{
			{ID: "D2:1", Speaker: "Caroline", Text: "I adopted a puppy."},
		}},
	}}
	spec, err := systems.Lookup("fullcontext")
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.New(systems.Env{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Ingest(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts["turns"] != 3 || st.Counts["sessions"] != 2 {
		t.Errorf("counts %v", st.Counts)
	}
	c, err := s.Retrieve(context.Background(), &datasets.Question{Text: "anything"}, systems.Budget{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := "Session 1 (2023-05-08 13:56):\nCaroline: Hi Mel!\nMelanie: Hey Caroline, how are you?\n\nSession 2 (sometime in June):\nCaroline: I adopted a puppy."
	if c.Rendered != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", c.Rendered, want)
	}
	if len(c.Items) != 3 || c.Items[2].ID != "D2:1" || c.Items[2].Sources[0] != "D2:1" {
		t.Errorf("items %+v: want all 3 turns in order", c.Items)
	}
	if c.Tokens != tokens.Count(want) {
		t.Errorf("tokens %d, want %d", c.Tokens, tokens.Count(want))
	}
	if _, err := spec.New(systems.Env{Options: membench.Options{"k": "3"}}); err == nil {
		t.Error("unknown option accepted")
	}
}
