package prereg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/prompts"
)

// protocolRun runs turns-cosine at k offline on the embedded sample, judged
// by an LLM judge named lenient (on the offline backend) with our lenient
// prompt, into root/runs.
func protocolRun(t *testing.T, root string, k int) string {
	t.Helper()
	cfg := membench.Config{System: "turns-cosine", K: k, Limit: 12, Judges: []string{"lenient=offline,prompt=lenient", "lexical"},
		ResultsDir: filepath.Join(root, "runs"), CacheDir: filepath.Join(root, "cache"), Quiet: true, Embedder: "hashed"}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "runs", sum.RunID)
}

// protocolPlan is a plan testing the two runs, with the protocol they were
// made with; edit changes one line of it.
const protocolPlan = `title: protocol
judge: lenient
systems:
  a: runs/A
  b: runs/B
hypotheses:
  - {id: H1, kind: mcnemar, family: primary, a: a, b: b}
protocol:
  judge: "lenient=offline,prompt=lenient"
  answer_prompt: membench
  models:
    answer: offline
    judge: offline
    build: offline
    decide: offline
  embedder: hashed
  answer_key: published
  system_options:
    turns-cosine: {}
`

// TestLockedProtocolRefusesADifferentRun: the lock records the protocol
// resolved, and a run that differs from it in any registered field is
// refused (exit 2 at the CLI), naming the field, --exploratory or not;
// the runs made as registered pass, with the protocol in the notes.
func TestLockedProtocolRefusesADifferentRun(t *testing.T) {
	root := t.TempDir()
	a, b := protocolRun(t, root, 3), protocolRun(t, root, 5)
	runs := filepath.Join(root, "runs")
	os.Rename(a, filepath.Join(runs, "A"))
	os.Rename(b, filepath.Join(runs, "B"))
	answer := filepath.Join(root, "answer.tmpl")
	os.WriteFile(answer, []byte("Answer in one word.\n---user---\n{{.Context}}\n{{.Question}}\n"), 0o644)

	i := 0
	test := func(plan string, o TestOptions) (*Report, error) {
		i++
		p := lockedPlan(t, root, fmt.Sprint("plan", i), root, plan)
		return TestWith(p, root, o)
	}
	rep, err := test(protocolPlan, TestOptions{})
	if err != nil {
		t.Fatalf("the runs as registered: %v", err)
	}
	if rep.Protocol == nil || rep.Protocol.JudgeTemplate != "judge_lenient" || rep.Protocol.SystemOptions["turns-cosine"]["order"] != "time" {
		t.Fatalf("locked protocol %+v", rep.Protocol)
	}
	if !strings.Contains(strings.Join(rep.Table().Notes, "\n"), "protocol (locked; every run was checked against it)") {
		t.Errorf("notes do not give the protocol: %v", rep.Table().Notes)
	}

	for _, c := range []struct{ from, to, field string }{
		{`judge: "lenient=offline,prompt=lenient"`, `judge: "lenient=offline,prompt=strict"`, "judge lenient prompt"},
		{`judge: "lenient=offline,prompt=lenient"`, `judge: "lenient=openai:gpt-4o-mini,prompt=lenient"`, "judge lenient model"},
		{"judge: lenient\n", "judge: other\n", "judge"},
		{"answer_prompt: membench", "answer_prompt: " + answer, "answer prompt sha256"},
		{"    answer: offline", "    answer: openai:gpt-4o-mini", "answer model"},
		{"    judge: offline", "    judge: openai:gpt-4o-mini", "judge model"},
		{"    build: offline", "    build: openai:gpt-4o-mini", "build model"},
		{"    decide: offline", "    decide: openai:my-decider", "decide model"},
		{"embedder: hashed", "embedder: openai:text-embedding-3-small", "embedder"},
		{"answer_key: published", "answer_key: audited", "answer key"},
		{"turns-cosine: {}", "turns-cosine: {order: score}", "system option turns-cosine.order"},
		{"turns-cosine: {}", "turns-rerank: {}", "system"},
	} {
		plan := strings.Replace(protocolPlan, c.from, c.to, 1)
		if c.field == "judge" {
			plan = strings.Replace(plan, `judge: "lenient=offline,prompt=lenient"`, `judge: "other=offline,prompt=lenient"`, 1)
		}
		for _, o := range []TestOptions{{}, {Exploratory: true}} {
			_, err := test(plan, o)
			var pe *ProtocolError
			if !errors.As(err, &pe) || pe.Field != c.field || !strings.Contains(err.Error(), "differs from the locked protocol in "+c.field) {
				t.Errorf("%s -> %s (%+v): err %v; want a refusal naming %s", c.from, c.to, o, err, c.field)
			}
		}
	}
}

// TestProtocolLockRefusals: a protocol with a role left without a model,
// or a judge not the plan's, is refused at lock, naming it.
func TestProtocolLockRefusals(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct{ from, to, want string }{
		{"    decide: offline", `    decide: ""`, "protocol.models.decide is empty"},
		{`judge: "lenient=offline,prompt=lenient"`, `judge: "strict=offline"`, "makes a judge named strict"},
		{"  embedder: hashed\n", "", "protocol.embedder is empty"},
		{"    turns-cosine: {}", "    turns-cosine: {k: 3}", "leave k out"},
	} {
		p := filepath.Join(root, "p.yaml")
		os.WriteFile(p, []byte(strings.Replace(protocolPlan, c.from, c.to, 1)), 0o644)
		_, err := Lock(p, filepath.Join(root, "locks"), time.Now())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.to, err, c.want)
		}
	}
}

// TestPlanPinsThePaperPrompts: a plan that pins the paper's prompts
// refuses at lock a registered file of another sha256 unless allowed, and
// every line of the test carries the label when the registered prompts
// are not the paper's (membench's own, or a mismatch allowed).
func TestPlanPinsThePaperPrompts(t *testing.T) {
	root := t.TempDir()
	a, b := protocolRun(t, root, 3), protocolRun(t, root, 5)
	runs := filepath.Join(root, "runs")
	os.Rename(a, filepath.Join(runs, "A"))
	os.Rename(b, filepath.Join(runs, "B"))
	paperFile := filepath.Join(root, "paper.txt")
	os.WriteFile(paperFile, []byte("{question}\n{memories}\n"), 0o644)
	other := filepath.Join(root, "other.txt")
	os.WriteFile(other, []byte("Other: {question}\n"), 0o644)
	sum, _ := prompts.FileSHA256(paperFile)
	pins := "paper_prompts:\n  paper: a test paper\n  answer:\n    - sha256: " + sum + "\n      file: the test file\n"

	p := filepath.Join(root, "mismatch.yaml")
	os.WriteFile(p, []byte(strings.Replace(protocolPlan, "answer_prompt: membench", "answer_prompt: "+other, 1)+pins), 0o644)
	if _, err := Lock(p, root, time.Now()); err == nil || !strings.Contains(err.Error(), "not the paper's") || !strings.Contains(err.Error(), "--allow-prompt-mismatch") {
		t.Fatalf("lock of another file: %v; want a refusal naming the override", err)
	}
	if _, err := LockWith(p, root, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), LockOptions{AllowPromptMismatch: true}); err != nil {
		t.Fatal(err)
	}
	// The runs answered with membench's prompt, not the registered file:
	// the protocol refuses them; the label is the lock's.
	if _, err := TestWith(p, root, TestOptions{}); err == nil || !strings.Contains(err.Error(), "answer prompt sha256") {
		t.Fatalf("runs not on the registered file: %v", err)
	}

	own := lockedPlan(t, root, "own", root, protocolPlan+pins)
	rep, err := TestWith(own, root, TestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tab := rep.Table()
	if !strings.Contains(tab.Title, membench.OwnPromptsLabel) {
		t.Errorf("title %q lacks the label", tab.Title)
	}
	for _, o := range rep.Outcomes {
		if !strings.Contains(o.Decision, membench.OwnPromptsLabel) {
			t.Errorf("%s: decision %q lacks the label", o.ID, o.Decision)
		}
	}
}
