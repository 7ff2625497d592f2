package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/audit"
	"github.com/membench/membench/cmd/membench/clierr"
)

// --false-accept JUDGE=FILE puts the rate a wrong-answer file's recorded
// verdicts give beside the accuracy the runs' judge of that name gives; an
// audit JSON's judges match by name; a rate no run's judge stands for is
// refused, naming the fix.
func TestReportFalseAccept(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "a"), "sys", 0, 10, 7, false, false)
	// Four known-wrong answers; run 1 accepts one, run 2 two: 37.5%.
	var recs []string
	for i, acc := range [][2]bool{{true, true}, {false, true}, {false, false}, {false, false}} {
		recs = append(recs, fmt.Sprintf(`{"question_id": "q%d", "question": "Q%d?", "golden_answer": "g", "generated_answer": "w", "category": 4, "llm_judgments": {"judgment_1": %v, "judgment_2": %v}}`, i, i, acc[0], acc[1]))
	}
	wrong := filepath.Join(root, "wrong.json")
	if err := os.WriteFile(wrong, []byte(`{"detailed_results": {"c": [`+strings.Join(recs, ",")+`]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run("--run", filepath.Join(root, "a"), "--table", "false-accept", "--false-accept", "llm="+wrong)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"false-accept", "37.50%", "70.00", "wrong.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The same rate from an audit JSON, its judge renamed to the run's.
	a, err := audit.ReadRates(wrong)
	if err != nil {
		t.Fatal(err)
	}
	a.Judges[0].Judge = "llm"
	b, _ := json.Marshal(a)
	aj := filepath.Join(root, "audit.json")
	os.WriteFile(aj, b, 0o644)
	if out, err := run("--run", filepath.Join(root, "a"), "--table", "false-accept", "--false-accept", aj); err != nil || !strings.Contains(out, "37.50%") {
		t.Errorf("audit JSON: %v\n%s", err, out)
	}
	if _, err := run("--run", filepath.Join(root, "a"), "--false-accept", wrong); clierr.Code(err) != 2 || !strings.Contains(err.Error(), "=FILE") {
		t.Errorf("a rate for no run's judge: %v, want exit 2 naming JUDGE=FILE", err)
	}
	if _, err := run("--run", filepath.Join(root, "a"), "--table", "false-accept"); clierr.Code(err) != 2 {
		t.Errorf("--table false-accept without a file: %v, want exit 2", err)
	}
	if _, err := run("--run", filepath.Join(root, "a"), "--false-accept", "llm="+filepath.Join(root, "absent.json")); clierr.Code(err) != 2 {
		t.Errorf("missing file: %v, want exit 2", err)
	}
}
