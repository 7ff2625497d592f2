package plan_test

import (
	"strings"
	"testing"

	"github.com/membench/membench/plan"
)

func TestParseShard(t *testing.T) {
	ok := []struct {
		s, job string
		i, n   int
	}{{"0/1", "", 0, 1}, {"3/4", "9", 3, 4}, {"auto/4", "2", 2, 4}, {" 1/2 ", "", 1, 2}}
	for _, c := range ok {
		i, n, err := plan.ParseShard(c.s, c.job)
		if err != nil || i != c.i || n != c.n {
			t.Errorf("ParseShard(%q, %q) = %d, %d, %v", c.s, c.job, i, n, err)
		}
	}
	bad := []struct{ s, job, want string }{
		{"4/4", "", "from 0 to 3"},
		{"-1/4", "", "from 0 to 3"},
		{"1/0", "", "positive"},
		{"2", "", "I/N"},
		{"auto/4", "", "JOB_COMPLETION_INDEX is not set"},
		{"auto/4", "4", "from 0 to 3"},
	}
	for _, c := range bad {
		if _, _, err := plan.ParseShard(c.s, c.job); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseShard(%q, %q): %v, want an error mentioning %q", c.s, c.job, err, c.want)
		}
	}
}
