package datasets_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/datasets/longmemeval"
	"github.com/membench/membench/datasets/sample"
)

// Abstains is the one abstention predicate: the flag the loaders set from
// the group (LongMemEval "_abs", LoCoMo adversarial); a category number
// alone decides nothing.
func TestAbstainsFollowsTheLoaders(t *testing.T) {
	lme, err := longmemeval.Load(filepath.Join("testdata", "longmemeval_mini.json"), datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := sample.Load(datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var abs, cat5 int
	for _, q := range lme.Questions() {
		if q.Abstains() != strings.HasSuffix(q.ID, "_abs") || q.Abstains() != (q.Group == "abstention") {
			t.Errorf("LongMemEval %s (group %s): Abstains %v", q.ID, q.Group, q.Abstains())
		}
		if q.Abstains() {
			abs++
		}
	}
	for _, q := range smp.Questions() {
		if q.Abstains() != (q.Category == locomo.CatAdversarial) || q.Group != locomo.CategoryName(q.Category) {
			t.Errorf("sample %s (category %d, group %s): Abstains %v", q.ID, q.Category, q.Group, q.Abstains())
		}
		if q.Abstains() {
			cat5++
		}
	}
	if abs == 0 || cat5 == 0 {
		t.Fatalf("fixtures without abstention questions: %d _abs, %d category 5", abs, cat5)
	}
	if (&datasets.Question{Category: locomo.CatAdversarial}).Abstains() || !(&datasets.Question{Abstention: true}).Abstains() {
		t.Error("hand-built questions: the flag abstains, the category does not")
	}
}
