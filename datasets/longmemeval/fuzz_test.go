package longmemeval

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/datasettest"
)

func FuzzLongMemEval(f *testing.F) {
	mini, err := os.ReadFile(filepath.Join("..", "testdata", "longmemeval_mini.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(mini)
	f.Add([]byte(`[{"question_id":"q_abs","question":"q","answer":3,"haystack_session_ids":["s","s"],"haystack_dates":["2023/05/20 (Sat) 02:21","x"],"haystack_sessions":[[{"role":"user","content":"c","has_answer":true}],[]]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := decodeLongMemEval(datasets.NewUTF8Reader(bytes.NewReader(data), "fuzz.json"), "fuzz.json", nil, datasets.LoadOptions{})
		datasettest.CheckLoaded(t, ds, err)
	})
}
