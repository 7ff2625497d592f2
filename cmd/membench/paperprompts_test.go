package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
)

// paperConfig writes prompt files of our own and a config pinning their
// sha256 as a paper config pins its authors' files: the mechanism is the
// one the shipped configs use, the hashes are the test files'.
func paperConfig(t *testing.T, answerPin, judgePin string) (cfg, answer, judgeFile, other string) {
	t.Helper()
	dir := t.TempDir()
	write := testutil.Writer(t, dir)
	answer = write("answer.txt", "Answer from these notes.\n{memories}\n\nQuestion: {question}\n")
	judgeFile = write("judge.txt", "Is \"{generated_answer}\" the same as \"{gold_answer}\" for {question}? Reply in json with a label CORRECT or WRONG.\n")
	other = write("other.txt", "Other text: {question}\n")
	pin := func(p, given string) string {
		if given != "pinned" {
			return given
		}
		b, _ := os.ReadFile(p)
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	cfg = write("paper.yaml", fmt.Sprintf(`dataset: sample
model: offline
embedder: hashed
limit: 6
judges: ["paper=offline,prompt=lenient", lexical]
paper_prompts:
  paper: the test paper
  answer:
    - sha256: %q
      file: the test answer prompt
  judge:
    - judge: paper
      sha256: %q
      file: the test judge prompt
`, pin(answer, answerPin), pin(judgeFile, judgePin)))
	return cfg, answer, judgeFile, other
}

// rowsLabelled reports whether every row of the score table (the lines
// naming a group) carries label.
func rowsLabelled(out, label string) bool {
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "single-hop") || strings.Contains(l, "overall") && strings.Contains(l, "│") {
			rows++
			if !strings.Contains(l, label) {
				return false
			}
		}
	}
	return rows >= 2
}

// TestPaperConfigPinsItsPrompts: a config that pins the paper's prompt
// files runs without them, every figure labelled as membench's own
// prompts; refuses a file of another sha256 (exit 2, saying how to get
// the right one) unless --allow-prompt-mismatch, which labels every
// figure; and runs the pinned files unlabelled. --judge-prompt reaches
// the pinned judge only.
func TestPaperConfigPinsItsPrompts(t *testing.T) {
	cfg, answer, judgeFile, other := paperConfig(t, "pinned", "pinned")
	res := t.TempDir()
	run := func(extra ...string) (string, int) {
		return membench(t, nil, append([]string{"run", "--quiet", "--config", cfg, "--results", res}, extra...)...)
	}

	out, code := run()
	if code != 0 || !rowsLabelled(out, "membench's own prompts, not the paper's") || !strings.Contains(out, "PROMPTS: ") {
		t.Fatalf("no files: exit %d, want 0 with every row labelled as our own prompts\n%s", code, out)
	}

	for _, c := range [][]string{{"--answer-prompt", other}, {"--judge-prompt", other}, {"--answer-prompt", answer, "--judge-prompt", other}} {
		out, code = run(c...)
		if code != 2 || !strings.Contains(out, "is not the") || !strings.Contains(out, "docs/prompts.md") || !strings.Contains(out, "--allow-prompt-mismatch") || strings.Contains(out, "│") {
			t.Fatalf("%v: exit %d, want 2 naming the mismatch, where to get the file and the override, and no table\n%s", c, code, out)
		}
	}

	out, code = run("--answer-prompt", other, "--allow-prompt-mismatch")
	if code != 0 || !rowsLabelled(out, "PROMPT MISMATCH") {
		t.Fatalf("--allow-prompt-mismatch: exit %d, want 0 with every row labelled\n%s", code, out)
	}

	out, code = run("--answer-prompt", answer, "--judge-prompt", judgeFile)
	if code != 0 || strings.Contains(out, "prompts, not the paper's") || strings.Contains(out, "PROMPT") {
		t.Fatalf("the pinned files: exit %d, want 0 and no label\n%s", code, out)
	}
	// The file went to the pinned judge; the lexical judge kept its own.
	dir := regexp.MustCompile(`artifacts: (\S+)`).FindStringSubmatch(out)
	if dir == nil {
		t.Fatalf("no artifacts line\n%s", out)
	}
	m, err := runlog.LoadManifest(dir[1])
	if err != nil {
		t.Fatal(err)
	}
	if m.PaperPrompts == nil || m.PaperPrompts.Status != "paper" || m.Config.Judges[0] != "paper=offline,prompt="+judgeFile || m.Config.Judges[1] != "lexical" {
		t.Fatalf("manifest: paper_prompts %+v, judges %v", m.PaperPrompts, m.Config.Judges)
	}
}

// TestPaperPinUnknownHashLabels: a pin whose sha256 is not known (left
// empty) runs a given file, labelled not verified, never as the paper's.
func TestPaperPinUnknownHashLabels(t *testing.T) {
	cfg, answer, _, _ := paperConfig(t, "", "pinned")
	out, code := membench(t, nil, "run", "--quiet", "--config", cfg, "--results", t.TempDir(), "--answer-prompt", answer)
	if code != 0 || !rowsLabelled(out, "not verified as the paper's") {
		t.Fatalf("exit %d, want 0 with every row labelled not verified\n%s", code, out)
	}
}

// TestSweepRefusesAWrongPaperPromptFirst: a sweep checks every point's
// prompt files before it runs any.
func TestSweepRefusesAWrongPaperPromptFirst(t *testing.T) {
	cfg, _, _, other := paperConfig(t, "pinned", "pinned")
	out := t.TempDir()
	text, code := membench(t, nil, "sweep", "--quiet", "--config", cfg, "--out", out, "--answer-prompt", other)
	if code != 2 || !strings.Contains(text, "is not the answer prompt") {
		t.Fatalf("exit %d, want 2 naming the answer prompt\n%s", code, text)
	}
	if _, err := os.Stat(filepath.Join(out, "runs")); err == nil {
		t.Fatalf("a point ran before the refusal")
	}
}
