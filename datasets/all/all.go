// Package all links in every dataset; import it for its side effects. A
// new dataset is a package whose init calls datasets.Register, plus one
// blank import here.
package all

import (
	_ "github.com/membench/membench/datasets/locomo"
	_ "github.com/membench/membench/datasets/locomoplus"
	_ "github.com/membench/membench/datasets/longmemeval"
	_ "github.com/membench/membench/datasets/sample"
)
