package peers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/compare"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"

	_ "github.com/membench/membench/answer"
	_ "github.com/membench/membench/systems/all"
)

// tinyLoCoMo is a two-conversation LoCoMo file the fixtures below match.
const tinyLoCoMo = `[
 {"sample_id": "conv-a", "conversation": {"speaker_a": "Ann", "speaker_b": "Bo",
   "session_1_date_time": "1:00 pm on 1 May, 2023",
   "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I moved to Oslo in 2020."},
                 {"speaker": "Bo", "dia_id": "D1:2", "text": "Bob visited you there, right?"}]},
  "qa": [{"question": "When did Ann move?", "answer": 2020, "evidence": ["D1:1"], "category": 2},
         {"question": "Who visited Ann?", "answer": "Bob", "evidence": ["D1:2"], "category": 1}]},
 {"sample_id": "conv-b", "conversation": {"speaker_a": "Cy", "speaker_b": "Di",
   "session_1_date_time": "2:00 pm on 2 May, 2023",
   "session_1": [{"speaker": "Cy", "dia_id": "D1:1", "text": "I won a trophy at chess."}]},
  "qa": [{"question": "What did Cy win?", "answer": "a trophy", "evidence": ["D1:1"], "category": 4}]}]`

const tinyZep = `{
 "locomo_experiment_user_0": [
  {"question": "When did Ann move?", "answer": "In 2020.", "golden_answer": 2020, "grade": true, "category": 2},
  {"question": "Who visited Ann?", "answer": "Carl", "golden_answer": "Bob", "grade": false, "category": 1}],
 "locomo_experiment_user_1": [
  {"question": "What did Cy win?", "answer": "A trophy", "golden_answer": "a trophy", "grade": true, "category": 4}]}`

// tinyScored is a scored file by answer model model (the locomo-audit
// shape, with the dataset's own ids).
func tinyScored(model string) string {
	return `{"detailed_results": {"c": [
  {"question_id": "conv-a:0", "question": "When did Ann move?", "golden_answer": "2020", "generated_answer": "2020", "category": 2, "llm_judgments": {"judgment_1": true}},
  {"question_id": "conv-a:1", "question": "Who visited Ann?", "golden_answer": "Bob", "generated_answer": "Bob", "category": 1, "llm_judgments": {"judgment_1": true}},
  {"question_id": "conv-b:0", "question": "What did Cy win?", "golden_answer": "a trophy", "generated_answer": "a cup", "category": 4, "llm_judgments": {"judgment_1": false}}]},
 "metadata": {"answer_model": "` + model + `", "judge_model": "gpt-4o-mini", "base_url": "https://openrouter.ai/api/v1"}}`
}

func write(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// install copies a LoCoMo file where `membench datasets fetch locomo`
// puts it under a fresh home, and returns the home.
func install(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	write(t, datasets.DefaultPath(home, "locomo"), string(b))
	return home
}

func importRun(t *testing.T, home, file, out string, flags ...string) {
	t.Helper()
	o := &Options{In: file, Out: out, Host: membench.Host{Home: home}, W: &bytes.Buffer{}}
	for i := 0; i+1 < len(flags); i += 2 {
		switch flags[i] {
		case "--data":
			o.Data = flags[i+1]
		case "--format":
			o.Format = flags[i+1]
		case "--system":
			o.System = flags[i+1]
		default:
			t.Fatalf("flag %s", flags[i])
		}
	}
	if err := Run(o); err != nil {
		t.Fatalf("peers import %s %v: %v", file, flags, err)
	}
}

func compareRuns(args ...string) (string, error) {
	var out, errb bytes.Buffer
	c := compare.NewCmd()
	c.SetOut(&out)
	c.SetErr(&errb)
	c.SetArgs(args)
	err := c.Execute()
	return out.String() + errb.String(), err
}

func sha(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func manifest(t *testing.T, dir string) runlog.Manifest {
	t.Helper()
	m, err := runlog.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// An import without --data records the sha256 of the installed LoCoMo
// file it matched against, so it compares with an import given the same
// file under another path.
func TestImportWithoutDataRecordsInstalledSHA(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "copy", "locomo10.json"), tinyLoCoMo)
	home := install(t, data)
	zep := write(t, filepath.Join(dir, "zep.json"), tinyZep)
	a, b := filepath.Join(dir, "runs", "a"), filepath.Join(dir, "runs", "b")
	importRun(t, home, zep, a, "--format", "zep")
	importRun(t, home, zep, b, "--format", "zep", "--system", "zep-again", "--data", data)
	want := sha(t, data)
	for _, d := range []string{a, b} {
		if m := manifest(t, d); m.DatasetSHA256 != want {
			t.Errorf("%s: dataset_sha256 %q, want the LoCoMo file's %s", d, m.DatasetSHA256, want)
		}
	}
	if got := manifest(t, a).DatasetSource; got != datasets.DefaultPath(home, "locomo") {
		t.Errorf("dataset_source %q, want the installed copy", got)
	}
	if out, err := compareRuns("--run", a, "--run", b); err != nil {
		t.Fatalf("compare of one file's imports refused: %v\n%s", err, out)
	}
}

// With neither --data nor an installed LoCoMo there is nothing to match
// against: one line of bad input naming both ways to give one.
func TestImportWithoutAnyLoCoMo(t *testing.T) {
	dir := t.TempDir()
	zep := write(t, filepath.Join(dir, "zep.json"), tinyZep)
	err := Run(&Options{In: zep, Out: filepath.Join(dir, "out"), Format: "zep", Host: membench.Host{Home: filepath.Join(dir, "home")}, W: &bytes.Buffer{}})
	if clierr.Code(err) != 2 || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v; want one line of bad input", err)
	}
	for _, want := range []string{"no LoCoMo file", "--data FILE", "membench datasets fetch locomo", datasets.DefaultPath(filepath.Join(dir, "home"), "locomo")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, statErr := os.Stat(filepath.Join(dir, "out")); statErr == nil {
		t.Error("a refused import wrote its run directory")
	}
}

// The real case: Zep imported without --data against the installed
// LoCoMo, Memobase with --data naming the shared file; compare pairs
// them on the 1540 questions both graded.
func TestRealImportWithoutDataCompares(t *testing.T) {
	loco := testutil.Shared(t, "datasets", "locomo10.json")
	dir := testutil.Shared(t, "peers")
	home := install(t, loco)
	a, b := filepath.Join(t.TempDir(), "zep"), filepath.Join(t.TempDir(), "memobase")
	importRun(t, home, filepath.Join(dir, "zep", "zep_locomo_grades.json"), a)
	importRun(t, home, filepath.Join(dir, "memobase", "memobase_eval_0710_3000.json"), b, "--data", loco)
	const locomoSHA = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
	for _, d := range []string{a, b} {
		if m := manifest(t, d); m.DatasetSHA256 != locomoSHA {
			t.Errorf("%s: dataset_sha256 %q, want %s", d, m.DatasetSHA256, locomoSHA)
		}
	}
	out, err := compareRuns("--run", a, "--run", b)
	if err != nil {
		t.Fatalf("compare refused: %v\n%s", err, out)
	}
	if !strings.Contains(out, "n          1540") {
		t.Errorf("compare output lacks n 1540:\n%s", out)
	}
}

// ownRun is an offline membench run on the LoCoMo file data, judged by
// lexical, with answer model answer ("" for the offline default), on the
// conversations convs (all when none).
func ownRun(t *testing.T, data, answer string, convs ...string) string {
	t.Helper()
	results := t.TempDir()
	cfg := membench.Config{System: "turns-cosine", Dataset: "locomo", Data: data, Conversations: convs, AnswerModel: answer,
		Judges: []string{"lexical"}, ResultsDir: results, RunID: "own", CacheDir: t.TempDir(), Quiet: true,
		Host: membench.Host{Home: t.TempDir(), Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(results, "own")
}

// Two peers that differ only in answer model compare without
// --allow-mixed, and the output says the answer model was taken as part
// of each peer's system.
func TestPeersDifferingInAnswerModelCompare(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "copy", "locomo10.json"), tinyLoCoMo)
	home := install(t, data)
	a, b := filepath.Join(dir, "runs", "4o"), filepath.Join(dir, "runs", "41")
	importRun(t, home, write(t, filepath.Join(dir, "gpt-4o-mini-cot.json"), tinyScored("gpt-4o-mini")), a)
	importRun(t, home, write(t, filepath.Join(dir, "gpt-4.1-mini-cot.json"), tinyScored("gpt-4.1-mini")), b, "--data", data)
	out, err := compareRuns("--run", a, "--run", b)
	if err != nil {
		t.Fatalf("peers differing in answer model refused: %v\n%s", err, out)
	}
	for _, want := range []string{"note: answer model differs", "openrouter:gpt-4o-mini", "openrouter:gpt-4.1-mini", "part of an imported peer's system under test, so it was not treated as a mixed setting"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "WARNING") {
		t.Errorf("no --allow-mixed warning expected:\n%s", out)
	}
	js, err := compareRuns("--run", a, "--run", b, "--json")
	if err != nil || !strings.Contains(js, `"peer_settings": [`) {
		t.Errorf("JSON lacks peer_settings (%v):\n%s", err, js)
	}
}

// An own run compares with a peer imported without --data on the same
// LoCoMo file; own runs that differ in answer model still need
// --allow-mixed.
func TestOwnRunBesidePeer(t *testing.T) {
	dir := t.TempDir()
	data := write(t, filepath.Join(dir, "copy", "locomo10.json"), tinyLoCoMo)
	home := install(t, data)
	peer := filepath.Join(dir, "runs", "zep")
	importRun(t, home, write(t, filepath.Join(dir, "zep.json"), tinyZep), peer, "--format", "zep")
	own := ownRun(t, data, "")
	out, err := compareRuns("--run", own, "--run", peer, "--judge-a", "lexical", "--judge-b", "peer-llm")
	if err != nil {
		t.Fatalf("own run beside a peer on one file refused: %v\n%s", err, out)
	}
	if !strings.Contains(out, "note: embedder differs") || !strings.Contains(out, "n          3") {
		t.Errorf("compare output:\n%s", out)
	}
	other := ownRun(t, data, "offline:other")
	out, err = compareRuns("--run", own, "--run", other)
	if clierr.Code(err) != 2 || !strings.Contains(err.Error(), "answer model differs") {
		t.Fatalf("own runs differing in answer model: %v, want refused\n%s", err, out)
	}
	if out, err = compareRuns("--run", own, "--run", other, "--allow-mixed"); err != nil || !strings.Contains(out, "WARNING (--allow-mixed)") {
		t.Errorf("with --allow-mixed: %v\n%s", err, out)
	}
}

// The real files: the fc-baseline full-context runs by gpt-4o-mini (no
// --data) and gpt-4.1-mini (--data) compare with the note, and an offline
// run on the shared LoCoMo compares with Zep imported without --data.
func TestRealPeersAnswerModelAndOwnRun(t *testing.T) {
	loco := testutil.Shared(t, "datasets", "locomo10.json")
	fc := testutil.Shared(t, "datasets", "locomo-audit", "fc-baseline")
	zep := testutil.Shared(t, "peers", "zep", "zep_locomo_grades.json")
	home := install(t, loco)
	dir := t.TempDir()
	a, b, z := filepath.Join(dir, "4o"), filepath.Join(dir, "41"), filepath.Join(dir, "zep")
	importRun(t, home, filepath.Join(fc, "gpt-4o-mini-cot.json"), a)
	importRun(t, home, filepath.Join(fc, "gpt-4.1-mini-cot.json"), b, "--data", loco)
	importRun(t, home, zep, z)
	out, err := compareRuns("--run", a, "--run", b)
	if err != nil {
		t.Fatalf("fc-baseline runs refused: %v\n%s", err, out)
	}
	if !strings.Contains(out, "note: answer model differs ("+a+": openrouter:gpt-4o-mini; "+b+": openrouter:gpt-4.1-mini); the answer model is part of an imported peer's system") {
		t.Errorf("compare output lacks the answer model note:\n%s", out)
	}
	own := ownRun(t, loco, "", "conv-26")
	out, err = compareRuns("--run", own, "--run", z, "--judge-a", "lexical", "--judge-b", "peer-llm")
	if err != nil {
		t.Fatalf("own run beside Zep refused: %v\n%s", err, out)
	}
	if !strings.Contains(out, "n          152") || !strings.Contains(out, "note: embedder differs") {
		t.Errorf("own run on conv-26 vs Zep: want the 152 questions of conv-26 Zep graded paired, and the embedder note:\n%s", out)
	}
}
