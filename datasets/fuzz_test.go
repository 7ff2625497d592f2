package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkLoaded holds for any file a loader accepts or refuses: refusals are
// one-line InputErrors; accepted datasets have unique, non-empty ids.
func checkLoaded(t *testing.T, ds *Dataset, err error) {
	t.Helper()
	if err != nil {
		if !IsInputError(err) {
			t.Fatalf("refusal is not an InputError (%T): %v", err, err)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("refusal is not one line: %q", err)
		}
		return
	}
	convs, turns := map[string]bool{}, map[string]bool{}
	for _, c := range ds.Conversations {
		if c.ID == "" || convs[c.ID] {
			t.Fatalf("conversation id %q empty or repeated", c.ID)
		}
		convs[c.ID] = true
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				key := c.ID + "\x00" + tu.ID
				if tu.ID == "" || turns[key] {
					t.Fatalf("%s: turn id %q empty or repeated", c.ID, tu.ID)
				}
				turns[key] = true
			}
		}
		for _, q := range c.Questions {
			if q.ConversationID != c.ID {
				t.Fatalf("question %s in %s names conversation %s", q.ID, c.ID, q.ConversationID)
			}
		}
	}
}

func FuzzLoCoMo(f *testing.F) {
	sample := SampleJSON()
	f.Add(sample)
	f.Add(bytes.Replace(sample, []byte(`"category": 4`), []byte(`"category": "4"`), 1))
	f.Add(bytes.Replace(sample, []byte(`"session_1"`), []byte(`"session_01"`), 1))
	f.Add([]byte(`[{"sample_id":"a","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"}],"session_1_date_time":"1:56 pm on 8 May, 2023"},"qa":[{"question":"q","answer":2022,"evidence":["D1:1; D:1:1"],"category":2}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := parseLoCoMo(data, "fuzz.json", "locomo", LoadOptions{})
		checkLoaded(t, ds, err)
	})
}

func FuzzLongMemEval(f *testing.F) {
	mini, err := os.ReadFile(filepath.Join("testdata", "longmemeval_mini.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(mini)
	f.Add([]byte(`[{"question_id":"q_abs","question":"q","answer":3,"haystack_session_ids":["s","s"],"haystack_dates":["2023/05/20 (Sat) 02:21","x"],"haystack_sessions":[[{"role":"user","content":"c","has_answer":true}],[]]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := decodeLongMemEval(newUTF8Reader(bytes.NewReader(data), "fuzz.json"), "fuzz.json", nil, LoadOptions{})
		checkLoaded(t, ds, err)
	})
}
