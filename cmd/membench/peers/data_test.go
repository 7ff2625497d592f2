package peers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/cmd/membench/compare"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"
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
	o := &Options{In: file, Out: out, Host: runlog.Host{Home: home}, W: &bytes.Buffer{}}
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
	err := Run(&Options{In: zep, Out: filepath.Join(dir, "out"), Format: "zep", Host: runlog.Host{Home: filepath.Join(dir, "home")}, W: &bytes.Buffer{}})
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
