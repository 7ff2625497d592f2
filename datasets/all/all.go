// Package all links in every dataset that lives in its own package; import
// it for its side effects. A new dataset is a package whose init calls
// datasets.Register, plus one blank import here. (sample, locomo and
// longmemeval register from package datasets itself.)
package all

import (
	_ "github.com/membench/membench/datasets/locomoplus"
)
