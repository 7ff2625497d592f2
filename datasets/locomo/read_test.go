package locomo

import (
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/datasettest"
)

// endless is valid JSON's beginning followed by one string that never
// ends; it counts what is read of it.
type endless struct {
	head []byte
	n    int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		if e.n < int64(len(e.head)) {
			p[i] = e.head[e.n]
		} else {
			p[i] = 'a'
		}
		e.n++
	}
	return len(p), nil
}

// A stream bigger than the cap is refused naming the flag that raises it,
// and no more than the cap (and the one byte that shows it is bigger) is
// read. (TestSizeCap in package datasets holds it for real files.)
func TestSizeCapEndless(t *testing.T) {
	const max = 1 << 20
	src := &endless{head: []byte(`[{"sample_id": "`)}
	_, err := readLoCoMo(src, 0, "endless.json", Name, datasets.LoadOptions{MaxBytes: max})
	datasettest.CheckRefusal(t, err, "endless.json", "is larger than 1MiB, the most membench reads of a dataset file; if it is the right file, raise the cap with --max-data-size")
	if src.n > max+1 {
		t.Errorf("read %d bytes with a cap of %d", src.n, max)
	}
}
