// Package sample registers "sample", a small conversation built into the
// binary so the whole pipeline runs offline without fetching anything.
package sample

import (
	_ "embed"
	"fmt"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
)

// Name is the dataset's --dataset name.
const Name = "sample"

func init() {
	datasets.Register(datasets.Spec{
		Name: Name, Embedded: true, Groups: locomo.Groups, Default: true,
		Load: func(_ string, opt datasets.LoadOptions) (*datasets.Dataset, error) { return Load(opt) },
	})
}

// sampleJSON is a small conversation written for this project in LoCoMo's
// schema.
//
//go:embed sample.json
var sampleJSON []byte

// Load loads the embedded sample through the LoCoMo loader.
func Load(opt datasets.LoadOptions) (*datasets.Dataset, error) {
	ds, err := locomo.Parse(sampleJSON, "embedded:"+Name, Name, opt)
	if err != nil {
		return nil, fmt.Errorf("embedded sample is broken (a build problem, not your input): %w", err)
	}
	return ds, nil
}
