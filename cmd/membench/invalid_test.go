package main

import (
	"encoding/json"
	"hash/fnv"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// Two runs judged by a real-model judge (a fake OpenAI-compatible server)
// that gives no verdict on about 3 in 10 prompts: compare and agreement
// leave those verdicts out and count them, as the summary does, instead of
// pairing them as wrong answers or refusing the runs.
func TestCompareAndAgreementSkipInvalidVerdicts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	bad := map[string]bool{}
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		u := r.LastUser()
		h := fnv.New32a()
		h.Write([]byte(u))
		if h.Sum32()%10 < 3 {
			mu.Lock()
			bad[u] = true
			mu.Unlock()
			return llmtest.Reply{Text: "Hmm, hard to say."}
		}
		if h.Sum32()%7 < 4 {
			return llmtest.Reply{Text: `{"reason": "same fact", "label": "CORRECT"}`}
		}
		return llmtest.Reply{Text: `{"reason": "differs", "label": "WRONG"}`}
	}))
	res := t.TempDir()
	env := []string{"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.URL}
	run := func(id, system string) string {
		out, code := membench(t, env, "run", "--quiet", "--system", system, "--judge-model", "openai:gpt-4o-mini",
			"--judge-spec", "llm", "--judge-spec", "f1", "--results", res, "--run-id", id)
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
		return filepath.Join(res, id)
	}
	a, b := run("cos", "turns-cosine"), run("full", "fullcontext")
	invalid := func(dir string) map[string]bool {
		_, inv, err := runlogtest.Verdicts(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, j := range inv {
			out[j.QuestionID] = true
		}
		return out
	}
	invA, invB := invalid(a), invalid(b)
	if len(invA) == 0 || len(invB) == 0 {
		t.Fatalf("the fixture needs invalid verdicts on both sides: %d, %d", len(invA), len(invB))
	}
	valid, _, err := runlogtest.Verdicts(a)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, j := range valid {
		if j.Judge == "f1" {
			total++ // f1 never fails: one line per question
		}
	}
	both := 0
	for id := range invA {
		if invB[id] {
			both++
		}
	}
	// Every question is in both runs; the pair needs a valid verdict on
	// each side. Abstention questions are kept (--exclude-group none) so
	// the counts are the raw files'.
	wantN := total - len(invA) - len(invB) + both

	out, code := membench(t, env, "compare", "--run", a, "--run", b, "--judge", "llm", "--exclude-group", "none", "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, out)
	}
	var r struct {
		N             int `json:"n"`
		InvalidA      int `json:"invalid_a"`
		InvalidB      int `json:"invalid_b"`
		JudgedOneSide int `json:"judged_one_side"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.InvalidA != len(invA) || r.InvalidB != len(invB) || r.N != wantN || r.JudgedOneSide != 0 {
		t.Errorf("compare JSON %+v, want invalid %d/%d, n %d, none one-sided\n%s", r, len(invA), len(invB), wantN, out)
	}
	if !strings.Contains(out, "have an invalid verdict from judge llm") {
		t.Errorf("compare should note the invalid verdicts on stderr:\n%s", out)
	}
	out, code = membench(t, env, "compare", "--run", a, "--run", b, "--judge", "llm", "--exclude-group", "none")
	if code != 0 || !strings.Contains(out, "note: invalid verdicts left out:") {
		t.Errorf("compare text: exit %d, want a note line\n%s", code, out)
	}

	out, code = membench(t, env, "agreement", "--run", a, "--run", b, "--judge", "llm", "--judge", "f1", "--exclude-group", "none", "--json")
	if code != 0 {
		t.Fatalf("agreement: exit %d\n%s", code, out)
	}
	var ag struct {
		N       int            `json:"n"`
		Dropped int            `json:"dropped"`
		Invalid map[string]int `json:"invalid"`
		Judges  []string       `json:"judges"`
		Items   string         `json:"items"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &ag); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Items are (system, question) pairs over both runs; an item with an
	// invalid llm verdict is not judged by every rater.
	if ag.Invalid["llm"] != len(invA)+len(invB) || ag.N != 2*total-len(invA)-len(invB) || ag.Dropped != len(invA)+len(invB) ||
		strings.Join(ag.Judges, ",") != "f1,llm" || ag.Items != "system-question pairs" {
		t.Errorf("agreement JSON %+v, want invalid llm=%d, n=%d\n%s", ag, len(invA)+len(invB), 2*total-len(invA)-len(invB), out)
	}

	// A run whose judge gave no verdict on some questions is complete, in
	// its manifest and in report alike: the invalid verdicts are counted
	// apart (n/inv), not as unfinished work.
	m, err := runlog.LoadManifest(a)
	if err != nil || m.Status == nil || m.Status.State != runlog.StateComplete {
		t.Fatalf("manifest status %+v (%v), want complete", m.Status, err)
	}
	out, code = membench(t, env, "report", "--run", a, "--run", b)
	if code != 0 || strings.Contains(out, "incomplete") || strings.Contains(out, "INCOMPLETE") {
		t.Errorf("report: exit %d, want the runs complete as their manifests say\n%s", code, out)
	}
}
