package locomo_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/datasettest"
	"github.com/membench/membench/datasets/locomo"
)

func FuzzLoCoMo(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("..", "sample", "sample.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(bytes.Replace(sample, []byte(`"category": 4`), []byte(`"category": "4"`), 1))
	f.Add(bytes.Replace(sample, []byte(`"session_1"`), []byte(`"session_01"`), 1))
	f.Add([]byte(`[{"sample_id":"a","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"}],"session_1_date_time":"1:56 pm on 8 May, 2023"},"qa":[{"question":"q","answer":2022,"evidence":["D1:1; D:1:1"],"category":2}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := locomo.Parse(data, "fuzz.json", locomo.Name, datasets.LoadOptions{})
		datasettest.CheckLoaded(t, ds, err)
	})
}
