package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

// Bad input named in issue 10: each exits 2 with one line naming the file,
// line or flag, and nothing is written outside --results.
func TestStrictInputExitsTwo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := testutil.Writer(t, dir)
	sample := filepath.Join(testutil.RepoRoot(t), "datasets", "sample", "sample.json")
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	trailing := write("trailing.json", string(raw)+"\n]extra")
	objAnswer := write("obj.json", strings.Replace(string(raw), `"answer": "Biscuit"`, `"answer": {"obj": 1}`, 1))
	badCat := write("cat.json", strings.Replace(string(raw), `"category": 4`, `"category": "x"`, 1))
	nonUTF8 := write("latin1.json", strings.Replace(string(raw), `Biscuit`, "Bis\xe9cuit", 1))
	dupDia := write("dup.json", strings.Replace(string(raw), `"dia_id": "D1:2"`, `"dia_id": "D1:1"`, 1))
	empty := write("empty.yaml", "\n# nothing here\n")
	negK := write("negk.yaml", "k: -3\n")
	wrongField := write("wrong.jsonl", `{"question_id": "sample-1:0", "answer": "Biscuit"}`+"\n")
	bigLine := write("big.jsonl", `{"question_id": "sample-1:0", "prediction": "`+strings.Repeat("x", 20<<20)+`"`+"\n")
	aFile := write("results-file", "x")
	score5 := write("j5.jsonl", `{"question_id":"q","system":"s","judge":"llm","correct":true,"score":5}`+"\n")
	scoreOK := write("jok.jsonl", `{"question_id":"q","system":"s","judge":"llm","correct":true,"score":1}`+"\n")
	contra := write("jc.jsonl", `{"question_id":"q","system":"s","judge":"llm","correct":false,"score":1}`+"\n")
	results := filepath.Join(dir, "nest", "results")

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"run-id escape", []string{"run", "--results", results, "--run-id", "../../escape"}, `--run-id "../../escape": a run id is one path element`},
		{"run-id dotdot", []string{"run", "--results", results, "--run-id", ".."}, `--run-id ".."`},
		{"results is a file", []string{"run", "--results", aFile}, "--results " + aFile + " is a file"},
		{"negative k", []string{"run", "--results", results, "--k", "-1"}, `invalid argument "-1" for "--k" flag: give a whole number from 0 to`},
		{"negative limit", []string{"run", "--results", results, "--limit", "-2"}, `invalid argument "-2" for "--limit" flag: give a whole number from 0 to`},
		{"negative turn step", []string{"run", "--results", results, "--turn-step", "-5s"}, `invalid argument "-5s" for "--turn-step" flag: give a duration from 0s to 24h0m0s`},
		{"negative k in YAML", []string{"run", "--results", results, "--config", negK}, "--k -3 is negative"},
		{"empty YAML", []string{"run", "--results", results, "--config", empty}, empty + " is empty"},
		{"trailing text", []string{"run", "--results", results, "--dataset", "locomo", "--data", trailing}, "text after the closing ]"},
		{"object answer", []string{"run", "--results", results, "--dataset", "locomo", "--data", objAnswer}, "qa[0].answer: want a string or a number, got an object"},
		{"category type", []string{"run", "--results", results, "--dataset", "locomo", "--data", badCat}, `sample sample-1, qa[0].category: want a number, got "x"`},
		{"non-UTF-8", []string{"run", "--results", results, "--dataset", "locomo", "--data", nonUTF8}, "not UTF-8"},
		{"repeated dia_id", []string{"run", "--results", results, "--dataset", "locomo", "--data", dupDia}, `"D1:1" is also conversation.session_1[0]`},
		{"predictions field name", []string{"score", "--dataset", "sample", "--predictions", wrongField, "--out", filepath.Join(dir, "s1")}, wrongField + ` line 1: no field "prediction" (the line has answer, question_id)`},
		{"predictions directory", []string{"score", "--dataset", "sample", "--predictions", dir, "--out", filepath.Join(dir, "s2")}, "--predictions " + dir + " is a directory"},
		{"20 MB line, wrong dataset id", []string{"score", "--dataset", "sample", "--predictions", bigLine, "--out", filepath.Join(dir, "s3")}, bigLine + " line 1:"},
		{"score 5", []string{"compare", "--run", score5, "--run", scoreOK}, score5 + " line 1: judge llm on q: score 5 is outside [0, 1]"},
		{"correct contradicts score", []string{"compare", "--run", contra, "--run", scoreOK}, `"correct": false contradicts "score": 1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code := membench(t, nil, c.args...)
			line := strings.TrimSpace(out)
			if code != 2 || !strings.Contains(line, c.want) || strings.Count(line, "\n") > 0 {
				t.Errorf("membench %s: exit %d, output %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, clip(out), c.want)
			}
		})
	}
	// Nothing escaped --results.
	for _, p := range []string{filepath.Join(dir, "escape"), filepath.Join(dir, "nest", "escape")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created outside --results", p)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "nest")); len(entries) > 0 {
		t.Errorf("--results parent holds %v", entries)
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}
