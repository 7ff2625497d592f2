package summary

import (
	"slices"
	"time"

	"github.com/membench/membench/runlog"
)

// buildWallSeconds is the wall time of a run's memory-construction phase:
// the length of the union of the builds' [Started, Started+Seconds]
// intervals, so conversations built in parallel count once and pauses
// between resumed sessions not at all. ok is false when a record has no
// start time (runs written before it was recorded); the caller then has
// only the per-conversation sum.
func buildWallSeconds(builds []runlog.BuildRecord) (secs float64, ok bool) {
	type span struct{ from, to time.Time }
	spans := make([]span, 0, len(builds))
	for _, b := range builds {
		if b.Started.IsZero() {
			return 0, false
		}
		spans = append(spans, span{b.Started, b.Started.Add(time.Duration(b.Seconds * float64(time.Second)))})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from.Compare(b.from) })
	var total time.Duration
	for i := 0; i < len(spans); {
		from, to := spans[i].from, spans[i].to
		j := i + 1
		for ; j < len(spans) && !spans[j].from.After(to); j++ {
			if spans[j].to.After(to) {
				to = spans[j].to
			}
		}
		total += to.Sub(from)
		i = j
	}
	return total.Seconds(), true
}
