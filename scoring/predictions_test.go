package scoring

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPredictionsLongLine(t *testing.T) {
	// 20 MB: over the 16 MB bufio.Scanner limit this reader used to have.
	long := strings.Repeat("x", 20<<20)
	p := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(p, []byte(`{"question_id":"a","prediction":"`+long+`"}`+"\n"+`{"question_id":"b","prediction":""}`), 0o644)
	preds, err := ReadPredictions(p)
	if err != nil || len(preds) != 2 || len(preds[0].Prediction) != len(long) {
		t.Fatalf("got %d predictions, %v", len(preds), err)
	}
}
