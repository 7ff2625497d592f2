package runlog

import "testing"

func TestCheckRunID(t *testing.T) {
	for _, id := range []string{"..", ".", "../x", "a/b", "/abs", `a\b`, "x/..", ""} {
		if CheckRunID(id) == nil {
			t.Errorf("run id %q accepted", id)
		}
	}
	for _, id := range []string{"my-run", "locomo-flat-0123456789", "a..b", ".hidden"} {
		if err := CheckRunID(id); err != nil {
			t.Errorf("run id %q refused: %v", id, err)
		}
	}
}
