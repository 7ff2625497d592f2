package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseShard parses "I/N" (I from 0, N >= 1). "auto/N" takes I from
// jobIndex, which the command line reads from JOB_COMPLETION_INDEX (set by
// Kubernetes Indexed Jobs); jobIndex is ignored otherwise.
func ParseShard(s, jobIndex string) (index, count int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, 0, fmt.Errorf("--shard %q: want I/N, e.g. 0/4 (I from 0), or auto/N", s)
	}
	count, err = strconv.Atoi(b)
	if err != nil || count < 1 {
		return 0, 0, fmt.Errorf("--shard %q: N must be a positive whole number", s)
	}
	if a == "auto" {
		if jobIndex == "" {
			return 0, 0, fmt.Errorf("--shard %s: JOB_COMPLETION_INDEX is not set; give the index (--shard I/%d) or run in a Kubernetes Indexed Job", s, count)
		}
		a = jobIndex
	}
	index, err = strconv.Atoi(a)
	if err != nil || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("--shard %q: the index %q must be a whole number from 0 to %d", s, a, count-1)
	}
	return index, count, nil
}
