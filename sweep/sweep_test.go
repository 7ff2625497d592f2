package sweep

import (
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/membench/membench/datasets/all"

	"github.com/membench/membench"
	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/plan"
	_ "github.com/membench/membench/systems/all"
)

func TestExpandGrid(t *testing.T) {
	f, err := Parse("t.yaml", []byte(`dataset: sample
system: turns-cosine
options: {order: score}
---
name: t
systems: [turns-cosine, turns-rerank]
grid:
  k: [1, 3]
  opt.floor: [0, 10]
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Expand()
	if err == nil || !strings.Contains(err.Error(), "floor") {
		t.Fatalf("opt.floor is not a turns-cosine option; Expand must say so, got %v", err)
	}
}

func TestExpandOrderAndOptions(t *testing.T) {
	f, err := Parse("t.yaml", []byte(`dataset: sample
options: {order: score}
---
systems: [turns-cosine, turns-rerank]
grid:
  opt.k: [4, 8]
  k: [1, 3, 5]
`))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2*2*3 {
		t.Fatalf("got %d points, want 12", len(ps))
	}
	if ps[0].Label != "turns-cosine k=4 k=1" || ps[5].Label != "turns-cosine k=8 k=5" || ps[6].System != "turns-rerank" {
		t.Fatalf("order: %q %q %q", ps[0].Label, ps[5].Label, ps[6].System)
	}
	if ps[5].Config.K != 5 || ps[5].Config.Options["k"] != "8" || ps[5].Config.Options["order"] != "score" {
		t.Fatalf("point config: K=%d opts=%v", ps[5].Config.K, ps[5].Config.Options)
	}
	// The base options map must not be shared between points.
	if f.Base.Options["k"] != "" {
		t.Fatal("expansion mutated the base options")
	}
	if f.PlotKind() != "none" {
		t.Fatalf("plot kind %q", f.PlotKind())
	}
}

func TestParseErrors(t *testing.T) {
	for name, src := range map[string]string{
		"unknown run key":  "dataset: sample\nsytem: flat\n",
		"unknown spec key": "dataset: sample\n---\ngrids: {k: [1]}\n",
		"bad grid key":     "dataset: sample\n---\ngrid: {depth: [1]}\n",
		"bad k":            "dataset: sample\n---\ngrid: {k: [1.5]}\n",
		"bad system":       "dataset: sample\n---\nsystems: [nope]\n",
		"bad plot":         "dataset: sample\n---\nplot: pie\n",
	} {
		f, err := Parse("x.yaml", []byte(src))
		if err == nil {
			_, err = f.Expand()
		}
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "x.yaml") {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
}

var runIDPattern = regexp.MustCompile(`^sample-(turns-cosine|structmem-no-cross-event)-k(1|5|20)-[0-9a-f]{10}$`)

// A sweep point's id is the id `membench run` gives its config, with the
// grid values before the hash.
func TestRunIDIsARunIDWithGridValues(t *testing.T) {
	f, err := Parse("ids.yaml", []byte("dataset: sample\n---\nsystems: [structmem]\ngrid:\n  k: [3]\n  opt.seeds: [5]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := plan.Resolve(ps[0].Config, plan.Env{})
	if err != nil {
		t.Fatal(err)
	}
	plain := resolved.ID // what `membench run` names it: sample-structmem-<hash10>
	want := strings.TrimSuffix(plain, plain[strings.LastIndex(plain, "-"):]) + "-k3-seeds5" + plain[strings.LastIndex(plain, "-"):]
	if got, err := RunID(ps[0]); err != nil || got != want {
		t.Errorf("RunID = %q, want %q (from the run id %q)", got, want, plain)
	}
}

func TestParamsJSON(t *testing.T) {
	p := Params{"k": "10", "opt.threshold": "0.5", "opt.mode": "combined", "opt.code": "007", "opt.neg": "-2"}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"k":10,"opt.code":"007","opt.mode":"combined","opt.neg":-2,"opt.threshold":0.5}`; string(b) != want {
		t.Errorf("json %s, want %s", b, want)
	}
	var back Params
	if err := json.Unmarshal(b, &back); err != nil || len(back) != len(p) {
		t.Fatalf("%v %v", back, err)
	}
	for k, v := range p {
		if back[k] != v {
			t.Errorf("%s: %q back as %q", k, v, back[k])
		}
	}
}

func TestTinySampleSweep(t *testing.T) {
	tmp := t.TempDir()
	f, err := Parse("tiny.yaml", []byte(`dataset: sample
judges: [lexical, f1]
quiet: true
cache_dir: `+filepath.Join(tmp, "cache")+`
---
name: tiny
systems: [turns-cosine, structmem-no-cross-event]
grid: {k: [1, 5, 20]}
`))
	if err != nil {
		t.Fatal(err)
	}
	f.Base.Host = membench.Host{Embedder: "hashed"} // as MEMBENCH_EMBEDDER=hashed
	ps, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	res, err := Run(context.Background(), f, ps, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "runs", "*", "manifest.json"))
	if len(dirs) != 6 || len(res.Rows) != 6 {
		t.Fatalf("%d run dirs, %d rows; want 6", len(dirs), len(res.Rows))
	}
	var js Result
	b, err := os.ReadFile(filepath.Join(out, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &js); err != nil || len(js.Rows) != 6 {
		t.Fatalf("sweep.json: %v, %d points", err, len(js.Rows))
	}
	for _, r := range js.Rows {
		if r.N == 0 || r.Error != "" {
			t.Fatalf("point %s: n=%d err=%s", r.Label, r.N, r.Error)
		}
		if _, ok := r.Accuracy["lexical"]; !ok {
			t.Fatalf("point %s has no lexical accuracy", r.Label)
		}
	}
	// More retrieved turns must mean more context tokens.
	if !(js.Rows[0].ContextTokens < js.Rows[1].ContextTokens && js.Rows[1].ContextTokens < js.Rows[2].ContextTokens) {
		t.Fatalf("context tokens not increasing with k: %v %v %v", js.Rows[0].ContextTokens, js.Rows[1].ContextTokens, js.Rows[2].ContextTokens)
	}
	csv, _ := os.ReadFile(filepath.Join(out, CSVFile))
	if lines := strings.Count(strings.TrimSpace(string(csv)), "\n") + 1; lines != 7 {
		t.Fatalf("sweep.csv has %d lines, want header + 6", lines)
	}
	// snake_case headers, one column per datum.
	if h, _, _ := strings.Cut(string(csv), "\n"); h != "system,k,n,invalid,accuracy_lexical,accuracy_f1,context_tokens,build_input_tokens,build_output_tokens,build_calls,run_id,error,prompts" {
		t.Errorf("sweep.csv header %q", h)
	}
	// Grid values that are numbers are JSON numbers.
	var raw struct {
		Points []struct {
			Params map[string]any `json:"params"`
			RunID  string         `json:"run_id"`
		} `json:"points"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if k, ok := raw.Points[1].Params["k"].(float64); !ok || k != 5 || !strings.Contains(string(b), `"params": {`+"\n"+`        "k": 5`) {
		t.Errorf("params of point 2 = %#v (%T), want the number 5:\n%s", raw.Points[1].Params, raw.Points[1].Params["k"], b)
	}
	if js.Rows[1].Params["k"] != "5" {
		t.Errorf("params read back as %v, want k 5", js.Rows[1].Params)
	}
	// Run ids read like run ids: dataset-system-<grid values>-hash.
	for i, r := range js.Rows {
		if id, _ := RunID(ps[i]); !runIDPattern.MatchString(r.RunID) || filepath.Base(r.RunDir) != r.RunID || r.RunID != id {
			t.Errorf("point %s: run id %q in %s", r.Label, r.RunID, r.RunDir)
		}
	}
	if js.Rows[0].RunID[:len("sample-turns-cosine-k1-")] != "sample-turns-cosine-k1-" {
		t.Errorf("run id %s, want sample-turns-cosine-k1-<hash>", js.Rows[0].RunID)
	}
	pf, err := os.Open(filepath.Join(out, "sweep.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if _, err := png.Decode(pf); err != nil {
		t.Fatalf("sweep.png: %v", err)
	}
	// A rerun resumes: same run dirs, no new ones.
	if _, err := Run(context.Background(), f, ps, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	again, _ := filepath.Glob(filepath.Join(out, "runs", "*", "manifest.json"))
	if len(again) != 6 {
		t.Fatalf("rerun made %d run dirs", len(again))
	}
}

// Every shipped config must parse and expand (offline as-is).
func TestShippedConfigs(t *testing.T) {
	root := testutil.RepoRoot(t)
	want := map[string]int{"table2": 4, "table3_judges": 2, "table4_ablation": 4, "fig3c_k_sweep": 8, "fig3d_seeds_sweep": 6,
		"seed_study": 12, "seed_study_longmemeval": 4, "sample_k_sweep": 10, "sample_seeds_sweep": 5, "structmem_authors_code": 4}
	for name, n := range want {
		f, err := Load(filepath.Join(root, "configs", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		ps, err := f.Expand()
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != n {
			t.Errorf("%s: %d points, want %d", name, len(ps), n)
		}
		// The paper configs name the papers' models and embedder (run
		// offline with --llm offline --embedder hashed); the sample ones run
		// offline as-is (CI).
		if strings.HasPrefix(name, "sample_") {
			if f.Base.Model != "offline" {
				t.Errorf("%s: model %q, want offline so it runs as-is", name, f.Base.Model)
			}
		} else if f.Base.Model != "openai:gpt-4o-mini" || f.Base.Embedder != "openai:text-embedding-3-small" {
			t.Errorf("%s: model %q, embedder %q; want the papers' gpt-4o-mini and text-embedding-3-small", name, f.Base.Model, f.Base.Embedder)
		}
		if name == "table4_ablation" {
			// The authors' rows inside StructMem's pipeline, graph as the
			// Graph row's stand-in; every row reads the same 60 entries
			// (graph pooled over both speakers, not 60 each).
			var got []string
			for _, p := range ps {
				got = append(got, p.System)
				if p.Config.K != 60 {
					t.Errorf("table4 %s: k=%d, want 60", p.Label, p.Config.K)
				}
				if p.System == "graph" && p.Config.Options["mode"] != "combined" {
					t.Errorf("table4 %s: options %v, want mode=combined", p.Label, p.Config.Options)
				}
			}
			if strings.Join(got, " ") != "structmem-flat graph structmem-no-cross-event structmem" {
				t.Errorf("table4 rows %v", got)
			}
		}
		if name == "structmem_authors_code" {
			var got []string
			for _, p := range ps {
				got = append(got, p.Label)
			}
			if want := "structmem seed-scope=global granularity=session|structmem seed-scope=global granularity=buffer512|structmem seed-scope=authors-code granularity=session|structmem seed-scope=authors-code granularity=buffer512"; strings.Join(got, "|") != want {
				t.Errorf("authors' code rows %q", got)
			}
		}
		// The paper tables judge with our lenient prompt (the authors'
		// kind, primary) and our strict one side by side.
		if strings.HasPrefix(name, "table") {
			if len(f.Base.Judges) < 2 || f.Base.Judges[0] != "llm,name=lenient,prompt=lenient" || f.Base.Judges[1] != "llm" {
				t.Errorf("%s: judges %q, want lenient then llm first", name, f.Base.Judges)
			}
		}
	}
}

// A run_id in the base config must not make every point share (and fail
// to resume) one run directory: it becomes a prefix of each point's id.
func TestBaseRunIDIsPrefix(t *testing.T) {
	tmp := t.TempDir()
	f, err := Parse("rid.yaml", []byte(`dataset: sample
judges: [f1]
quiet: true
run_id: mine
cache_dir: `+filepath.Join(tmp, "cache")+`
---
grid: {k: [1, 3]}
`))
	if err != nil {
		t.Fatal(err)
	}
	f.Base.Host = membench.Host{Embedder: "hashed"} // as MEMBENCH_EMBEDDER=hashed
	ps, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	res, err := Run(context.Background(), f, ps, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0].RunID == res.Rows[1].RunID {
		t.Fatalf("both points use run id %s", res.Rows[0].RunID)
	}
	for i, r := range res.Rows {
		if id, _ := RunID(ps[i]); !strings.HasPrefix(r.RunID, "mine-") || r.RunID != id {
			t.Fatalf("point %s: run id %s, want mine-… equal to the dry run's %s", r.Label, r.RunID, id)
		}
	}
}

// A point's run name carries the embedder it will use: with none named and
// no model installed that is tfidf-hash-512, the same name as naming it.
func TestPointNamesCarryTheEmbedder(t *testing.T) {
	name := func(host membench.Host, emb string) string {
		t.Helper()
		tmp := t.TempDir()
		f, err := Parse("e.yaml", []byte("dataset: sample\njudges: [f1]\nquiet: true\nlimit: 1\ncache_dir: "+filepath.Join(tmp, "cache")+"\n---\nname: e\nsystems: [turns-cosine]\ngrid: {k: [2]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		f.Base.Host, f.Base.Embedder = host, emb
		ps, err := f.Expand()
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), f, ps, Options{Out: filepath.Join(tmp, "out")})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0].RunID
	}
	auto := name(membench.Host{Home: t.TempDir()}, "")
	if named := name(membench.Host{Home: t.TempDir()}, "tfidf-hash-512"); auto != named {
		t.Errorf("no embedder (none installed): %s; --embedder tfidf-hash-512: %s; want one name", auto, named)
	}
	if other := name(membench.Host{Home: t.TempDir(), Embedder: "hashed"}, ""); other != auto {
		t.Errorf("MEMBENCH_EMBEDDER=hashed: %s, want %s", other, auto)
	}
}
