package datasets

import (
	"path/filepath"
	"strings"
	"testing"
)

// Abstains is the one abstention predicate: the loaders' flag (LongMemEval
// "_abs", LoCoMo category 5) and, for hand-built questions, category 5.
func TestAbstainsFollowsTheLoaders(t *testing.T) {
	lme, err := LoadLongMemEval(filepath.Join("testdata", "longmemeval_mini.json"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sample, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	var abs, cat5 int
	for _, q := range lme.Questions() {
		if q.Abstains() != strings.HasSuffix(q.ID, "_abs") {
			t.Errorf("LongMemEval %s: Abstains %v", q.ID, q.Abstains())
		}
		if q.Abstains() {
			abs++
		}
	}
	for _, q := range sample.Questions() {
		if q.Abstains() != (q.Category == CatAdversarial) {
			t.Errorf("sample %s (category %d): Abstains %v", q.ID, q.Category, q.Abstains())
		}
		if q.Abstains() {
			cat5++
		}
	}
	if abs == 0 || cat5 == 0 {
		t.Fatalf("fixtures without abstention questions: %d _abs, %d category 5", abs, cat5)
	}
	if !(&Question{Category: CatAdversarial}).Abstains() || (&Question{Category: CatSingleHop}).Abstains() || !(&Question{Abstention: true}).Abstains() {
		t.Error("hand-built questions: category 5 or the flag abstain, nothing else")
	}
}
