package runlog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/runlog"
)

// Records that predate the group field get the group and abstention their
// binary derived; a record that has a group keeps it, and its category
// number decides nothing.
func TestOldRecordsGetTheirGroup(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"question_id":"a","category":5}`, // before the abstention flag
		`{"question_id":"b","category":2}`,
		`{"question_id":"c","category":0,"type":"multi-session","abstention":true}`,
		`{"question_id":"d","category":0,"type":"knowledge-update"}`,
		`{"question_id":"e","category":0}`,
		`{"question_id":"f","category":5,"group":"cue"}`,
	}
	p := filepath.Join(dir, runlog.AnswersFile)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := runlog.ReadJSONL[runlog.AnswerRecord](p)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		group    string
		abstains bool
	}{{"adversarial", true}, {"temporal", false}, {"abstention", true}, {"knowledge-update", false}, {"all", false}, {"cue", false}}
	for i, r := range recs {
		if r.Group != want[i].group || r.Abstains() != want[i].abstains {
			t.Errorf("%s: group %q abstains %v, want %+v", r.QuestionID, r.Group, r.Abstains(), want[i])
		}
	}
}

// The frozen names old records are read with are LoCoMo's groups by
// category, as the registered dataset lists them today.
func TestLegacyNamesMatchLoCoMo(t *testing.T) {
	spec, err := datasets.Lookup("locomo")
	if err != nil {
		t.Fatal("locomo is not registered")
	}
	for c := locomo.CatMultiHop; c <= locomo.CatAdversarial; c++ {
		p := filepath.Join(t.TempDir(), runlog.AnswersFile)
		if err := os.WriteFile(p, []byte(`{"question_id":"x","category":`+string(rune('0'+c))+"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		recs, err := runlog.ReadJSONL[runlog.AnswerRecord](p)
		if err != nil {
			t.Fatal(err)
		}
		g := spec.Groups[c-1]
		if recs[0].Group != g.Name || recs[0].Abstains() != g.Abstains {
			t.Errorf("category %d read as %q (abstains %v); locomo lists %+v", c, recs[0].Group, recs[0].Abstains(), g)
		}
	}
}
