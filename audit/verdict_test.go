package audit

import (
	"encoding/json"
	"strings"
	"testing"
)

// verdictShapes are replies an audit judge writes; want is "S"
// (SUPPORTED), "U" (UNSUPPORTED) or "" (no verdict: recorded unparsed).
var verdictShapes = []struct{ in, want, reason string }{
	// JSON, as the prompts ask, and its variants.
	{`{"reason": "ok", "verdict": "SUPPORTED"}`, "S", "ok"},
	{"```json\n{\"verdict\": \"unsupported\", \"reason\": \"adds a name\"}\n```", "U", "adds a name"},
	{`Here is my verdict: {"Reason": "the dog is not in the utterance", "Verdict": "Unsupported"}`, "U", "the dog is not in the utterance"},
	{`{"supported": false, "reason": "adds a dog"}`, "U", "adds a dog"},
	{`{"is_supported": true}`, "S", ""},
	{`{"verdict": "yes"}`, "S", ""},
	// A JSON label outside the closed set is no verdict, however clear.
	{`{"label": "Not supported"}`, "", ""},
	{`{"verdict":"not fully supported"}`, "", ""},
	{`{"verdict": "NOT SUPPORTED"}`, "", ""},
	{`{"verdict": "CORRECT"}`, "", ""},
	{`{"verdict": "SUPPORTED"} {"verdict": "UNSUPPORTED"}`, "", ""},
	// Bare labels.
	{"SUPPORTED", "S", ""},
	{"**UNSUPPORTED**", "U", ""},
	{"Supported.", "S", ""},
	{"Yes.", "S", ""},
	{"No", "U", ""},
	// Labelled verdicts.
	{"UNSUPPORTED: the entry adds a dog.", "U", ""},
	{"Verdict: SUPPORTED", "S", ""},
	{"Verdict - not supported", "U", ""},
	{"The link may look unsupported at first glance.\nFinal verdict: SUPPORTED", "S", ""},
	// Negations in any casing.
	{"It isn't SUPPORTED", "U", ""},
	{"It isn’t supported by the events.", "U", ""},
	{"NEVER SUPPORTED", "U", ""},
	{"not fully supported", "U", ""},
	{"The entry IS NOT SUPPORTED by the source.", "U", ""},
	{"The entry is not supported by the utterance.", "U", ""},
	{"I do not think the utterance says this, so the entry is not supported.", "U", ""},
	{"No, the entry is unsupported.", "U", ""},
	{"not unsupported", "S", ""},
	{"The entry is supported.", "S", ""},
	{"The entry is supported by the utterance, which does not mention a date.", "S", ""},
	// The judge's own words are not audit labels.
	{"The entry is correct but not supported.", "U", ""},
	{"Nothing wrong here: SUPPORTED.", "S", ""},
	{"The entry is wrong.", "", ""},
	// Questions, hedges, conflicts and nothing.
	{"Is it supported? No.", "U", ""},
	{"Is it supported?", "", ""},
	{"Partly supported, partly unsupported.", "", ""},
	{"partially supported", "", ""},
	{"SUPPORTED or UNSUPPORTED? Hard to say: SUPPORTED and UNSUPPORTED both fit.", "", ""},
	{"no idea", "", ""},
	{"", "", ""},
}

func TestParseVerdictShapes(t *testing.T) {
	for _, c := range verdictShapes {
		v, err := ParseVerdict(c.in)
		got := ""
		if err == nil {
			got = map[bool]string{true: "S", false: "U"}[v.Supported]
		}
		if got != c.want {
			t.Errorf("ParseVerdict(%q) = %q (%v), want %q", c.in, got, err, c.want)
			continue
		}
		if c.reason != "" && v.Reason != c.reason {
			t.Errorf("ParseVerdict(%q) reason %q, want %q", c.in, v.Reason, c.reason)
		}
		if err != nil && !strings.Contains(err.Error(), "SUPPORTED/UNSUPPORTED") {
			t.Errorf("ParseVerdict(%q) error %q names no audit label", c.in, err)
		}
	}
}

// judgeWords keeps the case shape of what it renames, renames whole words
// only and keeps JSON valid.
func TestJudgeWords(t *testing.T) {
	for in, want := range map[string]string{
		"SUPPORTED / Supported / supported":              "CORRECT / Correct / correct",
		"UNSUPPORTED, correct, WRONG":                    "INCORRECT, accurate, MISTAKEN",
		"supportedness supports is_supported supported2": "supportedness supports is_correct supported2",
		"ſupported éwrong":                               "ſupported éwrong",
	} {
		if got := judgeWords(in); got != want {
			t.Errorf("judgeWords(%q) = %q, want %q", in, got, want)
		}
	}
	in := `{"verdict": "Unsupported", "reason": "the wrong dog, not \"supported\""}`
	var obj map[string]string
	if err := json.Unmarshal([]byte(judgeWords(in)), &obj); err != nil || obj["verdict"] != "Incorrect" {
		t.Errorf("judgeWords(%s) = %s (%v)", in, judgeWords(in), err)
	}
}
