package locomo

import (
	"bytes"
	"os"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
)

// sameAsCareful checks the fast decoder against the careful one on data:
// whenever the fast one loads a file, the careful one loads it too, into
// the same conversations. It reports whether the fast one loaded it.
func sameAsCareful(t *testing.T, data []byte, opt datasets.LoadOptions) bool {
	t.Helper()
	if !utf8.Valid(data) {
		return false // Parse refuses such files before either decoder
	}
	fast, err := fastLoCoMo(data, opt)
	if err != nil {
		return false
	}
	slow, err := slowLoCoMo(data, "f.json", &datasets.Dataset{}, opt)
	if err != nil {
		t.Fatalf("the fast decoder loaded a file the careful one refuses (%v):\n%s", err, data)
	}
	if !reflect.DeepEqual(fast, slow.Conversations) {
		t.Fatalf("the decoders disagree on:\n%s", data)
	}
	return true
}

// TestLoCoMoFastRealFile: the real file takes the fast path, and loads
// exactly as the careful decoder loads it (every session, turn, time and
// question), with the default and another turn step.
func TestLoCoMoFastRealFile(t *testing.T) {
	data, err := os.ReadFile(testutil.Shared(t, "datasets", "locomo10.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []datasets.LoadOptions{{}, {TurnStep: 7}} {
		if !sameAsCareful(t, data, opt) {
			t.Fatalf("the fast decoder gave up on the real LoCoMo file (step %v)", opt.TurnStep)
		}
	}
}

// TestLoCoMoFastGivesUp lists files the fast decoder must leave to the
// careful one, which loads some of them (a null caption, a capitalised
// key) and refuses the others with their own messages.
func TestLoCoMoFastGivesUp(t *testing.T) {
	ok := `[{"sample_id":"a","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi","blip_caption":"cap"}],"session_1_date_time":"1:56 pm on 8 May, 2023"},"qa":[{"question":"q","answer":2022,"evidence":["D1:1; D:1:1"],"category":2}]}]`
	if !sameAsCareful(t, []byte(ok), datasets.LoadOptions{}) {
		t.Fatal("the fast decoder gave up on a plain file")
	}
	for _, c := range []struct{ from, to string }{
		{`"blip_caption":"cap"`, `"blip_caption":null`},
		{`"text":"hi"`, `"Text":"hi"`},
		{`"category":2`, `"category":2.0`},
		{`"category":2`, `"category":"2"`},
		{`"category":2`, `"category":2,"category":3`},
		{`"answer":2022`, `"answer":true`},
		{`"evidence":["D1:1; D:1:1"]`, `"evidence":null`},
		{`"session_1":[`, `"session_01":[],"session_1":[`},
		{`"sample_id":"a"`, `"sample_id":""`},
		{`"qa":[`, `"QA":[`},
		{`"hi"`, `"\ud800"`},
		{`}]`, `}] x`},
		{`"speaker":"A","dia_id":"D1:1"`, `"speaker":"A","dia_id":""`},
	} {
		data := bytes.Replace([]byte(ok), []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(data, []byte(ok)) {
			t.Fatalf("case %q did not apply", c.to)
		}
		if _, err := fastLoCoMo(data, datasets.LoadOptions{}); err == nil {
			t.Errorf("the fast decoder loaded %s", c.to)
		}
		sameAsCareful(t, data, datasets.LoadOptions{})
	}
}

// FuzzLoCoMoFast: on any input, a file the fast decoder loads is loaded
// the same by the careful one.
func FuzzLoCoMoFast(f *testing.F) {
	sample := sampleJSON(f)
	f.Add(sample)
	f.Add(bytes.Replace(sample, []byte(`"session_1"`), []byte(`"session_01"`), 1))
	f.Add([]byte(`[{"sample_id":"a","conversation":{"speaker_a":"A","speaker_b":"B","session_2":[{"speaker":"B","dia_id":"D2:1","text":"yo"}],"session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi","img":[1]}],"session_1_date_time":"1:56 pm on 8 May, 2023","session_2_date_time":null},"qa":[{"question":"q","answer":"x\u00e9","adversarial_answer":-1.5e3,"evidence":["D1:1; D:1:1"],"category":5}],"other":{}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsCareful(t, data, datasets.LoadOptions{})
	})
}

// fastLoCoMo decodes data into conversations, or returns errNotPlain.
func fastLoCoMo(data []byte, opt datasets.LoadOptions) ([]*datasets.Conversation, error) {
	return fastLoCoMoFrom(jsontext.NewDecoder(bytes.NewBuffer(data)), opt)
}
