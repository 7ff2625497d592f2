package datasettest

import (
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
)

// CheckLoaded holds for any file a loader accepts or refuses: refusals are
// one-line InputErrors; accepted datasets have unique, non-empty ids.
func CheckLoaded(t *testing.T, ds *datasets.Dataset, err error) {
	t.Helper()
	if err != nil {
		if !datasets.IsInputError(err) {
			t.Fatalf("refusal is not an InputError (%T): %v", err, err)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("refusal is not one line: %q", err)
		}
		return
	}
	convs, turns := map[string]bool{}, map[string]bool{}
	for _, c := range ds.Conversations {
		if c.ID == "" || convs[c.ID] {
			t.Fatalf("conversation id %q empty or repeated", c.ID)
		}
		convs[c.ID] = true
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				key := c.ID + "\x00" + tu.ID
				if tu.ID == "" || turns[key] {
					t.Fatalf("%s: turn id %q empty or repeated", c.ID, tu.ID)
				}
				turns[key] = true
			}
		}
		for _, q := range c.Questions {
			if q.ConversationID != c.ID {
				t.Fatalf("question %s in %s names conversation %s", q.ID, c.ID, q.ConversationID)
			}
		}
	}
}

// CheckRefusal: err is a one-line input error naming the file and holding want.
func CheckRefusal(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s accepted", path)
	}
	msg := err.Error()
	if !datasets.IsInputError(err) || !strings.HasPrefix(msg, path) || !strings.Contains(msg, want) || strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error %q (%T); want one input-error line starting with %s and holding %q", msg, err, path, want)
	}
}
