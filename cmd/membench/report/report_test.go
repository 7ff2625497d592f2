package report

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog/runlogtest"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/cmd/membench/clierr"
)

// writeRun writes n single-hop questions of which right are correct.
func writeRun(t *testing.T, dir, system string, k, n, right int, offline, build bool) {
	t.Helper()
	r := runlogtest.Run{Manifest: runlog.Manifest{Config: membench.Config{System: system, K: k}, Judges: []string{"bleu1", "llm"}, Offline: offline}}
	for i := 0; i < n; i++ {
		id := system + string(rune('a'+i))
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, Category: 4})
		ok := i < right
		s := 0.0
		if ok {
			s = 1
		}
		r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: ok, Score: s},
			runlog.Judgment{QuestionID: id, Judge: "bleu1", Score: 0.5})
	}
	if build {
		r.Builds = []runlog.BuildRecord{{Calls: 7, InputTokens: 2_000_000, OutputTokens: 500_000, Seconds: 3.5}}
	}
	r.Write(t, dir)
}

func run(args ...string) (string, error) { return testutil.Execute(NewCmd(), args...) }

func TestReportCommand(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "z-struct"), "structmem", 0, 10, 7, false, true)
	writeRun(t, filepath.Join(root, "a-preds"), "preds", 0, 4, 1, false, false)
	writeRun(t, filepath.Join(root, "sub", "m-cos"), "turns-cosine", 3, 5, 5, true, false)
	// A system whose model calls are made at read time (decisions per
	// candidate) and none at build: its read cost has its own columns.
	rr := filepath.Join(root, "r-rerank")
	writeRun(t, rr, "turns-rerank", 3, 5, 4, false, false)
	testutil.WriteJSONL(t, filepath.Join(rr, runlog.RetrievalsFile), runlog.RetrievalRecord{QuestionID: "turns-reranka"})
	testutil.WriteJSONL(t, filepath.Join(rr, runlog.CostsFile), runlog.CostRecord{ConversationID: "c1", Tallies: []membench.Tally{
		{Role: "decide", Stage: membench.StageRetrieve, Calls: 150, InputTokens: 20_000, OutputTokens: 150},
		{Role: "answer", Stage: membench.StageAnswer, Calls: 5, InputTokens: 2_000, OutputTokens: 50}}})

	out, err := run("--run", root, "--table", "2", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, out)
	}
	if len(rows) != 5 {
		t.Fatalf("%d csv rows, want header + 4:\n%s", len(rows), out)
	}
	// Sorted by system: preds, structmem, turns-cosine, turns-rerank.
	want := [][]string{
		{"a-preds", "preds", "4", "0", "25.00", "[4.6, 69.9]", "-", "-", "25.00", "-", "-", "-", "-", "-", "-", "-", "-", "-", "4", "-", "-", "complete"},
		{"z-struct", "structmem", "10", "0", "70.00", "[39.7, 89.2]", "-", "-", "70.00", "-", "2.000", "0.500", "2.500", "7", "3.5", "-", "-", "-", "10", "-", "-", "complete"},
		{"m-cos", "turns-cosine k=3 (offline)", "5", "0", "100.00", "[56.6, 100.0]", "-", "-", "100.00", "-", "-", "-", "-", "-", "-", "-", "-", "-", "5", "-", "offline", "complete"},
		{"r-rerank", "turns-rerank k=3", "5", "0", "80.00", "[37.6, 96.4]", "-", "-", "80.00", "-", "-", "-", "-", "-", "-", "150", "0.020", "-", "5", "-", "-", "complete"},
	}
	for i, w := range want {
		if strings.Join(rows[i+1], "|") != strings.Join(w, "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i+1, rows[i+1], w)
		}
	}

	out, err = run("--run", filepath.Join(root, "z-*"), "--table", "4", "--format", "markdown")
	if err != nil || !strings.Contains(out, "| z-struct | structmem | 10 | 0 | 70.00 | [39.7, 89.2] | - | - | 70.00 | - | - | 10 | - | - | complete |") {
		t.Errorf("markdown table 4 (%v):\n%s", err, out)
	}
	out, err = run("--run", root)
	if err != nil || strings.Count(out, "shape") != 3 {
		t.Errorf("--table all should print 3 tables (%v):\n%s", err, out)
	}
	for _, bad := range [][]string{{}, {"--run", root, "--table", "5"}, {"--run", root, "--format", "html"},
		{"--run", root, "--judge", "gpt"}, {"--run", filepath.Join(root, "nothing-*")}} {
		if _, err := run(bad...); clierr.Code(err) != 2 {
			t.Errorf("%v: err %v, want exit 2", bad, err)
		}
	}
}

func TestReportWithOptions(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "a"), "structmem", 0, 4, 3, false, false)
	var out strings.Builder
	o := &Options{Runs: []string{root}, Table: "3", Format: "markdown", Out: &out}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| a | structmem | 4 | 0 |") || !strings.Contains(out.String(), "75.00") {
		t.Errorf("table 3:\n%s", out.String())
	}
	o.Table = "9"
	if err := Run(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("table 9: err %v, want exit 2", err)
	}
}

// provRun writes a run with full provenance: its dataset, embedder and
// models, n answered questions out of asked, right of them correct, and
// builds conversations built side by side, each secs long.
type provRun struct {
	dir, system        string
	k, asked, n, right int
	offline            bool
	builds             int
	secs               float64
}

func (p provRun) write(t *testing.T) {
	t.Helper()
	backend := "openai"
	if p.offline {
		backend = "offline"
	}
	r := runlogtest.Run{Manifest: runlog.Manifest{Config: membench.Config{System: p.system, K: p.k},
		Dataset: "locomo", DatasetSHA256: "0123456789abcdef", Questions: p.asked, Embedder: "tfidf-hash-512",
		Models: map[string]membench.ModelID{"answer": {Backend: backend, Model: "m"}}, Judges: []string{"llm"}, Offline: p.offline}}
	for i := 0; i < p.n; i++ {
		id := p.system + string(rune('a'+i))
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, Category: 1})
		s := 0.0
		if i < p.right {
			s = 1
		}
		r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: s == 1, Score: s})
	}
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for c := 0; c < p.builds; c++ {
		r.Builds = append(r.Builds, runlog.BuildRecord{ConversationID: string(rune('A' + c)), Calls: 100, InputTokens: 1_500_000, OutputTokens: 400_000,
			Started: t0, Seconds: p.secs})
	}
	r.Write(t, p.dir)
}

// A report over runs of several systems with long names, offline and
// real, one incomplete, fits 120 columns on every line; --wide keeps the
// run ids and the provenance columns.
func TestReportFitsTerminal(t *testing.T) {
	root := t.TempDir()
	runs := []provRun{
		{dir: filepath.Join(root, "locomo-structmem-no-cross-event-0a1b2c3d4e"), system: "structmem-no-cross-event", k: 10, asked: 40, n: 40, right: 31, offline: true, builds: 4, secs: 12.5},
		{dir: filepath.Join(root, "locomo-structmem-no-cross-event-9f8e7d6c5b"), system: "structmem-no-cross-event", k: 10, asked: 40, n: 40, right: 29, offline: true, builds: 4, secs: 12.5},
		{dir: filepath.Join(root, "locomo-an-external-adapter-with-a-long-registered-name-1234567890"), system: "an-external-adapter-with-a-long-registered-name", k: 60, asked: 40, n: 40, right: 35, builds: 2, secs: 300},
		{dir: filepath.Join(root, "locomo-turns-cosine-5555555555"), system: "turns-cosine", k: 3, asked: 40, n: 12, right: 5, offline: true},
	}
	for _, r := range runs {
		r.write(t)
	}
	out, err := run("--run", root, "--allow-mixed")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("line %d has %d runes:\n%s", i+1, n, l)
		}
	}
	for _, want := range []string{
		"(incomplete)",               // the interrupted turns-cosine run is marked in its row
		"#0a1b2c3d4e", "#9f8e7d6c5b", // two rows of one system and k told apart
		"(offline)",               // rows differ in backend, so each offline row says so
		"│ 12.5   │",              // four conversations of 12.5 s built side by side: wall 12.5 s, not 50
		"77.50", "87.50", "72.50", // 31/40, 35/40, 29/40
		"INCOMPLETE runs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "50.0 ") || strings.Contains(out, "locomo 01234567") {
		t.Errorf("brief table shows summed time or provenance columns:\n%s", out)
	}

	wide, err := run("--run", root, "--allow-mixed", "--wide", "--table", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"locomo-turns-cosine-5555555555", "locomo 01234567", "tfidf-hash-512", "incomplete (12/40 answered)",
		"dataset", "questions", "embedder", "backend", "status", "In M", "Out M", "Sum M", "6.000", "1.600", "7.600"} {
		if !strings.Contains(wide, want) {
			t.Errorf("--wide lacks %q:\n%s", want, wide)
		}
	}
	if maxRunes(wide) <= 120 {
		t.Errorf("--wide should not be fitted to 120 columns:\n%s", wide)
	}
}

func maxRunes(s string) int {
	m := 0
	for _, l := range strings.Split(s, "\n") {
		m = max(m, utf8.RuneCountInString(l))
	}
	return m
}

// report --table all prints each caveat once (under the first table that
// has it), and names the model judge's model, saying when it is the
// answer model; runs whose judges differ are named run by run.
func TestReportCaveatsOnceAndJudgeModel(t *testing.T) {
	root := t.TempDir()
	mini := membench.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
	big := membench.ModelID{Backend: "openai", Model: "gpt-4o"}
	for _, r := range []struct {
		name  string
		judge membench.ModelID
	}{{"a-self", mini}, {"b-other", big}} {
		dir := filepath.Join(root, r.name)
		writeRun(t, dir, "turns-cosine", 3, 6, 4, false, false)
		m, err := runlog.LoadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		judge := r.judge
		m.Models = map[string]membench.ModelID{"answer": mini, "judge": judge}
		m.JudgeSpecs = []membench.JudgeInfo{{Name: "llm", Kind: "llm", Class: membench.JudgeVerdict, Model: &judge}, {Name: "bleu1", Kind: "bleu1", Class: membench.JudgeMetric}}
		if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), m); err != nil {
			t.Fatal(err)
		}
	}
	out, err := run("--run", root, "--allow-mixed")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, once := range []string{"--wide, --format markdown or csv:", "scores: verdict judges", "runs a-self: judge models: llm asks openai:gpt-4o-mini, the answer model itself", "runs b-other: judge models: llm asks openai:gpt-4o"} {
		if n := strings.Count(flat, once); n != 1 {
			t.Errorf("%q printed %d times, want once:\n%s", once, n, out)
		}
	}
	if strings.Contains(flat, "openai:gpt-4o, the answer model") {
		t.Errorf("gpt-4o called the answer model:\n%s", out)
	}
}

// Paths after --run that a shell expanded from an unquoted glob are runs
// to report; when one is not a run (a sweep's folder), the refusal says
// the shell expanded a glob and shows it quoted, which then reports.
func TestReportUnquotedGlobHint(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "a-run"), "turns-cosine", 3, 4, 2, false, false)
	writeRun(t, filepath.Join(root, "b-run"), "turns-cosine", 5, 4, 3, false, false)
	if out, err := run("--table", "3", "--run", filepath.Join(root, "a-run"), filepath.Join(root, "b-run")); err != nil || strings.Count(out, "turns-cosine k=") != 2 {
		t.Errorf("two expanded runs (%v):\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(root, "sweeps"), 0o755)
	_, err := run("--table", "3", "--run", filepath.Join(root, "a-run"), filepath.Join(root, "b-run"), filepath.Join(root, "sweeps"))
	want := "quote it so membench expands it over runs only, e.g. --run '" + root + "/*'"
	if clierr.Code(err) != 2 || !strings.Contains(err.Error(), "the shell expanded an unquoted glob") || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v (exit %d), want exit 2 with %q", err, clierr.Code(err), want)
	}
	if out, err := run("--table", "3", "--run", root+"/*"); err != nil || strings.Count(out, "turns-cosine k=") != 2 {
		t.Errorf("the quoted pattern (%v):\n%s", err, out)
	}
}

// groupRun writes a run of system at k on dataset (its file's hash sha)
// with n questions, right of them correct under the primary judge llm.
func groupRun(t *testing.T, dir, dataset, sha, embedder, system string, k, n, right int) {
	t.Helper()
	r := runlogtest.New(system, k, "llm")
	r.Manifest.Dataset, r.Manifest.DatasetSHA256, r.Manifest.QuestionSetSHA256, r.Manifest.Embedder = dataset, sha, sha+"-questions", embedder
	r.Scored(n, right, 4).Write(t, dir)
}

// With no --run, the runs under ./results are reported group by group of
// comparable runs: a heading naming the group with its run count, Table
// 2 of its runs labelled by what sets them apart; a group whose runs
// still differ is refused under its heading in one short line, and the
// command ends with exit 2 saying so. Runs named one by one that fall in
// several groups are refused in one line that points to the folder.
func TestReportGroupsAResultsFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	groupRun(t, "results/s1", "sample", "bbbb", "hashed", "turns-cosine", 1, 19, 5)
	groupRun(t, "results/s2", "sample", "bbbb", "hashed", "turns-cosine", 3, 19, 8)
	groupRun(t, "results/s3", "sample", "bbbb", "hashed", "fullcontext", 0, 19, 9)
	groupRun(t, "results/l1", "locomo", "aaaa", "hashed", "turns-cosine", 3, 10, 2)
	groupRun(t, "results/l2", "locomo", "aaaa", "hashed", "turns-cosine", 10, 10, 4)
	groupRun(t, "results/m1", "longmemeval", "cccc", "hashed", "turns-cosine", 3, 6, 1)
	groupRun(t, "results/m2", "longmemeval", "cccc", "use-lite", "turns-cosine", 3, 6, 2)

	out, err := run()
	if clierr.Code(err) != 2 || !strings.Contains(err.Error(), "1 of the 3 groups not reported") {
		t.Errorf("err %v (exit %d), want exit 2 naming the group not reported", err, clierr.Code(err))
	}
	for _, want := range []string{
		"== sample bbbb · 19 questions · judge llm: 3 runs ==",
		"== locomo aaaa · 10 questions · judge llm: 2 runs ==",
		"== longmemeval cccc · 6 questions · judge llm: 2 runs ==\nnot reported, the runs are not comparable: embedder differs (m1: hashed; m2: use-lite)\n",
		"│ turns-cosine │ 19/0  │ 42.11", "│ k=3          │", "│ fullcontext  │ 19/0  │ 47.37",
		"3 groups of comparable runs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "Table 2 shape"); n != 2 || strings.Contains(out, "Table 3 shape") || strings.Index(out, "sample bbbb") > strings.Index(out, "locomo aaaa") {
		t.Errorf("%d Table 2s, want one per comparable group, the biggest group first, and no other table:\n%s", n, out)
	}
	if all, _ := run("--table", "all"); strings.Count(all, "Table 3 shape") != 2 {
		t.Errorf("--table all: want every table of each group:\n%s", all)
	}
	if md, _ := run("--format", "markdown"); !strings.Contains(md, "## locomo aaaa · 10 questions · judge llm: 2 runs\n") {
		t.Errorf("markdown headings:\n%s", md)
	}
	if out, err := run("--json"); clierr.Code(err) != 2 || !strings.Contains(err.Error(), "fall in 3 groups") {
		t.Errorf("--json over several groups: %v\n%s", err, out)
	}
	if out, err := run("--allow-mixed", "--table", "2"); err != nil || strings.Count(out, "WARNING (--allow-mixed)") != 1 || strings.Count(out, "Table 2 shape") != 3 {
		t.Errorf("--allow-mixed: %v\n%s", err, out)
	}

	_, err = run("--run", "results/s1", "--run", "results/l1", "--run", "results/m2")
	msg := err.Error()
	if clierr.Code(err) != 2 || strings.Contains(msg, "\n") || len(msg) > 600 || !strings.Contains(msg, "dataset differs (s1: sample sha256:bbbb; l1: locomo sha256:aaaa; m2: longmemeval sha256:cccc)") || !strings.Contains(msg, "fall in 3 groups") {
		t.Errorf("runs of three groups named one by one: %d characters (exit %d): %s", len(msg), clierr.Code(err), msg)
	}
}
