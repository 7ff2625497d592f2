package peers

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/datasets/longmemeval"
	"github.com/membench/membench/internal/names"
)

// Format names a peer file layout.
type Format string

// Known formats.
const (
	FormatZep         Format = "zep"
	FormatMemobase    Format = "memobase"
	FormatBackboard   Format = "backboard"
	FormatCORE        Format = "core"
	FormatLongMemEval Format = "longmemeval"
)

var parsers = map[Format]func([]byte, string) ([]Item, error){
	FormatZep: ParseZep, FormatMemobase: ParseMemobase, FormatBackboard: ParseBackboard, FormatCORE: ParseCORE, FormatLongMemEval: ParseLongMemEval,
}

// Parse dispatches to the parser of format f.
func Parse(f Format, data []byte, source string) ([]Item, error) {
	if parse, ok := parsers[f]; ok {
		return parse(data, source)
	}
	return nil, fmt.Errorf("unknown peer format %q (use zep, memobase, backboard, core, longmemeval)", f)
}

// Published is what a peer (or a paper quoting it) reported, in points.
// ByCategory is keyed by LoCoMo category number (1 multi-hop, 2 temporal,
// 3 open-domain, 4 single-hop).
type Published struct {
	Overall    float64         `json:"overall"`
	ByCategory map[int]float64 `json:"by_category,omitempty"`
	Where      string          `json:"where"`
	// Peers that judged several times also give the majority vote, each
	// run's score and their sd.
	Majority  *float64  `json:"majority_vote,omitempty"`
	RunScores []float64 `json:"run_scores,omitempty"`
	SD        *float64  `json:"sd,omitempty"`
}

// Source is one peer result set in the /work/shared/peers layout.
type Source struct {
	System    string // system name written into judgments, with version
	Format    Format //
	Glob      string // files, relative to the peers directory
	Dataset   string // locomo.Name or longmemeval.Name
	Published *Published
	Note      string
}

// Known lists the peer result sets shipped in the shared peers directory.
// Memobase versions come from Memobase's LoCoMo benchmark README, which names
// memobase_eval_0503_3000.json v0.0.32 (70.91) and _0710_ v0.0.37 (75.78).
func Known() []Source {
	structmem := "StructMem Table 2 (papers.md), columns Multi/Open/Single/Temp read as LoCoMo categories 1/3/4/2"
	return []Source{
		{System: "zep", Format: FormatZep, Glob: "zep/zep_locomo_grades.json", Dataset: locomo.Name,
			Published: &Published{Overall: 75.14, ByCategory: map[int]float64{1: 74.11, 3: 66.04, 4: 79.79, 2: 67.71}, Where: structmem},
			Note:      "grades with categories; Zep's blog gives 75.14 ± 0.17, a mean over runs"},
		{System: "zep-v1-2025-05-10", Format: FormatZep, Glob: "zep/zep_locomo_grades_v1_2025-05-10.json", Dataset: locomo.Name,
			Note: "earlier grades file, no categories (taken from LoCoMo)"},
		{System: "memobase-v0.0.32", Format: FormatMemobase, Glob: "memobase/memobase_eval_0503_3000.json", Dataset: locomo.Name,
			Published: &Published{Overall: 70.91, ByCategory: map[int]float64{1: 63.83, 3: 52.08, 4: 71.82, 2: 80.37}, Where: "Memobase LoCoMo benchmark README (its Single/Multi/Open/Temporal columns are LoCoMo categories 1/3/4/2)"}},
		{System: "memobase-v0.0.37", Format: FormatMemobase, Glob: "memobase/memobase_eval_0710_3000.json", Dataset: locomo.Name,
			Published: &Published{Overall: 75.78, ByCategory: map[int]float64{1: 70.92, 3: 46.88, 4: 77.17, 2: 85.05}, Where: structmem}},
		{System: "backboard", Format: FormatBackboard, Glob: "backboard/locomo_conversation_*.json", Dataset: locomo.Name,
			Published: &Published{Overall: 90.00, Where: "Backboard's published LoCoMo result"}},
		{System: "core", Format: FormatCORE, Glob: "core/evaluation_locomo*.json", Dataset: locomo.Name,
			Note: "no published overall in papers.md; per-file summaries give answerAccuracyRate"},
		{System: "lugmans-gemini-2.5-flash-text", Format: FormatLongMemEval, Glob: "longmemeval_lugmans/gemini-2.5-flash-dynamic-thinking-text-context-eval.json", Dataset: longmemeval.Name,
			Published: &Published{Overall: 87.0, Where: "its -eval-report.json (counts only lowercase \"yes\")"}},
		{System: "lugmans-gemini-2.5-flash-image", Format: FormatLongMemEval, Glob: "longmemeval_lugmans/gemini-2.5-flash-dynamic-thinking-image-context-eval.json", Dataset: longmemeval.Name,
			Published: &Published{Overall: 56.8, Where: "image-context-1200-eval-report.json (counts only lowercase \"yes\")"}},
		{System: "lugmans-gemini-2.5-flash-image-700", Format: FormatLongMemEval, Glob: "longmemeval_lugmans/gemini-2.5-flash-dynamic-thinking-image-context-700-eval.json", Dataset: longmemeval.Name,
			Published: &Published{Overall: 57.49, Where: "image-context-700-eval-report.json, over its 494 items (counts only lowercase \"yes\")"}},
	}
}

// LoadFiles parses every file matching glob under dir, in numeric file order.
func LoadFiles(f Format, dir, glob string) ([]Item, []string, error) {
	files, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no files match %s in %s", glob, dir)
	}
	slices.SortFunc(files, names.Compare)
	var all []Item
	for _, p := range files {
		data, err := datasets.ReadInputFile(p, "give a directory of published per-question results (../shared/peers)")
		if err != nil {
			return nil, nil, err
		}
		items, err := Parse(f, data, p)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, items...)
	}
	return all, files, nil
}
