package prices

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/runlog"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// The tallies below priced by hand at the default table:
//
//	answer, gpt-4o-mini: 1,000,000 in of which 600,000 provider-cached,
//	  20,000 out: 400,000×0.15 + 600,000×0.075 + 20,000×0.60 (per 1e6)
//	  = 0.06 + 0.045 + 0.012 = 0.117
//	judge, gpt-4.1: 10,000 in, 1,000 out: 0.02 + 0.008 = 0.028
//	embed, text-embedding-3-small: 50,000 in: 0.001
//	build, offline: 0
func TestStagesPricedByHand(t *testing.T) {
	tallies := []membench.Tally{
		{Role: "answer", Stage: membench.StageAnswer, Model: "openai:gpt-4o-mini", Calls: 100, InputTokens: 1_000_000, CachedInputTokens: 600_000, OutputTokens: 20_000},
		{Role: "judge", Stage: membench.StageJudge, Model: "openai:gpt-4.1", Calls: 100, InputTokens: 10_000, OutputTokens: 1_000},
		{Role: "embedder", Stage: "embed", Label: "embedding", Model: "openai:text-embedding-3-small", Calls: 300, InputTokens: 50_000},
		{Role: "build", Stage: membench.StageBuild, Model: "offline:heuristic", Calls: 7, InputTokens: 9_999, OutputTokens: 99},
	}
	got := Default().Stages(tallies, nil)
	want := map[string]float64{"answer": 0.117, "judge": 0.028, "embed": 0.001, "build": 0}
	for st, w := range want {
		a := got[st]
		if !a.Known() || !near(a.Dollars, w) {
			t.Errorf("%s = %+v, want $%g", st, a, w)
		}
	}
	if got["build"].Paid || got["build"].String() != "$0 (offline)" {
		t.Errorf("offline build = %q, want $0 (offline)", got["build"].String())
	}
	if s := got["answer"].String(); s != "$0.1170" {
		t.Errorf("answer = %q", s)
	}
}

func TestUnknownModelIsUnknownNotZero(t *testing.T) {
	tallies := []membench.Tally{
		{Role: "answer", Stage: membench.StageAnswer, Model: "openai:gpt-4o-mini", Calls: 1, InputTokens: 1000, OutputTokens: 10},
		{Role: "answer", Stage: membench.StageAnswer, Model: "openai:qwen2.5-7b", Calls: 1, InputTokens: 1000, OutputTokens: 10},
		// A service's own calls (no model recorded, no role in the manifest).
		{Role: "service", Stage: membench.StageBuild, Calls: 2, InputTokens: 900},
	}
	got := Default().Stages(tallies, map[string]string{"answer": "openai:gpt-4o-mini"})
	a := got["answer"]
	if a.Known() || a.Unpriced[0] != "openai:qwen2.5-7b" || !strings.HasPrefix(a.String(), "unknown (no price for openai:qwen2.5-7b") {
		t.Errorf("answer = %+v %q, want unknown naming qwen", a, a.String())
	}
	if b := got["build"]; b.Known() || !strings.Contains(b.String(), "role service") {
		t.Errorf("build = %q, want unknown naming the role", b.String())
	}
	// A total over an unknown stage is unknown too.
	if tot := got["answer"].Add(Amount{Dollars: 1, Paid: true}); tot.Known() {
		t.Errorf("sum with an unknown part = %+v", tot)
	}
	// Another backend serving a priced name is not OpenAI's price.
	if a := Default().Tally(membench.Tally{Calls: 1, InputTokens: 5}, "vllm:gpt-4o-mini"); a.Known() {
		t.Errorf("non-openai backend priced: %+v", a)
	}
}

func TestOldTalliesTakeTheirRolesModel(t *testing.T) {
	tl := membench.Tally{Role: "answer", Stage: membench.StageAnswer, Calls: 1, InputTokens: 1_000_000}
	got := Default().Stages([]membench.Tally{tl}, map[string]string{"answer": "openai:gpt-4o"})
	if a := got["answer"]; !a.Known() || !near(a.Dollars, 2.5) || a.String() != "$2.50" {
		t.Errorf("answer = %+v", a)
	}
	emb := membench.Tally{Role: "embedder", Stage: "embed", Label: "embedding", Calls: 3, InputTokens: 100}
	if a := Default().Stages([]membench.Tally{emb}, map[string]string{"embedder": "use-lite"})["embed"]; !a.Known() || a.Paid {
		t.Errorf("local embedder = %+v, want free", a)
	}
}

func TestParseOverlay(t *testing.T) {
	yml := "as_of: 2025-07-01\nmodels:\n  gpt-4o-mini: {input: 0.2, cached_input: 0.1, output: 0.8}\n  qwen2.5-7b:\n    input: 0.05\n    output: 0.1\n"
	js := `{"as_of": "2025-07-01", "models": {"gpt-4o-mini": {"input": 0.2, "cached_input": 0.1, "output": 0.8}, "qwen2.5-7b": {"input": 0.05, "output": 0.1}}}`
	for name, src := range map[string]string{"p.yaml": yml, "p.json": js} {
		f, err := Parse(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tab := Default().Overlay(f)
		if tab.AsOf != "2025-07-01" || tab.Models["gpt-4o-mini"] != (Price{0.2, 0.1, 0.8}) || tab.Models["gpt-4o"] != Default().Models["gpt-4o"] {
			t.Errorf("%s: overlay = %+v", name, tab)
		}
		// No cached rate given: cached input is billed at the input rate.
		if p := tab.Models["qwen2.5-7b"]; p != (Price{0.05, 0.05, 0.1}) {
			t.Errorf("%s: qwen = %+v", name, p)
		}
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	cases := []struct{ src, want string }{
		{"models:\n  m: {input: 1, output: 2}\n  n: {input: -1, output: 2}\n", "p.yaml:3: "},
		{"models:\n  m:\n    input: 1\n    ouput: 2\n", `p.yaml:4: model "m": unknown key "ouput"`},
		{"models:\n  m:\n    input: 1\n", `p.yaml:3: model "m": no output price`},
		{"models:\n  m: {input: 1, output: 2}\n  m: {input: 1, output: 3}\n", `p.yaml:3: model "m" is listed twice`},
		{"as_of: 2025-01-01\nprice: 3\n", `p.yaml:2: unknown key "price"`},
		{"models:\n  m: [1, 2]\n", `p.yaml:2: model "m": give a map`},
		{"models:\n  m: {input: cheap, output: 2}\n", `p.yaml:2: model "m": input "cheap" is not a price`},
		{"models: {m: {input: 1, output: 2}\n", "line 1"},
		{"", "p.yaml:1: the file is empty"},
		{"as_of: 2025-01-01\n", "p.yaml:1: no models"},
		{"models:\n  m: {input: .nan, output: 1}\n", "p.yaml:2:"},
	}
	for _, c := range cases {
		_, err := Parse("p.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v, want one line of bad input containing %q", c.src, err, c.want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "--prices") {
		t.Fatalf("Load(missing) = %v", err)
	}
}

// ForRun reads a run directory's manifest and cost records: old tallies
// without a model take their role's, redone work is billed apart.
func TestForRunReadsCostRecords(t *testing.T) {
	dir := t.TempDir()
	m := runlog.Manifest{RunID: "r", Models: map[string]membench.ModelID{
		"answer": {Backend: "openai", Model: "gpt-4o-mini"}, "build": {Backend: "offline", Model: "heuristic"}}, Embedder: "use-lite"}
	if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	recs := []any{
		runlog.CostRecord{ConversationID: "c", Part: "build", Tallies: []membench.Tally{{Role: "build", Stage: membench.StageBuild, Calls: 5, InputTokens: 500}}},
		runlog.CostRecord{ConversationID: "c", QuestionID: "q1", Part: "answer", Tallies: []membench.Tally{{Role: "answer", Stage: membench.StageAnswer, Model: "openai:gpt-4o-mini", Calls: 1, InputTokens: 1_000_000, CachedInputTokens: 1_000_000, OutputTokens: 0}}},
		// q2 answered twice (a resume): the first line is redone work.
		runlog.CostRecord{ConversationID: "c", QuestionID: "q2", Part: "answer", Tallies: []membench.Tally{{Role: "answer", Stage: membench.StageAnswer, Calls: 1, InputTokens: 1_000_000}}},
		runlog.CostRecord{ConversationID: "c", QuestionID: "q2", Part: "answer", Tallies: []membench.Tally{{Role: "answer", Stage: membench.StageAnswer, Calls: 1, CachedCalls: 1, OutputTokens: 1_000_000}}},
	}
	if err := runlog.WriteJSONLines(filepath.Join(dir, runlog.CostsFile), recs); err != nil {
		t.Fatal(err)
	}
	b, err := ForRun(dir, Default())
	if err != nil {
		t.Fatal(err)
	}
	// answer: 1e6 cached × 0.075 + 1e6 out × 0.60 = 0.675; redone: 1e6 × 0.15.
	if a := b.Stages["answer"]; !near(a.Dollars, 0.675) || !b.Total.Known() || !near(b.Total.Dollars, 0.675) || !near(b.Redone.Dollars, 0.15) {
		t.Errorf("bill = %+v", b)
	}
	if b.Stages["build"].Paid || b.CachedInputTokens != 1_000_000 || b.ReplyCacheHits != 1 {
		t.Errorf("bill = %+v", b)
	}
	line := b.Line()
	for _, want := range []string{"build $0 (offline)", "answer $0.6750", "total $0.6750", "as of " + DefaultAsOf, "1 replies from membench's cache", "plus $0.1500"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	os.Remove(filepath.Join(dir, runlog.ManifestFile))
	if _, err := ForRun(dir, Default()); err == nil {
		t.Error("no manifest: no error")
	}
}

func FuzzPricesFile(f *testing.F) {
	f.Add([]byte("as_of: 2025-06-01\nmodels:\n  gpt-4o-mini: {input: 0.15, cached_input: 0.075, output: 0.6}\n"))
	f.Add([]byte(`{"models": {"m": {"input": 1, "output": 2}}}`))
	f.Add([]byte("models:\n  m: {input: -1}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := Parse("f.yaml", b)
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		if len(tab.Models) == 0 {
			t.Fatal("a table with no models parsed")
		}
		for name, p := range tab.Models {
			for _, v := range []float64{p.Input, p.CachedInput, p.Output} {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("model %q has price %v", name, v)
				}
			}
		}
	})
}

// Paid: a run calls a priced backend through a role's model that some
// judge or role asks, a judge's own model, or its embedder.
func TestPaid(t *testing.T) {
	off := membench.ModelID{Backend: "offline", Model: "offline-heuristic"}
	paid := membench.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
	lexical := membench.JudgeInfo{Name: "lexical", Kind: "lexical"}
	roles := func(judge membench.ModelID) map[string]membench.ModelID {
		return map[string]membench.ModelID{"answer": off, "build": off, "judge": judge}
	}
	for _, c := range []struct {
		name string
		m    runlog.Manifest
		want bool
	}{
		{"all offline", runlog.Manifest{Models: roles(off), Embedder: "tfidf-hash-512", JudgeSpecs: []membench.JudgeInfo{lexical}}, false},
		{"judge model no judge asks", runlog.Manifest{Models: roles(paid), JudgeSpecs: []membench.JudgeInfo{lexical}}, false},
		{"judge model asked", runlog.Manifest{Models: roles(paid), JudgeSpecs: []membench.JudgeInfo{{Name: "llm", Model: &paid}}}, true},
		{"a judge's own model", runlog.Manifest{Models: roles(off), JudgeSpecs: []membench.JudgeInfo{{Name: "big", Model: &paid}}}, true},
		{"answer model", runlog.Manifest{Models: map[string]membench.ModelID{"answer": paid, "judge": off}, JudgeSpecs: []membench.JudgeInfo{lexical}}, true},
		{"embedder", runlog.Manifest{Models: roles(off), Embedder: "openai:text-embedding-3-small", JudgeSpecs: []membench.JudgeInfo{lexical}}, true},
	} {
		if got := Paid(c.m); got != c.want {
			t.Errorf("%s: Paid = %v, want %v", c.name, got, c.want)
		}
	}
}
