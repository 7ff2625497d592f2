package datasets

import (
	_ "embed"
	"fmt"
)

func init() {
	Register(Spec{
		Name: "sample", Embedded: true, Groups: locomoGroups,
		Load: func(_ string, opt LoadOptions) (*Dataset, error) { return SampleWith(opt) },
	})
}

// sampleJSON is a small conversation written for this project in LoCoMo's
// schema, so the whole pipeline can run offline without fetching anything.
//
//go:embed sample/sample.json
var sampleJSON []byte

// SampleJSON returns the embedded sample file's bytes (LoCoMo schema).
func SampleJSON() []byte { return append([]byte(nil), sampleJSON...) }

// SampleWith loads the embedded sample through the LoCoMo loader.
func SampleWith(opt LoadOptions) (*Dataset, error) {
	ds, err := parseLoCoMo(sampleJSON, "embedded:sample", "sample", opt)
	if err != nil {
		return nil, fmt.Errorf("embedded sample is broken (a build problem, not your input): %w", err)
	}
	return ds, nil
}
