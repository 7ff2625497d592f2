package audit

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/audit"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/llm/llmtest"
)

const shippedWrong = "../../../../shared/datasets/locomo-audit/ap-baseline/v1_specific_wrong.scored.json"

type judgeAuditJSON struct {
	Answers   int      `json:"answers"`
	Published *float64 `json:"published_rate"`
	Judges    []struct {
		Judge   string              `json:"judge"`
		Kind    string              `json:"kind"`
		Model   string              `json:"model"`
		Offline bool                `json:"offline"`
		Rows    []audit.FalseAccept `json:"rows"`
	} `json:"judges"`
}

func auditJSON(t *testing.T, args ...string) judgeAuditJSON {
	t.Helper()
	out, err := execute(append([]string{"judge", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var r judgeAuditJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r
}

// The shipped file's recorded verdicts give its published 10.61%: the
// mean of 163, 166 and 161 accepted of 1,540.
func TestAuditJudgeRecordedShipped(t *testing.T) {
	if _, err := os.Stat(shippedWrong); err != nil {
		t.Skipf("%s is absent (the locomo-audit data set, never committed): %v", shippedWrong, err)
	}
	out, err := execute("judge", "--wrong", shippedWrong, "--recorded")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"│ recorded │ overall       │ 1540    │ 163, 166, 161 │ 10.61%", "published rate: 10.61%"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "OFFLINE") {
		t.Errorf("recorded model verdicts called offline:\n%s", out)
	}
	r := auditJSON(t, "--wrong", shippedWrong, "--recorded")
	o := r.Judges[0].Rows[len(r.Judges[0].Rows)-1]
	if o.Rate != *r.Published || o.Rate != (163.0/1540+166.0/1540+161.0/1540)/3 || o.Answers != 1540 {
		t.Errorf("overall %+v, published %v", o, *r.Published)
	}
}

// wrongFile writes a scored file of n known-wrong answers; answer 0's gold
// asks the fake judge for a reply with no verdict.
func wrongFile(t *testing.T, n int) string {
	t.Helper()
	var recs []string
	for i := range n {
		gold := fmt.Sprintf("gold %d", i)
		if i == 0 {
			gold = "UNDECIDABLE"
		}
		recs = append(recs, fmt.Sprintf(`{"question_id": "locomo_0_qa%d", "question": "What is thing %d?", "golden_answer": %q, "generated_answer": "wrong %d", "category": %d}`, i, i, gold, i, 1+i%4))
	}
	p := filepath.Join(t.TempDir(), "wrong.scored.json")
	if err := os.WriteFile(p, []byte(`{"detailed_results": {"u_0": [`+strings.Join(recs, ",\n")+`]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeJudges is an OpenAI-compatible judge that decides by a hash of the
// request, more often CORRECT under the lenient prompt, in the shapes real
// models write (including a negated capital CORRECT), and remembers what
// it decided for each distinct request.
type fakeJudges struct {
	mu      sync.Mutex
	decided map[string]string // prompt kind + user message -> CORRECT | WRONG | none
}

func (f *fakeJudges) chat(_ int, r llmtest.ChatRequest) llmtest.Reply {
	kind := "strict"
	if strings.Contains(r.Messages[0].Content, "lenient grading") {
		kind = "lenient"
	}
	user := r.LastUser()
	h := fnv.New32a()
	h.Write([]byte(user))
	x := h.Sum32()
	label, text := "WRONG", "The answer is NOT CORRECT."
	switch {
	case strings.Contains(user, "UNDECIDABLE"):
		label, text = "none", "I cannot tell whether it is correct or not?"
	case kind == "lenient" && x%2 == 0:
		label, text = "CORRECT", "CORRECT"
	case kind == "lenient":
		text = `{"reason": "another thing", "label": "WRONG"}`
	case x%5 == 0:
		label, text = "CORRECT", `{"reason": "same", "label": "CORRECT"}`
	}
	f.mu.Lock()
	f.decided[kind+"\x00"+user] = label
	f.mu.Unlock()
	return llmtest.Reply{Text: text}
}

func (f *fakeJudges) count(kind, label string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for k, l := range f.decided {
		if strings.HasPrefix(k, kind+"\x00") && l == label {
			n++
		}
	}
	return n
}

// The llm judge with our strict prompt and with prompt=lenient, against a
// fake OpenAI-compatible server: the rates are the verdicts the server
// gave, a reply with no verdict is re-asked and then left out, and a rerun
// is served from the LLM cache.
func TestAuditJudgeLLMFakeServer(t *testing.T) {
	f := &fakeJudges{decided: map[string]string{}}
	srv := llmtest.New(t, llmtest.WithChat(f.chat))
	t.Setenv("OPENAI_API_KEY", "sk-test-audit-judge")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	wrong := wrongFile(t, 40)
	cache := filepath.Join(t.TempDir(), "cache")
	args := []string{"--wrong", wrong, "--judge-model", "openai:gpt-4o-mini", "--cache-dir", cache, "--concurrency", "3",
		"--judge-spec", "llm", "--judge-spec", "llm,name=lenient,prompt=lenient"}
	r := auditJSON(t, args...)
	if len(r.Judges) != 2 || r.Judges[0].Judge != "llm" || r.Judges[1].Judge != "lenient" {
		t.Fatalf("judges %+v", r.Judges)
	}
	for i, kind := range []string{"strict", "lenient"} {
		j := r.Judges[i]
		o := j.Rows[len(j.Rows)-1]
		acc, rej := f.count(kind, "CORRECT"), f.count(kind, "WRONG")
		if acc+rej != 39 || f.count(kind, "none") != 1 {
			t.Fatalf("%s: the server decided %d CORRECT, %d WRONG, %d none", kind, acc, rej, f.count(kind, "none"))
		}
		if j.Offline || j.Model != "openai:gpt-4o-mini" || o.Answers != 40 || o.Invalid != 1 ||
			o.Runs[0].Judged != 39 || o.Runs[0].Accepted != acc || o.Rate != float64(acc)/39 {
			t.Errorf("%s: %+v, overall %+v; the server accepted %d of 39", kind, j, o, acc)
		}
	}
	if f.count("lenient", "CORRECT") <= f.count("strict", "CORRECT") {
		t.Errorf("the lenient prompt was not the one asked: %d vs %d accepted", f.count("lenient", "CORRECT"), f.count("strict", "CORRECT"))
	}
	// 39 answered once and one re-asked twice, per judge.
	calls := srv.Count("/v1/chat/completions")
	if calls != 2*(39+3) {
		t.Errorf("%d calls, want %d", calls, 2*(39+3))
	}
	out, err := execute(append([]string{"judge"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	if again := srv.Count("/v1/chat/completions") - calls; again != 2*3 {
		t.Errorf("the rerun made %d calls; only the 2×3 asks of the reply with no verdict should miss the cache", again)
	}
	if !strings.Contains(out, "No verdict") || strings.Contains(out, "OFFLINE") || !strings.Contains(out, "llm (openai:gpt-4o-mini)") {
		t.Errorf("table:\n%s", out)
	}
}

const tinyLoCoMo = `[
{"sample_id":"conv-a","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
 "session_1_date_time":"1:56 pm on 8 May, 2023",
 "session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I went to Paris on 7 May 2023."}]},
 "qa":[{"question":"When did Ann go to Paris?","answer":"7 May 2023","evidence":["D1:1"],"category":2},
       {"question":"Where did Ann go?","answer":"Paris","evidence":["D1:1"],"category":4}]},
{"sample_id":"conv-b","conversation":{"speaker_a":"Cy","speaker_b":"Di",
 "session_1_date_time":"1:56 pm on 8 May, 2023",
 "session_1":[{"speaker":"Cy","dia_id":"D1:1","text":"My dog is called Biscuit."}]},
 "qa":[{"question":"What is Di's dog called?","adversarial_answer":"Biscuit","evidence":["D1:1"],"category":5},
       {"question":"What is Cy's dog called?","answer":"Biscuit","evidence":["D1:1"],"category":4}]}
]`

// Plain JSONL takes its questions from --data; the offline judges say
// that they measure the pipeline.
func TestAuditJudgeJSONLOffline(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "locomo.json")
	wrong := filepath.Join(dir, "wrong.jsonl")
	if err := os.WriteFile(data, []byte(tinyLoCoMo), 0o644); err != nil {
		t.Fatal(err)
	}
	// By hand: "8 May 2023" shares may and 2023 with "7 May 2023" (F1
	// 2/3, accepted by both); "Rome" and "Rex" share nothing with theirs.
	if err := os.WriteFile(wrong, []byte(`{"question_id": "locomo_0_qa0", "answer": "8 May 2023"}
{"question_id": "locomo_0_qa1", "answer": "Rome"}
{"question_id": "locomo_1_qa1", "answer": "Rex"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := auditJSON(t, "--wrong", wrong, "--data", data, "--judge-spec", "lexical", "--judge-spec", "f1")
	for _, j := range r.Judges {
		if !j.Offline || len(j.Rows) != 3 || j.Rows[0].Category != "2 temporal" || j.Rows[0].Runs[0].Accepted != 1 ||
			j.Rows[1].Category != "4 single-hop" || j.Rows[1].Answers != 2 || j.Rows[1].Runs[0].Accepted != 0 {
			t.Errorf("%s: %+v", j.Judge, j)
		}
	}
	out, err := execute("judge", "--wrong", wrong, "--data", data, "--judge-spec", "lexical", "--judge-spec", "f1")
	if err != nil || !strings.Contains(out, "OFFLINE judges (lexical, f1): these figures measure membench's offline heuristic pipeline, not a model") {
		t.Errorf("%v\n%s", err, out)
	}
}

func TestAuditJudgeBadInput(t *testing.T) {
	t.Setenv("MEMBENCH_HOME", t.TempDir()) // no fetched LoCoMo
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "w.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"question_id": "q1", "answer": "x", "question": "q", "gold": "g", "category": 4}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "bare.jsonl")
	if err := os.WriteFile(bare, []byte(`{"question_id": "locomo_0_qa0", "answer": "x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--judge-spec", "f1"}, "needs --wrong FILE"},
		{[]string{"--wrong", jsonl}, "needs --judge-spec SPEC"},
		{[]string{"--wrong", filepath.Join(dir, "absent.json"), "--recorded"}, "absent.json"},
		{[]string{"--wrong", jsonl, "--recorded"}, "no answer carries recorded verdicts"},
		{[]string{"--wrong", jsonl, "--judge-spec", "llm"}, "--judge-model"},
		{[]string{"--wrong", jsonl, "--judge-spec", "nosuch"}, "unknown judge"},
		{[]string{"--wrong", jsonl, "--judge-spec", "f1", "--concurrency", "0"}, "--concurrency"},
		{[]string{"--wrong", bare, "--judge-spec", "f1"}, "membench datasets fetch locomo"},
		{[]string{"--wrong", bare, "--judge-spec", "f1", "--data", filepath.Join(dir, "nolocomo.json")}, "nolocomo.json"},
	} {
		out, err := execute(append([]string{"judge"}, c.args...)...)
		if err == nil || clierr.Code(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (exit %d), want exit 2 naming %q\n%s", c.args, err, clierr.Code(err), c.want, out)
		}
	}
}
