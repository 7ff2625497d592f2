package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/judge"
)

// paperConfigs are the shipped configs that reproduce a paper's table or
// figure: each pins the prompts its paper's authors used.
var paperConfigs = []string{"table2.yaml", "table3_judges.yaml", "table4_ablation.yaml", "fig3c_k_sweep.yaml", "fig3d_seeds_sweep.yaml", "seed_study.yaml", "seed_study_longmemeval.yaml"}

var hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// TestPaperConfigsPinTheirPrompts: every paper config pins an answer
// prompt for a system it runs and the judge prompt of a judge it runs,
// each by a sha256 (or none: unknown) and the place its text comes from.
//
// The authors' text is not in this repository. To check the pinned
// sha256s against the authors' files, save each as docs/prompts.md says,
// named after its variable (ANSWER_PROMPT_StructMem.txt, ANSWER_PROMPT.txt,
// ACCURACY_PROMPT.txt; mem0's answer prompt as mem0_ANSWER_PROMPT.txt), in
// a directory given as MEMBENCH_PAPER_PROMPTS; without it that part skips.
func TestPaperConfigsPinTheirPrompts(t *testing.T) {
	authors := os.Getenv("MEMBENCH_PAPER_PROMPTS")
	checked := 0
	for _, name := range paperConfigs {
		f, err := Load(filepath.Join("..", "configs", name))
		if err != nil {
			t.Fatal(err)
		}
		pp := f.Base.PaperPrompts
		if pp == nil || pp.Paper == "" || len(pp.Answer) == 0 || len(pp.Judge) == 0 {
			t.Errorf("%s pins no answer and judge prompt: %+v", name, pp)
			continue
		}
		points, err := f.Expand()
		if err != nil {
			t.Fatal(err)
		}
		var systems []string
		for _, p := range points {
			systems = append(systems, p.System)
		}
		for _, pin := range pp.Answer {
			if pin.SHA256 != "" && !hexDigest.MatchString(pin.SHA256) || pin.File == "" {
				t.Errorf("%s: answer pin %+v: want a lower-case sha256 (or none) and where the text is", name, pin)
			}
			for _, s := range pin.Systems {
				if !slices.Contains(systems, s) {
					t.Errorf("%s: answer pin for %s, which the config does not run (%v)", name, s, systems)
				}
			}
		}
		for _, pin := range pp.Judge {
			if pin.SHA256 != "" && !hexDigest.MatchString(pin.SHA256) || pin.File == "" {
				t.Errorf("%s: judge pin %+v: want a lower-case sha256 (or none) and where the text is", name, pin)
			}
			found := false
			for _, spec := range f.Base.Judges {
				if n, _, _, err := judge.SpecPrompt(spec, ""); err == nil && n == pin.Judge {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: judge pin for %s, which is not among its judges %v", name, pin.Judge, f.Base.Judges)
			}
		}
		if authors == "" {
			continue
		}
		for _, p := range append(append([]membench.PromptPin{}, pp.Answer...), pp.Judge...) {
			if p.SHA256 == "" {
				continue
			}
			file := filepath.Join(authors, authorsFile(p.File))
			b, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			sum := sha256.Sum256(b)
			if got := hex.EncodeToString(sum[:]); got != p.SHA256 {
				t.Errorf("%s: %s has sha256 %s, the config pins %s (%s)", name, file, got, p.SHA256, p.File)
			}
			checked++
		}
	}
	if authors == "" {
		t.Skip("MEMBENCH_PAPER_PROMPTS not set: the pins' form was checked, not the authors' files (see the comment)")
	}
	t.Logf("checked %d pins against the authors' files in %s", checked, authors)
}

// authorsFile is the file name the test reads an authors' prompt from:
// the variable the pin names, mem0's prefixed.
func authorsFile(where string) string {
	for _, v := range []string{"ANSWER_PROMPT_StructMem", "ACCURACY_PROMPT", "ANSWER_PROMPT"} {
		if strings.Contains(where, ", "+v+",") {
			if strings.HasPrefix(where, "mem0ai/") && v == "ANSWER_PROMPT" {
				return "mem0_" + v + ".txt"
			}
			return v + ".txt"
		}
	}
	return where
}
